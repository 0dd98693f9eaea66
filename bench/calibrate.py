"""Choose the default operating point on calibration rows, and show the precision/recall trade-off.

Reads a dump written by ``bench/eval_dev.py --split calib`` (the calibration rows of the
training-side real-output files: their contexts were never used for gradient steps, and no
development file is read) and searches the FL100/FL200/FL400 thresholds. The objective is what
users need from a linter: among the points whose response-level precision is at least
``--min-precision`` on every task type, the best mean F1 over task types (the task types weigh
alike, so the largest file does not decide). Prints the chosen point and the trade-off curve of
the FL200 threshold; the chosen values go into faithlint/rules/catalog.py by hand.

    python bench/eval_dev.py --name v2 --split calib
    python bench/calibrate.py --name v2
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
from common import RESULTS, read_jsonl, save, table
from eval_dev import flagged_ranges, prf

from faithlint.rules.operating_point import OperatingPoint


def task_prf(rows: list[dict], point: OperatingPoint) -> dict[str, tuple[float, float, float]]:
    by_task: dict[str, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(r)
    return {t: prf([r["hallucinated"] for r in rs], [bool(flagged_ranges(r, point)) for r in rs])
            for t, rs in by_task.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True)
    ap.add_argument("--min-precision", type=float, default=0.7)
    ap.add_argument("--low", type=float, default=0.6, help="FL300 threshold (info; does not flag)")
    args = ap.parse_args()
    rows = read_jsonl(RESULTS / "dumps" / f"{args.name}-calib.jsonl")
    grid_c = [0.5, 0.6, 0.7, 0.8, 0.9]
    grid_u = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]
    grid_v = [1.0, 0.9, 0.7, 0.5, 0.3]
    scored = []
    for c, u, v in itertools.product(grid_c, grid_u, grid_v):
        point = OperatingPoint(c, u, max(args.low, u), v)
        per = task_prf(rows, point)
        scored.append((point, per, float(np.mean([f for _, _, f in per.values()])),
                       min(p for p, _, _ in per.values())))
    feasible = [s for s in scored if s[3] >= args.min_precision]
    pool = feasible or scored
    key = (lambda s: s[2]) if feasible else (lambda s: (s[3], s[2]))  # none feasible: the most precise point
    best = max(pool, key=key)
    point, per, f1, pmin = best
    print(f"chosen: FL100 {point.contradiction}, FL200 {point.unsupported}, FL400 {point.values} "
          f"(mean F1 {f1:.3f}, lowest task precision {pmin:.3f}; {'feasible' if feasible else 'NO point reaches'} "
          f"precision >= {args.min_precision} on every task)")
    print(table(["task", "precision", "recall", "F1"], [[t, *v] for t, v in per.items()]))
    curve = []
    for u in grid_u:
        p = OperatingPoint(point.contradiction, u, max(args.low, u), point.values)
        per_u = task_prf(rows, p)
        curve.append([u, *[f"{a:.2f}/{b:.2f}" for a, b, _ in per_u.values()]])
    print("FL200 threshold trade-off (precision/recall per task):")
    print(table(["FL200 threshold", *per.keys()], curve))
    save(f"operating_point_{args.name}.json", {
        "dump": args.name, "rows": len(rows), "min_precision": args.min_precision, "feasible": bool(feasible),
        "chosen": point.__dict__, "per_task": {t: dict(zip(("precision", "recall", "f1"), v)) for t, v in per.items()},
        "curve": curve})
    print(json.dumps(point.__dict__))


if __name__ == "__main__":
    main()
