"""FL300 low-faithfulness: the checker is unsure, so the sentence gets an info, not a warning.

It is also the fallback of FL100/FL200: with either of them turned off, its sentences are still
reported here at info level rather than dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext
from faithlint.types import Finding


class LowFaithfulness(Rule):
    code = "FL300"
    name = "low-faithfulness"
    severity = "info"
    summary = "Not flagged, but the faithfulness score is below the threshold: the checker is unsure."
    threshold = 0.5  # P(entailment) < this

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        code = ctx.verdict_code(judged)
        if code is None or (code != self.code and ctx.enabled(code)):
            return []
        r = judged.result
        message = (f"low faithfulness {r.score:.2f} (below {ctx.point.low:.2f}, {r.scale_1_5}/5); "
                   f"evidence: \u201c{judged.quote}\u201d")
        return self.sentence_finding(ctx, judged, message, head_marks=False)  # unsure: no words to blame

RULE = LowFaithfulness()
