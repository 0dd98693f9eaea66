"""Token marks: the words of a sentence the context neither made likely nor more likely.

A finding on a sentence says "something here is unsupported"; the marks say which words, so an
editor underlines the detail to fix instead of the whole sentence.
"""

from __future__ import annotations

import re

from faithlint.evidence.pieces import STOPWORDS
from faithlint.models.checkers.surrogate import SentenceSignals
from faithlint.monitor.features import unlifted

_WORD = re.compile(r"[\w'’-]+", re.UNICODE)


def unlifted_spans(sig: SentenceSignals, text: str) -> list[list[int]]:
    """Character spans (in ``text``, the sentence) of the words holding an unlifted token."""
    if not len(sig.logp_ctx):
        return []
    return word_spans(text, [[a, b] for (a, b), flag in zip(sig.offsets, unlifted(sig)) if flag and b > a])


def word_spans(text: str, token_spans: list[list[int]]) -> list[list[int]]:
    """Token spans widened to the words they touch; stop words dropped; neighbours merged."""
    out: list[list[int]] = []
    for m in _WORD.finditer(text):
        a, b = m.span()
        if m.group(0).lower() in STOPWORDS:
            continue
        if any(x < b and a < y for x, y in token_spans):
            if out and text[out[-1][1]:a].strip() == "":
                out[-1][1] = b
            else:
                out.append([a, b])
    return out
