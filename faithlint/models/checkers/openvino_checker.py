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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from faithlint.errors import ModelError, first_line
from faithlint.models.checkers.onnx_checker import FILES, STATES, ONNXChecker, graph_precision
from faithlint.models.checkers.openvino_core import core, native_bf16


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
        self.compile_cache = compile_cache  # OpenVINO's CACHE_DIR: the compiled graph, reused by the next start
        super().__init__(model, max_length=max_length, batch_size=batch_size, precision=precision, threads=threads)

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
        if self.compile_cache:
            props["CACHE_DIR"] = self.compile_cache
        try:
            ov_core = core()
            model = ov_core.read_model(str(graph))
            try:
                compiled = ov_core.compile_model(model, "CPU", props)
            except Exception:  # noqa: BLE001 - a cache folder it cannot use (read-only, full): compile without
                if "CACHE_DIR" not in props:
                    raise
                compiled = ov_core.compile_model(model, "CPU", {k: v for k, v in props.items() if k != "CACHE_DIR"})
        except Exception as exc:  # openvino raises its own exception types
            raise ModelError(f"{graph}: OpenVINO cannot load the graph: {first_line(exc)}") from exc
        self._request = compiled.create_infer_request()
        self._inputs = {name for port in compiled.inputs for name in port.get_names()}
        names = [port.get_names() for port in compiled.outputs]
        self._logits_port = next(i for i, n in enumerate(names) if "logits" in n)
        self._states_port = next((i for i, n in enumerate(names) if STATES in n), None)
        self._has_states = self._states_port is not None
        return "int8" if int8 else "bf16" if bf16 else None

    def _logits(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        # copied: the request reuses its buffers
        return np.array(self._request.infer(batch)[self._logits_port], dtype=np.float32)

    def _logits_and_states(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        got = self._request.infer(batch)
        return np.array(got[self._logits_port], dtype=np.float32), np.array(got[self._states_port], dtype=np.float32)
