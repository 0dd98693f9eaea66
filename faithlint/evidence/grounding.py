"""Grounding: a sentence's faithfulness score from the checker's verdict and the words the context lacks.

The 22M checker is confidently wrong in a way a reader is not: it calls a sentence entailed whose names,
figures or wording appear nowhere in the context. How much of a sentence the context lacks is a cheap,
deterministic signal the model does not weigh enough, so the score that decides FL200/FL300 and gates FL400
combines the two: a logistic regression over the checker's log-odds of entailment, the share of the
sentence's content words absent from the whole context, and how many of its numbers are absent (capped).
It is fitted on the calibration rows of the training-side real-output files together with its operating
point (``training/fit_grounding.py``) and lives beside the checker it was fitted for (``grounding.json``);
a checker without one (any ``--model``) scores sentences by P(entailment) alone. The sentence's probabilities
become :func:`rescored` ones (its findings keep their codes; FL100 still needs the checker's own
contradiction) and the checker's are kept beside them (``grounding`` in JSON, hover). The monitor (``monitor = "on"``)
reads these signals itself, so with it on this stage is skipped.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cachetools import LRUCache, cached

from faithlint.errors import ModelError, first_line
from faithlint.evidence.pieces import terms
from faithlint.types import ContextDoc, SentenceResult

FILE = "grounding.json"
FEATURES = ("entailment_logit", "content_absent", "numbers_absent")
NUMBERS_CAP = 3  # a fourth absent figure says nothing the third did not
_EPS = 1e-4


def rescored(p: float, contradiction: float) -> dict[str, float]:
    """A sentence's probabilities once a second stage (grounding, the monitor) says P(faithful) = ``p``.

    That stage decides support, not contradiction: P(contradiction) stays the checker's (capped by what ``p``
    leaves), so FL100 still means "the checker found the context contradicting it" at the checker's threshold,
    and a sentence the stage doubts without a contradiction is FL200.
    """
    con = min(contradiction, 1.0 - p)
    return {"entailment": p, "neutral": max(0.0, 1.0 - p - con), "contradiction": con}


def context_terms(texts: Sequence[str]) -> frozenset[str]:
    """What the whole context says: its :func:`~faithlint.evidence.pieces.terms` (content words, numbers as "#12")."""
    return frozenset().union(*(terms(text) for text in texts))


@cached(LRUCache(64), key=lambda keys, context: tuple(keys), lock=threading.Lock())
def context_terms_of(keys: Sequence[str], context: Sequence[ContextDoc]) -> frozenset[str]:
    """:func:`context_terms` per context version (``keys``: :func:`faithlint.evidence.index.doc_key` of each
    document): the server re-checks against the same context on every edit."""
    return context_terms([doc.text for doc in context])


def features(sentence: str, entailment: float, context: frozenset[str]) -> dict[str, float]:
    """The model's inputs for one sentence (names as in :data:`FEATURES`); ``context``: its :func:`context_terms`."""
    p = min(max(float(entailment), 0.0), 1.0)
    own = terms(sentence)
    words = [t for t in own if not t.startswith("#")]
    absent_numbers = sum(t.startswith("#") and t not in context for t in own)
    return {
        "entailment_logit": math.log(p + _EPS) - math.log(1.0 - p + _EPS),
        "content_absent": sum(w not in context for w in words) / len(words) if words else 0.0,
        "numbers_absent": float(min(absent_numbers, NUMBERS_CAP)),
    }


@dataclass
class GroundingVerdict:
    """What grounding made of one sentence: its score, the checker's own probabilities and the features."""

    p: float
    checker: dict[str, float]
    features: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"score": round(self.p, 4), "checker": {k: round(v, 4) for k, v in self.checker.items()},
                "features": {k: round(v, 4) for k, v in self.features.items()}}

    def summary(self) -> str:
        """One line for hover: what the checker said and what the context lacks."""
        f = self.features
        numbers = int(f.get("numbers_absent", 0))
        return (f"checker P(entailment) {self.checker.get('entailment', 0.0):.2f} \u00b7 content words absent from "
                f"the context {f.get('content_absent', 0.0):.0%}"
                + (f" \u00b7 {numbers}{'+' if numbers >= NUMBERS_CAP else ''} number(s) absent" if numbers else ""))


@dataclass(frozen=True)
class GroundingModel:
    """Logistic regression: P(faithful) of a sentence from its :func:`features`."""

    coefficients: dict[str, float]
    intercept: float
    thresholds: dict[str, float] = field(default_factory=dict)  # rule code -> calibrated threshold on the score
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def score(self, row: dict[str, float]) -> float:
        """P(faithful): 1 - the regression's P(hallucinated)."""
        z = self.intercept + sum(w * row[name] for name, w in self.coefficients.items())
        return 1.0 / (1.0 + math.exp(min(z, 700.0)))

    def judge(self, sentence: str, probs: dict[str, float], context: frozenset[str]) -> GroundingVerdict:
        row = features(sentence, probs["entailment"], context)
        return GroundingVerdict(self.score(row), dict(probs), row)

    def to_dict(self) -> dict[str, Any]:
        return {"format": 1, "features": list(self.coefficients), "coefficients": list(self.coefficients.values()),
                "intercept": self.intercept, "thresholds": self.thresholds, **self.meta}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: str | Path) -> GroundingModel | None:
        """The model stored beside a checker, or None (no file: the checker's P(entailment) is the score)."""
        path = Path(folder) / FILE
        if not path.is_file():
            return None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            names, weights = list(raw["features"]), [float(w) for w in raw["coefficients"]]
            unknown = [n for n in names if n not in FEATURES]
            if unknown or len(names) != len(weights):
                raise ValueError(f"features {unknown or names} do not match its coefficients "
                                 f"(known: {', '.join(FEATURES)})")
            thresholds = {str(k): float(v) for k, v in (raw.get("thresholds") or {}).items()}
            meta = {k: v for k, v in raw.items() if k not in ("format", "features", "coefficients", "intercept",
                                                               "thresholds")}
            return cls(dict(zip(names, weights)), float(raw["intercept"]), thresholds, meta)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"{path}: not a grounding model ({first_line(exc)})") from None


def ground(model: GroundingModel, results: Sequence[SentenceResult], context: frozenset[str]) -> None:
    """Score each sentence the checker judged itself (``context``: :func:`context_terms`): its probabilities
    become :func:`rescored` ones."""
    for r in results:
        if r.verdict_from != "sentence":
            continue
        g = model.judge(r.text, r.probs, context)
        r.set_verdict([*rescored(g.p, r.probs["contradiction"]).values()])
        r.grounding = g
