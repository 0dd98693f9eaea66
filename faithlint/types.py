"""Result types shared by the core, the CLI, the server and the reports.

Offsets (``start``/``end``) are code-point offsets into the draft text exactly
as read from disk (CRLF kept); positions for humans and for LSP are derived
from them by :mod:`faithlint.positions`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

LABELS = ("entailment", "neutral", "contradiction")
SEVERITIES = ("error", "warning", "info")


@dataclass
class Evidence:
    """A context window: which file, where, what it says and its selection weight."""

    source: str
    start: int
    end: int
    text: str
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "start": self.start, "end": self.end, "text": self.text}


@dataclass
class ContextDoc:
    """One context document: ``source`` is its path (or an id in batch mode)."""

    source: str
    text: str


@dataclass
class SentenceResult:
    start: int
    end: int
    text: str
    label: str
    probs: dict[str, float]
    score: float
    scale_1_5: int
    evidence: Evidence | None
    windows: list[Evidence] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text, "label": self.label,
                "probs": {k: round(v, 4) for k, v in self.probs.items()}, "score": round(self.score, 4),
                "scale_1_5": self.scale_1_5, "evidence": self.evidence.to_dict() if self.evidence else None}


@dataclass
class Finding:
    code: str
    severity: str
    message: str
    start: int
    end: int
    label: str | None = None
    score: float | None = None
    evidence: Evidence | None = None
    data: dict[str, Any] = field(default_factory=dict)  # what quick fixes need (values, spans)


@dataclass
class DraftResult:
    """Everything faithlint found about one draft."""

    text: str
    path: str | None = None
    id: str | None = None
    score: dict[str, float] = field(default_factory=dict)  # mean, min, unsupported_share
    sentences: list[SentenceResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_plain(self) -> dict[str, Any]:
        return asdict(self)
