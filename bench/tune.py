"""Choose inference settings on tuning data, never on the evaluation sets.

Runs the full pipeline on the calibration part (30 %, by context hash) of the
training-side faithfulness files (WiCE dev, BEGIN dev) for each combination of
``--max-length`` and ``--aggregation`` and reports AUROC and balanced accuracy.

    python bench/tune.py --max-length 128 160 192 --aggregation max weighted
"""

from __future__ import annotations

import argparse
import itertools
import time

from common import data_dir, read_jsonl, save, table
from eval_faithfulness import POSITIVE, TUNE, auroc, bal_acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--max-length", type=int, nargs="+", default=[128, 192])
    ap.add_argument("--aggregation", nargs="+", default=["max"])
    ap.add_argument("--limit", type=int, default=0, help="rows in all (0 = every calibration row)")
    args = ap.parse_args()
    data = data_dir(args.data)
    from faithlint.config import Config
    from faithlint.document.sentences import SentenceSplitter
    from faithlint.pipeline.linter import Linter
    from faithlint.train.splits import context_bucket
    from faithlint.types import ContextDoc

    rows = [r for name in TUNE for r in read_jsonl(data / "faithfulness" / f"{name}.jsonl")
            if context_bucket(r["context"], "calib")]
    if args.limit:
        rows = rows[:: max(1, len(rows) // args.limit)][: args.limit]
    splitter = SentenceSplitter()
    out, table_rows = {}, []
    for length, agg in itertools.product(args.max_length, args.aggregation):
        linter = Linter(Config(max_length=length, aggregation=agg, select=["FL1", "FL2"]), splitter=splitter)
        t = time.time()
        y, score, pred = [], [], []
        for r in rows:
            res = linter.check(r["text"], [ContextDoc("ctx", r["context"])], query=r.get("query"), markdown=False)
            y.append(r["label"] in POSITIVE)
            score.append(res.score.get("min", 0.0) if res.sentences else 1.0)
            pred.append(all(s.label == "entailment" for s in res.sentences))
        key = f"max_length={length},aggregation={agg}"
        out[key] = {"rows": len(rows), "auroc": auroc(y, score), "balanced_accuracy": bal_acc(y, pred),
                    "seconds": time.time() - t}
        table_rows.append([length, agg, len(rows), out[key]["auroc"], out[key]["balanced_accuracy"]])
        print(key, out[key], flush=True)
    save("tune.json", out)
    print(table(["max_length", "aggregation", "rows", "AUROC", "bal. acc."], table_rows))


if __name__ == "__main__":
    main()
