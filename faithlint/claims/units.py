"""Claims as units of the pipeline: each triplet becomes a unit the evidence selector and checker judge.

A claim unit's ``text`` is the verbalised triplet (what the checker reads); its ``start``/``end`` cover the
triplet's own words in the source, from the first of subject/predicate/object to the last, so a finding
underlines the claim and not the whole sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cachetools import LRUCache

from faithlint.cache.digests import digest
from faithlint.claims.base import Extraction, Span, Triplet, TripletExtractor
from faithlint.document.units import Unit

PARTS = ("subject", "predicate", "object")
_CONTEXT = 3  # sentences before a sentence that its extraction may read (pronouns)


@dataclass
class ClaimUnit(Unit):
    """One triplet of a sentence unit; offsets through ``sentence`` (the triplet spans index its text)."""

    kind: str = "claim"
    sentence: Unit | None = None
    triplet: Triplet | None = None
    index: int = 0  # which sentence of the draft's units
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # source ranges of subject/predicate/object

    @property
    def text(self) -> str:
        assert self.triplet is not None
        return self.triplet.text

    @property
    def claim_words(self) -> str:
        """The draft's words the claim covers, from its first part to its last (what its values are read from)."""
        return self.block.text[self.plain_start:self.plain_end]

    def words(self, part: str) -> str:
        """The sentence's words for one part of the triplet ("" for a zero-width predicate)."""
        assert self.sentence is not None and self.triplet is not None
        span: Span = getattr(self.triplet, part)
        return self.sentence.text[span.start:span.end]


def claim_unit(sentence: Unit, triplet: Triplet, index: int) -> ClaimUnit:
    spans = [getattr(triplet, p) for p in PARTS]
    wide = [s for s in spans if s.end > s.start] or spans
    a, b = min(s.start for s in wide), max(s.end for s in wide)
    start, end = sentence.to_source(a, b)
    source = {p: sentence.to_source(s.start, s.end) for p, s in zip(PARTS, spans)}
    return ClaimUnit(sentence.block, sentence.plain_start + a, sentence.plain_start + b, start, end,
                     sentence=sentence, triplet=triplet, index=index, spans=source)


class ClaimUnits:
    """Extracts the claims of a draft's sentence units, caching each sentence's triplets.

    A sentence's triplets depend on it and the few sentences before it (pronouns), so that is the cache
    key: an edit re-extracts the edited sentence and the ones right after it, not the whole draft.
    """

    def __init__(self, extractor: TripletExtractor, cache_size: int = 20_000) -> None:
        self.extractor = extractor
        self._cache: LRUCache = LRUCache(cache_size)
        self.extracted = 0  # sentences sent to the extractor (the server's status shows it)

    def _key(self, texts: Sequence[str], i: int) -> bytes:
        name = getattr(self.extractor, "cache_key", None) or self.extractor.name
        return digest(name, *texts[max(0, i - _CONTEXT):i + 1])

    def claims(self, units: Sequence[Unit]) -> tuple[list[list[ClaimUnit]], list[str]]:
        """Per sentence unit, its claim units; and the extractor's notes on what it dropped."""
        texts = [u.text for u in units]
        keys = [self._key(texts, i) for i in range(len(texts))]
        todo = [i for i, k in enumerate(keys) if k not in self._cache]
        notes: list[str] = []
        if todo:
            lo, hi = max(0, todo[0] - _CONTEXT), todo[-1] + 1
            got: Extraction = self.extractor.extract_sentences(texts[lo:hi])
            notes = list(got.notes)
            self.extracted += hi - lo
            for i in range(lo, hi):
                triplets = got.triplets[i - lo] if i - lo < len(got.triplets) else []
                self._cache[keys[i]] = list(triplets)
        out = []
        for i, (u, k) in enumerate(zip(units, keys)):
            triplets = self._cache.get(k, [])
            out.append([claim_unit(u, t, i) for t in triplets if _inside(t, len(u.text))])
        return out, notes


def _inside(t: Triplet, n: int) -> bool:
    """Spans an extractor got wrong are dropped, never mapped to offsets outside their sentence."""
    return all(0 <= s.start <= s.end <= n for s in (t.subject, t.predicate, t.object))
