"""The operating point: which checker verdict becomes which finding, and each rule's threshold.

A finding is a claim we make to the user, so the checker's argmax label is not enough: a
sentence the model finds 45 % entailed and 46 % neutral is uncertain, not unsupported. FL100
and FL200 (error/warning) fire only where the checker is confident; uncertain sentences get
FL300 (info). The default thresholds are calibrated on the calibration rows of the training-side
real-output files (bench/calibrate.py) for findings that are usually right; users move them with
``rules.FL100.threshold`` / ``rules.FL200.threshold`` / ``rules.FL300.threshold``. FL400 (a value
absent from the evidence) is matched deterministically but reported only where P(entailment) is
below ``rules.FL400.threshold`` (1.0 = always): it marks the value in a sentence the checker doubts.

A rule owns its threshold (:class:`Threshold` on the rule class); the point is every registered rule's
threshold by code (:meth:`~faithlint.rules.registry.RuleRegistry.operating_point`), so a new threshold
rule edits neither the settings nor this module.

The calibrated point may differ by the kind of context (:func:`context_kind`): records verbalised from JSON, YAML
or CSV, a question the draft answers, or prose the draft restates. The checker's scores mean different things on
them (RAGTruth's QA, summaries and overviews: sentence AUROC 0.85, 0.69, 0.80), so ``grounding.json`` may hold
thresholds per kind (``training/fit_point_ragtruth.py``: a kind takes its own point only where it beats the shared
one beyond the calibration part's noise; since stop 40 none does); a threshold set in the settings still wins, for
every kind or for one (``rules.CODE.by_context``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from faithlint.config import CONTEXT_KINDS, ContextKind
from faithlint.types import ContextDoc

__all__ = ["CONTEXT_KINDS", "OperatingPoint", "Threshold", "claim_code", "context_kind", "sentence_code"]

# a request for a text about the context as a whole ("Summarize the following news.", "Write an objective overview
# about the following business"), not a question the draft answers
_WRITING_REQUEST = re.compile(
    r"^\W*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:summari[sz]e|write|rewrite|paraphrase|condense|shorten|"
    r"draft|compose|produce|generate|create|give\s+(?:me\s+)?an?\s+(?:summary|overview)|"
    r"provide\s+an?\s+(?:summary|overview))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Threshold:
    """A rule's threshold: its default, what it is compared with, and where a calibrated point sets it.

    A calibrated point (the grounding model's ``grounding.json``, the monitor's) gives thresholds by rule code;
    a rule it names no threshold for takes that of ``calibrated_as`` (the claim rules take their sentence
    rule's: the calibrated score is read the same way for claims), else its ``default``.
    """

    default: float
    on: str = ""  # what it is compared with, e.g. "P(contradiction)" (``faithlint rule``, docs/rules.md)
    calibrated_as: str | None = None


class OperatingPoint(Mapping[str, float]):
    """Thresholds by rule code (what ``rules.CODE.threshold`` sets), immutable."""

    __slots__ = ("_thresholds",)

    def __init__(self, thresholds: Mapping[str, float] | None = None) -> None:
        self._thresholds = dict(thresholds or {})

    def __getitem__(self, code: str) -> float:
        return self._thresholds[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._thresholds)

    def __len__(self) -> int:
        return len(self._thresholds)

    def __hash__(self) -> int:
        return hash(frozenset(self._thresholds.items()))

    def __repr__(self) -> str:
        return f"OperatingPoint({self._thresholds!r})"

    def replace(self, **thresholds: float) -> OperatingPoint:
        """This point with some codes' thresholds changed (``point.replace(FL200=0.4)``)."""
        return OperatingPoint({**self._thresholds, **thresholds})


def context_kind(context: Sequence[ContextDoc], query: str | None) -> ContextKind:
    """What kind of context a draft is checked against, from what the linter is given (never a label):
    ``records`` where a context document is verbalised from records (JSON, YAML, CSV), else ``question`` where a
    query is given that is not a request to write about the context as a whole ("Summarize the following news."),
    else ``prose``."""
    if any(doc.offsets is not None for doc in context):
        return "records"
    if query and query.strip() and not _WRITING_REQUEST.match(query):
        return "question"
    return "prose"


def sentence_code(entailment: float, contradiction: float, point: Mapping[str, float]) -> str | None:
    """The sentence-level rule a verdict triggers, or None when the sentence is supported (a rule without a
    threshold in ``point`` never fires)."""
    if contradiction >= point.get("FL100", 2.0) and contradiction >= entailment:
        return "FL100"
    if entailment < point.get("FL200", 0.0):
        return "FL200"
    if entailment < point.get("FL300", 0.0):
        return "FL300"
    return None


def claim_code(entailment: float, contradiction: float, point: Mapping[str, float]) -> str | None:
    """The claim rule a claim's verdict triggers (FL110 contradicted, FL210 unsupported), or None.

    Claims have no info level: an unsure claim is simply not reported, its sentence's FL300 says the checker
    is unsure.
    """
    if contradiction >= point.get("FL110", 2.0) and contradiction >= entailment:
        return "FL110"
    if entailment < point.get("FL210", 0.0):
        return "FL210"
    return None
