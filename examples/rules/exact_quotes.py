"""QT100 inexact-quote: a passage the draft puts in quotation marks must stand word for word in its evidence."""

import re

from faithlint.rules import Rule, register

QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{8,})[\"\u201d]")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class InexactQuote(Rule):
    code = "QT100"
    name = "inexact-quote"
    severity = "warning"
    summary = "A quotation that does not appear word for word in the evidence."
    scope = "span"  # marks the quotation, not the whole sentence

    def check(self, judged, ctx):
        evidence = _norm(" ".join(e.text for e in judged.result.windows))
        for m in QUOTED.finditer(judged.unit.text):
            if _norm(m.group(1)) not in evidence:
                start, end = judged.unit.to_source(m.start(1), m.end(1))
                yield self.finding(ctx, judged, f"\u201c{m.group(1)}\u201d is not quoted exactly", start, end)


register(InexactQuote())
