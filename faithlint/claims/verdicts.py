"""Claim verdicts in a check: a claim's result, its sentence's verdict from them, and which findings stay."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from faithlint.claims.aggregate import aggregate
from faithlint.claims.units import ClaimUnit
from faithlint.rules.fl100_contradiction import Contradiction
from faithlint.rules.fl110_contradicted_claim import ContradictedClaim
from faithlint.rules.fl200_unsupported import Unsupported
from faithlint.rules.fl300_low_faithfulness import LowFaithfulness
from faithlint.rules.operating_point import OperatingPoint, claim_code
from faithlint.types import LABELS, ClaimResult, Finding, SentenceResult, Verdict


def claim_result(c: ClaimUnit, verdict: Verdict) -> ClaimResult:
    # no marks: a claim's would index its verbalisation, not the draft
    return ClaimResult(start=c.start, end=c.end, text=c.text, **verdict.fields(), subject=c.words("subject"),
                       predicate=c.words("predicate"), object=c.words("object"), spans=dict(c.spans))


def claim_findings(s: SentenceResult, findings: Sequence[Finding]) -> dict[int, Finding]:
    """The finding (FL110/FL210) that reports each claim of ``s``, by claim index (the hover and the HTML report
    show a claim's verdict beside the finding about it)."""
    out: dict[int, Finding] = {}
    for f in findings:
        claim = f.data.get("claim") if isinstance(f.data, Mapping) else None
        if not isinstance(claim, Mapping):
            continue
        for j, c in enumerate(s.claims or ()):
            if j not in out and (c.start, c.end, c.text) == (f.start, f.end, claim.get("text")):
                out[j] = f
                break
    return out


def claims_verdict(s: SentenceResult, mode: str) -> tuple[np.ndarray, int]:
    claims = s.claims or []
    return aggregate([[c.probs[k] for k in LABELS] for c in claims], mode)


def take_claims_verdict(s: SentenceResult, mode: str) -> None:
    """A sentence judged through its claims takes their aggregate (``claim_aggregation``), and the deciding
    claim's evidence; its windows are all its claims' (FL400 looks for its values in them)."""
    probs, best = claims_verdict(s, mode)
    claims = s.claims or []
    s.set_verdict(probs)
    s.evidence = claims[best].evidence
    seen: set[tuple[str, int, int]] = set()
    s.windows = [w for c in claims for w in c.windows
                 if (w.source, w.start, w.end) not in seen and not seen.add((w.source, w.start, w.end))]


def claims_flag(s: SentenceResult, mode: str, point: OperatingPoint) -> bool:
    """Whether the sentence's claims, aggregated, flag it: ``strict`` reports every flagged claim; ``soft`` and
    ``major`` only the flagged claims of a sentence whose aggregate is flagged at the claim operating point."""
    if mode == "strict":
        return True
    probs, _ = claims_verdict(s, mode)
    return claim_code(float(probs[0]), float(probs[2]), point) is not None


def replaced(claim_codes: set[str]) -> set[str]:
    """The sentence codes that claim findings with ``claim_codes`` make redundant.

    A claim finding is the more precise report: any replaces the sentence's FL200 (unsupported) and FL300
    (unsure); an FL110 replaces its FL100. A sentence contradiction whose claims are only unsupported stays:
    it says more than they do. Span findings (FL400 values) always stay.
    """
    if not claim_codes:
        return set()
    return {Unsupported.code, LowFaithfulness.code} | (
        {Contradiction.code} if ContradictedClaim.code in claim_codes else set())


def deduplicated(own: list[Finding], claims: list[Finding]) -> list[Finding]:
    """The sentence's own findings that its claim findings do not make redundant (:func:`replaced`)."""
    drop = replaced({f.code for f in claims})
    return [f for f in own if f.code not in drop]
