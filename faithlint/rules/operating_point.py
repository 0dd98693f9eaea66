"""The operating point: which checker verdict becomes which sentence-level finding.

A finding is a claim we make to the user, so the checker's argmax label is not enough: a
sentence the model finds 45 % entailed and 46 % neutral is uncertain, not unsupported. FL100
and FL200 (error/warning) fire only where the checker is confident; uncertain sentences get
FL300 (info). The default thresholds are calibrated on the calibration rows of the training-side
real-output files (bench/calibrate.py) for findings that are usually right; users move them with
``rules.FL100.threshold`` / ``rules.FL200.threshold`` / ``rules.FL300.threshold``. FL400 (a value
absent from the evidence) is matched deterministically but reported only where P(entailment) is
below ``rules.FL400.threshold`` (1.0 = always): it marks the value in a sentence the checker doubts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OperatingPoint:
    contradiction: float  # FL100 when P(contradiction) >= this (and it outweighs P(entailment))
    unsupported: float  # FL200 when P(entailment) < this
    low: float  # FL300 when P(entailment) < this
    values: float = 1.0  # FL400 only where P(entailment) < this: a value the checker is sure of is not flagged


def sentence_code(entailment: float, contradiction: float, point: OperatingPoint) -> str | None:
    """The sentence-level rule a verdict triggers, or None when the sentence is supported."""
    if contradiction >= point.contradiction and contradiction >= entailment:
        return "FL100"
    if entailment < point.unsupported:
        return "FL200"
    if entailment < point.low:
        return "FL300"
    return None



def claim_code(entailment: float, contradiction: float, point: OperatingPoint) -> str | None:
    """The claim rule a claim's verdict triggers (FL110 contradicted, FL210 unsupported), or None.

    ``point`` holds the claim thresholds (``Config.claim_point``); claims have no info level: an unsure claim
    is simply not reported, its sentence's FL300 says the checker is unsure.
    """
    code = sentence_code(entailment, contradiction, OperatingPoint(point.contradiction, point.unsupported, 0.0))
    return {"FL100": "FL110", "FL200": "FL210"}.get(code or "")
