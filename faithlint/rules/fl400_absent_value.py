"""FL400 absent-fact: a number, date or named entity of the sentence that its evidence lacks.

Matched deterministically (:mod:`faithlint.rules.values`), reported only where the checker doubts
the sentence (P(entailment) below ``rules.FL400.threshold``; 1.0 = always): a value the checker is
sure of is not flagged.
"""

from __future__ import annotations

from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext
from faithlint.types import Finding


class AbsentValue(Rule):
    code = "FL400"
    name = "absent-fact"
    severity = "warning"
    summary = "A number, date or named entity of the sentence does not appear in its evidence."
    threshold = 0.3
    scope = "span"

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        r = judged.result
        if not r.windows or not (ctx.point.values >= 1.0 or r.score < ctx.point.values):
            return []
        out = []
        for m in ctx.mismatches(r.text, [w.text for w in r.windows]):
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


RULE = AbsentValue()
