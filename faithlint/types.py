"""Result types shared by the core, the CLI, the server and the reports.

Offsets (``start``/``end``) are code-point offsets into the draft text exactly
as read from disk (CRLF kept); positions for humans and for LSP are derived
from them by :mod:`faithlint.document.positions`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    import numpy as np

VERSION = "0.1.0"  # faithlint.__version__, stamped on reports (SARIF, HTML) and the server's info
LABELS = ("entailment", "neutral", "contradiction")
SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def scale_1_5(score: float) -> int:
    """Map a faithfulness probability onto the 1-5 scale (5 = fully supported)."""
    return int(1 + round(4 * min(max(score, 0.0), 1.0)))


def verdict_fields(probs: Iterable[float]) -> dict[str, Any]:
    """A result's label (the most likely; the first on a tie), probabilities, score (P(entailment)) and 1-5 scale."""
    p = {k: float(v) for k, v in zip(LABELS, probs)}
    return {"label": max(p, key=p.__getitem__), "probs": p, "score": p["entailment"],
            "scale_1_5": scale_1_5(p["entailment"])}


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


@dataclass(frozen=True)
class SourceMap:
    """Where each piece of a derived text (verbalised JSON, YAML or CSV) came from in its source file.

    ``segments`` are ``(start, end, src_start, src_end)`` code-point ranges, sorted by ``start`` and not
    overlapping: text ``[start, end)`` was written from source ``[src_start, src_end)``. Text between
    segments (spaces, paragraph breaks) belongs to no source range.
    """

    source_text: str
    segments: tuple[tuple[int, int, int, int], ...]

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """The smallest source range covering every segment that ``[start, end)`` touches; a range that
        touches none collapses to the end of the source range of the segment just before it."""
        segs = self.segments
        if not segs:
            return (0, 0)
        stop = end if end > start else start + 1  # an empty range is the point at ``start``
        i = max(bisect_right(segs, (start, float("inf"))) - 1, 0)  # the last segment starting at or before start
        lo: int | None = None
        hi = 0
        while i < len(segs) and segs[i][0] < stop:
            if segs[i][1] > start:
                lo = segs[i][2] if lo is None else min(lo, segs[i][2])
                hi = max(hi, segs[i][3])
            i += 1
        if lo is not None:
            return (lo, hi if end > start else lo)
        j = bisect_right(segs, (start, float("inf"))) - 1
        at = segs[j][3] if j >= 0 else segs[0][2]
        return (at, at)


@dataclass(frozen=True)
class RecordFlag:
    """A yes/no attribute of a structured record (``"OutdoorSeating": true``, ``"BusinessParking": {"garage":
    false}``), as the verbaliser wrote it: what FL410 compares a draft's claims with.

    ``words`` names it ("garage parking"), ``aliases`` are how drafts write it ("parking garage", "garage"),
    ``kind`` is ``"parking"`` (a mention counts in a clause about parking), ``"ambience"`` or ``"flag"``;
    ``statement`` is the range of the verbalised text that states it and ``source`` the value's range in the file.
    """

    words: str
    aliases: tuple[str, ...]
    value: bool
    kind: str
    statement: tuple[int, int]
    source: tuple[int, int]


@dataclass
class ContextDoc:
    """One context document: ``source`` is its path (or an id in batch mode).

    ``text`` is what the checker reads. For structured files (JSON, YAML, CSV) it is a verbalisation
    and ``offsets`` maps its ranges back into the file (``None``: ``text`` is the file itself).
    """

    source: str
    text: str
    offsets: SourceMap | None = None
    flags: tuple[RecordFlag, ...] = ()  # a record's yes/no attributes (structured contexts; FL410)
    free_text: tuple[str, ...] = ()  # a structured context's free-text values as written in text (reviews, notes)

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """``[start, end)`` of :attr:`text` as a range of the source file."""
        return (start, end) if self.offsets is None else self.offsets.to_source(start, end)

    @property
    def source_text(self) -> str:
        """The text of the source file, which :meth:`to_source` ranges index."""
        return self.text if self.offsets is None else self.offsets.source_text


@dataclass
class Verdict:
    """The checker's verdict on one unit (a sentence or a claim), before it becomes a result.

    ``evidence`` is the piece that decided it (quoted in messages), ``windows`` all the evidence it was judged
    against, ``marks`` the words the checker's span head marks (character offsets into the unit's text).
    """

    probs: np.ndarray  # P(entailment), P(neutral), P(contradiction): LABELS order
    evidence: Evidence | None = None
    windows: list[Evidence] = field(default_factory=list)
    marks: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def neutral(cls) -> Verdict:
        """No evidence to judge by (or a cancelled check): neutral, nothing quoted."""
        import numpy as np

        return cls(np.array([0.0, 1.0, 0.0]))

    @classmethod
    def copied(cls, evidence: Evidence) -> Verdict:
        """A unit the context says word for word: entailed by that evidence, no checker needed."""
        import numpy as np

        return cls(np.array([1.0, 0.0, 0.0]), evidence, [evidence])

    def fields(self) -> dict[str, Any]:
        """What a :class:`SentenceResult` takes from the verdict: :func:`verdict_fields`, evidence and windows."""
        return {**verdict_fields(self.probs), "evidence": self.evidence, "windows": self.windows}


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
    monitor: Any = None  # faithlint.monitor.monitor.MonitorVerdict when the monitor is on
    grounding: Any = None  # faithlint.evidence.grounding.GroundingVerdict when grounding scored the sentence
    claims: list[ClaimResult] | None = None  # with unit = "claim" or "both"; None: claims were not extracted
    verdict_from: str = "sentence"  # "sentence": the checker judged the sentence; "claims": aggregated from claims
    marks: list[tuple[int, int]] = field(default_factory=list)  # words the span head marks (offsets into text)

    def set_verdict(self, probs: Iterable[float]) -> None:
        """Take (entailment, neutral, contradiction) probabilities: label, probs, score and the 1-5 scale follow."""
        for key, value in verdict_fields(probs).items():
            setattr(self, key, value)

    def to_dict(self) -> dict[str, Any]:
        out = {"start": self.start, "end": self.end, "text": self.text, "label": self.label,
               "probs": {k: round(v, 4) for k, v in self.probs.items()}, "score": round(self.score, 4),
               "scale_1_5": self.scale_1_5, "evidence": self.evidence.to_dict() if self.evidence else None}
        if self.monitor is not None:
            out["monitor"] = self.monitor.to_dict()
        if self.grounding is not None:
            out["grounding"] = self.grounding.to_dict()
        if self.claims is not None:
            out["verdict_from"] = self.verdict_from
            out["claims"] = [c.to_dict() for c in self.claims]
        return out


@dataclass
class ClaimResult(SentenceResult):
    """One claim triplet of a sentence and its verdict; ``start``/``end`` cover its words in the source.

    ``text`` is the claim verbalised as a sentence (what the checker read); ``spans`` are the source
    ranges of its subject, predicate and object (a zero-width predicate: the claim has no predicate word).
    """

    subject: str = ""
    predicate: str = ""
    object: str = ""
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "predicate": self.predicate, "object": self.object,
                "spans": {k: list(v) for k, v in self.spans.items()}, **super().to_dict()}


class ClaimData(TypedDict):
    """A claim finding's triplet and the claim verbalised as a sentence."""

    subject: str
    predicate: str
    object: str
    text: str


class FindingData(TypedDict, total=False):
    """What a finding carries for fixes, code actions and hovers (each key only where the rule sets it); the JSON
    report shows it as the finding's ``data``, in the order the rule set it."""

    value: str  # FL400: the draft's value the evidence lacks; FL410: the words that name the record's attribute
    kind: str  # FL400: its kind ("money", "date", ...); FL410: "attribute"
    context_value: str | None  # FL400: the context's value standing where the draft's does (the fix), if any
    sentence: list[int]  # [start, end] of the whole sentence (fixes replace or delete it)
    evidence_quote: str  # the evidence sentence closest to the draft's
    claim: ClaimData  # FL110/FL210
    marks: list[list[int]]  # [start, end] ranges of the words blamed (a claim's subject, predicate and object)


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
    data: FindingData = field(default_factory=FindingData)  # what quick fixes need (values, spans)


@dataclass(frozen=True)
class Unchecked:
    """A part of the draft deliberately not checked, and why ("greeting", "announcement", "lead", ...)."""

    start: int
    end: int
    text: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text, "reason": self.reason}


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
    unchecked: list[Unchecked] = field(default_factory=list)  # boilerplate left out (faithlint.document.boilerplate)


FAIL_ON = ("error", "warning", "info", "never")  # --fail-on / fail_on: a severity, or never


def fails(findings: Iterable[Finding], fail_on: str) -> bool:
    """Is any finding at or above ``fail_on`` (``never``: none is)?"""
    if fail_on == "never":
        return False
    floor = SEVERITY_RANK[fail_on]
    return any(SEVERITY_RANK.get(f.severity, 0) >= floor for f in findings)
