"""FL200 unsupported: the faithfulness score says the context does not support the sentence."""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext
from faithlint.types import Finding


class Unsupported(Rule):
    code = "FL200"
    name = "unsupported"
    severity = "warning"
    summary = "The context does not support the sentence: its faithfulness score is below the threshold."
    threshold = 0.35  # P(entailment) < this without grounding (bench/calibrate.py); grounding.json holds its own

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.verdict_code(judged) != self.code:
            return []
        r = judged.result
        message = (f"not supported by the context (score {r.score:.2f}, {r.scale_1_5}/5); "
                   f"closest evidence: \u201c{judged.quote}\u201d")
        return self.sentence_finding(ctx, judged, message)

RULE = Unsupported()
