"""Faithfulness of drafts to their context on the development sets, through the real pipeline.

Each row's ``text`` is checked against its ``context`` by faithlint's Linter
(sentences -> windows -> selection -> checker -> aggregation), at the level the
set labels (a whole summary, response or claim). Reported per set:

- AUROC of the draft score (min sentence faithfulness) for "faithful";
- balanced accuracy of faithlint's own decision (faithful = no sentence
  labelled contradiction/neutral, i.e. no FL100/FL200 finding);
- the same two for a word-overlap baseline (score = min over sentences of the
  share of the sentence's content words found in the context; its threshold is
  tuned on the training-side files wice_claim_dev + begin_dev_*).

By default only rows whose context is in the "unseen" half are used (see
faithlint/train/splits.py: the other half's unlabelled contexts fed synthetic
training data). ``--split all`` reports every row.

    python bench/eval_faithfulness.py --limit 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import data_dir, read_jsonl, sample, save, table

SETS = {
    "wice_test": ["wice_claim_test"],
    "summedits": ["summedits_ectsum", "summedits_news", "summedits_podcast", "summedits_qmsumm",
                  "summedits_sales_call", "summedits_sales_email", "summedits_samsum", "summedits_scitldr"],
    "qags": ["qags_cnndm", "qags_xsum"],
    "begin_test": ["begin_test_wow"],
    "dialfact": ["dialfact_small"],
}
POSITIVE = {"supported", "consistent", "Fully attributable", "SUPPORTS"}
TUNE = ["wice_claim_dev", "begin_dev_cmu", "begin_dev_tc", "begin_dev_wow"]


def overlap_score(text: str, context: str, splitter) -> float:
    from faithlint.evidence.relevance import content_words

    ctx = content_words(context)
    scores = []
    for s in splitter.split(text):
        words = content_words(text[s.start:s.end])
        if words:
            scores.append(len(words & ctx) / len(words))
    return min(scores) if scores else 1.0


def auroc(y, s) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s)) if len(set(y)) == 2 else float("nan")


def bal_acc(y, pred) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(y, pred)) if len(set(y)) == 2 else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--limit", type=int, default=200, help="rows per file (deterministic sample); 0 = all")
    ap.add_argument("--split", choices=["unseen", "all"], default="unseen")
    ap.add_argument("--model", help="checker model (default: bundled)")
    ap.add_argument("--aggregation", default="max")
    ap.add_argument("--out", default="faithfulness.json")
    args = ap.parse_args()
    data = data_dir(args.data)
    from faithlint.config import Config
    from faithlint.document.sentences import SentenceSplitter
    from faithlint.pipeline.linter import Linter
    from faithlint.train.splits import context_bucket
    from faithlint.types import ContextDoc

    splitter = SentenceSplitter()
    # baseline threshold from the training-side files
    tune_y, tune_s = [], []
    for name in TUNE:
        for r in sample(read_jsonl(data / "faithfulness" / f"{name}.jsonl"), 300):
            tune_y.append(r["label"] in POSITIVE)
            tune_s.append(overlap_score(r["text"], r["context"], splitter))
    thresholds = np.unique(np.round(tune_s, 3))
    best_t = max(thresholds, key=lambda t: bal_acc(tune_y, [s >= t for s in tune_s]))

    cfg = Config(model=args.model, aggregation=args.aggregation, select=["FL1", "FL2"])
    linter = Linter(cfg, splitter=splitter)
    t0 = time.time()
    linter.load()
    load_s = time.time() - t0
    results = {}
    t0 = time.time()
    n_sent = 0
    for set_name, files in SETS.items():
        per_file = {}
        for name in files:
            rows = read_jsonl(data / "faithfulness" / f"{name}.jsonl")
            if args.split == "unseen":
                rows = [r for r in rows if context_bucket(r["context"], "unseen")]
            rows = sample(rows, args.limit or None)
            y, s_model, p_model, s_base = [], [], [], []
            for r in rows:
                res = linter.check(r["text"], [ContextDoc(name, r["context"])], query=r.get("query"), markdown=False)
                n_sent += len(res.sentences)
                y.append(r["label"] in POSITIVE)
                s_model.append(res.score.get("min", 0.0) if res.sentences else 1.0)
                p_model.append(not res.findings)  # the operating point's decision: no FL100/FL200 finding
                s_base.append(overlap_score(r["text"], r["context"], splitter))
            per_file[name] = {"rows": len(rows), "positives": int(sum(y)),
                              "auroc": auroc(y, s_model), "balanced_accuracy": bal_acc(y, p_model),
                              "baseline_auroc": auroc(y, s_base),
                              "baseline_balanced_accuracy": bal_acc(y, [s >= best_t for s in s_base])}
            print(f"{name}: {per_file[name]}", flush=True)
        keys = ["auroc", "balanced_accuracy", "baseline_auroc", "baseline_balanced_accuracy"]
        results[set_name] = {k: float(np.nanmean([v[k] for v in per_file.values()])) for k in keys}
        results[set_name]["rows"] = sum(v["rows"] for v in per_file.values())
        results[set_name]["files"] = per_file
    elapsed = time.time() - t0
    mean = {k: float(np.nanmean([results[s][k] for s in SETS])) for k in
            ["auroc", "balanced_accuracy", "baseline_auroc", "baseline_balanced_accuracy"]}
    out = {"split": args.split, "limit_per_file": args.limit, "model": args.model or "bundled",
           "aggregation": args.aggregation, "baseline_threshold": float(best_t), "sets": results, "mean": mean,
           "sentences_per_s": n_sent / elapsed, "model_load_s": load_s}
    path = save(args.out, out)
    rows = [[s, results[s]["rows"], results[s]["auroc"], results[s]["balanced_accuracy"], results[s]["baseline_auroc"],
             results[s]["baseline_balanced_accuracy"]] for s in SETS]
    rows.append(["**mean**", sum(results[s]["rows"] for s in SETS), mean["auroc"], mean["balanced_accuracy"],
                 mean["baseline_auroc"], mean["baseline_balanced_accuracy"]])
    print(table(["set", "rows", "AUROC", "bal. acc.", "overlap AUROC", "overlap bal. acc."], rows))
    print(f"({args.split} contexts, <= {args.limit} rows per file; {n_sent / elapsed:.1f} sentences/s; "
          f"saved {path})")


if __name__ == "__main__":
    main()
