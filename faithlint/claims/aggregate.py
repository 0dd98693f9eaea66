"""Claim verdicts -> one sentence verdict (and the draft's claim score), as in RefChecker.

- ``strict``: any contradicted claim makes the sentence contradicted, else any unsupported claim makes it
  unsupported. The sentence's verdict is its worst claim's: every flagged claim is reported. For drafts that
  must hold every fact (reports, answers read by customers).
- ``soft``: the sentence's probabilities are the mean of its claims', so its P(entailment) is the expected
  share of supported claims. One doubtful claim among several supported ones no longer flags the sentence:
  fewer findings, for long summaries where the extractor's odd claims would otherwise dominate.
- ``major``: the label most claims have decides (ties go to the worse label); the probabilities are the mean
  of the claims with that label. Between the two: a sentence is flagged when most of its claims are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from faithlint.types import LABELS

_RANK = {"entailment": 0, "neutral": 1, "contradiction": 2}
MODES = ("strict", "soft", "major")


def aggregate(probs: Sequence[Sequence[float]] | Sequence[np.ndarray], mode: str) -> tuple[np.ndarray, int]:
    """(the sentence's probabilities, index of the deciding claim) from its claims' probabilities."""
    if not len(probs):
        raise ValueError("a sentence without claims has no claim verdict")
    p = np.asarray(probs, dtype=np.float64)
    labels = [LABELS[int(np.argmax(row))] for row in p]
    if mode == "strict":
        worst = max(range(len(p)), key=lambda i: (_RANK[labels[i]], p[i, 2], -p[i, 0]))
        return p[worst].copy(), worst
    if mode == "soft":
        return p.mean(axis=0), int(np.argmin(p[:, 0]))
    if mode == "major":
        counts = {lab: labels.count(lab) for lab in set(labels)}
        top = max(counts.values())
        label = max((lab for lab, n in counts.items() if n == top), key=_RANK.__getitem__)
        rows = [i for i, lab in enumerate(labels) if lab == label]
        return p[rows].mean(axis=0), min(rows, key=lambda i: p[i, 0])
    raise ValueError(f"claim_aggregation must be one of {', '.join(MODES)}, not {mode!r}")


def supported_share(labels: Sequence[str]) -> float:
    """RefChecker's soft response score: the share of claims labelled entailment."""
    return float(np.mean([lab == "entailment" for lab in labels])) if labels else float("nan")
