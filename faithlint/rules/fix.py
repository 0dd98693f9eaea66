"""What a fix is, low enough that a rule builds its own (as a ruff rule builds its violation's fix).

A rule names the fixes its findings offer (:meth:`faithlint.rules.base.Rule.fixes`): each a :class:`Corrector`
that works from the finding's data alone (:class:`FixTarget`: the draft text and the JSON-ready dict that
:func:`faithlint.fixes.edits.finding_data` makes of a finding, the same the language server puts in a
diagnostic's ``data``), so ``faithlint check --fix`` and the editor's stateless code actions build the same edits.
The machinery that applies fixes, writes drafts and registers correctors is :mod:`faithlint.fixes.edits`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, runtime_checkable

from faithlint.types import ClaimData


class Applicability(enum.Enum):
    """When a fix may be applied without a person choosing it (ruff's ``Applicability``), least to most sure.

    ``faithlint check --fix`` applies safe fixes, ``--fix --unsafe-fixes`` unsafe ones too; display-only fixes are
    offered in the editor only, where a person picks them.
    """

    DISPLAY_ONLY = "display-only"
    UNSAFE = "unsafe"  # changes what the draft says and may be wrong
    SAFE = "safe"

    def applies_at(self, floor: Applicability) -> bool:
        """Whether a fix of this applicability is applied when fixes down to ``floor`` are asked for."""
        return _RANK[self] >= _RANK[floor]


_RANK = {Applicability.DISPLAY_ONLY: 0, Applicability.UNSAFE: 1, Applicability.SAFE: 2}


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (code points) with ``new_text``."""

    start: int
    end: int
    new_text: str


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """The text after ``edits`` (non-overlapping, any order): what the editor (or ``--fix``) writes."""
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:e.start] + e.new_text + text[e.end:]
    return text


@dataclass
class Proposal:
    """A fix a corrector offers for one finding; its edits are computed only when it is chosen."""

    title: str
    preferred: bool = False
    applicability: Applicability = Applicability.DISPLAY_ONLY
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Fix:
    """A proposal with its edits: what ``--fix`` applies and ``--diff`` shows."""

    corrector: str
    code: str
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.DISPLAY_ONLY
    score: float | None = None  # the re-checked faithfulness score of the corrected text, when a corrector has one

    @property
    def span(self) -> tuple[int, int]:
        return min(e.start for e in self.edits), max(e.end for e in self.edits)

    @property
    def safe(self) -> bool:
        """Applied by ``--fix`` (the ``safe`` key of ``fix --pairs`` output)."""
        return self.applicability is Applicability.SAFE

    @property
    def unsafe(self) -> bool:
        """Applied by ``--fix --unsafe-fixes`` only (the ``unsafe`` key of ``fix --pairs`` output)."""
        return self.applicability is Applicability.UNSAFE


class EvidenceData(TypedDict):
    """Where a finding's evidence is: a context file and a code-point range of the text the checker read."""

    source: str
    start: int
    end: int


class FixData(TypedDict, total=False):
    """A finding as correctors and hovers see it (:func:`faithlint.fixes.edits.finding_data`), JSON-ready: the
    language server sends it as the diagnostic's ``data`` (with ``uri`` and ``version``) and gets it back with
    each code action, so no state is kept between the two."""

    uri: str  # the server's: which document
    version: int | None  # the server's: which version of it
    code: str
    start: int
    end: int
    sentence: list[int]  # [start, end] of the whole sentence
    label: str | None
    score: float | None
    value: str  # FL400
    kind: str  # FL400
    context_value: str | None  # FL400
    claim: ClaimData  # FL110/FL210
    marks: list[list[int]]
    evidence: EvidenceData
    quote: str  # the evidence sentence closest to the draft's
    start_end: list[int]  # [start, end], added by FixTarget


@dataclass
class FixTarget:
    """One finding of one draft text, as correctors see it. ``data`` is :func:`finding_data`'s dict."""

    text: str
    data: FixData

    def __post_init__(self) -> None:
        start, end = self.data.get("start"), self.data.get("end")
        if "start_end" not in self.data and isinstance(start, int) and isinstance(end, int):
            self.data = {**self.data, "start_end": [start, end]}

    @property
    def code(self) -> str:
        return str(self.data.get("code", ""))

    def span(self, key: str) -> tuple[int, int] | None:
        """The ``[start, end]`` under ``key`` if it is a valid span of :attr:`text`, else None."""
        value = self.data.get(key)
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
            a, b = value
            if 0 <= a <= b <= len(self.text):
                return a, b
        return None


@runtime_checkable
class Corrector(Protocol):
    id: str

    def propose(self, target: FixTarget) -> list[Proposal]:
        """Fixes that apply to this finding (cheap: the editor asks on every lightbulb)."""
        ...

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        """The edits of a chosen proposal."""
        ...


def shorten(s: str, n: int = 60) -> str:
    """``s`` on one line, cut to ``n`` characters with an ellipsis (for fix titles)."""
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 1].rstrip() + "\u2026"


def line_start(text: str, offset: int) -> int:
    """The offset where the line holding ``offset`` starts."""
    i = offset
    while i > 0 and text[i - 1] not in "\r\n":
        i -= 1
    return i
