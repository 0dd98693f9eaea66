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
from pathlib import Path

from common import RESULTS, data_dir

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

    from faithlint.train.monitor import featurize_rows

    data = data_dir(args.data)
    out_path = Path(args.out) if args.out else RESULTS / "dumps" / f"monitor-{args.split}.jsonl"
    files = args.files or (CALIB if args.split == "calib" else list(TASKS))
    named = ((name, rows_for(data, name, args.split, args.limit, args.old_limit)) for name in files)
    done = featurize_rows(named, out_path, args.max_context, progress=lambda line: print(line, flush=True))
    meta = {"split": args.split, "limit": args.limit, "old_limit": args.old_limit, "max_context": args.max_context,
            **done}
    out_path.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
