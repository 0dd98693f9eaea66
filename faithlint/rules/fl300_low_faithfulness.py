"""FL300 low-faithfulness: the checker is unsure, so the sentence gets an info, not a warning.

It is also the fallback of FL100/FL200: with either of them turned off, its sentences are still
reported here at info level rather than dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class LowFaithfulness(Rule):
    code = "FL300"
    name = "low-faithfulness"
    severity = "info"
    summary = "Not flagged, but the faithfulness score is below the threshold: the checker is unsure."
    threshold = Threshold(default=0.5, on="the faithfulness score")  # P(entailment) < this
    explanation = """\
The sentence is not flagged as FL100 or FL200, but its faithfulness score (with grounding, the checker's
calibrated probability of entailment weighed with what the context lacks; without, that probability) is below
the threshold: the checker is unsure, so this is information, not a warning. Raise the threshold to be stricter;
the 1–5 scale in reports is `1 + round(4 × score)`. With FL100 or FL200 turned off, their sentences are reported
here.

```toml
[rules.FL300]
threshold = 0.7
severity = "warning"
```
"""
    example = RuleExample(context="The Riverside Public Library reopened on March 4, 2024, after an 18-month "
                                  "renovation. The library is closed on Sundays. Director Helen Okafor said daily "
                                  "visitor numbers have doubled since the reopening.",
                          draft="Helen Okafor leads the library.")

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        code = ctx.verdict_code(judged)
        if code is None or (code != self.code and ctx.enabled(code)):
            return []
        r = judged.result
        message = (f"low faithfulness {r.score:.2f} (below {ctx.threshold(self.code):.2f}, {r.scale_1_5}/5); "
                   f"evidence: \u201c{judged.quote}\u201d")
        if ctx.left_to_info(judged):
            message += ("; it sums up what the reviews say, which single reviews cannot settle: info, not a warning "
                        "(check_review_rollups = true warns)")
        return self.sentence_finding(ctx, judged, message, head_marks=False)  # unsure: no words to blame

RULE = LowFaithfulness()
