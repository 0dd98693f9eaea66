"""Fit the grounding model (faithlint/evidence/grounding.py) and its operating point on the calibration rows.

Reads a dump of ``bench/eval_dev.py --split calib`` (the calibration rows of the training-side real-output
files; no development file is read) and the rows' texts and contexts from the shared data, computes each
checked sentence's features from the *checker's own* probabilities (``checker_p`` in a dump made with
grounding on, else ``p``), and fits a logistic regression for "this sentence is hallucinated". Labels are per
response, so a sentence takes its response's label, except in a hallucinated response of several sentences,
where only the sentence the checker doubts most counts (multiple-instance learning: its other sentences are
often faithful). Classes are weighted to balance (``class_weight="balanced"``), so the intercept does not
carry the calibration files' share of hallucinated outputs. The operating point is then chosen on the same
rows with the scores the linter would give (bench/calibrate.py's rule: the best mean precision over task
types among the points with precision and recall at least 0.7 on every task type), and both are written to
``grounding.json`` beside the checker, with its hash in SHA256SUMS.

    python bench/eval_dev.py --name cal --split calib
    python training/fit_grounding.py --dump bench/results/dumps/cal-calib.jsonl
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "training")]

from calibrate import GRID_U, per_task_dict, search, trade_off  # noqa: E402  (bench/)
from common import read_jsonl, save  # noqa: E402  (bench/)
from export_onnx import write_sums  # noqa: E402  (training/)

from faithlint.evidence.grounding import FEATURES, FILE, GroundingModel, context_terms, features, rescored  # noqa: E402
from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.train.revision import git_revision  # noqa: E402

FINE_GRID_U = [round(x, 2) for x in np.arange(0.2, 0.605, 0.01)]  # P(faithful) thresholds searched for FL200


def read_rows(data: Path, files: set[str]) -> dict[tuple[str, str], dict]:
    out = {}
    for name in sorted(files):
        path = data / "faithfulness" / f"{name}.jsonl"
        if not path.exists():
            sys.exit(f"error: {path}: not found (the dump's rows need their texts and contexts)")
        out.update(((name, r["id"]), r) for r in read_jsonl(path))
    return out


def featurised(dump: list[dict], data: Path) -> list[dict]:
    """The dump's rows with each sentence's checker probabilities and grounding features."""
    rows = read_rows(data, {d["file"] for d in dump})
    known: dict[str, frozenset[str]] = {}  # context -> its terms
    out = []
    for d in dump:
        r = rows.get((d["file"], d["id"]))
        if r is None:
            sys.exit(f"error: {d['file']}: no row with id {d['id']!r} (was the data changed since the dump?)")
        ctx = r["context"]
        if ctx not in known:
            known[ctx] = context_terms([ctx])
        sents = []
        for s in d["sentences"]:
            p = s.get("checker_p") or s["p"]
            sents.append({**s, "checker_p": p,
                          "x": features(r["text"][s["start"]:s["end"]], p[0], known[ctx])})
        out.append({**d, "sentences": sents})
    return out


def training_set(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x, y = [], []
    for d in rows:
        ss = d["sentences"]
        if d["hallucinated"] and len(ss) > 1:
            ss = [min(ss, key=lambda s: s["checker_p"][0])]
        for s in ss:
            x.append([s["x"][n] for n in FEATURES])
            y.append(int(d["hallucinated"]))
    return np.array(x, dtype=np.float64), np.array(y)


def scored(rows: list[dict], model: GroundingModel) -> list[dict]:
    """The rows as the linter would dump them with ``model``: each sentence's probabilities rescored."""
    out = []
    for d in rows:
        sents = []
        for s in d["sentences"]:
            p = rescored(model.score(s["x"]), s["checker_p"][2])
            sents.append({**s, "p": [p["entailment"], p["neutral"], p["contradiction"]]})
        out.append({**d, "sentences": sents})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", type=Path, required=True, help="a calibration dump (bench/eval_dev.py --split calib)")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL_DIR, help="the checker's folder")
    ap.add_argument("--C", type=float, default=1.0, help="inverse regularisation strength")
    args = ap.parse_args()
    from sklearn.linear_model import LogisticRegression

    dump = read_jsonl(args.dump)
    rows = featurised(dump, args.data)
    x, y = training_set(rows)
    lr = LogisticRegression(C=args.C, max_iter=2000, class_weight="balanced").fit(x, y)
    # P(faithful) = 1 - P(hallucinated): the stored model is the regression itself
    model = GroundingModel(dict(zip(FEATURES, map(float, lr.coef_[0]))), float(lr.intercept_[0]))
    calib = scored(rows, model)
    best, feasible = search(calib, grid_u=FINE_GRID_U)
    point, per = best[0], best[1]
    thresholds = {"FL100": point.contradiction, "FL200": point.unsupported, "FL300": point.low,
                  "FL400": point.values}
    meta = {"trained": datetime.date.today().isoformat(), "git": git_revision(ROOT),
            "command": "python training/fit_grounding.py --dump " + str(args.dump.relative_to(ROOT)
                                                                           if args.dump.is_absolute() else args.dump),
            "inputs": sorted({d["file"] for d in dump}), "outputs": len(rows), "sentences_fitted": int(len(y)),
            "hallucinated": int(y.sum()), "C": args.C, "class_weight": "balanced", "feasible": feasible,
            "calibration": per_task_dict(per)}
    model = GroundingModel(model.coefficients, model.intercept, thresholds, meta)
    model.save(args.out / FILE)
    save("operating_point_grounding.json", {  # bench/calibrate.py's record, for the README
        "dump": str(args.dump), "rows": len(rows), "min_precision": 0.7, "min_recall": 0.7, "feasible": feasible,
        "chosen": point.__dict__, "per_task": meta["calibration"],
        "curve": trade_off(calib, point, sorted({*GRID_U, point.unsupported})),
        "score": "grounding (faithlint/evidence/grounding.py)"})
    if (args.out / "SHA256SUMS").exists():
        write_sums(args.out)
    print(json.dumps({"coefficients": model.coefficients, "intercept": model.intercept, "thresholds": thresholds,
                      "feasible": feasible, "calibration": meta["calibration"]}, indent=2))


if __name__ == "__main__":
    main()
