"""The stages of a check, as typed protocols the :class:`~faithlint.pipeline.linter.Linter` wires once.

    draft --extract--> units --select evidence--> (premise, hypothesis) pairs --checker-->
    probabilities --aggregate--> one verdict per unit --rules--> findings

Each stage is swappable: pass your own to ``Linter(extractor=..., selector=..., checker=...,
aggregator=..., rules=...)``. The defaults: :class:`~faithlint.document.units.SentenceExtractor`,
:class:`~faithlint.evidence.selection.AssembledEvidence` (or ``WindowedEvidence``), the bundled NLI
:class:`~faithlint.models.checkers.nli.NLIChecker`, :mod:`faithlint.pipeline.aggregators` and the registered
:mod:`faithlint.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast, runtime_checkable

import numpy as np

from faithlint.document.units import ReportsUnchecked, Unit, UnitExtractor
from faithlint.evidence.selection import EvidenceRequest, EvidenceSelector, Selection
from faithlint.models.checkers.base import Checker
from faithlint.types import Finding

if TYPE_CHECKING:
    from faithlint.rules.base import Judged, RuleContext

__all__ = ["Aggregator", "Checker", "EvidenceRequest", "EvidenceSelector", "ReportsUnchecked", "RuleLike",
           "Selection", "Unit",
           "UnitExtractor", "as_rule"]


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

    code: ClassVar[str]  # as :class:`faithlint.rules.Rule` declares them
    name: ClassVar[str]
    units: ClassVar[tuple[str, ...]]  # what it judges: "sentence", "claim" (a given rule without it judges sentences)

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]: ...


class _SentenceRule:
    """A given rule that names no ``units``: it judges sentences, as :class:`faithlint.rules.Rule` does by default.
    Everything else is the rule's own."""

    units = ("sentence",)

    def __init__(self, rule: Any) -> None:
        self.wrapped = rule

    def __getattr__(self, name: str) -> Any:
        if name == "wrapped":
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        return self.wrapped.check(judged, ctx)


def as_rule(rule: Any) -> RuleLike:
    """``rule`` itself when it says which units it judges, else wrapped once to judge sentences."""
    return rule if hasattr(rule, "units") else cast(RuleLike, _SentenceRule(rule))
