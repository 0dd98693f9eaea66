"""Unit extractors: the pieces of a parsed draft that the checker judges."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from faithlint.markdown import Block, Extracted
from faithlint.sentences import SentenceSplitter, Span
from faithlint.stages import Unit

if TYPE_CHECKING:
    from faithlint.config import Config


class SentenceExtractor:
    """Sentences of the draft's prose blocks, with their source offsets.

    Headings (unless ``check_headings``), a paragraph's last sentence when it ends in a colon right before a
    list (unless ``check_lead_ins``: "Here is a summary of the policy:" announces what the list says) and
    sentences under ``min_words`` words are left out: "Pricing" or "Yes." state nothing to verify. Except an
    answer: with a ``query`` (and ``query_claim`` not ``never``), a draft that is one short sentence ("1998.",
    "Arthur's Magazine") is the whole answer, and is checked as "The answer to the question ... is: ..."
    (:func:`faithlint.selection.claim`).
    """

    name = "sentences"

    def __init__(self, splitter: Callable[[], SentenceSplitter]) -> None:
        self._splitter = splitter  # a getter: the linter loads spaCy lazily

    def units(self, extracted: Extracted, config: Config, query: str | None = None) -> list[Unit]:
        splitter = self._splitter()
        blocks = [b for b in extracted.blocks if b.kind != "heading" or config.check_headings]
        found = [(block, s) for block, split in zip(blocks, splitter.split_many([b.text for b in blocks]))
                 for s in split]
        if not config.check_lead_ins:
            before_list = {id(b) for b, nxt in zip(extracted.blocks, extracted.blocks[1:]) if nxt.kind == "list_item"}
            found = [(b, s) for b, s in found if not (id(b) in before_list and _lead_in(b, s))]
        answer = (bool(query and query.strip()) and config.query_claim != "never" and len(found) == 1
                  and any(c.isalnum() for c in found[0][0].text[found[0][1].start:found[0][1].end]))
        out = []
        for block, s in found:
            if not answer and len(block.text[s.start:s.end].split()) < config.min_words:
                continue
            a, b = block.to_source(s.start, s.end)
            out.append(Unit(block, s.start, s.end, a, b))
        return out


def _lead_in(block: Block, s: Span) -> bool:
    """``s`` ends ``block`` (not itself a list item) with a colon; the caller knows a list comes next."""
    return block.kind != "list_item" and block.text[s.start:s.end].rstrip().endswith(":") \
        and not block.text[s.end:].strip()
