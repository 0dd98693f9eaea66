"""Choose the default operating point on RAGTruth's calibration part (issue 37, step 4).

The grounding model's thresholds were chosen on the calibration rows of the older real-output files, whose
outputs are mostly hallucinated; on today's LLM output (RAGTruth: about one sentence in ten is wrong) that point
flags half of all sentences and gives three faithful responses in four a false alarm. This script reads the
per-sentence dump of ``bench/eval_ragtruth.py --part calib`` (made at the current point; never the development
part) and sweeps the FL200 threshold on the faithfulness score: a sentence is flagged at threshold ``t`` when it
had an FL100 (the checker's own contradiction, which ``t`` does not move) or its score is below ``t``. It keeps
the threshold with the best flagged-sentence F1 (ties: the lower threshold, the more precise point), sets FL400's
only when ``--fl400`` is given (stage 8: 0.5, FL300's: a value the whole context lacks, in any sentence not judged
supported; compared on the same part with ``bench/eval_ragtruth.py --part calib``), leaves FL300's (uncertain
sentences are info) and writes them, with the trade-off table and provenance, into ``grounding.json`` beside the
checker.

With ``--refit`` it first refits the grounding model itself on the same sentences (a checker trained anew,
stage 8, reads its own log-odds differently): a logistic regression over the dumped features
(``faithlint/evidence/grounding.py``) for "this sentence overlaps a labelled span", classes balanced, each
sentence with its own label (RAGTruth marks spans, so no multiple-instance rule is needed); the scores swept are
then the refitted model's. Both are chosen on the calibration part only; the development part is never read.

    python bench/eval_ragtruth.py --name NAME --part calib
    python training/fit_point_ragtruth.py --dump bench/results/ragtruth_NAME_calib_sentences.jsonl [--refit] [--dry-run]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "training")]

from export_onnx import write_sums  # noqa: E402  (training/)

from faithlint.evidence.grounding import FILE  # noqa: E402
from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.train.revision import git_revision  # noqa: E402

GRID = [round(0.02 + 0.01 * i, 2) for i in range(49)]  # 0.02 ... 0.50


def point_figures(sentences: list[dict], t: float) -> dict[str, float]:
    """Flagged-sentence P/R/F1, response F1 and faithful responses with a false alarm at threshold ``t``."""
    flagged = [("FL100" in s["codes"]) or s["score"] < t for s in sentences]
    tp = sum(f and s["positive"] for f, s in zip(flagged, sentences))
    n, pos = sum(flagged), sum(s["positive"] for s in sentences)
    p, r = tp / max(n, 1), tp / max(pos, 1)
    resp: dict[str, bool] = defaultdict(bool)
    label: dict[str, bool] = {}
    for f, s in zip(flagged, sentences):
        resp[s["id"]] |= f
        label[s["id"]] = s["label"] == "hallucinated"
    rtp = sum(resp[i] and label[i] for i in resp)
    rp, rr = rtp / max(sum(resp.values()), 1), rtp / max(sum(label.values()), 1)
    faithful = [resp[i] for i in resp if not label[i]]
    return {"threshold": t, "precision": round(p, 4), "recall": round(r, 4),
            "f1": round(2 * p * r / max(p + r, 1e-9), 4), "flagged": n,
            "response_f1": round(2 * rp * rr / max(rp + rr, 1e-9), 4),
            "false_alarm": round(sum(faithful) / max(len(faithful), 1), 4)}


def refit(sentences: list[dict]) -> dict:
    """Refit the grounding model on the dumped features; rescore ``sentences`` in place; its new fields."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from faithlint.evidence.grounding import FEATURES

    judged = [s for s in sentences if s.get("features")]
    if not judged:
        sys.exit("error: the dump has no grounding features (made before bench/eval_ragtruth.py dumped them)")
    x = np.array([[s["features"][f] for f in FEATURES] for s in judged])
    y = np.array([1 if s["positive"] else 0 for s in judged])  # the regression says P(hallucinated)
    lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit(x, y)
    for s, p in zip(judged, lr.predict_proba(x)[:, 1]):
        s["score"] = 1.0 - float(p)  # the score is P(faithful), as GroundingModel.score gives it
    print(f"refitted grounding on {len(judged)} sentences ({int(y.sum())} labelled): "
          f"{dict(zip(FEATURES, np.round(lr.coef_[0], 4)))}, intercept {lr.intercept_[0]:.4f}")
    return {"coefficients": [float(w) for w in lr.coef_[0]], "intercept": float(lr.intercept_[0]),
            "features": list(FEATURES), "sentences_fitted": len(judged), "hallucinated": int(y.sum()),
            "inputs": ["ragtruth_dev:calib"], "outputs": len({s["id"] for s in judged}),
            "C": 1.0, "class_weight": "balanced", "trained": datetime.date.today().isoformat(),
            "refit_on": "RAGTruth calibration part, sentence labels (training/fit_point_ragtruth.py --refit)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", type=Path, required=True, help="eval_ragtruth's calibration-part sentence dump")
    ap.add_argument("--out", type=Path, default=Path(DEFAULT_MODEL_DIR))
    ap.add_argument("--dry-run", action="store_true", help="print the trade-off and the choice, write nothing")
    ap.add_argument("--fl400", type=float, default=None, help="also set FL400's threshold (default: leave it)")
    ap.add_argument("--refit", action="store_true", help="refit the grounding model on the dump's features first")
    args = ap.parse_args()
    if "calib" not in args.dump.name:
        sys.exit(f"error: {args.dump}: not a calibration-part dump (the point is never chosen on development rows)")
    sentences = [json.loads(line) for line in args.dump.open(encoding="utf-8") if line.strip()]
    refitted = refit(sentences) if args.refit else None
    table = [point_figures(sentences, t) for t in GRID]
    best = max(table, key=lambda row: (row["f1"], -row["threshold"]))
    print("threshold  P      R      F1     flagged  response F1  faithful w/ false alarm")
    for row in table[::3] + ([best] if best not in table[::3] else []):
        print(f"{row['threshold']:.2f}      {row['precision']:.3f}  {row['recall']:.3f}  {row['f1']:.3f}  "
              f"{row['flagged']:7d}  {row['response_f1']:.3f}        {row['false_alarm']:.3f}")
    print(f"chosen: FL200 {best['threshold']:.2f} ({best})")
    if args.dry_run:
        return
    path = args.out / FILE
    model = json.loads(path.read_text(encoding="utf-8"))
    before = dict(model["thresholds"])
    if refitted is not None:
        model.update(refitted)
        model.pop("calibration", None)  # figures of the older files' fit, which no longer hold
        model.pop("feasible", None)
        model["command"] = "python training/fit_point_ragtruth.py --refit --dump " + args.dump.as_posix()
    model["thresholds"]["FL200"] = best["threshold"]
    if args.fl400 is not None:  # else FL400's stays: it is chosen by comparing runs (docs/rules.md)
        model["thresholds"]["FL400"] = args.fl400
    model["operating_point"] = {
        "chosen_on": f"RAGTruth calibration part ({args.dump.as_posix()})", "rule": "best flagged-sentence F1",
        "before": before, "figures": best, "trade_off": table, "date": datetime.date.today().isoformat(),
        "git": git_revision(ROOT), "command": "python training/fit_point_ragtruth.py --dump " + args.dump.as_posix()}
    path.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    if (args.out / "SHA256SUMS").exists():
        write_sums(args.out)
    print(f"wrote {path}: thresholds {before} -> {model['thresholds']}")


if __name__ == "__main__":
    main()
