"""Render bench/results/*.json into README.md (between markers) and the model card.

    python bench/report.py
"""

from __future__ import annotations

import json
import re

from common import RESULTS, ROOT, table

MODEL_DIR = ROOT / "faithlint" / "models" / "default"


def load(name: str) -> dict | None:
    p = RESULTS / name
    return json.loads(p.read_text()) if p.exists() else None


def faithfulness_md(f: dict) -> str:
    sets = f["sets"]
    rows = [[s, v["rows"], v["auroc"], v["balanced_accuracy"], v["baseline_auroc"], v["baseline_balanced_accuracy"]]
            for s, v in sets.items()]
    m = f["mean"]
    rows.append(["**mean**", sum(v["rows"] for v in sets.values()), m["auroc"], m["balanced_accuracy"],
                 m["baseline_auroc"], m["baseline_balanced_accuracy"]])
    head = ["dev set (level)", "rows", "AUROC", "bal. acc.", "word-overlap AUROC", "word-overlap bal. acc."]
    note = (f"Rows whose context is in the held-out *{f['split']}* half, at most {f['limit_per_file']} per file "
            f"(deterministic sample); SummEdits is the mean of its 8 domains, QAGS of CNN/DM and XSum. Levels: "
            "WiCE claim, SummEdits/QAGS summary (QAGS: summary sentence), BEGIN/DialFact response. faithlint's "
            "balanced accuracy is its own decision (faithful = no FL100/FL200); the baseline's threshold was tuned "
            "on the training-side files. `python bench/eval_faithfulness.py "
            f"--limit {f['limit_per_file']}`.")
    return table(head, rows) + "\n\n" + note


def nli_md(n: dict) -> str:
    rows = [[s, v["rows"], v["accuracy"], v["macro_f1"], v["baseline_accuracy"], v["baseline_macro_f1"]]
            for s, v in n["sets"].items()]
    return (table(["NLI set", "rows", "accuracy", "macro-F1", "word-overlap acc.", "word-overlap macro-F1"], rows)
            + f"\n\nNone of these splits is used in training. `python bench/eval_nli.py --limit {n['limit']}`.")


def speed_md(t: dict | None, b: dict | None, e: dict | None) -> str:
    lines = []
    if t:
        lines.append(f"- Checker throughput ({t['precision']}, batch 32, {t['threads']} torch threads on "
                     f"{t['cpus']} CPU cores): **{t['pairs_per_s_128']:.0f} pairs/s at 128 tokens**, "
                     f"{t['pairs_per_s_256']:.0f} pairs/s at 256 tokens"
                     + "".join(f" ({p}: {t[p + '_pairs_per_s_128']:.0f} / {t[p + '_pairs_per_s_256']:.0f})"
                               for p in ("fp32", "bf16", "int8") if p + "_pairs_per_s_128" in t)
                     + f"; model load {t['load_s']:.2f} s including the sha256 check. `python bench/throughput.py`")
    if b:
        lines.append(f"- Batch mode, {b['drafts']} drafts ({b['sentences']} sentences, {b['source']}): "
                     f"**{b['sentences_per_s']:.1f} sentences/s** including model load, peak RSS "
                     f"**{b['peak_rss_mb']:.0f} MB**. `python bench/batch.py`")
    if e:
        lines.append(f"- Calibration (temperature scaling on the calibration split, T = {e['temperature']:.2f}): "
                     f"expected calibration error of the top label {e['ece_top_label_before']:.3f} → "
                     f"{e['ece_top_label_after']:.3f}; of the faithfulness score "
                     f"{e['ece_faithfulness_before']:.3f} → {e['ece_faithfulness_after']:.3f}. Precision: "
                     f"{e['runtime_precision']} at run time (calibration accuracy fp32 "
                     f"{e['calib_accuracy_fp16_storage']:.3f}"
                     + (f", bf16 {e['calib_accuracy_bf16']:.3f}" if e.get("calib_accuracy_bf16") else "")
                     + f", int8 {e['calib_accuracy_int8']:.3f}; the fastest within 0.01 of fp32 is chosen), "
                     f"stored as {e['storage']}.")
    return "\n".join(lines)


def main() -> None:
    f, n, t, b = load("faithfulness.json"), load("nli.json"), load("throughput.json"), load("batch.json")
    exp = MODEL_DIR / "export_report.json"
    e = json.loads(exp.read_text()) if exp.exists() else None
    parts = []
    if f:
        parts.append("### Faithfulness on the development sets\n\n" + faithfulness_md(f))
    if n:
        parts.append("### Sentence-pair NLI (reported, not optimised)\n\n" + nli_md(n))
    parts.append("### Speed, memory, calibration\n\n" + speed_md(t, b, e))
    body = "\n\n".join(parts)
    readme = ROOT / "README.md"
    text = readme.read_text()
    block = f"<!-- bench:start -->\n{body}\n<!-- bench:end -->"
    if "<!-- bench:start -->" in text:
        text = re.sub(r"<!-- bench:start -->.*<!-- bench:end -->", lambda _: block, text, flags=re.S)
    else:
        text = text.replace("BENCHMARKS_PLACEHOLDER", block)
    readme.write_text(text)
    card = MODEL_DIR / "MODEL_CARD.md"
    if card.exists():
        ct = card.read_text()
        ct = re.sub(r"<!-- bench:start -->.*<!-- bench:end -->", lambda _: block, ct, flags=re.S)
        card.write_text(ct)
    print(body)


if __name__ == "__main__":
    main()
