"""FL400 absent-fact: a number, date or named entity of the sentence that its evidence lacks.

Matched deterministically (:mod:`faithlint.rules.values`), reported only where the checker doubts
the sentence (P(entailment) below ``rules.FL400.threshold``; 1.0 = always): a value the checker is
sure of is not flagged. Nor is a value the whole context states, word for word or in another form, where the
sentence's evidence lacks it ("Taylor Swift", "100th" in a long article; "twelve" for "12"): on RAGTruth's
faithful summaries 43 of 77 FL400 findings were values the context says word for word.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.fix import Applicability, Corrector, Edit, FixTarget, Proposal, shorten
from faithlint.rules.operating_point import Threshold
from faithlint.types import Finding


class ReplaceValue:
    """Put the context's value where the draft has one the evidence does not contain. Unsafe: the finding names a
    context value only where it stands where the draft's does (:attr:`~faithlint.rules.values.Mismatch.aligned`),
    and even so it put the labelled correction in for none of the 8 it offered on Rotowire's development
    sentences, whose errors are often facts the box score does not hold (``bench/fix_precision.py``)."""

    id = "faithlint.replaceValue"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if not target.data.get("context_value"):
            return []
        span = target.span("start_end")
        value, new = str(target.data.get("value", "")), str(target.data.get("context_value"))
        if span is None or target.text[span[0]:span[1]] != value or value == new:
            return []
        title = f"Replace \u2018{shorten(value, 30)}\u2019 with \u2018{shorten(new, 30)}\u2019 from the context"
        return [Proposal(title, preferred=True, applicability=Applicability.UNSAFE)]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("start_end")
        assert span is not None
        return [Edit(span[0], span[1], str(target.data.get("context_value")))]


class AbsentValue(Rule):
    code = "FL400"
    name = "absent-fact"
    severity = "warning"
    summary = "A number, date or named entity of the sentence does not appear in its evidence."
    threshold = Threshold(default=0.3, on="the faithfulness score")
    scope = "span"
    explanation = """\
A number, date, amount, percentage or named entity in the sentence does not appear in the evidence selected for it.
By default it is reported only where the sentence is also doubted (its faithfulness score below the threshold; see
[the operating point](#the-operating-point)): it then marks the value to fix. For FL400 on every sentence whatever
the checker says — e.g. a pre-commit hook with `select = ["FL400"]` — set `[rules.FL400] threshold = 1.0`. The
matching itself is deterministic: values are normalised so that equivalent forms match (`1,000` = `1000`, `45%` =
`45 percent`, `twelve` = `12`, `third` = `3rd`, `March 4, 2024` = `2024-03-04` = `4 March 2024`, `11 AM` = `11:00`,
`Tue` = `Tuesday`, a day inside `Mon-Fri` or "daily", `5 km` = `5,000 m` ≈ `3.1 miles`, `90 minutes` = `1.5 hours`,
`$12.5 million` = `12,500,000 USD`, an age `a 37-year-old` = "Jordan, 37,", ranges share their unit: `10-12ft` has
10 ft). Derived mentions match too: a
year, month, weekday or day ("the 4th") of a date in the context, and a record's bare value (`rating: 4.5` = "4.5
stars", `price: 25` = "$25", `rank: 3` = "third"). A small spelled-out count ("one VM") is flagged only against a
count of the same thing in the evidence, never against an unrelated number. Names match in part and across spelling
(`Smith` in `John Smith`, `Peyton Manning` in `Peyton Williams Manning`, `the U.S.` = `United States`, possessives,
case, hyphens, `West African` for `West Africa`). A value the whole context states, word for word (case and spacing
aside) or in an equivalent form ("twelve percent" for `12%`), is not reported even where the sentence's evidence
lacks it: the evidence missed it, the context did not; nor is a name every word of which the context has ("Duke Blue
Devils" beside "Duke" and "the Blue Devils").
When the evidence has a value of the same kind, the message names it and the language server offers to replace the
draft's value with it.
"""
    example = RuleExample(context="The renovation cost $12.5 million and was funded by a city bond.",
                          draft="The renovation cost $25 million.")

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        r = judged.result
        threshold = ctx.threshold(self.code)
        if not r.windows or not (threshold >= 1.0 or r.score < threshold):
            return []
        out = []
        # the evidence missed it, the context has it (word for word, or in another form: "twelve" for "12", "a
        # seven-day period" for "7 days"): not an absent fact
        found = [m for m in ctx.mismatches(r.text, [w.text for w in r.windows]) if not ctx.in_context(m.value.text)]
        if found and ctx.context:  # same normalised value; a name whose every word the context has
            found = [m for m in found if not (ctx.names_in_context(m.value.text) if m.value.kind == "entity"
                                              else m.value.norm in ctx.context_values)]
        for m in found:
            a, b = judged.unit.to_source(m.value.start, m.value.end)
            # a counterpart is named (and offered as the fix) only where it stands where the draft's value does
            ctx_value = m.context_value if m.aligned else None
            msg = f"does not appear in the evidence ({m.value.kind})"
            if ctx_value:
                msg += f"; the context has \u2018{ctx_value.text}\u2019"
            elif m.context_value is None:
                msg += f"; the evidence has no {m.value.kind}"
            out.append(self.finding(ctx, judged, msg, a, b, value=m.value.text, kind=m.value.kind,
                                    context_value=ctx_value.text if ctx_value else None,
                                    sentence=[r.start, r.end]))
        return out

    def fixes(self) -> Sequence[Corrector]:
        return (REPLACE_VALUE,)


REPLACE_VALUE = ReplaceValue()
RULE = AbsentValue()
