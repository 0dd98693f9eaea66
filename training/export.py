"""Calibrate, pick a precision and export the trained checker into the package.

1. Temperature scaling on training/data2/calib.jsonl (a development split never
   used for gradient steps): minimise the NLL over T, report ECE before/after.
2. Compare fp32, bf16 (autocast; only where the CPU runs bfloat16 natively) and
   int8 (dynamic quantisation of Linear layers) on the same split: accuracy and
   CPU pairs/s; the fastest precision within --tolerance of fp32's accuracy is
   recorded as ``faithlint_quantize`` (the checker falls back to fp32 for bf16
   on CPUs without native bfloat16).
3. Write the tokenizer, ``faithlint_temperature`` and ``faithlint_quantize`` in
   config.json into faithlint/models/default, and the weights as fp16
   safetensors into ``--weights-out`` (training/checker/: the package ships
   only the graphs ``training/export_onnx.py`` makes from them next).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.models.checkers.nli import cpu_has_bf16  # noqa: E402
from faithlint.train.training import LABELS, pairs_per_second, predict  # noqa: E402


def ece(probs, correct, bins: int = 15) -> float:
    import numpy as np

    conf = np.asarray(probs)
    correct = np.asarray(correct, dtype=float)
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        m = (conf > a) & (conf <= b)
        if m.any():
            total += m.mean() * abs(conf[m].mean() - correct[m].mean())
    return float(total)


def fit_temperature(logits, y) -> float:
    import torch

    t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([t], lr=0.1, max_iter=200)
    yt = torch.tensor(y)

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(logits / t.exp(), yt)
        loss.backward()
        return loss

    opt.step(closure)
    return float(t.exp().item())


def main() -> None:
    import numpy as np
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=ROOT / "training" / "runs" / "stage2" / "final")
    ap.add_argument("--calib", type=Path, default=ROOT / "training" / "data2" / "calib.jsonl")
    ap.add_argument("--out", type=Path, default=ROOT / "faithlint" / "models" / "default")
    ap.add_argument("--weights-out", type=Path, default=ROOT / "training" / "checker" / "model.safetensors",
                    help="the fp16 weights (in the repository, not the package; export_onnx.py reads them)")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--stage", default=None, metavar="NAME",
                    help="update --out in place (its grounding, span head and card stay; rerun export_onnx.py) "
                         "and record this report under NAME in its export_report.json beside earlier stages")
    args = ap.parse_args()
    rows = [json.loads(x) for x in args.calib.open(encoding="utf-8")]
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, dtype=torch.float32).eval()
    y = np.array([LABELS.index(r["label"]) for r in rows])
    logits = predict(model, tok, rows, 192)
    temp = fit_temperature(logits, y)
    p_raw = logits.softmax(-1).numpy()
    p_cal = (logits / temp).softmax(-1).numpy()
    report = {"calibration_rows": len(rows), "temperature": temp,
              "ece_top_label_before": ece(p_raw.max(1), p_raw.argmax(1) == y),
              "ece_top_label_after": ece(p_cal.max(1), p_cal.argmax(1) == y),
              "ece_faithfulness_before": ece(p_raw[:, 0], y == 0),
              "ece_faithfulness_after": ece(p_cal[:, 0], y == 0),
              "calib_accuracy_fp32": float((p_raw.argmax(1) == y).mean())}
    # fp16 storage round trip must not change predictions
    half = {k: v.half().contiguous() for k, v in model.state_dict().items()}
    model16 = AutoModelForSequenceClassification.from_pretrained(args.model, dtype=torch.float32).eval()
    model16.load_state_dict({k: v.float() for k, v in half.items()})
    acc16 = float((predict(model16, tok, rows, 192).argmax(1).numpy() == y).mean())
    q = torch.ao.quantization.quantize_dynamic(model16, {torch.nn.Linear}, dtype=torch.qint8)
    acc8 = float((predict(q, tok, rows, 192).argmax(1).numpy() == y).mean())
    acc_bf16 = float((predict(model16, tok, rows, 192, bf16=True).argmax(1).numpy() == y).mean())
    speed = {"fp32": pairs_per_second(model16, reps=3), "int8": pairs_per_second(q, reps=3)}
    if cpu_has_bf16():
        speed["bf16"] = pairs_per_second(model16, reps=3, bf16=True)
    accuracy = {"fp32": acc16, "int8": acc8, "bf16": acc_bf16}
    # the fastest precision whose accuracy is within the tolerance of fp32, among those the default runtimes
    # run from the shipped files: no int8 checker graph is shipped (on the development benchmark int8 moved
    # task AUROCs by more than 0.01, MODEL_CARD.md), so int8 is measured and reported, never chosen
    choice = max((p for p in speed if p != "int8" and accuracy[p] >= acc16 - args.tolerance), key=lambda p: speed[p])
    report.update({"calib_accuracy_fp16_storage": acc16, "calib_accuracy_int8": acc8,
                   "calib_accuracy_bf16": acc_bf16,
                   "pairs_per_s_fp32_128": speed["fp32"], "pairs_per_s_int8_128": speed["int8"],
                   "pairs_per_s_bf16_128": speed.get("bf16"),
                   "runtime_precision": choice, "storage": "fp16 safetensors"})
    earlier = {}
    if args.stage and (args.out / "export_report.json").exists():
        earlier = json.loads((args.out / "export_report.json").read_text())
    elif args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(args.out)
    cfg = model.config
    cfg.faithlint_temperature = temp
    cfg.faithlint_quantize = None if choice == "fp32" else choice
    cfg.torch_dtype = "float16"
    cfg.save_pretrained(args.out)
    args.weights_out.parent.mkdir(parents=True, exist_ok=True)
    save_file(half, str(args.weights_out), metadata={"format": "pt"})
    report["weights"] = {"file": str(args.weights_out),
                         "sha256": hashlib.sha256(args.weights_out.read_bytes()).hexdigest()}
    manifest = args.model.parent / "data_manifest.json"
    report["data_manifest"] = json.loads(manifest.read_text()) if manifest.exists() else None
    if args.stage:
        report["calibration_file"] = args.calib.as_posix()
        report = {**earlier, **{k: v for k, v in report.items() if k != "data_manifest"}, args.stage: report}
    sys.path.insert(0, str(ROOT / "training"))
    from export_onnx import write_sums  # training/: every shipped file's hash

    write_sums(args.out)
    (args.out / "export_report.json").write_text(json.dumps(report, indent=2))
    if not args.stage:
        shutil.copy(ROOT / "training" / "MODEL_CARD.md", args.out / "MODEL_CARD.md")
    size = args.weights_out.stat().st_size / 1e6
    print(json.dumps({k: v for k, v in report.items() if k != "data_manifest"}, indent=2))
    print(f"exported to {args.out}, weights {args.weights_out} ({size:.1f} MB); "
          "next: python training/export_onnx.py --only checker")


if __name__ == "__main__":
    main()
