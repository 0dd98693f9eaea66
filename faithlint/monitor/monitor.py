"""The monitor at check time: surrogate signals + checker verdict -> P(faithful) per sentence.

When ``monitor = "on"`` the linter hands every sentence's verdict here after the checker: the
sentence's score becomes the aggregator's probability (its findings keep their codes), the
features that drove it go to hover, and the words the context did not raise narrow the finding's
range. Features are cached per (sentence, evidence, context, query), so an edit re-reads only the
sentences it changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

from faithlint.cache.digests import digest
from faithlint.evidence.grounding import rescored as rescored  # re-exported: it was defined here first
from faithlint.monitor.featurize import Featurizer, context_text, evidence_text
from faithlint.monitor.marks import unlifted_spans
from faithlint.monitor.model import MonitorModel
from faithlint.types import ContextDoc, SentenceResult


@dataclass
class MonitorVerdict:
    """What the monitor said about one sentence (``marks``: sentence-relative word spans)."""

    p: float
    aggregator: str
    features: dict[str, float]
    drivers: list[tuple[str, float, float]] = field(default_factory=list)
    marks: list[list[int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"p": round(self.p, 4), "aggregator": self.aggregator,
                "features": {k: round(v, 4) for k, v in self.features.items()},
                "drivers": [{"feature": n, "value": round(v, 4), "push": round(p, 4)} for n, v, p in self.drivers],
                "marks": self.marks}


class Monitor:
    """Surrogate LM + aggregator, loaded on first use; one per (surrogate, device, aggregator folder)."""

    def __init__(self, surrogate: str | None = None, device: str = "auto", max_context: int = 384,
                 model_dir: str | None = None, lm: Any = None, model: MonitorModel | None = None) -> None:
        self.surrogate_id, self.device, self.max_context, self.model_dir = surrogate, device, max_context, model_dir
        self._lm = lm
        self._model = model
        self._lock = threading.Lock()
        self._cache: LRUCache = LRUCache(20_000)
        self.sentences_read = 0  # sentences the surrogate had to read (cache misses), for the benchmarks

    @property
    def lm(self) -> Any:
        with self._lock:
            if self._lm is None:
                from faithlint.models.checkers.surrogate import load_surrogate

                self._lm = load_surrogate(self.surrogate_id, self.device)
            return self._lm

    @property
    def model(self) -> MonitorModel:
        with self._lock:
            if self._model is None:
                self._model = MonitorModel.load(self.model_dir)
            return self._model

    def load(self) -> None:
        _ = self.model, self.lm

    def judge(self, results: Sequence[SentenceResult], context: Sequence[ContextDoc], query: str | None,
              values_absent: Callable[[SentenceResult], int], aggregator: str = "lr") -> list[MonitorVerdict]:
        model, lm = self.model, self.lm
        ctx_key = digest(context_text(context)).hex()
        keys = [digest(lm.name, str(self.max_context), r.text, evidence_text(r), ctx_key, query or "",
                        repr(sorted(r.probs.items()))) for r in results]
        todo = [i for i, k in enumerate(keys) if k not in self._cache]
        if todo:
            fresh = Featurizer(lm, self.max_context)([results[i] for i in todo], context, query, values_absent)
            self.sentences_read += len(todo)
            for i, f in zip(todo, fresh):
                row = {**f.features, **model.lid(f.signals.hidden)}
                self._cache[keys[i]] = (row, unlifted_spans(f.signals, results[i].text))
        rows = [self._cache[k] for k in keys]
        probs = model.predict([row for row, _ in rows], aggregator)
        return [MonitorVerdict(float(p), aggregator, row, model.drivers(row), marks)
                for p, (row, marks) in zip(probs, rows)]


_MONITORS: dict[tuple, Monitor] = {}
_MONITORS_LOCK = threading.Lock()


def load_monitor(surrogate: str | None, device: str, max_context: int, model_dir: str | None = None) -> Monitor:
    """One monitor per process and settings: its caches outlive a single check (the server's edits)."""
    key = (surrogate, device, max_context, model_dir)
    with _MONITORS_LOCK:
        if key not in _MONITORS:
            _MONITORS[key] = Monitor(surrogate, device, max_context, model_dir)
        return _MONITORS[key]
