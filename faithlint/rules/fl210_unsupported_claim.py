"""FL210 unsupported-claim: the context does not support one claim triplet of the sentence.

Reported with ``unit = "claim"`` or ``"both"``, ranged over the claim's own words.
"""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.claim_finding import claim_finding
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class UnsupportedClaim(Rule):
    code = "FL210"
    name = "unsupported-claim"
    severity = "warning"
    summary = "The checker is confident the context does not support one claim (subject, predicate, object)."
    # P(entailment) < this; calibrated on claims by bench/claims_check.py; with grounding or the monitor, FL200's
    threshold = Threshold(default=0.4, on="P(entailment)", calibrated_as="FL200")
    units = ("claim",)
    explanation = """\
Reported with `unit = "claim"` or `"both"`: the checker is confident the context does not support one claim
triplet of the sentence. Ranged over the claim's words; it replaces its sentence's FL200 and FL300. With
`claim_aggregation = "soft"` or `"major"` a sentence's flagged claims are reported only when its claims'
aggregate is flagged too ([claims.md](claims.md#aggregation-claims--sentence--draft)).
"""
    example = RuleExample(context="The Riverside Public Library reopened on March 4, 2024, after an 18-month "
                                  "renovation.",
                          draft="The library reopened on March 4, 2024, and a bakery opened a rooftop café.",
                          settings={"unit": "claim"})

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.claim_code(judged) != self.code:
            return []
        r = judged.result
        message = (f"the claim \u201c{r.text}\u201d is not supported by the context (score {r.score:.2f}); "
                   f"closest evidence: \u201c{judged.quote}\u201d")
        return [claim_finding(self, ctx, judged, message)]


RULE = UnsupportedClaim()
