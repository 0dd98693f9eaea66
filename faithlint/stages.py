"""The stages of a check, as typed protocols the :class:`~faithlint.linter.Linter` wires once.

    draft --extract--> units --select evidence--> (premise, hypothesis) pairs --checker-->
    probabilities --aggregate--> one verdict per unit --rules--> findings

Each stage is swappable: pass your own to ``Linter(extractor=..., selector=..., checker=...,
aggregator=..., rules=...)``. The defaults: :class:`~faithlint.units.SentenceExtractor`,
:class:`~faithlint.selection.AssembledEvidence` (or ``WindowedEvidence``), the bundled NLI
:class:`~faithlint.checkers.nli.NLIChecker`, :mod:`faithlint.aggregators` and the registered
:mod:`faithlint.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from faithlint.checkers.base import Checker
from faithlint.markdown import Block, Extracted
from faithlint.types import ContextDoc, Evidence, Finding, Unchecked

if TYPE_CHECKING:
    from faithlint.config import Config
    from faithlint.context_index import ContextIndex
    from faithlint.rules.base import Judged, RuleContext

__all__ = ["Aggregator", "Checker", "EvidenceRequest", "EvidenceSelector", "RuleLike", "Selection", "Unit",
           "UnitExtractor"]


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


@dataclass
class Selection:
    """The evidence chosen for one unit and the premises the checker reads for it.

    ``weights`` go to the aggregator with one probability row per premise; ``best`` is the index of
    the deciding evidence when the selector knows it (one assembled premise), ``None`` when the
    aggregator decides (one premise per window).
    """

    evidence: list[Evidence]
    premises: list[str]
    weights: list[float]
    best: int | None = None


@dataclass
class EvidenceRequest:
    """Everything a selector may use; ``skip[i]`` marks units that need no evidence (copied verbatim)."""

    texts: Sequence[str]
    hypotheses: Sequence[str]  # what the checker judges (a short answer gets its question)
    context: Sequence[ContextDoc]
    doc_keys: Sequence[str]
    budgets: Sequence[int]  # premise tokens left next to each hypothesis
    skip: Sequence[bool]
    query: str | None
    config: Config
    index: ContextIndex  # cached context sentences, windows and pieces
    relevance: Any  # .similarity(queries, docs) -> matrix


@runtime_checkable
class EvidenceSelector(Protocol):
    """Chooses, for every unit, the context evidence the checker will judge it against."""

    def select(self, request: EvidenceRequest) -> list[Selection]: ...


@runtime_checkable
class Aggregator(Protocol):
    """Combines one unit's per-premise probabilities into one verdict."""

    name: str

    def __call__(self, probs: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, int]:
        """Returns (probabilities, index of the deciding premise)."""
        ...


@runtime_checkable
class RuleLike(Protocol):
    """What the linter needs of a rule (:class:`faithlint.rules.Rule` implements it)."""

    code: str
    name: str

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]: ...
