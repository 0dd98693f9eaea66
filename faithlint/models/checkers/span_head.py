"""The span head: which words of a flagged sentence the checker's own token states call unsupported.

A sentence-level finding on a long sentence whose error is one figure leaves the user to find it. The bundled
checker's graph also outputs its last encoder layer (``last_hidden_state``); a logistic regression over each
hypothesis token's state (with the [CLS] state, the pair's P(entailment)/P(contradiction), the sentence length
and the token's position) was trained on the labelled hallucination spans of the training-side real-output
files (``training/train_span_head.py``). Where it marks some words, but not most of the sentence, a
FL100/FL200 finding covers the marked words instead of the whole sentence; otherwise nothing changes. The
weights live beside the model (``span_head.json``); a model without one is never narrowed.
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

    @classmethod
    def load(cls, folder: str | Path) -> SpanHead | None:
        """The head stored beside a model, or None (no file: the model's findings are never narrowed)."""
        path = Path(folder) / FILE
        if not path.is_file():
            return None
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls(np.asarray(raw["weights"], dtype=np.float32), float(raw["bias"]), float(raw["threshold"]),
                   float(raw["max_share"]))

    def token_probs(self, states: np.ndarray, cls_state: np.ndarray, entailment: float,
                    contradiction: float) -> np.ndarray:
        return self.probs(span_features(states, cls_state, entailment, contradiction))

    def probs(self, features: np.ndarray) -> np.ndarray:
        """Each token's probability of being marked, from its :func:`span_features` row."""
        return 1.0 / (1.0 + np.exp(-(features @ self.weights + self.bias)))

    def marks(self, text: str, offsets: list[tuple[int, int]], probs: np.ndarray) -> list[tuple[int, int]]:
        """Character ranges of ``text`` (whole words, adjacent words joined) the head marks; [] when it marks
        nothing, more than ``max_share`` of the tokens, or words spanning ``WHOLE_AT`` of the text (then the
        whole sentence is the finding: a range that is nearly the sentence reads as the sentence)."""
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
