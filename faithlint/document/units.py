"""Unit extractors: the pieces of a parsed draft that the checker judges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from faithlint.document.boilerplate import exemption
from faithlint.document.markdown import Block, Extracted
from faithlint.document.sentences import SentenceSplitter, Span
from faithlint.types import Unchecked

if TYPE_CHECKING:
    from faithlint.config import Config


@dataclass
class Unit:
    """A checkable piece of the draft (a sentence today; a claim next) and its offset map."""

    block: Block
    plain_start: int  # offset in block.text
    plain_end: int
    start: int  # offsets in the source
    end: int
    kind: str = "sentence"

    @property
    def text(self) -> str:
        return self.block.text[self.plain_start:self.plain_end]

    def to_source(self, a: int, b: int) -> tuple[int, int]:
        """Unit-relative plain offsets -> source offsets."""
        return self.block.to_source(self.plain_start + a, self.plain_start + b)


@runtime_checkable
class UnitExtractor(Protocol):
    """Splits the parsed draft into the units the checker judges."""

    def units(self, extracted: Extracted, config: Config, query: str | None = None) -> list[Unit]: ...


@runtime_checkable
class ReportsUnchecked(Protocol):
    """An extractor that also says which parts of the draft it left unchecked on purpose, and why."""

    def split(self, extracted: Extracted, config: Config,
              query: str | None = None) -> tuple[list[Unit], list[Unchecked]]: ...


class SentenceExtractor:
    """Sentences of the draft's prose blocks, with their source offsets.

    Headings (unless ``check_headings``), a paragraph's last sentence when it ends in a colon right before a
    list (unless ``check_lead_ins``: "Here is a summary of the policy:" announces what the list says) and
    sentences under ``min_words`` words are left out: "Pricing" or "Yes." state nothing to verify. Except an
    answer: with a ``query`` (and ``query_claim`` not ``never``), a draft that is one short sentence ("1998.",
    "Arthur's Magazine") is the whole answer, and is checked as "The answer to the question ... is: ..."
    (:func:`faithlint.evidence.selection.claim`). LLM boilerplate (unless ``check_boilerplate``: "Sure!", "Here is a
    summary in 89 words:", :mod:`faithlint.document.boilerplate`) is left out whole, or its lead ("Based on the given
    passages, ...") cut off the unit; :meth:`split` says which and why.
    """

    name = "sentences"

    def __init__(self, splitter: Callable[[], SentenceSplitter]) -> None:
        self._splitter = splitter  # a getter: the linter loads spaCy lazily

    def units(self, extracted: Extracted, config: Config, query: str | None = None) -> list[Unit]:
        return self.split(extracted, config, query)[0]

    def split(self, extracted: Extracted, config: Config,
              query: str | None = None) -> tuple[list[Unit], list[Unchecked]]:
        """The units to check, and the boilerplate left unchecked (source offsets, with the reason)."""
        splitter = self._splitter()
        blocks = [b for b in extracted.blocks if b.kind != "heading" or config.check_headings]
        found = [(block, s) for block, split in zip(blocks, splitter.split_many([b.text for b in blocks]))
                 for s in split]
        if not config.check_lead_ins:
            before_list = {id(b) for b, nxt in zip(extracted.blocks, extracted.blocks[1:]) if nxt.kind == "list_item"}
            found = [(b, s) for b, s in found if not (id(b) in before_list and _lead_in(b, s))]
        unchecked: list[Unchecked] = []
        kept: list[tuple[Block, int, int]] = []  # block, the checked part of a sentence (offsets in block.text)
        for block, s in found:
            ex = None if config.check_boilerplate else exemption(block.text[s.start:s.end])
            if ex is not None and ex.reason == "announcement" and config.check_lead_ins:
                ex = None  # a sentence announcing a list is a lead-in, which the user asked to check
            if ex is not None:
                part = block.text[s.start + ex.start:s.start + ex.end]
                lead = len(part) - len(part.lstrip(" ,;"))  # the words themselves, not the comma before them
                a, b = block.to_source(s.start + ex.start + lead, s.start + ex.start + len(part.rstrip()))
                unchecked.append(Unchecked(a, b, extracted.source[a:b], ex.reason))
                if ex.whole(s.end - s.start):
                    continue
            if ex is None:
                kept.append((block, s.start, s.end))
            elif ex.start == 0:  # a lead before the claim
                kept.append((block, s.start + ex.end, s.end))
            else:  # ", according to the article." after it
                kept.append((block, s.start, s.start + ex.start))
        answer = (bool(query and query.strip()) and config.query_claim != "never" and len(kept) == 1
                  and any(c.isalnum() for c in kept[0][0].text[kept[0][1]:kept[0][2]]))
        out: list[Unit] = []
        for block, start, end in kept:
            if not answer and len(block.text[start:end].split()) < config.min_words:
                continue
            a, b = block.to_source(start, end)
            out.append(Unit(block, start, end, a, b))
        return out, unchecked


def split_units(extractor: UnitExtractor, extracted: Extracted, config: Config,
                query: str | None = None) -> tuple[list[Unit], list[Unchecked]]:
    """Any extractor's units, and what it left unchecked on purpose where it says (:class:`ReportsUnchecked`)."""
    if isinstance(extractor, ReportsUnchecked):
        return extractor.split(extracted, config, query=query)
    return extractor.units(extracted, config, query=query), []


def _lead_in(block: Block, s: Span) -> bool:
    """``s`` ends ``block`` (not itself a list item) with a colon; the caller knows a list comes next."""
    return block.kind != "list_item" and block.text[s.start:s.end].rstrip().endswith(":") \
        and not block.text[s.end:].strip()
