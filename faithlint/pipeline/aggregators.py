"""Aggregators: one verdict from the probabilities of a unit's several evidence windows."""

from __future__ import annotations

import numpy as np


class MaxAggregator:
    """The window that most entails decides, unless another contradicts more strongly than it entails.

    Evidence for a fact usually sits in one place; the other windows are merely unrelated.
    """

    name = "max"

    def __call__(self, probs: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, int]:
        be = int(np.argmax(probs[:, 0]))
        bc = int(np.argmax(probs[:, 2]))
        best = be if probs[be, 0] >= probs[bc, 2] else bc
        return probs[best], best


class WeightedAggregator:
    """Relevance-weighted mean: smoother, but a relevant unrelated window dilutes the verdict."""

    name = "weighted"

    def __call__(self, probs: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, int]:
        agg = (probs * weights[:, None]).sum(0) / max(weights.sum(), 1e-9)
        return agg, int(np.argmax(weights))


class MinAggregator:
    """The least supportive window decides: strict, for contexts whose windows must all agree."""

    name = "min"

    def __call__(self, probs: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, int]:
        worst = int(np.argmin(probs[:, 0]))
        return probs[worst], worst


AGGREGATORS = {a.name: a for a in (MaxAggregator(), WeightedAggregator(), MinAggregator())}


def aggregator_for(name: str) -> MaxAggregator | WeightedAggregator | MinAggregator:
    try:
        return AGGREGATORS[name]
    except KeyError:
        raise ValueError(f"unknown aggregation {name!r} (known: {', '.join(AGGREGATORS)})") from None


def aggregate(probs: np.ndarray, weights: np.ndarray, mode: str) -> tuple[np.ndarray, int]:
    """Combine per-window probabilities with the aggregator named ``mode``."""
    return aggregator_for(mode)(probs, weights)
