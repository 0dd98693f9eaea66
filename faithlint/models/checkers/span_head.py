"""The span head: which words of a flagged sentence the checker's own token states call unsupported.

A sentence-level finding on a long sentence whose error is one figure leaves the user to find it. The bundled
checker's graph also outputs its last encoder layer (``last_hidden_state``); a logistic regression over each
hypothesis token's state (with the [CLS] state, the pair's P(entailment)/P(contradiction), the sentence length
and the token's position) was trained on the labelled hallucination spans of the training-side real-output
files (``training/train_span_head.py``). Where it marks some words, but not most of the sentence, a
FL100/FL200 finding covers the marked words instead of the whole sentence; otherwise nothing changes. The
weights live beside the model (``span_head.json``); a model without one is never narrowed.

The file may hold further heads (``also``: weights, bias and threshold each), asked in turn where the heads
before them leave the whole sentence: the bundled model's main head learned RAGTruth's spans, which are mostly
whole clauses, and marks all of a sentence the checker confidently contradicts; a second head learned from XSum
and Rotowire, whose labelled spans are single names and figures, then marks the wrong figure ("$25" in the
example) where it finds one. Each extra head's log-odds are shifted so that its threshold falls on the main one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FILE = "span_head.json"
WHOLE_AT = 0.8  # marks spanning this share of the sentence's characters: the finding is the whole sentence
_WORD = re.compile(r"[\w'’%$€£.,:/-]*\w[\w'’%$€£]*|\S")
_JOIN = re.compile(r"[\s,;:\-–—()'\"“”’]*")  # what may sit between two marked words of one run


def _logit(p: float) -> float:
    return float(np.log(p) - np.log1p(-p))


def span_features(states: np.ndarray, cls_state: np.ndarray, entailment: float, contradiction: float) -> np.ndarray:
    """One row per hypothesis token: [its state, the [CLS] state, P(e), P(c), 1/n, relative position]."""
    n = len(states)
    extra = np.array([entailment, contradiction, 1.0 / max(n, 1)], dtype=np.float32)
    pos = (np.arange(n, dtype=np.float32) / max(n - 1, 1))[:, None]
    return np.hstack([states.astype(np.float32), np.repeat(cls_state[None].astype(np.float32), n, 0),
                      np.repeat(extra[None], n, 0), pos])


@dataclass(frozen=True)
class SpanHead:
    weights: np.ndarray  # (2 * hidden + 4,)
    bias: float
    threshold: float  # a token is marked when its probability is at least this
    max_share: float  # more marked tokens than this share of the sentence: keep the whole sentence
    also: tuple[tuple[np.ndarray, float], ...] = ()  # extra heads: (weights, bias shifted onto ``threshold``)

    @classmethod
    def load(cls, folder: str | Path) -> SpanHead | None:
        """The head stored beside a model, or None (no file: the model's findings are never narrowed)."""
        path = Path(folder) / FILE
        if not path.is_file():
            return None
        raw = json.loads(path.read_text(encoding="utf-8"))
        threshold = float(raw["threshold"])
        also = tuple((np.asarray(h["weights"], dtype=np.float32),
                      float(h["bias"]) - _logit(float(h["threshold"])) + _logit(threshold))
                     for h in raw.get("also", ()))
        return cls(np.asarray(raw["weights"], dtype=np.float32), float(raw["bias"]), threshold,
                   float(raw["max_share"]), also)

    def token_probs(self, states: np.ndarray, cls_state: np.ndarray, entailment: float,
                    contradiction: float) -> np.ndarray:
        return self.probs(span_features(states, cls_state, entailment, contradiction))

    def probs(self, features: np.ndarray) -> np.ndarray:
        """Each token's probability of being marked, from its :func:`span_features` row: one column per head
        (the main one first; extra heads on its threshold scale) where there are several, else a vector."""
        z = features @ self.weights + self.bias
        if self.also:
            z = np.stack([z, *(features @ weights + bias for weights, bias in self.also)], axis=-1)
        return 1.0 / (1.0 + np.exp(-z))

    def marks(self, text: str, offsets: list[tuple[int, int]], probs: np.ndarray) -> list[tuple[int, int]]:
        """Character ranges of ``text`` (whole words, adjacent words joined) the head marks; [] when it marks
        nothing, more than ``max_share`` of the tokens, or words spanning ``WHOLE_AT`` of the text (then the
        whole sentence is the finding: a range that is nearly the sentence reads as the sentence). With several
        heads (``probs`` has a column each) the first head's marks that are not the whole sentence."""
        if probs.ndim == 2:
            for column in probs.T:
                found = self.marks(text, offsets, column)
                if found:
                    return found
            return []
        hit = [o for o, p in zip(offsets, probs) if p >= self.threshold and o[1] > o[0]]
        if not hit or len(hit) > self.max_share * len(offsets):
            return []
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        chosen = sorted({w for w in words for a, b in hit if a < w[1] and w[0] < b})
        runs: list[list[int]] = []
        for a, b in chosen:
            if runs and _JOIN.fullmatch(text[runs[-1][1]:a]):
                runs[-1][1] = b
            else:
                runs.append([a, b])
        if runs[-1][1] - runs[0][0] >= WHOLE_AT * len(text.strip()):
            return []
        return [(a, b) for a, b in runs]


def marks_in_unit(marks: list[tuple[int, int]] | None, text: str, hypothesis: str) -> list[tuple[int, int]]:
    """Span-head marks of a hypothesis as offsets into the unit's text (a query may frame the hypothesis)."""
    if not marks:
        return []
    delta = hypothesis.find(text)
    if delta < 0:
        return []
    return [(a - delta, b - delta) for a, b in marks if a >= delta and b <= delta + len(text)]
