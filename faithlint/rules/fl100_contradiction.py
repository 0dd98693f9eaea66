"""FL100 contradiction: the checker is confident the context contradicts the sentence."""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class Contradiction(Rule):
    code = "FL100"
    name = "contradiction"
    severity = "error"
    summary = "The checker is confident the context contradicts the sentence, and they share a content word."
    # P(contradiction) >= this and >= P(entailment); without grounding (its grounding.json has 0.6)
    threshold = Threshold(default=0.7, on="P(contradiction)")
    explanation = """\
The checker is confident the context contradicts the sentence (see [the operating point](#the-operating-point)):
the evidence that decided it (shown in the message and in `evidence`) says something incompatible with the
sentence. Typical causes: a swapped number, name or date, a negation, an antonym, swapped roles.

A contradiction needs common ground: the sentence must share at least one content word (a name, noun, verb or
number other than a stop word, compared by a short stem) with that evidence. NLI checkers learn from caption data,
where two different events in one scene are a contradiction, so "A rooftop café opened on the top floor" against
"The library reopened on March 4" comes out contradicted although the context never mentions a café; such a
sentence is reported as FL200 (unsupported), which is what the user must fix. The sentence is flagged either way,
so the operating point's response-level precision and recall do not change (`faithlint/rules/common_ground.py`).
"""
    example = RuleExample(context="Director Helen Okafor said daily visitor numbers have doubled since the reopening.",
                          # "halved" was the example until issue 41: the int8 graph reads "halved" against "doubled"
                          # as 0.42 contradiction (fp32: 0.84); negations and changed values kept their verdicts
                          draft="Daily visitor numbers have fallen since the reopening.")

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.verdict_code(judged) != self.code:
            return []
        r = judged.result
        message = (f"contradicted by the context (contradiction {r.probs['contradiction']:.2f}, score {r.score:.2f}, "
                   f"{r.scale_1_5}/5): \u201c{judged.quote}\u201d")
        return self.sentence_finding(ctx, judged, message)

RULE = Contradiction()
