"""The interface every checker implements.

A checker scores (premise window, hypothesis sentence) pairs with three
probabilities in :data:`faithlint.types.LABELS` order. It also exposes its
tokenizer's counts and offsets, because windows are sized in its tokens.

The built-in checkers derive from :class:`CheckerBase`, which gives the optional members their defaults; a
user's checker that only scores and tokenizes is wrapped once by :func:`as_checker` when the linter is built,
so the pipeline reads every member directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

Marks = list[tuple[int, int]]  # character ranges of a hypothesis


@runtime_checkable
class Checker(Protocol):
    name: str  # identifies model + settings in cache keys
    max_length: int
    model_max: int  # the model's own token limit (position embeddings): windows never exceed it
    span_head: Any  # None, or what marks a flagged hypothesis's words (:meth:`score_and_mark` uses it)
    # the grounding fitted for these weights: a faithlint.evidence.grounding.GroundingModel or None, attached by the
    # model registry (typed Any here: models sit below evidence in the layers)
    grounding: Any

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Return an (N, 3) array of P(entailment), P(neutral), P(contradiction)."""
        ...

    def score_and_mark(self, premises: Sequence[str], hypotheses: Sequence[str]
                       ) -> tuple[np.ndarray, list[Marks | None]]:
        """:meth:`score_pairs` and, per pair, the words of the hypothesis the span head marks (None: no head)."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens each text takes without special tokens."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token of ``text``."""
        ...


class CheckerBase:
    """The optional members of :class:`Checker` with their defaults: no span head, no grounding, 512 tokens."""

    name: str = ""
    max_length: int = 512
    model_max: int = 512
    span_head: Any = None
    grounding: Any = None

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def score_and_mark(self, premises: Sequence[str], hypotheses: Sequence[str]
                       ) -> tuple[np.ndarray, list[Marks | None]]:
        return self.score_pairs(premises, hypotheses), [None] * len(premises)


class AdaptedChecker(CheckerBase):
    """A user's checker that lacks some optional member, given the defaults once (attribute reads and anything
    else pass through to it, so ``linter.checker.calls`` still reads the user's own object)."""

    def __init__(self, checker: Any) -> None:
        self.wrapped = checker
        self.name = getattr(checker, "name", type(checker).__name__)
        for member in ("max_length", "model_max", "span_head", "grounding"):
            if hasattr(checker, member):
                setattr(self, member, getattr(checker, member))
        if hasattr(checker, "score_and_mark"):
            self.score_and_mark = checker.score_and_mark  # type: ignore[method-assign]

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        return self.wrapped.score_pairs(premises, hypotheses)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.wrapped.count_tokens(texts)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.wrapped.token_offsets(text)

    def __getattr__(self, name: str) -> Any:  # only for what this class does not define
        if name == "wrapped":
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def __repr__(self) -> str:
        return f"<adapted {self.wrapped!r}>"


def as_checker(checker: Any) -> Checker:
    """``checker`` itself when it has every member of :class:`Checker`, else wrapped in :class:`AdaptedChecker`."""
    return checker if isinstance(checker, Checker) else AdaptedChecker(checker)
