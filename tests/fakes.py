"""Small fakes for unit tests (end-to-end tests use the real models)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np


class KeywordChecker:
    """Verdicts from keywords in the sentence: CONTRA, UNSUP, WEAK; anything else is entailed."""

    name = "keyword-fake"
    max_length = 192
    model_max = 512

    def __init__(self) -> None:
        self.calls = 0
        self.pairs = 0

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.pairs += len(premises)
        rows = []
        for h in hypotheses:
            if "CONTRA" in h:
                rows.append([0.05, 0.1, 0.85])
            elif "UNSUP" in h:
                rows.append([0.1, 0.8, 0.1])
            elif "WEAK" in h:
                rows.append([0.45, 0.3, 0.25])
            else:
                rows.append([0.9, 0.07, 0.03])
        return np.array(rows, dtype=np.float32).reshape(-1, 3)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
