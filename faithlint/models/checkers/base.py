"""The interface every checker implements.

A checker scores (premise window, hypothesis sentence) pairs with three
probabilities in :data:`faithlint.types.LABELS` order. It also exposes its
tokenizer's counts and offsets, because windows are sized in its tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Checker(Protocol):
    name: str  # identifies model + settings in cache keys
    max_length: int

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Return an (N, 3) array of P(entailment), P(neutral), P(contradiction)."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens each text takes without special tokens."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token of ``text``."""
        ...
