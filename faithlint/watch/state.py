"""What ``faithlint watch`` is told (:class:`WatchOptions`) and what it remembers per draft (:class:`DraftState`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only
    from faithlint.config import Config
    from faithlint.types import DraftResult


@dataclass
class WatchOptions:
    dirs: list[Path] = field(default_factory=lambda: [Path(".")])
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    report_dir: Path | None = None
    sarif: bool = False
    html: bool = False
    config: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)  # model / select / ignore / fail_on
    context: list[Path] = field(default_factory=list)
    query: str | None = None
    allow_no_context: bool = False
    gitignore: bool = True
    debounce: float = 0.3
    max_delay: float = 5.0  # a file written to continuously is still checked this often
    once: bool = False
    live: bool | None = None  # None: a rich live table when stdout is a terminal


@dataclass
class DraftState:
    path: Path
    root: Path
    display: str
    signature: str | None = None
    deps: set[Path] = field(default_factory=set)
    how: str = ""
    result: DraftResult | None = None
    error: str | None = None
    checks: int = 0
    checked_at: float = 0.0
    contexts: dict[str, str] = field(default_factory=dict)  # source -> text, for SARIF evidence regions
    config: Config | None = None  # the settings of its last check (its own nearest config, flags on top)
    config_path: Path | None = None
