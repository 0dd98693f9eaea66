"""FL200 unsupported: the faithfulness score says the context does not support the sentence."""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class Unsupported(Rule):
    code = "FL200"
    name = "unsupported"
    severity = "warning"
    summary = "The context does not support the sentence: its faithfulness score is below the threshold."
    # P(entailment) < this without grounding (bench/calibrate.py); grounding.json holds its own
    threshold = Threshold(default=0.35, on="the faithfulness score")
    explanation = """\
The context does not support the sentence (its faithfulness score is below the threshold: the checker doubts it,
or it says things the context does not contain at all) and the checker does not find it contradicted: it adds a
detail that is not in the context (an extrinsic hallucination), or the supporting passage is missing from the
context you gave. The message quotes the closest evidence found.

Against a record (JSON, YAML or CSV) with reviews, a sentence that sums up what the reviewers say ("Customers
praise the friendly staff", "One reviewer noted the long wait") is reported as FL300 (info) instead: single
reviews cannot settle a summary of many, and on real overviews 9 in 10 such warnings were false alarms
(`faithlint/document/review_talk.py`). `check_review_rollups = true` warns on them again. A sentence that only
says what the record leaves out ("Reservations are not mentioned in the data.") is not reported when the record's
own statements (without its reviews) name none of those things (`faithlint/rules/record_gaps.py`;
`check_boilerplate = true` judges it again).
"""
    example = RuleExample(context="The Riverside Public Library reopened on March 4, 2024, after an 18-month "
                                  "renovation.",
                          draft="A rooftop café run by a local bakery opened on the top floor.")

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.verdict_code(judged) != self.code:
            return []
        r = judged.result
        message = (f"not supported by the context (score {r.score:.2f}, {r.scale_1_5}/5); "
                   f"closest evidence: \u201c{judged.quote}\u201d")
        return self.sentence_finding(ctx, judged, message)

RULE = Unsupported()
