"""The bundled checker's torch weights, read back from its int8 ONNX graph.

The package ships the checker once, as ``model.int8.onnx`` (issue 37: model files in the package at most
60 MB); the torch path (CUDA, ``precision = "fp32"``/``"bf16"``, ``runtime = "torch"``) rebuilds a
``BertForSequenceClassification`` state dict from it instead of shipping fp16 safetensors beside it. The graph
was quantised by NNCF (``training/export_onnx.py``): weights are int8 with per-channel scales behind
``DequantizeLinear``, SmoothQuant moved a per-input-channel factor from each weight onto a ``Mul`` in front of
its activations, and bias correction adjusted biases. So a weight is dequantised and multiplied back by its
SmoothQuant factor; biases and layer norms are the graph's own. What comes out is the int8 graph's arithmetic
with fp32 activations: its outputs agree with the int8 graph a little more closely than the original fp16 weights
did (``tests/test_onnx.py``). The fp16 training weights stay in the repository (``training/checker/``).

Names come from the exporter: initializers keep their module path (``inner.bert.encoder...bias``,
``q_output_inner.bert.embeddings.word_embeddings.weight_1`` once quantised) and each ``MatMul``/``Gemm`` node
is named after its ``Linear`` (``/inner/bert/encoder/layer.0/attention/self/query/MatMul``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.errors import ModelError

WRAPPER = "inner."  # the export wraps the classifier (training/export_onnx.py) as module ``inner``
GRAPH = "model.int8.onnx"  # the bundled checker's only weights
TORCH_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
QUANTISED = re.compile(r"^q_output_(.+)_\d+$")  # NNCF's name for a quantised initializer
NODE = re.compile(r"^/inner/(.+)/(MatMul|Gemm)$")


def graph_only(folder: Path) -> bool:
    """A folder whose weights are only its int8 graph (the bundled checker): the torch path rebuilds from it."""
    return (folder / GRAPH).exists() and not any((folder / w).exists() for w in TORCH_WEIGHTS)


def from_pretrained(path: str, **kwargs: Any) -> Any:
    """``AutoModelForSequenceClassification.from_pretrained``, also for a folder whose weights are only its int8
    graph (training's default base and the torch path of the bundled checker)."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    folder = Path(path)
    if not (folder.is_dir() and graph_only(folder)):
        return AutoModelForSequenceClassification.from_pretrained(path, **kwargs)
    trust = bool(kwargs.get("trust_remote_code", False))
    labels = {k: kwargs[k] for k in ("num_labels", "id2label", "label2id") if k in kwargs}
    config = AutoConfig.from_pretrained(path, trust_remote_code=trust, **labels)
    model = AutoModelForSequenceClassification.from_config(config, trust_remote_code=trust).float()
    load_into(model, folder / GRAPH)
    return model.to(kwargs["dtype"]) if kwargs.get("dtype") is not None else model


def state_dict(graph: Path) -> dict[str, np.ndarray]:
    """Module name → fp32 array for every parameter the graph holds (``ModelError`` when unreadable)."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:
        raise ModelError(f"{graph}: the torch path reads the bundled checker's weights from its ONNX graph, "
                         "which needs the onnx package: pip install 'faithlint[torch]'") from exc
    try:
        model = onnx.load(str(graph))
    except Exception as exc:  # a truncated or foreign file
        raise ModelError(f"{graph}: not a readable ONNX graph ({exc})") from exc
    values: dict[str, np.ndarray] = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    producer: dict[str, Any] = {}
    dequantiser: dict[str, Any] = {}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear":
            dequantiser[node.input[0]] = node
        producer.update(dict.fromkeys(node.output, node))
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            values[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)

    def dequantised(name: str) -> np.ndarray | None:
        if name in values:
            return values[name].astype(np.float32)
        node = producer.get(name)
        if node is None or node.op_type != "DequantizeLinear" or node.input[0] not in values:
            return None
        return _dequantise(node, values)

    def smoothing(name: str) -> np.ndarray | None:
        """SmoothQuant's factor on the activations feeding a product (through their Q/DQ pair), if any."""
        for _ in range(3):
            node = producer.get(name)
            if node is None:
                return None
            if node.op_type in ("QuantizeLinear", "DequantizeLinear"):
                name = node.input[0]
                continue
            if node.op_type == "Mul" and "smooth_quant" in node.name:
                factors = [values[i] for i in node.input if i in values]
                return factors[0].reshape(-1).astype(np.float32) if factors else None
            return None
        return None

    out: dict[str, np.ndarray] = {}
    # biases, layer norms, embeddings: named after their module (a quantised Linear weight found here is
    # replaced below by the one with its SmoothQuant factor)
    for name, array in values.items():
        match = QUANTISED.match(name)
        key = match.group(1) if match else name
        if key.startswith(WRAPPER) and array.dtype.kind == "f":
            out[key[len(WRAPPER):]] = array.astype(np.float32)
        elif key.startswith(WRAPPER) and match and name in dequantiser:
            out[key[len(WRAPPER):]] = _dequantise(dequantiser[name], values)
    for node in model.graph.node:  # Linear weights: the product's constant operand, SmoothQuant undone
        match = NODE.match(node.name)
        if not match or len(node.input) < 2:
            continue
        weight = dequantised(node.input[1])
        if weight is None:
            continue
        transposed = any(a.name == "transB" and a.i for a in node.attribute)
        weight = weight.T if transposed else weight  # [in, out]
        factor = smoothing(node.input[0])
        if factor is not None:
            weight = weight * factor[:, None]
        out[match.group(1).replace("/", ".") + ".weight"] = np.ascontiguousarray(weight.T)  # torch: [out, in]
    return out


def _dequantise(node: Any, values: dict[str, np.ndarray]) -> np.ndarray:
    x = values[node.input[0]].astype(np.float32)
    scale = values[node.input[1]].astype(np.float32)
    zero = values[node.input[2]].astype(np.float32) if len(node.input) > 2 and node.input[2] else np.float32(0)
    if scale.ndim == 1 and x.ndim > 1:
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * x.ndim
        shape[axis] = -1
        scale = scale.reshape(shape)
        zero = zero.reshape(shape) if np.ndim(zero) else zero
    return (x - zero) * scale


def load_into(model: Any, graph: Path) -> None:
    """Load ``graph``'s weights into a freshly built ``model``; every parameter must come from the graph."""
    import torch

    arrays = state_dict(graph)
    expected = model.state_dict()
    missing = sorted(k for k in expected if k not in arrays and not k.endswith("position_ids"))
    wrong = sorted(k for k in expected if k in arrays and tuple(arrays[k].shape) != tuple(expected[k].shape))
    if missing or wrong:
        raise ModelError(f"{graph}: cannot rebuild the checker's weights from the graph (missing: "
                         f"{', '.join(missing[:3]) or 'none'}; wrong shape: {', '.join(wrong[:3]) or 'none'})")
    model.load_state_dict({k: torch.from_numpy(arrays[k]) for k in expected if k in arrays}, strict=False)
