"""Common ground: whether a sentence and the evidence said to contradict it talk about the same things.

NLI checkers learn from caption data, where two different events in one scene are labelled a
contradiction; so "A rooftop café opened on the top floor" against "The library reopened on March 4"
comes out contradicted, though the context simply never mentions a café. Such a sentence is unsupported,
not contradicted: FL100 ("the context says otherwise", an error) needs at least one content word
(a name, noun, verb or number, compared by a short stem) that the sentence shares with its evidence;
without one, the verdict is reported as FL200. A sentence flagged either way is still flagged, so the
response-level precision and recall of the operating point do not change; only the rule code and the
severity do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she should
so some such than that the their theirs them themselves then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you your
yours yourself yourselves one two new said says say according also however many much may might must
""".split())


def stem(word: str) -> str:
    """A crude stem, enough to match "renovated" with "renovation" and "funds" with "funded"."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[:-len(suffix)]
            break
    return w[:5]


def content_stems(text: str) -> set[str]:
    """Stems of the words that carry content: numbers, and words of three or more letters that are not stop words."""
    return {stem(w) for w in _WORD.findall(text)
            if w.isdigit() or (len(w) >= 3 and w.lower() not in STOP_WORDS)}


def common_ground(sentence: str, evidence: Iterable[str]) -> bool:
    """True when the sentence shares a content word with the evidence (or has no content words to share)."""
    own = content_stems(sentence)
    if not own:
        return True
    return any(own & content_stems(text) for text in evidence)
