"""Figures as the evidence writes them: the checker's hypotheses rewritten, the span head's marks mapped back.

The checker reads "forty" against a premise's "40" as a different number far more often than the same words
(bench/paraphrase_probe.py), so before it judges a unit, each number, amount, percent or quantity whose parsed
value equals one in the unit's evidence but is written another way is written the evidence's way
(``config.align_values``). Findings keep the draft's offsets: the edits are applied to the hypothesis only,
and the span head's marks on it are mapped back through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

Edit = tuple[int, int, str]  # start, end (in the text before), new text


@lru_cache(maxsize=1)
def extractor() -> Any:
    """A regex-only value extractor (figures need no NER; every checked unit is read), one per process."""
    from faithlint.rules.values import ValueExtractor

    return ValueExtractor(nlp=False)


def hypothesis_edits(selections: Sequence[Any], hypotheses: Sequence[str]) -> list[list[Edit]]:
    """Per unit, the edits that write its hypothesis's figures as its evidence does (none without premises)."""
    vx = extractor()
    return [vx.alignment(h, [e.text for e in sel.evidence]) if sel.premises else []
            for sel, h in zip(selections, hypotheses)]


def rewritten(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with ``edits`` (in order, not overlapping) applied."""
    for start, end, new in reversed(edits):
        text = text[:start] + new + text[end:]
    return text


def marks_before_edits(marks: list[tuple[int, int]] | None, edits: Sequence[Edit]) -> list[tuple[int, int]] | None:
    """Marks made on the ``rewritten`` text as offsets into the text before ``edits``: a mark that starts or ends
    inside a rewritten stretch covers the whole of what it replaced."""
    if not marks or not edits:
        return marks

    def back(x: int, end: bool) -> int:
        delta = 0
        for start, stop, new in edits:
            ns, ne = start + delta, start + delta + len(new)
            if x < ns or (end and x == ns):
                return x - delta
            if x <= ne:
                return stop if end else start
            delta += len(new) - (stop - start)
        return x - delta

    return [(back(a, False), back(b, True)) for a, b in marks]
