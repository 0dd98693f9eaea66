"""One synthetic training pair: the record the synthesisers of both modules produce."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Example:
    premise: str
    hypothesis: str
    label: str
    kind: str
    doc_id: str = ""
    changed: list[int] = field(default_factory=list)  # [start, end) in hypothesis, or []

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
