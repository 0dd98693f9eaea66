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

from faithlint.evidence.pieces import STOPWORDS

_WORD = re.compile(r"[^\W_]+")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")
# relevance's stop words, and the words of reporting and vague quantity that say nothing of a topic
STOP_WORDS = STOPWORDS | frozenset("""
above according again against am because below could doing further having hers herself himself however
itself let many may might much must myself new nor now off once one ours ourselves said say says should
theirs themselves through two until while would yours yourself yourselves
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
