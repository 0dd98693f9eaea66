"""Train faithlint's default checker from ../shared/data (rerunnable, resumable).

    python training/build_data.py                  # stage-1 data: training/data/{train,calib}.jsonl + manifest
    python training/train.py --epochs 1.3          # stage 1 from all-MiniLM-L6-v2 -> training/runs/default/final
    python training/build_data.py --stage 2        # stage-2 data (minimal pairs, inference-sized windows)
    python training/train.py --data training/data2 --out training/runs/stage2 \
        --base training/runs/default/final --epochs 1 --lr 3e-5   # stage 2, warm start
    python training/export.py                      # calibrates, exports into faithlint/models/default

Each step resumes from its checkpoint if interrupted; on 2 CPU cores stage 1 takes about 65
minutes and stage 2 about 30.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.models.checkers.tokens import base_model_dir  # noqa: E402
from faithlint.train.training import TrainConfig, train  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "training" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "runs" / "default")
    ap.add_argument("--base", default=str(base_model_dir()))
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--lr", type=float, default=6e-5)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--class-balance", choices=["inverse", "sqrt", "none"], default="inverse")
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rows = [json.loads(x) for x in (args.data / "train.jsonl").open(encoding="utf-8")]
    calib_file = args.data / "calib.jsonl"  # build_values.py writes none: its rows are all for training
    calib = [json.loads(x) for x in calib_file.open(encoding="utf-8")] if calib_file.exists() else []
    cfg = TrainConfig(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, max_length=args.max_length,
                      class_balance=args.class_balance, max_minutes=args.max_minutes, seed=args.seed)
    manifest = args.data / "manifest.json"
    if manifest.exists():
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "data_manifest.json").write_text(manifest.read_text())
    train(rows, calib, args.base, args.out, cfg)


if __name__ == "__main__":
    main()
