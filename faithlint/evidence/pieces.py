"""Evidence assembly: one premise per sentence, built from the context pieces that carry its facts.

Fixed windows fail real outputs in two ways: the most *topical* window is often not the one
with the facts (a summary sentence about the game judged against the article's opening), and a
sentence that fuses facts from distant places is entailed by no single window. Assembly ranks
small context pieces (a sentence, or a few short lines packed together) by embedding relevance
plus word and number overlap, takes the best ones (and the sentence before the best, for its
pronouns) within the checker's token budget, and joins them in document order; distant pieces
are separated by an ellipsis. A context that fits the budget whole is used whole.

The same function builds training premises (training/build_data.py), so the checker is trained
on the shapes it judges.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from faithlint.types import Evidence

# Words that carry no fact: left out of relevance, grounding, the monitor's features and FL400's common ground.
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these "
    "those he she they we you i his her their our your my me him them us not no so than then there here which who "
    "whom what when where why how all any both each few more most other some such only own same too very can will "
    "just do does did has have had also into over under about after before between during out up down".split())


def content_words(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS}


PIECE_TOKENS = 48  # short lines (JSON records, tables) are packed up to this size; longer sentences are cut
GAP = " \u2026 "
LEXICAL_WEIGHT = 0.5  # word/number overlap beside the embedding cosine in a piece's relevance
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# "[1]", "[2, 5]", "[3-4]": a RAG answer's citation markers point at its sources; they state no number
CITATION = re.compile(r"\[\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*\]")


def without_citations(text: str) -> str:
    """``text`` with its :data:`CITATION` markers blanked out (same length, so offsets still hold)."""
    return CITATION.sub(lambda m: " " * len(m.group()), text) if "[" in text else text


@dataclass(frozen=True)
class Piece:
    """A small slice of one context document, the unit that assembly ranks."""

    source: str
    start: int
    end: int
    text: str
    tokens: int
    doc: int  # index of the document in the context list
    index: int  # position in the document


_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DECIMAL = re.compile(r"\d+\.\d+")


def number_term(number: str) -> str:
    """A number as a term, by value: "32,000" and "32000", "4.0" and "4" are one term (a JSON record's 4.0 is
    the "4 stars" of an overview)."""
    if _GROUPED.fullmatch(number):
        number = number.replace(",", "")
    if _DECIMAL.fullmatch(number):
        number = number.rstrip("0").rstrip(".")
    return "#" + number


@lru_cache(maxsize=8192)  # an editor's check asks again for every unchanged sentence and context piece
def terms(text: str) -> frozenset[str]:
    """Content words and numbers: what a piece must share with a sentence to carry its facts."""
    text = without_citations(text)
    return frozenset(content_words(text)) | frozenset(number_term(n) for n in _NUMBER.findall(text))


def lexical_overlap(sentence: str, pieces: Sequence[frozenset[str]]) -> np.ndarray:
    """Share of the sentence's content words and numbers found in each piece (numbers count double)."""
    words = terms(sentence)
    weight = {w: 2.0 if w.startswith("#") else 1.0 for w in words}
    denom = sum(weight.values())
    out = np.zeros(len(pieces), dtype=np.float32)
    if not denom:
        return out
    for j, pw in enumerate(pieces):
        out[j] = sum(weight[w] for w in words & pw) / denom
    return out


def assemble(pieces: Sequence[Piece], scores: np.ndarray, budget: int, neighbours: int = 1) -> list[int]:
    """Indices of the pieces that form the premise, in document order, within ``budget`` tokens."""
    if not pieces:
        return []
    if sum(p.tokens for p in pieces) <= budget:
        return list(range(len(pieces)))
    order = np.argsort(-scores, kind="stable")
    chosen: set[int] = set()
    used = 0
    smallest = min(p.tokens for p in pieces)
    for rank, i in enumerate(int(x) for x in order):
        if used + smallest > budget:
            break
        if i in chosen or used + pieces[i].tokens > budget:
            continue
        chosen.add(i)
        used += pieces[i].tokens
        if rank < neighbours:  # the best piece's predecessor usually names who "he" or "it" is
            j = i - 1
            if j >= 0 and j not in chosen and pieces[j].doc == pieces[i].doc and used + pieces[j].tokens <= budget:
                chosen.add(j)
                used += pieces[j].tokens
    if not chosen:  # a sentence so long that no piece fits beside it: the best piece, cut by the checker
        chosen.add(int(order[0]))
    return sorted(chosen)


def premise_text(pieces: Sequence[Piece], indices: Sequence[int]) -> str:
    """Join the chosen pieces; adjacent pieces read as the original text, gaps as an ellipsis."""
    out: list[str] = []
    prev: Piece | None = None
    for i in indices:
        p = pieces[i]
        if prev is not None:
            adjacent = prev.doc == p.doc and p.index == prev.index + 1
            out.append(" " if adjacent else GAP)
        out.append(" ".join(p.text.split()))
        prev = p
    return "".join(out)


def evidence_quote(evidence: Evidence, sentence: str, limit: int = 140) -> str:
    """The evidence sentence closest in wording to the draft sentence, shortened."""
    return _quote(evidence.text, sentence, limit)


@lru_cache(maxsize=20_000)
def _quote(evidence: str, sentence: str, limit: int) -> str:  # every check quotes every finding's evidence
    pieces = [p.strip() for p in _split_quote(evidence) if p.strip()]
    if not pieces:
        return ""
    words = content_words(sentence)
    # on a tie (often: nothing shared) a sentence of the context says more than a title or a label
    best = max(pieces, key=lambda p: (len(words & content_words(p)), p[-1] in ".!?"))
    best = " ".join(best.split())
    return best if len(best) <= limit else best[:limit - 1].rstrip() + "\u2026"


def _split_quote(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+|\s*\n\s*", text)
