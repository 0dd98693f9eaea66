"""Local intrinsic dimension (LID) of a hidden state against a reference set of faithful sentences.

SynCheck's observation: the last token's hidden state of a faithful sentence lies on a
lower-dimensional neighbourhood of other faithful sentences than a hallucinated one. The
maximum-likelihood estimator of Levina & Bickel over the ``k`` nearest reference points.
"""

from __future__ import annotations

import numpy as np

K = 20


def lid_mle(x: np.ndarray, reference: np.ndarray, k: int = K, exclude_self: bool = False) -> np.ndarray:
    """LID of each row of ``x`` (n, d) among ``reference`` (m, d); ``exclude_self`` drops a zero distance
    (the point itself, when ``x`` rows are also in the reference)."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float32))
    ref = np.asarray(reference, dtype=np.float32)
    if len(ref) < 2 or len(x) == 0:
        return np.zeros(len(x), dtype=np.float32)
    d2 = (x * x).sum(1)[:, None] + (ref * ref).sum(1)[None, :] - 2.0 * x @ ref.T
    dist = np.sqrt(np.clip(d2, 0.0, None))
    dist.sort(axis=1)
    if exclude_self:
        dist = dist[:, 1:]
    k = max(2, min(k, dist.shape[1]))
    near = np.maximum(dist[:, :k], 1e-6)
    ratio = np.log(near / near[:, -1:])[:, :-1]
    mean = ratio.mean(1)
    return np.where(mean < 0, -1.0 / np.minimum(mean, -1e-6), 0.0).astype(np.float32)
