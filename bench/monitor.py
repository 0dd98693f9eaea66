"""Monitor benchmark: checker alone vs. monitor signals alone vs. both (LR and MLP), per task type.

Reads the feature dumps of bench/monitor_dump.py: aggregators are fitted on the calibration rows
of the training-side files (``monitor-calib.jsonl``), their operating points chosen there on
out-of-fold predictions, and everything is reported on the development rows (``monitor-dev.jsonl``),
which no variant saw. "combined" is the aggregator shipped in faithlint/models/monitor (made by
``faithlint train-monitor`` from the same calibration dump); "signals alone" is fitted here on the
surrogate LM's features and LID only. Each variant is scored at its own default operating point:

- response precision / recall / F1 of "flagged" (any error or warning finding), AUROC of
  1 - min sentence score, and span F1 where spans are labelled (monitor variants narrow findings
  to the words their token marks name);
- ``--cost N``: seconds per sentence in batch mode with the monitor off and on (N development rows,
  models loaded first), and the process's peak memory.

    python bench/monitor_dump.py --split calib --limit 60 && python bench/monitor_dump.py --split dev
    faithlint train-monitor --no-featurize --features bench/results/dumps/monitor-calib.jsonl \
        -o faithlint/models/monitor
    python bench/monitor.py --cost 40
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from common import RESULTS, SentencePoint, read_jsonl, save, table
from eval_dev import auroc, prf, task_of

from faithlint.monitor.model import MonitorModel
from faithlint.rules.registry import RULES
from faithlint.train.monitor import SIGNAL_FEATURES, flagged_ranges, row_probs, train

DUMPS = RESULTS / "dumps"


def metrics(rows: list[dict], probs: list[list[float]], point: SentencePoint, narrow: bool, checker: bool) -> dict:
    y = [r["hallucinated"] for r in rows]
    got = [flagged_ranges(r, p, point, narrow, checker) for r, p in zip(rows, probs)]
    p, rc, f = prf(y, [bool(g) for g in got])
    score = [1.0 - min(p, default=1.0) for p in probs]
    tp = fp = fn = 0
    spanned = 0
    for r, g in zip(rows, got):
        if r["spans"] is None:
            continue
        spanned += 1
        gold = {c for a, b in r["spans"] for c in range(a, b)}
        mine = {c for a, b in g for c in range(a, b)}
        tp, fp, fn = tp + len(gold & mine), fp + len(mine - gold), fn + len(gold - mine)
    sp, sr = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    span = (2 * sp * sr / (sp + sr) if sp + sr else 0.0) if spanned else None
    return {"rows": len(rows), "precision": p, "recall": rc, "f1": f, "auroc": auroc(y, score), "span_f1": span}


def per_task(rows: list[dict], probs: list[list[float]], point: SentencePoint, narrow: bool, checker: bool) -> dict:
    out = {}
    for task in sorted({r["task"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["task"] == task]
        files = sorted({rows[i]["file"] for i in idx})
        m = metrics([rows[i] for i in idx], [probs[i] for i in idx], point, narrow, checker)
        m["auroc_mean"] = float(np.nanmean([metrics([rows[i] for i in idx if rows[i]["file"] == f],
                                                    [probs[i] for i in idx if rows[i]["file"] == f], point, narrow,
                                                    checker)["auroc"] for f in files]))
        out[task] = m
    out["all"] = metrics(rows, probs, point, narrow, checker)
    return out


def cost(n: int) -> dict:
    """Seconds per sentence with the monitor off and on, models loaded first; peak RSS."""
    from common import data_dir, sample
    from eval_dev import NEW

    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter
    from faithlint.types import ContextDoc

    data = data_dir(None)
    rows = []
    for name in NEW:
        rows += [(name, r) for r in sample(read_jsonl(data / "faithfulness" / f"{name}.jsonl"), max(1, n // len(NEW)))]
    out = {}
    for mode in ("off", "on"):
        linter = Linter(Config(monitor=mode))
        linter.load()
        t0, sents = time.time(), 0
        for name, r in rows:
            res = linter.check(r["text"], [ContextDoc(name, r["context"])], query=r.get("query"), markdown=False)
            sents += len(res.sentences)
        out[mode] = {"sentences": sents, "s_per_sentence": (time.time() - t0) / max(sents, 1)}
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calib", type=Path, default=DUMPS / "monitor-calib.jsonl")
    ap.add_argument("--dev", type=Path, default=DUMPS / "monitor-dev.jsonl")
    ap.add_argument("--model", help="aggregator folder (default: the shipped one)")
    ap.add_argument("--cost", type=int, default=0, metavar="N", help="also time N development rows off and on")
    args = ap.parse_args()
    from faithlint.config import Config

    dev = [{**r, "task": task_of(r["file"])} for r in read_jsonl(args.dev)]  # rows with nothing checked: unflagged
    shipped = MonitorModel.load(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        signals = train([args.calib], Path(tmp), features=SIGNAL_FEATURES, progress=lambda _: None)
    checker_point = SentencePoint.of(RULES.operating_point(Config()))
    variants = {"checker alone": ([[s["p"][0] for s in r["sentences"]] for r in dev], checker_point,
                                  False, True)}
    for name, model, agg in (("signals alone (LR)", signals, "lr"), ("combined (LR)", shipped, "lr"),
                             ("combined (MLP)", shipped, "mlp")):
        point = SentencePoint(*(model.thresholds[agg][k] for k in ("FL100", "FL200", "FL300", "FL400")))
        variants[name] = (row_probs(dev, model, agg), point, True, False)
    result = {"dev_rows": len(dev), "variants": {}}
    for name, (probs, point, narrow, checker) in variants.items():
        result["variants"][name] = {"point": point.__dict__, "tasks": per_task(dev, probs, point, narrow, checker)}
    if args.cost:
        result["cost"] = cost(args.cost)
    save("monitor.json", result)
    tasks = [t for t in result["variants"]["checker alone"]["tasks"]]
    body = []
    for name, v in result["variants"].items():
        for t in tasks:
            m = v["tasks"][t]
            body.append([name, t, m["rows"], m["precision"], m["recall"], m["f1"],
                         m.get("auroc_mean", m["auroc"]), "" if m["span_f1"] is None else m["span_f1"]])
    print(table(["variant", "task", "rows", "precision", "recall", "F1", "AUROC", "span F1"], body))
    if args.cost:
        c = result["cost"]
        print(f"batch: {c['off']['s_per_sentence'] * 1000:.0f} ms/sentence monitor off, "
              f"{c['on']['s_per_sentence'] * 1000:.0f} ms on; peak RSS {c['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
