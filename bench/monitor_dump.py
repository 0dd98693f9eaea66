"""Monitor features of real model outputs, dumped once so aggregators are trained and compared offline.

Runs the real pipeline (checker verdicts, evidence, FL400 values) and the surrogate LM over the
rows bench/eval_dev.py uses, and writes one JSON line per row with, per sentence, the checker's
probabilities, the monitor features, the token marks and the hidden states for the LID feature
(float16, base64). ``--split calib`` reads the calibration rows of the training-side files (the
checker never trained on them: the aggregator trains there); ``--split dev`` the development rows
(reported, never trained on). Resumes where an interrupted run stopped.

    python bench/monitor_dump.py --split calib --limit 60
    python bench/monitor_dump.py --split dev --limit 50 --old-limit 12
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from common import RESULTS, data_dir, read_jsonl

sys.path.insert(0, str(Path(__file__).parent))
from eval_dev import CALIB, TASKS, rows_for  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--split", choices=["dev", "calib"], default="dev")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--old-limit", type=int, default=25)
    ap.add_argument("--files", nargs="*")
    ap.add_argument("--max-context", type=int, default=384)
    ap.add_argument("--out")
    args = ap.parse_args()

    from faithlint.checkers.surrogate import load_surrogate
    from faithlint.config import Config
    from faithlint.linter import Linter
    from faithlint.monitor.featurize import Featurizer
    from faithlint.train.monitor import featurize_row

    data = data_dir(args.data)
    linter = Linter(Config())
    linter.load()
    lm = load_surrogate(None)
    featurize = Featurizer(lm, args.max_context)
    out_path = Path(args.out) if args.out else RESULTS / "dumps" / f"monitor-{args.split}.jsonl"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["file"], r["id"]) for r in read_jsonl(out_path)} if out_path.exists() else set()
    files = args.files or (CALIB if args.split == "calib" else list(TASKS))
    t_all = 0.0
    n_sent = 0
    with out_path.open("a", encoding="utf-8") as out:
        for name in files:
            rows = rows_for(data, name, args.split, args.limit, args.old_limit)
            for r in rows:
                if (name, r["id"]) in done:
                    continue
                t0 = time.time()
                row = featurize_row(linter, featurize, name, r)
                out.write(json.dumps(row) + "\n")
                out.flush()
                n_sent += len(row["sentences"])
                t_all += time.time() - t0
            print(f"{name}: {len(rows)} rows; {n_sent} sentences so far, {t_all:.0f} s", flush=True)
    meta = {"split": args.split, "limit": args.limit, "old_limit": args.old_limit, "max_context": args.max_context,
            "surrogate": lm.name, "sentences": n_sent, "seconds": t_all}
    out_path.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
