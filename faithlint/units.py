"""Unit extractors: the pieces of a parsed draft that the checker judges."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from faithlint.markdown import Extracted
from faithlint.sentences import SentenceSplitter
from faithlint.stages import Unit

if TYPE_CHECKING:
    from faithlint.config import Config


class SentenceExtractor:
    """Sentences of the draft's prose blocks, with their source offsets.

    Headings (unless ``check_headings``) and sentences under ``min_words`` words are left out:
    "Pricing" or "Yes." state nothing to verify. Except an answer: with a ``query`` (and ``query_claim`` not
    ``never``), a draft that is one short sentence ("1998.", "Arthur's Magazine") is the whole answer, and is
    checked as "The answer to the question ... is: ..." (:func:`faithlint.selection.claim`).
    """

    name = "sentences"

    def __init__(self, splitter: Callable[[], SentenceSplitter]) -> None:
        self._splitter = splitter  # a getter: the linter loads spaCy lazily

    def units(self, extracted: Extracted, config: Config, query: str | None = None) -> list[Unit]:
        splitter = self._splitter()
        blocks = [b for b in extracted.blocks if b.kind != "heading" or config.check_headings]
        found = [(block, s) for block, split in zip(blocks, splitter.split_many([b.text for b in blocks]))
                 for s in split]
        answer = (bool(query and query.strip()) and config.query_claim != "never" and len(found) == 1
                  and any(c.isalnum() for c in found[0][0].text[found[0][1].start:found[0][1].end]))
        out = []
        for block, s in found:
            if not answer and len(block.text[s.start:s.end].split()) < config.min_words:
                continue
            a, b = block.to_source(s.start, s.end)
            out.append(Unit(block, s.start, s.end, a, b))
        return out
