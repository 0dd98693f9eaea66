"""Sentence -> monitor features, with the surrogate's prefix chosen as the issue asks.

The prefix is the whole context (with the query) when it fits ``max_context`` surrogate tokens:
the server then reads it once per context version and every edit costs two short passes. Longer
contexts use each sentence's selected evidence instead (sentences with the same evidence share it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from faithlint.evidence.pieces import content_words
from faithlint.models.checkers.surrogate import SentenceSignals, SurrogateLM
from faithlint.monitor.features import checker_features, grounding_features, lm_features
from faithlint.types import ContextDoc, SentenceResult


@dataclass
class SentenceFeatures:
    features: dict[str, float]  # everything but LID, which needs the aggregator's reference set
    signals: SentenceSignals


def context_text(context: Sequence[ContextDoc]) -> str:
    return "\n\n".join(doc.text for doc in context)


def evidence_text(result: SentenceResult) -> str:
    return "\n".join(w.text for w in result.windows) if result.windows else ""


class Featurizer:
    def __init__(self, surrogate: SurrogateLM, max_context: int) -> None:
        self.surrogate = surrogate
        self.max_context = max_context

    def __call__(self, results: Sequence[SentenceResult], context: Sequence[ContextDoc], query: str | None,
                 values_absent: Callable[[SentenceResult], int]) -> list[SentenceFeatures]:
        if not results:
            return []
        lm = self.surrogate
        ctx = context_text(context)
        texts = [r.text for r in results]
        signals: list[SentenceSignals | None] = [None] * len(results)
        if lm.fits(ctx, query, self.max_context):
            signals = list(lm.signals(ctx, query, texts, prefix="context"))
        else:
            groups: dict[str, list[int]] = {}
            for i, r in enumerate(results):
                groups.setdefault(evidence_text(r) or ctx[: 4 * self.max_context], []).append(i)
            for ev, idx in groups.items():
                for i, sig in zip(idx, lm.signals(ev, query, [texts[i] for i in idx], prefix="evidence")):
                    signals[i] = sig
        out = []
        ctx_words = content_words(ctx)
        for r, sig in zip(results, signals):
            assert sig is not None
            feats = {**lm_features(sig), **checker_features(r.probs),
                     **grounding_features(r.text, evidence_text(r), ctx, values_absent(r), ctx_words)}
            out.append(SentenceFeatures(feats, sig))
        return out
