"""FL110 contradicted-claim: one claim triplet of a sentence is contradicted by the context.

Reported with ``unit = "claim"`` or ``"both"``, ranged over the claim's own words (subject to object), so
the finding says which fact is wrong where a sentence carries several. Also reported for an unsupported claim
whose value conflicts with a value of the same kind in its evidence (see ``RuleContext.claim_code``).
"""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.claim_finding import claim_finding
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class ContradictedClaim(Rule):
    code = "FL110"
    name = "contradicted-claim"
    severity = "error"
    summary = "The checker is confident the context contradicts one claim (subject, predicate, object) of the sentence."
    # P(contradiction) >= this and >= P(entailment); calibrated by bench/claims_check.py; with grounding or the
    # monitor, FL100's threshold
    threshold = Threshold(default=0.7, on="P(contradiction)", calibrated_as="FL100")
    units = ("claim",)
    explanation = """\
Reported with `unit = "claim"` or `"both"` ([claims.md](claims.md)): the checker is confident the context
contradicts one claim triplet (subject, predicate, object) of the sentence. The range covers the claim's own
words, from its first part to its last; `data.marks` has the ranges of the subject, predicate and object,
`data.sentence` the whole sentence (for the quick fixes). Same rule as FL100, applied to the claim verbalised as a
short sentence ("The project cost $25 million."); it replaces its sentence's FL100.
"""
    example = RuleExample(context="The renovation cost $12.5 million and was funded by a city bond.",
                          draft="The renovation cost $25 million and was funded by a city bond.",
                          settings={"unit": "claim"})

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.claim_code(judged) != self.code:
            return []
        r = judged.result
        conflicts = ctx.value_conflicts(judged)
        if conflicts:
            m = conflicts[0]
            why = (f"the context has \u2018{m.context_value.text}\u2019, not \u2018{m.value.text}\u2019" if m.aligned
                   else f"\u2018{m.value.text}\u2019 is not in its evidence")
        else:
            why = f"contradiction {r.probs['contradiction']:.2f}"
        message = (f"the claim \u201c{r.text}\u201d is contradicted by the context ({why}); "
                   f"evidence: \u201c{judged.quote}\u201d")
        return [claim_finding(self, ctx, judged, message)]


RULE = ContradictedClaim()
