"""Render bench/results/*.json into docs/benchmarks.md (between markers) and the model card.

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


def _pair(old: dict | None, new: dict, key: str) -> str:
    fmt = (lambda v: "–" if v is None or v != v else f"{v:.3f}")  # noqa: E731  (nan -> dash)
    return f"{fmt(old.get(key) if old else None)} → **{fmt(new.get(key))}**"


def dev_md(old: dict | None, new: dict, point: dict | None) -> str:
    """The real-output development benchmark: v0.1 beside the current checker, on the same rows."""
    head = ["task (rows)", "precision", "recall", "F1", "flag-all F1", "AUROC (mean of files)", "span F1"]
    rows = []
    for task, m in new["tasks"].items():
        o = old["tasks"].get(task) if old else None
        rows.append([f"{task} ({m['rows']})", _pair(o, m, "precision"), _pair(o, m, "recall"), _pair(o, m, "f1"),
                     f"{m['flag_all_f1']:.3f}", _pair(o, m, "auroc_mean"),
                     _pair(o, m, "span_f1") if m.get("span_f1") is not None else ""])
    files = [[name, m["rows"], _pair(old["files"].get(name) if old else None, m, "precision"),
              _pair(old["files"].get(name) if old else None, m, "recall"),
              _pair(old["files"].get(name) if old else None, m, "auroc")] for name, m in new["files"].items()]
    op = new["operating_point"]
    grounded = new.get("grounding")
    score = "the faithfulness score" if grounded else "P(entailment)"
    note = ("v0.1 (fixed windows, argmax labels) → the current checker (assembled evidence, GPU-trained model"
            + (", grounding: the checker's verdict weighed with the content words and numbers the context lacks"
               if grounded else "")
            + f"; operating point FL100 ≥ {op['contradiction']}, FL200 where {score} < {op['unsupported']}, FL400 "
            f"where {score} < {op['values']}), on the same rows. A response is *flagged* when it has any error or "
            "warning finding; precision and recall are for \"hallucinated\" (the set's label says the output, or "
            "the sentence, is not supported); flag-all F1 is what flagging everything scores. AUROC: 1 − the lowest "
            "sentence score, at the level the set labels. Span F1: characters of error/warning findings against "
            "the labelled spans (XSum hallucinations, Rotowire). Real-output files: every `*_dev` row (at most "
            f"{new['limit_per_file'] or 'all'} per file); earlier sets: {new['old_limit']} unseen-context rows per "
            f"file. Mean AUROC over files: {_pair(old, new, 'auroc_mean_all')} (real-output files "
            f"{_pair(old, new, 'auroc_mean_new')}). {new['sentences_per_s']:.1f} sentences/s in this run "
            f"(v0.1 {old['sentences_per_s']:.1f}; both while other jobs shared the 2 cores). "
            f"`python bench/eval_dev.py --name NAME --limit {new['limit_per_file']}`.")
    if point:
        note += (f" The operating point was chosen on {point['rows']} calibration rows of the training-side files "
                 + ("(`training/fit_grounding.py`, which fits the grounding model on the same rows, with "
                    "`bench/calibrate.py`'s rule)" if grounded else "(`bench/calibrate.py`)")
                 + ", precision first: the best mean precision over task types among the points "
                 f"with precision ≥ {point['min_precision']} and recall ≥ {point.get('min_recall', 0)} on every task "
                 "type" + ("" if point["feasible"] else " (no point reached both; the most precise one)") + ".")
    return (table(head, rows) + "\n\n<details><summary>Per file</summary>\n\n"
            + table(["file", "rows", "precision", "recall", "AUROC"], files) + "\n\n</details>\n\n" + note)


def nli_md(n: dict) -> str:
    rows = [[s, v["rows"], v["accuracy"], v["macro_f1"], v["baseline_accuracy"], v["baseline_macro_f1"]]
            for s, v in n["sets"].items()]
    return (table(["NLI set", "rows", "accuracy", "macro-F1", "word-overlap acc.", "word-overlap macro-F1"], rows)
            + f"\n\nNone of these splits is used in training. `python bench/eval_nli.py --limit {n['limit']}`.")


def speed_md(t: dict | None, b: dict | None, e: dict | None, b01: dict | None = None) -> str:
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
                     f"**{b['peak_rss_mb']:.0f} MB**. `python bench/batch.py`"
                     + (f"; v0.1 (its weights, fixed windows) on the same drafts, same machine: "
                        f"{b01['sentences_per_s']:.1f} sentences/s, peak RSS {b01['peak_rss_mb']:.0f} MB "
                        "(`python bench/batch.py --out batch_v01.json -- --model V01_DIR --config WINDOWS_TOML`)"
                        if b01 else ""))
    if e:
        lines.append(f"- Calibration (temperature scaling on the calibration split, T = {e['temperature']:.2f}): "
                     f"expected calibration error of the top label {e['ece_top_label_before']:.3f} → "
                     f"{e['ece_top_label_after']:.3f}; of the faithfulness score "
                     f"{e['ece_faithfulness_before']:.3f} → {e['ece_faithfulness_after']:.3f}. Precision: "
                     f"{e['runtime_precision']} at run time (calibration accuracy fp32 "
                     f"{e['calib_accuracy_fp16_storage']:.3f}"
                     + (f", bf16 {e['calib_accuracy_bf16']:.3f}" if e.get("calib_accuracy_bf16") else "")
                     + f", int8 {e['calib_accuracy_int8']:.3f}; "
                     + (e.get("runtime_precision_note")
                        or "the faster of fp32 and bf16 within 0.01 of fp32 is chosen; int8 is measured, not shipped")
                     + f"), stored as {e['storage']}.")
    return "\n".join(lines)


def speed_issue15_md(res: dict) -> str:
    """bench/speed.py's table: the default path against v0.1, measured in one run."""
    from speed import markdown

    return markdown(res)


def main() -> None:
    f, n, t, b = load("faithfulness.json"), load("nli.json"), load("throughput.json"), load("batch.json")
    exp = MODEL_DIR / "export_report.json"
    e = json.loads(exp.read_text()) if exp.exists() else None
    parts = []
    dev = load("dev_v7.json")
    if dev:
        parts.append("### Findings on real model outputs (development files)\n\n"
                     + dev_md(load("dev_v01.json"), dev, load("operating_point_grounding.json")))
    if f:
        parts.append("### Faithfulness on the development sets\n\n" + faithfulness_md(f))
    if n:
        parts.append("### Sentence-pair NLI (reported, not optimised)\n\n" + nli_md(n))
    speed = load("speed.json")
    parts.append("### Speed, memory, calibration\n\n"
                 + (speed_issue15_md(speed) + "\n\nEarlier figures, on the torch path (before issue 15):\n\n"
                    if speed else "")
                 + speed_md(t, b, e, load("batch_v01.json")))
    body = "\n\n".join(parts)
    page = ROOT / "docs" / "benchmarks.md"
    text = page.read_text()
    block = f"<!-- bench:start -->\n{body}\n<!-- bench:end -->"
    if "<!-- bench:start -->" in text:
        text = re.sub(r"<!-- bench:start -->.*<!-- bench:end -->", lambda _: block, text, flags=re.S)
    else:
        text = text.replace("BENCHMARKS_PLACEHOLDER", block)
    page.write_text(text)
    for card in (MODEL_DIR / "MODEL_CARD.md", ROOT / "training" / "MODEL_CARD.md"):
        if card.exists():
            ct = card.read_text()
            ct = re.sub(r"<!-- bench:start -->.*<!-- bench:end -->", lambda _: block, ct, flags=re.S)
            card.write_text(ct)
    print(body)


if __name__ == "__main__":
    main()
