"""The bundled checker's graph on OpenVINO: ``model.int8.onnx`` in int8 (the bundled graph since issue 41, about
1.8x fp32 on AVX-512 VNNI), or a folder's fp32 ``model.onnx``, about twice as fast in bfloat16.

The int8 graph is a QDQ graph (static quantisation by NNCF, ``training/export_onnx.py``): OpenVINO runs its
matrix products in int8; its pairs run alone, padded to a multiple of 8, for the reason given below for bf16.

ONNX Runtime has no bfloat16 kernels for x86 CPUs, so a CPU with native bfloat16 (AVX-512 BF16, AMX) ran the
checker in fp32 at half its speed. OpenVINO reads the exported graph as it is and runs its matrix products in
bfloat16 where the CPU has them natively (and where the model asks for it: ``faithlint_quantize`` in its
``config.json``), in fp32 elsewhere. Everything but the graph run (tokenizer, truncation, chunking, the
temperature, the pair bookkeeping) is :class:`~faithlint.models.checkers.onnx_checker.ONNXChecker`'s.

In bfloat16 every pair runs alone: a batch padded to its longest pair changes the accumulation order of the
matrix products and so a score's third decimal, which would make a sentence's verdict depend on which other
sentences were checked with it. On two threads a lone pair costs about what a batched one does. Inputs are
padded to a multiple of 8 tokens (a pair's own length decides, so verdicts stay batch-independent): OpenVINO
keeps compiled kernels per input shape, and one per length had grown a batch run by ~400 MB.

The compiled graph is kept in the cache folder (``compile_cache``: ``<cache_dir>/openvino``) by OpenVINO's
``CACHE_DIR`` (it writes the file inside the compile, streamed, for next to no CPU), in a folder of its own per graph
sha256, OpenVINO build, CPU and compile settings (:func:`blob_key`), and faithlint seals each file with a CRC-32
beside it (``.crc``): OpenVINO imported a damaged file of its own cache and scored with it (probabilities 0.65 off),
so a file whose seal is missing or differs is deleted before OpenVINO looks (:func:`_drop_unsealed`), and compiled
again. Sealing reads the file back on a low-priority thread after the load (a bundled graph once its sha256 has been
checked); exporting it ourselves instead held its ~60 MB in memory (+60-85 MB peak) and cost 0.3 s of CPU.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.cache.disk import atomic_write, prune
from faithlint.cache.disk import key as cache_key
from faithlint.errors import ModelError, first_line
from faithlint.models.checkers.nli import file_sha256, read_sums
from faithlint.models.checkers.onnx_checker import FILES, STATES, ONNXChecker, graph_precision
from faithlint.models.checkers.openvino_core import core, import_openvino, native_bf16

log = logging.getLogger(__name__)

BLOB_FORMAT = "faithlint-openvino-blob-1"  # in every key: a change of how they are kept misses the old ones
BLOBS_KEPT = 4  # compiled graphs kept in the folder (models x settings x OpenVINO versions), most recently used
# seconds from a load to the seal of its compiled graph: none for a command, which overlaps it with its check; the
# language server sets 5 (faithlint.pipeline.preloading): its cold start and first checks do not share the cores
save_delay_s = 0.0
EXIT_WAIT_S = 30.0  # how long an exiting process waits for the seals it has not written yet
_SAVING: set[threading.Thread] = set()
_SAVING_LOCK = threading.Lock()
_SAVE_NOW = threading.Event()  # set by save_pending(): seal without waiting out the delay


def wants_bf16(precision: str, config: dict[str, Any]) -> bool:
    """``precision`` bf16 insists; auto follows the model's ``faithlint_quantize`` where the CPU has bf16."""
    if precision == "bf16":
        return True
    return precision == "auto" and config.get("faithlint_quantize") == "bf16" and native_bf16()


class OpenVINOChecker(ONNXChecker):
    """The exported checker graph (int8 ``model.int8.onnx`` or fp32 ``model.onnx``) compiled by OpenVINO."""

    runtime = "openvino"
    # OpenVINO keeps a compiled kernel set per input shape: unpadded, a batch run's ~200 lengths cost ~400 MB
    pad_multiple = 8

    def __init__(self, model: str | None = None, max_length: int = 192, batch_size: int = 32,
                 precision: str = "auto", threads: int = 0, compile_cache: str | None = None) -> None:
        self.compile_cache = compile_cache  # the folder keeping the compiled graph for the next start (None: off)
        self._unsealed: Path | None = None  # the folder OpenVINO wrote the compiled graph to, sealed once checked
        try:
            super().__init__(model, max_length=max_length, batch_size=batch_size, precision=precision,
                             threads=threads)
        except ModelError:  # a bundled graph that fails its sha256: its compilation is not kept
            if self._unsealed is not None:
                _drop_unsealed(self._unsealed)
            raise
        if self._unsealed is not None:  # only now: a bundled graph that fails its sha256 is never sealed
            _seal_later(self._unsealed)
            self._unsealed = None

    @staticmethod
    def _graph_precision(precision: str) -> str:
        return graph_precision(precision)

    def _open(self, graph: Path, precision: str, config: dict[str, Any]) -> str | None:
        int8 = graph.name == FILES["int8"]
        bf16 = not int8 and wants_bf16(precision, config)
        props = {"INFERENCE_NUM_THREADS": self.threads, "PERFORMANCE_HINT": "LATENCY",
                 "INFERENCE_PRECISION_HINT": "bf16" if bf16 else "f32",
                 # unpinned: an editor and its other servers share these cores (pinning measured no faster here)
                 "ENABLE_CPU_PINNING": False}
        try:
            ov_core = core()
            folder = self._cache_folder(graph, props)
            model = ov_core.read_model(str(graph))
            compiled = None
            if folder is not None:
                try:
                    _drop_unsealed(folder)
                    compiled = ov_core.compile_model(model, "CPU", {**props, "CACHE_DIR": str(folder)})
                    self._unsealed = folder
                except Exception as exc:  # noqa: BLE001 - a folder it cannot use (read-only, full): compile without
                    log.info("the compiled checker is not kept in %s: %s", folder, first_line(exc))
            if compiled is None:
                compiled = ov_core.compile_model(model, "CPU", props)
        except Exception as exc:  # openvino raises its own exception types
            raise ModelError(f"{graph}: OpenVINO cannot load the graph: {first_line(exc)}") from exc
        self._request = compiled.create_infer_request()
        self._inputs = {name for port in compiled.inputs for name in port.get_names()}
        names = [port.get_names() for port in compiled.outputs]
        self._logits_port = next(i for i, n in enumerate(names) if "logits" in n)
        self._states_port = next((i for i, n in enumerate(names) if STATES in n), None)
        self._has_states = self._states_port is not None
        return "int8" if int8 else "bf16" if bf16 else None

    def _cache_folder(self, graph: Path, props: dict[str, Any]) -> Path | None:
        """The folder keeping this graph compiled with ``props`` (None: no cache)."""
        if not self.compile_cache:
            return None
        try:
            return Path(self.compile_cache) / f"checker-{blob_key(graph, self.bundled, props)}"
        except OSError as exc:  # an unreadable SHA256SUMS (the load names it) or folder: compiled, not kept
            log.info("the compiled checker is not kept: %s", first_line(exc))
            return None

    def _logits(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        # copied: the request reuses its buffers
        return np.array(self._request.infer(batch)[self._logits_port], dtype=np.float32)

    def _logits_and_states(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        got = self._request.infer(batch)
        return np.array(got[self._logits_port], dtype=np.float32), np.array(got[self._states_port], dtype=np.float32)


def blob_key(graph: Path, bundled: bool, props: dict[str, Any]) -> str:
    """What a compiled graph depends on, as a file name: the graph's sha256 (the bundled one's from its
    ``SHA256SUMS``, which the load checks the file against beside the compile; another's hashed here, with the
    size and time of the files beside it, which a graph can name as external weights), OpenVINO's build, the CPU
    (its name and instruction sets) and the compile settings."""
    folder = graph.parent
    digest = read_sums(folder / "SHA256SUMS").get(graph.name) if bundled else None
    parts = [digest or file_sha256(graph)]
    if not bundled:
        parts += sorted(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in folder.iterdir()
                        if p.is_file() and p != graph)
    ov_core = core()
    cpu = [str(ov_core.get_property("CPU", name)) for name in ("FULL_DEVICE_NAME", "OPTIMIZATION_CAPABILITIES")]
    return cache_key(BLOB_FORMAT, *parts, import_openvino().get_version(), *cpu,
                     json.dumps(props, sort_keys=True, default=str))[:32]


def _crc(path: Path) -> str:
    crc = 0
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            crc = zlib.crc32(chunk, crc)
    return f"{crc:08x}:{path.stat().st_size}"


def _drop_unsealed(folder: Path) -> None:
    """Delete the compiled graphs in ``folder`` whose seal (:func:`_seal`) is missing or differs, before OpenVINO
    reads them; a kept one is marked recently used (:data:`BLOBS_KEPT`). Raises OSError where it cannot delete."""
    for blob in folder.glob("*.blob"):
        seal = blob.with_suffix(".crc")
        try:
            good = seal.read_text() == _crc(blob)
        except OSError:
            good = False
        if good:
            os.utime(folder)
            continue
        log.info("%s: damaged or unsealed, compiled again", blob)
        blob.unlink(missing_ok=True)
        seal.unlink(missing_ok=True)


def _seal_later(folder: Path) -> None:
    """Seal the compiled graphs OpenVINO wrote to ``folder`` on a low-priority thread, :data:`save_delay_s` after the
    load; a process that exits sooner seals them then (:func:`save_pending`)."""
    thread = threading.Thread(target=_seal, args=(folder, save_delay_s), name="faithlint-ov-seal", daemon=True)
    with _SAVING_LOCK:
        if not _SAVING:
            atexit.register(save_pending, EXIT_WAIT_S)
        _SAVING.add(thread)
    thread.start()


def _seal(folder: Path, delay: float) -> None:
    if delay > 0:
        _SAVE_NOW.wait(delay)
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # Linux: this thread only
    except (AttributeError, OSError):
        pass
    try:  # reading and the CRC leave the GIL
        for blob in folder.glob("*.blob"):
            seal = blob.with_suffix(".crc")
            if not seal.exists():
                atomic_write(seal, _crc(blob).encode(), prefix=".tmp-", suffix=".crc")
        prune(folder.parent, "checker-*", BLOBS_KEPT)
        prune(folder.parent, "[0-9]*.blob", 0)  # OpenVINO's files of its own naming, which faithlint kept until stop 41
    except Exception as exc:  # noqa: BLE001 - a folder it cannot write: the next start compiles again
        log.info("cannot seal the compiled checker in %s: %s", folder, first_line(exc))
    finally:
        with _SAVING_LOCK:
            _SAVING.discard(threading.current_thread())


def save_pending(timeout: float = EXIT_WAIT_S) -> None:
    """Seal the compiled graphs waiting for it now, and wait up to ``timeout`` s for them (a process's exit)."""
    _SAVE_NOW.set()
    with _SAVING_LOCK:
        threads = list(_SAVING)
    for t in threads:
        t.join(timeout)
