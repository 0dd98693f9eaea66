"""What every triplet extractor gives: per-sentence triplets with exact spans, and notes on what it dropped.

Extractors work on a draft's sentences in order, so that one sentence's pronoun can be read against the
sentences before it (spaCy) and an LLM can see the whole response with sentence ids (RefChecker's prompt).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Span:
    """Character offsets [start, end) into the sentence the triplet was extracted from."""

    start: int
    end: int


@dataclass
class Triplet:
    """One claim: the three spans in the sentence and the claim verbalised as a sentence of its own."""

    subject: Span
    predicate: Span
    object: Span
    text: str


@dataclass
class Extraction:
    """``triplets[i]``: the triplets of ``sentences[i]``; ``notes``: one line per output the extractor dropped."""

    triplets: list[list[Triplet]]
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class TripletExtractor(Protocol):
    """Splits each sentence of a draft into claim triplets whose spans index that sentence."""

    name: str

    def extract_sentences(self, sentences: Sequence[str]) -> Extraction: ...
