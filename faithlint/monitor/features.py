"""Sentence features of the monitor: what the surrogate LM saw, what the checker said, and which
values, names and numbers the context lacks.

Features are plain floats with stable names (:data:`LM_FEATURES`, :data:`CHECKER_FEATURES`,
:data:`GROUNDING_FEATURES`, :data:`LID_FEATURES`); the aggregator's metadata records which it was
trained on, so adding one never silently shifts the meaning of a shipped model's weights.
"""

from __future__ import annotations

import re

import numpy as np

from faithlint.evidence.pieces import content_words
from faithlint.models.checkers.surrogate import SentenceSignals

LOW_PROB = float(np.log(0.1))  # a token the context-conditioned model gave under 10 %
LIFT = 0.5  # nats: the context raised the token's log-probability by less than this
KL_HIGH = 1.0  # nats: the context changed this position's distribution a lot

LM_FEATURES = ["lm_min_logp", "lm_mean_logp", "lm_max_entropy", "lm_mean_entropy", "lm_kl_mean",
               "lm_kl_count", "lm_kl_share", "lm_lift_mean", "lm_lift_min", "lm_unlifted_share",
               "lm_bare_mean_logp", "lm_prefix_is_evidence"]
CHECKER_FEATURES = ["nli_entailment", "nli_contradiction"]
GROUNDING_FEATURES = ["values_absent", "numbers_absent", "names_absent", "content_absent_context",
                      "content_absent_evidence"]
LID_FEATURES = ["lid_l10", "lid_l15", "lid_l20"]  # named by layer of the default surrogate (30 layers)

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]+")


def unlifted(sig: SentenceSignals) -> np.ndarray:
    """Tokens the context made neither likely nor more likely: candidate unsupported words."""
    lift = sig.logp_ctx - sig.logp_bare
    return (sig.logp_ctx < LOW_PROB) & (lift < LIFT)


def lm_features(sig: SentenceSignals) -> dict[str, float]:
    n = len(sig.logp_ctx)
    if n == 0:
        return dict.fromkeys(LM_FEATURES, 0.0)
    lift = sig.logp_ctx - sig.logp_bare
    high = sig.kl > KL_HIGH
    return {
        "lm_min_logp": float(sig.logp_ctx.min()),
        "lm_mean_logp": float(sig.logp_ctx.mean()),
        "lm_max_entropy": float(sig.entropy_ctx.max()),
        "lm_mean_entropy": float(sig.entropy_ctx.mean()),
        "lm_kl_mean": float(sig.kl.mean()),
        "lm_kl_count": float(high.sum()),
        "lm_kl_share": float(high.mean()),
        "lm_lift_mean": float(lift.mean()),
        "lm_lift_min": float(lift.min()),
        "lm_unlifted_share": float(unlifted(sig).mean()),
        "lm_bare_mean_logp": float(sig.logp_bare.mean()),
        "lm_prefix_is_evidence": float(sig.prefix == "evidence"),
    }


def grounding_features(sentence: str, evidence: str, context: str, values_absent: int,
                       context_words: set[str] | None = None) -> dict[str, float]:
    """Deterministic grounding: the sentence's numbers, names and content words the context lacks.

    ``context_words``: :func:`~faithlint.evidence.relevance.content_words` of ``context``, when the caller has it
    (one context serves every sentence of a draft)."""
    ctx_low, ev_low = context.lower(), evidence.lower()
    numbers = [m.group(0) for m in _NUMBER.finditer(sentence)]
    names = [m.group(0) for m in _NAME.finditer(sentence.strip())]
    words = content_words(sentence)
    ctx_words = context_words if context_words is not None else content_words(context)
    ev_words = content_words(evidence)
    return {
        "values_absent": float(values_absent),
        "numbers_absent": float(sum(n not in context for n in numbers)),
        "names_absent": float(sum(n.lower() not in ctx_low for n in names)),
        "content_absent_context": float(np.mean([w not in ctx_words for w in words])) if words else 0.0,
        "content_absent_evidence": float(np.mean([w not in ev_words for w in words]))
        if words and ev_low else float(bool(words)),
    }


def checker_features(probs: dict[str, float]) -> dict[str, float]:
    return {"nli_entailment": float(probs["entailment"]), "nli_contradiction": float(probs["contradiction"])}
