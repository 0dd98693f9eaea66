"""3-way NLI accuracy and macro-F1 on SNLI test, MNLI dev-matched and SICK test.

None of the three is used in training. Reported to show what the checker still
knows about sentence-pair NLI; it is not the objective (faithfulness is). The
baseline predicts entailment when most hypothesis content words occur in the
premise and neutral otherwise (word overlap cannot see contradictions).

    python bench/eval_nli.py --limit 2000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import data_dir, read_jsonl, sample, save, table

SETS = ["snli_test", "mnli_dev_matched", "sick_test"]
LABELS = ("entailment", "neutral", "contradiction")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--limit", type=int, default=2000, help="rows per set (deterministic sample); 0 = all")
    ap.add_argument("--model", help="checker model (default: bundled)")
    args = ap.parse_args()
    data = data_dir(args.data)
    from sklearn.metrics import f1_score

    from faithlint.evidence.relevance import content_words
    from faithlint.models.checkers.nli import NLIChecker

    checker = NLIChecker(args.model)
    out = {}
    for name in SETS:
        rows = sample(read_jsonl(data / "nli" / f"{name}.jsonl"), args.limit or None)
        y = np.array([LABELS.index(r["label"]) for r in rows])
        t = time.time()
        probs = checker.score_pairs([r["premise"] for r in rows], [r["hypothesis"] for r in rows])
        dt = time.time() - t
        pred = probs.argmax(1)
        base = []
        for r in rows:
            h = content_words(r["hypothesis"])
            cov = len(h & content_words(r["premise"])) / max(len(h), 1)
            base.append(0 if cov >= 0.75 else 1)
        base = np.array(base)
        out[name] = {"rows": len(rows), "accuracy": float((pred == y).mean()),
                     "macro_f1": float(f1_score(y, pred, average="macro")),
                     "baseline_accuracy": float((base == y).mean()),
                     "baseline_macro_f1": float(f1_score(y, base, average="macro", labels=[0, 1, 2])),
                     "pairs_per_s": len(rows) / dt}
        print(name, out[name], flush=True)
    path = save("nli.json", {"limit": args.limit, "model": args.model or "bundled", "sets": out})
    print(table(["set", "rows", "accuracy", "macro-F1", "overlap acc.", "overlap macro-F1"],
                [[s, out[s]["rows"], out[s]["accuracy"], out[s]["macro_f1"], out[s]["baseline_accuracy"],
                  out[s]["baseline_macro_f1"]] for s in SETS]))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
