"""The default runtime: the bundled checker (and the relevance embedding model) on ONNX Runtime.

Checking with the bundled model imports neither torch nor transformers: the graphs were exported by
``training/export_onnx.py`` (``model.int8.onnx``: int8 weights and activations, static quantisation with NNCF,
the bundled graph since issue 41; ``model.onnx``: fp32 compute, weights stored as fp16 like the safetensors,
where a folder has it) and the tokenizer is the ``tokenizers``
library's, behind a small adapter with the calls :class:`~faithlint.models.checkers.nli.NLIChecker` makes, so
truncation, chunking of long sentences and token counts are the torch path's code, not a copy of it.

The torch/transformers path (:mod:`faithlint.models.checkers.nli`) stays for ``--model`` with a Hugging Face id or
folder, for CUDA, and for training; :func:`pick_runtime` decides (config ``runtime``). Where OpenVINO is
installed, the same graph runs there instead (:mod:`faithlint.models.checkers.openvino_checker`: bfloat16 on CPUs
that have it natively).
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.errors import ModelError, first_line
from faithlint.models.checkers.nli import (
    NLIChecker,
    file_sha256,
    label_indices,
    length_batches,
    model_identity,
    resolve_model,
    verify_bundled,
)

THREADS_ENV = "FAITHLINT_THREADS"  # intra-op threads for ONNX Runtime (and torch when set); 0 or unset: auto
FILES = {"fp32": "model.onnx", "int8": "model.int8.onnx"}
STATES = "last_hidden_state"  # the graph's second output (training/export_onnx.py), read by the span head


def _hash_into(graph: Path, out: Future[str]) -> None:
    try:
        out.set_result(file_sha256(graph))
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
        out.set_exception(exc)


def available_precisions(folder: Path) -> list[str]:
    return [p for p, f in FILES.items() if (folder / f).exists()]


def onnx_file(folder: Path, precision: str = "auto") -> Path | None:
    """The graph to run: ``precision`` auto takes fp32 (``model.onnx``) where there, else int8 (the bundled
    checker ships only int8)."""
    if precision == "auto":
        for p in ("fp32", "int8"):
            if (folder / FILES[p]).exists():
                return folder / FILES[p]
        return None
    name = FILES.get(precision)
    return folder / name if name and (folder / name).exists() else None


def cuda_present() -> bool:
    """A CUDA GPU and torch to drive it (checked without importing torch)."""
    return (os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0")) and \
        importlib.util.find_spec("torch") is not None


def graph_precision(precision: str) -> str:
    """The graph a ``precision`` runs: bf16 is a compile setting of the fp32 graph (on OpenVINO)."""
    return "fp32" if precision == "bf16" else precision


def _model_folder_problem(model: str | None, precision: str) -> str | None:
    path, bundled = resolve_model(model)
    folder = Path(path)
    if not bundled and not folder.is_dir():
        return f"model {model!r} is a Hugging Face id (the torch path loads those)"
    graph = graph_precision(precision)
    if onnx_file(folder, graph) is None:
        want = "model.onnx or model.int8.onnx" if graph == "auto" else FILES.get(graph, graph)
        return f"{path} has no ONNX graph ({want}; training/export_onnx.py writes them)"
    return None


def _cannot(package: str, device: str, precision: str, unsupported: str | None = None,
            elsewhere: str = "") -> str | None:
    if importlib.util.find_spec(package) is None:
        return f"{package} is not installed"
    if device == "cuda":
        return "device 'cuda' runs on the torch path"
    if unsupported is not None and precision == unsupported:
        return f"precision {unsupported!r} runs on {elsewhere}"
    return None


def why_not_onnx(model: str | None, device: str, precision: str = "auto") -> str | None:
    """Why these settings cannot run on ONNX Runtime (None: they can)."""
    return _cannot("onnxruntime", device, precision, "bf16", "OpenVINO or the torch path") or \
        _model_folder_problem(model, precision)


def why_not_openvino(model: str | None, device: str, precision: str = "auto") -> str | None:
    """Why these settings cannot run on OpenVINO (None: they can). It runs the fp32 graph in fp32 or bf16 and the
    int8 graph in int8; an install that cannot start (a missing library, no CPU plugin) is a reason too, so
    ``auto`` falls back."""
    from faithlint.models.checkers.openvino_core import cpu_plugin_problem

    return _cannot("openvino", device, precision) or _model_folder_problem(model, precision) or cpu_plugin_problem()


def pick_runtime(runtime: str, model: str | None, device: str, precision: str = "auto") -> str:
    """Where the NLI checker runs: ``openvino``, ``onnx`` (ONNX Runtime) or ``torch``.

    Config ``runtime``: ``openvino`` and ``onnx`` insist (an error says why they cannot), ``torch`` never
    leaves torch; ``auto`` (the default) takes OpenVINO for the bundled (or any exported) model on the CPU,
    ONNX Runtime where OpenVINO is missing, and the torch path otherwise (CUDA present with ``device =
    "auto"``, a Hugging Face id, ``precision`` fp32 or bf16 with a folder that has only the int8 graph, as
    the bundled one)."""
    if runtime == "torch":
        return "torch"
    checks = {"openvino": why_not_openvino, "onnx": why_not_onnx}
    if runtime in checks:
        reason = checks[runtime](model, device, precision)
        if reason:
            raise ModelError(f"runtime {runtime!r} cannot run these settings: {reason}")
        return runtime
    if device == "auto" and cuda_present():
        return "torch"
    for kind, why_not in checks.items():
        if why_not(model, device, precision) is None:
            return kind
    return "torch"


def use_onnx(runtime: str, model: str | None, device: str, precision: str = "auto") -> bool:
    """Whether the checker runs on an exported graph (OpenVINO or ONNX Runtime), not on torch."""
    return pick_runtime(runtime, model, device, precision) != "torch"


def resolve_threads(threads: int = 0) -> int:
    """Intra-op threads: ``threads`` if positive, else $FAITHLINT_THREADS if positive, else this process's CPUs."""
    if threads and threads > 0:
        return int(threads)
    env = os.environ.get(THREADS_ENV, "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def threads_requested(threads: int = 0) -> bool:
    """Whether the user chose the thread count (config ``threads`` or $FAITHLINT_THREADS), not auto."""
    env = os.environ.get(THREADS_ENV, "").strip()
    return bool(threads and threads > 0) or (env.isdigit() and int(env) > 0)


def session(path: Path, threads: int = 0) -> Any:
    """An ONNX Runtime CPU session with all graph optimisations and ``threads`` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = resolve_threads(threads)
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # no busy-waiting between runs: idle workers would spin on the cores spaCy, the rules and other jobs need
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"{path}: cannot load the ONNX graph: {first_line(exc)}") from exc


class FastTokenizer:
    """The calls the checker and relevance make on a Hugging Face fast tokenizer, on ``tokenizers`` alone.

    ``tokenizer.json`` is the same file transformers loads; truncation is set per call exactly as
    transformers sets it (strategy, ``max_length``, right side, stride 0), on a separate instance per setting
    so that concurrent calls never see each other's truncation."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self._json = (folder / "tokenizer.json").read_text(encoding="utf-8")
        self._plain = Tokenizer.from_str(self._json)
        self._plain.no_truncation()
        self._plain.no_padding()
        self._truncating: dict[tuple[str, int], Any] = {}
        self._lock = threading.Lock()
        cfg_path = folder / "tokenizer_config.json"
        cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
        self.model_max_length = int(cfg.get("model_max_length", 512) or 512)
        self.truncation_side = cfg.get("truncation_side", "right")
        self.pad_token_id = self._plain.token_to_id(cfg.get("pad_token", "[PAD]")) or 0

    def _with(self, strategy: str | bool | None, max_length: int | None) -> Any:
        if strategy in (None, False, "do_not_truncate"):
            return self._plain
        strategy = "longest_first" if strategy is True else strategy
        limit = int(max_length or self.model_max_length)
        key = (str(strategy), limit)
        with self._lock:
            tok = self._truncating.get(key)
            if tok is None:
                from tokenizers import Tokenizer

                tok = Tokenizer.from_str(self._json)
                tok.no_padding()
                tok.enable_truncation(limit, stride=0, strategy=str(strategy), direction=self.truncation_side)
                self._truncating[key] = tok
        return tok

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        return self._plain.num_special_tokens_to_add(pair)

    def __call__(self, text: str | Sequence[str], text_pair: Sequence[str] | None = None, *,
                 add_special_tokens: bool = True, truncation: str | bool | None = None,
                 max_length: int | None = None, return_offsets_mapping: bool = False) -> dict[str, Any]:
        tok = self._with(truncation, max_length)
        single = isinstance(text, str)
        items: list[Any] = [text] if single else list(text)
        if text_pair is not None:
            items = list(zip(items, text_pair))
        encs = tok.encode_batch(items, add_special_tokens=add_special_tokens) if items else []
        out: dict[str, Any] = {"input_ids": [e.ids for e in encs], "token_type_ids": [e.type_ids for e in encs],
                               "attention_mask": [e.attention_mask for e in encs]}
        if return_offsets_mapping:
            out["offset_mapping"] = [e.offsets for e in encs]
        return {k: v[0] for k, v in out.items()} if single else out


def pad(rows: Sequence[Sequence[int]], value: int = 0, multiple: int = 1) -> np.ndarray:
    width = max((len(r) for r in rows), default=0)
    width = -(-width // multiple) * multiple
    out = np.full((len(rows), width), value, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


class ONNXChecker(NLIChecker):
    """The bundled (or any exported) NLI checker on ONNX Runtime; same interface and same inputs as
    :class:`NLIChecker` (its ``_features``, ``count_tokens`` and ``token_offsets`` run on the adapter)."""

    runtime = "onnx"
    pad_multiple = 1  # inputs are padded to a multiple of this many tokens

    def __init__(self, model: str | None = None, max_length: int = 192, batch_size: int = 32,
                 precision: str = "auto", threads: int = 0) -> None:
        path, bundled = resolve_model(model)
        folder = Path(path)
        self.path = path
        self.bundled = bundled
        self.max_length = max_length
        self.batch_size = batch_size
        self._lock = threading.Lock()
        graph = onnx_file(folder, self._graph_precision(precision))
        if graph is None:
            have = ", ".join(FILES[p] for p in available_precisions(folder)) or "none"
            raise ModelError(f"{path}: no ONNX graph for precision {precision!r} (have: {have}); "
                             "runtime = \"torch\" runs the model at full precision")
        # the bundled graph's sha256 is checked while OpenVINO compiles it (hashlib and the compile both leave the
        # GIL: hashing 28 MB first cost ~0.15 s of CPU, up to 0.6 s on a busy machine, of every start)
        digest: Future[str] | None = None
        if bundled:
            digest = Future()
            threading.Thread(target=_hash_into, args=(graph, digest), name="faithlint-sha256", daemon=True).start()
        config = json.loads((folder / "config.json").read_text())
        self.ent, self.neu, self.con = label_indices(config.get("id2label") or {}, path)
        self.temperature = float(config.get("faithlint_temperature", 1.0) or 1.0)
        self.model_max = int(config.get("max_position_embeddings", 512) or 512)
        self.tokenizer = FastTokenizer(folder)
        self.threads = resolve_threads(threads)
        self.device = "cpu"
        self.autocast = False
        self.graph = graph
        try:
            self.quantize = self._open(graph, precision, config)
        finally:  # a corrupted file is named as such, also where the runtime could not read it
            if digest is not None:
                verify_bundled(folder, graph.name, digest.result())
        from faithlint.models.checkers.span_head import SpanHead

        # the words of a flagged sentence, where the graph exposes its token states and a head is shipped
        self.span_head = SpanHead.load(folder) if self._has_states else None
        self.name = model_identity(path, bundled, self.temperature, f"{self.runtime}-{self.quantize or 'fp32'}")
        self.score_pairs(["faithlint"], ["faithlint"])  # the first run sets the session up (~15 ms): at load

    @staticmethod
    def _graph_precision(precision: str) -> str:
        return precision

    def _open(self, graph: Path, precision: str, config: dict[str, Any]) -> str | None:
        """Load the graph; returns the precision it runs at (None: fp32)."""
        self.session = session(graph, self.threads)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._has_states = any(o.name == STATES for o in self.session.get_outputs())
        return "int8" if graph.name == FILES["int8"] else None

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        # int8 and bf16 (OpenVINO) pairs run alone: a verdict must not depend on the pairs padded into its batch
        return length_batches(lengths, 1 if self.quantize in ("int8", "bf16") else self.batch_size)

    def _logits(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        return self.session.run(["logits"], batch)[0]

    def _logits_and_states(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        logits, states = self.session.run(["logits", STATES], batch)
        return logits, states

    def _forward(self, feats: list[dict[str, list[int]]], idx: list[int], states: bool
                 ) -> tuple[np.ndarray, np.ndarray | None]:
        batch = {k: pad([feats[i][k] for i in idx], multiple=self.pad_multiple)
                 for k in ("input_ids", "attention_mask", "token_type_ids") if k in self._inputs}
        logits, hidden = self._logits_and_states(batch) if states else (self._logits(batch), None)
        logits = logits.astype(np.float32) / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True), hidden
