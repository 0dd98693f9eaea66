"""Scoring (premise, hypothesis) pairs with the checker, remembering each pair's verdict.

An edit re-scores only the pairs it changed: verdicts are cached by (checker, max_length, premise,
hypothesis), and token counts by (checker, text), since evidence budgets are sized from them on every check.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from cachetools import LRUCache

from faithlint.cache.digests import digest
from faithlint.models.checkers.base import Checker, Marks
from faithlint.pipeline.stats import Stats


class PairScorer:
    """The checker's verdicts and token counts, cached per process-lifetime linter (thread-safe)."""

    def __init__(self, stats: Stats, lock: threading.Lock | None = None) -> None:
        self.stats = stats
        self.lock = lock or threading.Lock()
        self.pairs: LRUCache = LRUCache(200_000)
        self.counts: LRUCache = LRUCache(20_000)

    def score(self, checker: Checker, max_length: int, pairs: list[tuple[str, str]]
              ) -> tuple[np.ndarray, np.ndarray, list[Marks | None]]:
        """Probabilities for each pair, which pairs the model had to run (not cached), and the words of each
        hypothesis the checker's span head marks (None: the checker has no span head)."""
        keys = [digest(checker.name, str(max_length), p, h) for p, h in pairs]
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        marks: list[Marks | None] = [None] * len(pairs)
        todo = []
        with self.lock:
            for i, k in enumerate(keys):
                hit = self.pairs.get(k)
                if hit is None:
                    todo.append(i)
                else:
                    out[i], marks[i] = hit
        self.stats.pair_cache_hits += len(pairs) - len(todo)
        self.stats.pairs_scored += len(todo)
        self.stats.last["pairs"] += len(pairs)  # check() starts each draft's counts at 0
        self.stats.last["scored"] += len(todo)
        if todo:
            premises, hypotheses = [pairs[i][0] for i in todo], [pairs[i][1] for i in todo]
            if checker.span_head is not None:
                scored, found = checker.score_and_mark(premises, hypotheses)
            else:
                scored, found = checker.score_pairs(premises, hypotheses), [None] * len(todo)
            with self.lock:
                for i, row, m in zip(todo, scored, found):
                    out[i], marks[i] = row, m
                    self.pairs[keys[i]] = (row.copy(), m)
        fresh = np.zeros(len(pairs), dtype=bool)
        fresh[todo] = True
        return out, fresh, marks

    def token_counts(self, checker: Checker, texts: Sequence[str]) -> list[int]:
        """``checker.count_tokens``, remembered per text: an edit re-counts only the sentences it changed."""
        keys = [(checker.name, t) for t in texts]
        with self.lock:
            counts = [self.counts.get(k) for k in keys]
        todo = [i for i, n in enumerate(counts) if n is None]
        if todo:
            fresh = checker.count_tokens([texts[i] for i in todo])
            with self.lock:
                for i, n in zip(todo, fresh):
                    counts[i] = self.counts[keys[i]] = n
        return [n for n in counts if n is not None]
