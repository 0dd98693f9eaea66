"""Deterministic split of evaluation contexts into a "synth" and an "unseen" half.

The synthetic training data may use the unlabelled contexts of the evaluation
files in the "synth" half; the benchmark's headline numbers use only the
"unseen" half, whose contexts the model never saw in any form. Labelled
training files are split the same way into training and calibration rows.
"""

from __future__ import annotations

import hashlib
import random


def context_bucket(context: str, bucket: str) -> bool:
    """True when ``context`` belongs to ``bucket`` ("synth"/"unseen" or "train"/"calib")."""
    h = int(hashlib.sha256(context.encode("utf-8")).hexdigest()[:8], 16)
    if bucket in ("synth", "unseen"):
        return (h % 2 == 0) == (bucket == "synth")
    if bucket in ("train", "calib"):
        return (h % 10 < 3) == (bucket == "calib")
    raise ValueError(f"unknown bucket {bucket!r}")


def sample(rows: list, limit: int | None, seed: int = 0) -> list:
    """A deterministic sample of ``limit`` rows in their original order (all of them when ``limit`` is None or
    covers them): the benchmarks and ``faithlint train-monitor`` read the same rows."""
    if limit is None or len(rows) <= limit:
        return rows
    return [rows[i] for i in sorted(random.Random(seed).sample(range(len(rows)), limit))]
