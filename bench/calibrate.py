"""Choose the default operating point on calibration rows, and show the precision/recall trade-off.

Reads a dump written by ``bench/eval_dev.py --split calib`` (the calibration rows of the
training-side real-output files: their contexts were never used for gradient steps, and no
development file is read) and searches the FL100/FL200/FL400 thresholds. Precision comes first, as
a linter's warnings are only read while they are usually right: among the points whose
response-level precision is at least ``--min-precision`` and recall at least ``--min-recall`` on
every task type, the one with the best mean precision over task types (the task types weigh alike,
so the largest file does not decide; ties go to the better mean F1, then to the lower thresholds).
Because these sets are mostly hallucinated (about 60 %), the precision each point would have where
30 % of responses are hallucinated (a typical share for RAG answers) is printed too. FL400's
threshold is searched only up to FL200's: FL400 marks the value to fix inside a sentence the checker
doubts, and above FL200's threshold it flags sentences on its own — for the stage-6 checker such
flags were right 74 of 116 times on the calibration rows, at a 60 % base rate, so they were not
findings that are usually right (see ``values_in_doubt``). Prints the
chosen point and the trade-off curve of the FL200 threshold; the chosen values go into
the rules' `threshold` in faithlint/rules/fl*.py by hand.

    python bench/eval_dev.py --name v2 --split calib
    python bench/calibrate.py --name v2
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
from common import RESULTS, SentencePoint, read_jsonl, save, table
from eval_dev import flagged_ranges, prf

PRIOR = 0.3  # share of hallucinated responses for the "precision at 30 %" column


def task_prf(rows: list[dict], point: SentencePoint) -> dict[str, tuple[float, float, float, float]]:
    """Per task type: precision, recall, F1 and the precision at a 30 % share of hallucinated responses."""
    by_task: dict[str, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(r)
    out = {}
    for t, rs in by_task.items():
        y = [r["hallucinated"] for r in rs]
        pred = [bool(flagged_ranges(r, point)) for r in rs]
        p, r, f = prf(y, pred)
        fpr = sum(b and not a for a, b in zip(y, pred)) / max(sum(not a for a in y), 1)
        out[t] = (p, r, f, PRIOR * r / (PRIOR * r + (1 - PRIOR) * fpr) if r + fpr else 0.0)
    return out


GRID_C = [0.5, 0.6, 0.7, 0.8, 0.9]
GRID_U = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]
GRID_V = [1.0, 0.9, 0.7, 0.5, 0.3]


def search(rows: list[dict], min_precision: float = 0.7, min_recall: float = 0.7, low: float = 0.5,
           grid_u: list[float] | None = None, values_in_doubt: bool = True) -> tuple[tuple, bool]:
    """The chosen (point, per-task P/R/F1, mean precision, mean F1, lowest precision, lowest recall) and whether
    it is feasible (see the module docstring for the rule; ``values_in_doubt``: FL400's threshold at most
    FL200's — a larger one is lowered to it — so that FL400 never flags a sentence by itself)."""
    scored, seen = [], set()
    for c, u, v in itertools.product(GRID_C, grid_u or GRID_U, GRID_V):
        if values_in_doubt:
            v = min(v, u)
        if (c, u, v) in seen:
            continue
        seen.add((c, u, v))
        point = SentencePoint(c, u, max(low, u), v)
        per = task_prf(rows, point)
        scored.append((point, per, float(np.mean([x[0] for x in per.values()])),
                       float(np.mean([x[2] for x in per.values()])), min(x[0] for x in per.values()),
                       min(x[1] for x in per.values())))
    feasible = [s for s in scored if s[4] >= min_precision and s[5] >= min_recall]
    if feasible:  # the most precise feasible point; ties: better F1, then lower thresholds
        return max(feasible, key=lambda s: (round(s[2], 4), round(s[3], 4), -s[0].contradiction,
                                            -s[0].unsupported, -s[0].values)), True
    # none reaches both floors: the most precise point that keeps the recall floor, else the most precise
    pool = [s for s in scored if s[5] >= min_recall] or scored
    return max(pool, key=lambda s: (round(s[4], 4), round(s[3], 4))), False


def per_task_dict(per: dict[str, tuple[float, float, float, float]]) -> dict[str, dict[str, float]]:
    return {t: dict(zip(("precision", "recall", "f1", "precision_at_30"), map(float, v))) for t, v in per.items()}


def trade_off(rows: list[dict], point: SentencePoint, grid_u: list[float]) -> list[list]:
    """The FL200 trade-off around ``point``: [threshold, "precision/recall" per task type] per FL200 threshold
    (FL400's threshold at most FL200's, as :func:`search` keeps it)."""
    curve = []
    for u in grid_u:
        p = SentencePoint(point.contradiction, u, max(point.low, u), min(point.values, u))
        curve.append([u, *[f"{a:.2f}/{b:.2f}" for a, b, _, _ in task_prf(rows, p).values()]])
    return curve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True)
    ap.add_argument("--min-precision", type=float, default=0.7)
    ap.add_argument("--min-recall", type=float, default=0.7)
    ap.add_argument("--low", type=float, default=0.5, help="FL300 threshold (info; does not flag)")
    args = ap.parse_args()
    rows = read_jsonl(RESULTS / "dumps" / f"{args.name}-calib.jsonl")
    best, feasible = search(rows, args.min_precision, args.min_recall, args.low)
    point, per, mean_p, f1, pmin, rmin = best
    print(f"chosen: FL100 {point.contradiction}, FL200 {point.unsupported}, FL400 {point.values}, FL300 {point.low} "
          f"(mean precision {mean_p:.3f}, mean F1 {f1:.3f}, lowest task precision {pmin:.3f}, recall {rmin:.3f}; "
          f"{'feasible' if feasible else 'NO point reaches'} precision >= {args.min_precision} and recall >= "
          f"{args.min_recall} on every task)")
    print(table(["task", "precision", "recall", "F1", f"precision at {PRIOR:.0%} hallucinated"],
                [[t, *v] for t, v in per.items()]))
    curve = trade_off(rows, point, GRID_U)
    print("FL200 threshold trade-off (precision/recall per task):")
    print(table(["FL200 threshold", *per.keys()], curve))
    save(f"operating_point_{args.name}.json", {
        "dump": args.name, "rows": len(rows), "min_precision": args.min_precision, "min_recall": args.min_recall,
        "feasible": bool(feasible), "chosen": point.__dict__, "per_task": per_task_dict(per), "curve": curve})
    print(json.dumps(point.__dict__))


if __name__ == "__main__":
    main()
