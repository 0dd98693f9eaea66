"""FL100 contradiction: the checker is confident the context contradicts the sentence."""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext
from faithlint.types import Finding


class Contradiction(Rule):
    code = "FL100"
    name = "contradiction"
    severity = "error"
    summary = "The checker is confident the context contradicts the sentence, and they share a content word."
    threshold = 0.7  # P(contradiction) >= this and >= P(entailment); without grounding (its grounding.json has 0.6)

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.verdict_code(judged) != self.code:
            return []
        r = judged.result
        message = (f"contradicted by the context (contradiction {r.probs['contradiction']:.2f}, score {r.score:.2f}, "
                   f"{r.scale_1_5}/5): \u201c{judged.quote}\u201d")
        return self.sentence_finding(ctx, judged, message)

RULE = Contradiction()
