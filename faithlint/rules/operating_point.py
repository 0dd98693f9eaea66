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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass


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
