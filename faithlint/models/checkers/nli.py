"""NLI backend: any Hugging Face sequence-classification NLI model.

Loads from a local folder or a hub id (labels from ``config.id2label``;
``trust_remote_code`` only when asked), runs on CUDA when present and the CPU
otherwise, and scores all pairs of a document in length-sorted batches. The
bundled default model is checked against its recorded sha256 before loading.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.errors import ModelError, first_line
from faithlint.lazy_imports import import_torch
from faithlint.models.checkers.base import CheckerBase
from faithlint.models.checkers.graph_weights import GRAPH, from_pretrained
from faithlint.offline import ALLOW_DOWNLOADS, downloads_allowed

DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[1] / "default"  # faithlint/models/default
WEIGHTS = GRAPH  # the bundled checker's only weights (its torch path rebuilds from them: graph_weights)
MIN_PREMISE = 32  # tokens a premise keeps next to the longest hypothesis scored whole


def resolve_model(model: str | None) -> tuple[str, bool]:
    """Return (path or hub id, is_bundled)."""
    if model in (None, "", "default"):
        return str(DEFAULT_MODEL_DIR), True
    return str(model), False


def verify_bundled(path: Path, name: str = WEIGHTS, got: str | None = None) -> None:
    """Refuse a bundled model whose file ``name`` differs from its recorded sha256 (``got``: its digest, where
    already computed — the ONNX checkers hash it beside their compile)."""
    sums = path / "SHA256SUMS"
    weights = path / name
    if not weights.exists() or not sums.exists():
        raise ModelError(f"{path}: the bundled default model is missing ({name} or SHA256SUMS); "
                         "reinstall faithlint or pass --model PATH_OR_ID")
    expected = read_sums(sums)
    got = file_sha256(weights) if got is None else got
    if expected.get(name) != got:
        raise ModelError(f"{weights}: sha256 mismatch (expected {expected.get(name)}, got {got}); "
                         "the bundled model is corrupted, reinstall faithlint")


def read_sums(path: Path) -> dict[str, str]:
    """A ``SHA256SUMS`` file as {file name: hex digest} (``sha256sum``'s format, binary-mode ``*`` allowed)."""
    expected = {}
    for line in path.read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            expected[name.strip().lstrip("*")] = digest
    return expected


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def hub_cached(model_id: str) -> bool:
    """Is ``model_id``'s config in the local Hugging Face cache (no network)?"""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(model_id, "config.json")
    except Exception:  # not a valid repo id, or no huggingface_hub: it cannot be cached
        return False
    return isinstance(found, str)


def label_indices(id2label: dict[Any, str], model: str) -> tuple[int, int | None, int | None]:
    """Map a model's labels onto (entailment, neutral, contradiction) indices."""
    names = {int(k): str(v).lower() for k, v in id2label.items()}
    ent = [i for i, n in names.items() if n.startswith("entail") or n in {"supported", "support", "consistent"}]
    con = [i for i, n in names.items() if n.startswith("contradict") or n in {"refuted", "refutes"}]
    neu = [i for i, n in names.items() if i not in ent + con and ("neutral" in n or "not" in n or "non" in n)]
    if len(ent) != 1 or (not con and not neu):
        raise ModelError(f"model {model!r} is not an NLI classifier: its labels are "
                         f"{sorted(names.values())}; expected entailment/neutral/contradiction")
    return ent[0], (neu[0] if neu else None), (con[0] if con else None)


class NLIChecker(CheckerBase):
    """A cross-encoder NLI model behind the :class:`~faithlint.models.checkers.base.Checker` interface."""

    runtime = "torch"  # where the model runs (the exported-graph subclasses say onnx or openvino)

    def __init__(self, model: str | None = None, device: str = "auto", max_length: int = 192,
                 batch_size: int = 32, trust_remote_code: bool = False, quantize: str | None = None) -> None:
        path, bundled = resolve_model(model)
        self.path = path
        self.bundled = bundled
        self.max_length = max_length
        self.batch_size = batch_size
        self._lock = threading.Lock()
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        if bundled:
            verify_bundled(Path(path))
        elif Path(path).exists() and not (Path(path) / "config.json").exists():
            raise ModelError(f"{path}: not a Hugging Face model folder (no config.json)")
        hub = not bundled and not Path(path).exists()
        local_only = hub and not downloads_allowed()
        if local_only and not hub_cached(path):  # fail now, not after the hub client's retries (~30 s offline)
            raise ModelError(f"cannot load model {path!r}: not a local folder and not in the Hugging Face cache; "
                             f"pass a local folder with --model, download it first (hf download {path}), or set "
                             f"{ALLOW_DOWNLOADS}=1 to let faithlint download it")
        try:
            torch = import_torch()  # not while spaCy's import hides it (models load beside spaCy)
            from transformers import AutoConfig, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
            config = AutoConfig.from_pretrained(path, trust_remote_code=trust_remote_code, local_files_only=local_only)
        except ImportError as exc:
            raise ModelError(f"model {path!r} runs on the torch path, which needs torch and transformers: "
                             "pip install 'faithlint[torch]'") from exc
        except OSError as exc:
            raise ModelError(f"cannot load model {path!r}: {first_line(exc)} "
                             "(offline? pass a local folder with --model)") from exc
        except ValueError as exc:
            raise ModelError(f"cannot load model {path!r}: {first_line(exc)}") from exc
        archs = getattr(config, "architectures", None) or []
        if archs and not any(a.endswith("ForSequenceClassification") for a in archs):
            raise ModelError(f"model {path!r} is not a sequence classifier (architectures: {', '.join(archs)})")
        self.ent, self.neu, self.con = label_indices(config.id2label or {}, path)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=trust_remote_code,
                                                           local_files_only=local_only)
            self.model = from_pretrained(path, trust_remote_code=trust_remote_code, dtype=torch.float32,
                                         local_files_only=local_only)
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load model {path!r}: {first_line(exc)}") from exc
        self.model.eval()
        self.temperature = float(getattr(config, "faithlint_temperature", 1.0) or 1.0)
        explicit_precision = quantize is not None
        if quantize is None:
            quantize = getattr(config, "faithlint_quantize", None)
        if quantize in ("none", "fp32"):
            quantize = None
        if quantize not in (None, "int8", "bf16"):
            raise ModelError(f"model {path!r}: unknown precision {quantize!r} (fp32, bf16 or int8)")
        if quantize == "bf16" and not explicit_precision and not cpu_has_bf16():
            quantize = None  # the model prefers bf16, but this CPU would only emulate it (slower than fp32)
        if device == "cuda" and not torch.cuda.is_available():
            raise ModelError("device 'cuda' requested but CUDA is not available")
        self.device = "cuda" if device in ("auto", "cuda") and torch.cuda.is_available() else "cpu"
        if self.device == "cuda":
            self.model.to("cuda")
        elif quantize == "int8":
            with warnings.catch_warnings():  # torch.ao's deprecation notices are not the user's business
                warnings.simplefilter("ignore")
                self.model = torch.ao.quantization.quantize_dynamic(self.model, {torch.nn.Linear},
                                                                    dtype=torch.qint8)
        self.quantize = quantize if self.device == "cpu" else None
        # bf16: fp32 weights, matrix products in bfloat16 (native on CPUs with AVX-512 BF16 / AMX)
        self.autocast = self.quantize == "bf16"
        self.model_max = int(getattr(config, "max_position_embeddings", 512) or 512)
        self.name = model_identity(path, bundled, self.temperature, self.quantize)
        from faithlint.models.checkers.span_head import SpanHead

        self.span_head = SpanHead.load(path) if Path(path).is_dir() else None  # the words of a flagged sentence

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        enc = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [len(x) for x in enc]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return list(self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"])

    def input_limit(self) -> int:
        """Tokens one (premise, hypothesis) input may have: the model's positions, or less if the tokenizer says so."""
        tok_max = getattr(self.tokenizer, "model_max_length", None)
        limit = self.model_max
        if isinstance(tok_max, int) and 0 < tok_max < 100_000:
            limit = min(limit, tok_max)
        return limit

    def _features(self, premises: Sequence[str], hypotheses: Sequence[str]
                  ) -> tuple[list[dict[str, list[int]]], list[list[int]]]:
        """Model inputs for the pairs, and which inputs belong to each pair.

        A pair whose hypothesis fits next to the premise is one input (the premise truncated if
        needed). A hypothesis too long to sit next to any premise (a 600-word run-on sentence, a
        line without punctuation) is cut into overlapping chunks that each fit, every chunk paired
        with the premise (truncated to share the room); :meth:`score_pairs` combines them.
        """
        tok = self.tokenizer
        limit = self.input_limit()
        special = tok.num_special_tokens_to_add(pair=True)
        room = max(limit - special, 16)
        uniq = list(dict.fromkeys(hypotheses))
        enc_h = tok(uniq, add_special_tokens=False, return_offsets_mapping=True)
        spans = {h: offs for h, offs in zip(uniq, enc_h["offset_mapping"])}
        # a hypothesis fits when it leaves the premise MIN_PREMISE tokens (the premise is truncated to the rest)
        long = {h for h in uniq if len(spans[h]) + MIN_PREMISE > room}
        simple = [i for i, h in enumerate(hypotheses) if h not in long]
        chunked = [i for i, h in enumerate(hypotheses) if h in long]
        p_len = dict(zip(chunked, self.count_tokens([premises[i] for i in chunked])))
        cache: dict[tuple[str, int], list[str]] = {}
        rows: list[tuple[str, str]] = []
        groups: list[list[int]] = [[] for _ in hypotheses]
        for i in chunked:
            p, h = premises[i], hypotheses[i]
            # the premise keeps up to half the room; the hypothesis' chunks get the rest (a few tokens spare,
            # as a chunk's text may tokenise a little longer on its own)
            size = room - min(p_len[i], room // 2) - 8
            parts = cache.get((h, size))
            if parts is None:
                parts = cache[(h, size)] = _chunk_text(h, spans[h], size)
            for part in parts:
                groups[i].append(len(simple) + len(rows))
                rows.append((p, part))
        feats: list[dict[str, list[int]]] = []
        whole = [(premises[i], hypotheses[i]) for i in simple]
        for items, strategy in ((whole, "only_first"), (rows, "longest_first")):
            if not items:
                continue
            enc = tok([a for a, _ in items], [b for _, b in items], truncation=strategy, max_length=limit)
            feats.extend({k: enc[k][j] for k in enc.keys()} for j in range(len(items)))
        for j, i in enumerate(simple):
            groups[i] = [j]
        return feats, groups

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        return self._run_pairs(premises, hypotheses, None)[0]

    def score_and_mark(self, premises: Sequence[str], hypotheses: Sequence[str]
                       ) -> tuple[np.ndarray, list[list[tuple[int, int]] | None]]:
        """:meth:`score_pairs` plus, per pair, the character ranges of its hypothesis that :attr:`span_head`
        marks (``[]``: none, or most of it; ``None``: no marks for this pair, e.g. a hypothesis cut into
        chunks). The same model run: the token states are its last layer."""
        return self._run_pairs(premises, hypotheses, self.span_head)

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        return length_batches(lengths, self.batch_size)

    def _forward(self, feats: list[dict[str, list[int]]], idx: list[int], states: bool
                 ) -> tuple[np.ndarray, np.ndarray | None]:
        """Probabilities (the model's label order) of one batch, and its last layer's states if asked."""
        import torch

        batch = self.tokenizer.pad({k: [feats[i][k] for i in idx] for k in feats[idx[0]]}, return_tensors="pt")
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.inference_mode(), precision_context(self.autocast):
            res = self.model(**batch, output_hidden_states=states)
            probs = (res.logits.float() / self.temperature).softmax(-1).cpu().numpy()
            return probs, res.hidden_states[-1].float().cpu().numpy() if states else None

    def _run_pairs(self, premises: Sequence[str], hypotheses: Sequence[str], head: Any
                   ) -> tuple[np.ndarray, list[list[tuple[int, int]] | None]]:
        n = len(premises)
        out = np.zeros((n, 3), dtype=np.float32)
        marks: list[list[tuple[int, int]] | None] = [None] * n
        if n == 0:
            return out, marks
        feats, groups = self._features(premises, hypotheses)
        rows = np.zeros((len(feats), 3), dtype=np.float32)
        states: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # input -> (hypothesis token states, [CLS] state)
        wanted = {g[0]: i for i, g in enumerate(groups) if len(g) == 1} if head is not None else {}
        spans = {i: self.token_offsets(hypotheses[i]) for i in wanted.values()}
        with self._lock:
            for idx in self._batches([len(f["input_ids"]) for f in feats]):
                probs, hidden = self._forward(feats, idx, any(i in wanted for i in idx))
                for b, i in enumerate(idx):
                    if hidden is not None and i in wanted:  # [CLS] premise [SEP] hypothesis [SEP]
                        end = len(feats[i]["input_ids"]) - 1
                        k = len(spans[wanted[i]])
                        states[i] = (np.array(hidden[b, end - k:end], dtype=np.float32),
                                     np.array(hidden[b, 0], dtype=np.float32))
                self._store(rows, idx, probs)
        out = self._per_pair(rows, groups, out)
        for i, pair in wanted.items():
            if i in states and spans[pair]:
                assert head is not None  # ``wanted`` is empty without one
                tok, cls_state = states[i]
                p = head.token_probs(tok, cls_state, float(out[pair, 0]), float(out[pair, 2]))
                marks[pair] = head.marks(hypotheses[pair], spans[pair], p)
        return out, marks

    def _store(self, rows: np.ndarray, idx: Sequence[int], probs: np.ndarray) -> None:
        """The model's label probabilities of one batch as (entailment, neutral, contradiction) rows."""
        rows[idx, 0] = probs[:, self.ent]
        if self.neu is not None:
            rows[idx, 1] = probs[:, self.neu]
        if self.con is not None:
            rows[idx, 2] = probs[:, self.con]

    @staticmethod
    def _per_pair(rows: np.ndarray, groups: Sequence[Sequence[int]], out: np.ndarray) -> np.ndarray:
        """One row per pair: renormalised, and a chunked hypothesis only as supported as its least supported part."""
        rows /= rows.sum(axis=1, keepdims=True)
        for i, g in enumerate(groups):
            out[i] = rows[g[0]] if len(g) == 1 else rows[min(g, key=lambda j: rows[j, 0])]
        return out


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (sorted by length; each batch padded to its longest)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[b:b + batch_size] for b in range(0, len(order), batch_size)]


def _chunk_text(text: str, offsets: Sequence[tuple[int, int]], size: int, overlap: int = 32) -> list[str]:
    """``text`` as overlapping pieces of at most ``size`` tokens (``offsets``: its tokens' character spans)."""
    size = max(size, 8)
    overlap = min(overlap, size // 4)
    parts: list[str] = []
    start = 0
    n = len(offsets)
    while start < n:
        end = min(start + size, n)
        parts.append(text[offsets[start][0]:offsets[end - 1][1]])
        if end == n:
            break
        start = end - overlap
    return parts


def precision_context(bf16: bool) -> Any:
    """Where the checker runs in bf16: matrix products in bfloat16 on the CPU (weights stay fp32)."""
    if not bf16:
        return contextlib.nullcontext()
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16)


def cpu_has_bf16() -> bool:
    """Whether oneDNN runs bfloat16 matrix products natively here (else autocast is slower than fp32)."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def model_identity(path: str, bundled: bool, temperature: float, quantize: str | None) -> str:
    ident = {"path": "bundled" if bundled else path, "t": temperature, "q": quantize}
    if bundled:
        sums = Path(path) / "SHA256SUMS"
        ident["sha"] = sums.read_text()[:16] if sums.exists() else ""
    return hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
