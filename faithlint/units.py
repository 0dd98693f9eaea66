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
    "Pricing" or "Yes." state nothing to verify.
    """

    name = "sentences"

    def __init__(self, splitter: Callable[[], SentenceSplitter]) -> None:
        self._splitter = splitter  # a getter: the linter loads spaCy lazily

    def units(self, extracted: Extracted, config: Config) -> list[Unit]:
        splitter = self._splitter()
        out = []
        blocks = [b for b in extracted.blocks if b.kind != "heading" or config.check_headings]
        for block, split in zip(blocks, splitter.split_many([b.text for b in blocks])):
            for s in split:
                if len(block.text[s.start:s.end].split()) < config.min_words:
                    continue
                a, b = block.to_source(s.start, s.end)
                out.append(Unit(block, s.start, s.end, a, b))
        return out
