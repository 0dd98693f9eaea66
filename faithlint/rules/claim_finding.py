"""The finding of a claim rule: ranged over the claim's words, with what fixes and hovers need."""

from __future__ import annotations

from typing import TYPE_CHECKING

from faithlint.types import Finding

if TYPE_CHECKING:
    from faithlint.rules.base import Judged, Rule, RuleContext


def claim_finding(rule: Rule, ctx: RuleContext, judged: Judged, message: str) -> Finding:
    """``data.sentence`` is the whole sentence (fixes replace or delete it); ``data.claim`` the triplet and
    ``data.marks`` its subject/predicate/object ranges (zero-width parts left out)."""
    r = judged.result
    sentence = getattr(judged.unit, "sentence", None)
    spans = getattr(r, "spans", {})
    claim = {"subject": getattr(r, "subject", ""), "predicate": getattr(r, "predicate", ""),
             "object": getattr(r, "object", ""), "text": r.text}
    return rule.finding(ctx, judged, message,
                        sentence=[sentence.start, sentence.end] if sentence is not None else [r.start, r.end],
                        evidence_quote=judged.quote, claim=claim,
                        marks=[list(v) for v in spans.values() if v[1] > v[0]])
