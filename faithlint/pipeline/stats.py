"""Counters of a linter's work: what the server's status command and the benchmarks read."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Stats:
    """Counters the server's status command and the benchmarks read."""

    sentences_checked: int = 0  # units the checker judged: sentences and claims
    claims_checked: int = 0
    sentences_rescored: int = 0  # sentences with at least one pair the cache did not have
    pairs_scored: int = 0
    pair_cache_hits: int = 0
    drafts_checked: int = 0
    last: dict[str, int] = field(default_factory=dict)
    # milliseconds per stage of the latest check (parse, split, evidence, checker, rules, results)
    stage_ms: dict[str, float] = field(default_factory=dict)

    def add_ms(self, stage: str, since: float) -> float:
        """Add the time since ``since`` (a ``time.perf_counter()``) to ``stage``; returns now."""
        now = time.perf_counter()
        self.stage_ms[stage] = round(self.stage_ms.get(stage, 0.0) + 1000 * (now - since), 2)
        return now
