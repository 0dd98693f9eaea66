"""Checking by claims: sentence unit vs. claim unit vs. both, on real model outputs, at the default operating point.

Reads the dumps of ``bench/eval_dev.py --unit both`` (each sentence's own verdict and each of its claims'), so
every unit and aggregation is scored from one checker pass:

1. on the calibration rows of the training-side files (``--split calib``), the claim thresholds (FL110 on
   P(contradiction), FL210 on P(entailment)) are chosen for ``unit = "claim"`` as bench/calibrate.py chooses
   the sentence point: precision first, among the points with precision and recall >= 0.7 on every task type;
2. on the development rows, each unit x aggregation is reported per task type: response precision / recall / F1
   (flagged = any error or warning finding), AUROC of the hallucination score, span F1 where spans are labelled.

    python bench/eval_dev.py --name claims --unit both --split calib --limit 100
    python bench/eval_dev.py --name claims --unit both --limit 200 --old-limit 50
    python bench/claims_check.py --name claims
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from common import RESULTS, ROOT, ClaimPoint, SentencePoint, data_dir, git_revision, read_jsonl, save, table
from eval_dev import flagged_ranges, prf, summarise, unit_codes

from faithlint.config import Config
from faithlint.rules.operating_point import claim_code
from faithlint.rules.registry import RULES

UNITS = [("sentence", "strict"), ("claim", "strict"), ("claim", "soft"), ("claim", "major"),
         ("both", "strict"), ("both", "soft"), ("both", "major")]


def per_task(rows: list[dict], point: SentencePoint, **unit) -> dict[str, tuple[float, float, float]]:
    by_task: dict[str, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(r)
    return {t: prf([r["hallucinated"] for r in rs], [bool(flagged_ranges(r, point, **unit)) for r in rs])
            for t, rs in sorted(by_task.items())}


def code_precision(rows: list[dict], point: SentencePoint, code: str, **unit) -> tuple[int, float]:
    """(rows with a finding of ``code``, the share of them that are hallucinated): how often such a finding is right."""
    hits = [r["hallucinated"] for r in rows
            if any(c == code for s in r["sentences"] for c, _, _ in unit_codes(s, point, **unit)[1])]
    return len(hits), float(np.mean(hits)) if hits else float("nan")


def value_conflict_precision(rows: list[dict], meta: dict, point: SentencePoint, cp: ClaimPoint
                             ) -> dict[str, tuple[int, float]]:
    """How often FL110 is right with and without the value-conflict upgrade (an FL210 claim with a value whose
    kind the context has with another value becomes FL110; RuleContext.claim_code). The claims' words and their
    rows' contexts are read back from the data; the whole context stands in for each claim's selected evidence."""
    from faithlint.document.sentences import load_spacy
    from faithlint.rules.values import ValueExtractor
    from faithlint.train.monitor import calib_rows

    data = data_dir(None)
    src = {(name, r["id"]): r for name in sorted({r["file"] for r in rows})
           for r in calib_rows(data, name, meta["limit_per_file"])}
    values = ValueExtractor(nlp=load_spacy())
    plain, upgraded = {}, {}
    for r in rows:
        row = src[(r["file"], r["id"])]
        for s in r["sentences"]:
            for c in s.get("claims", []):
                code = claim_code(c["p"][0], c["p"][2], cp)
                if code == "FL110":
                    plain[r["id"]] = upgraded[r["id"]] = r["hallucinated"]
                elif code == "FL210" and any(m.context_value is not None for m in values.mismatches(
                        row["text"][c["start"]:c["end"]], [row["context"]])):
                    upgraded[r["id"]] = r["hallucinated"]
    return {k: (len(v), float(np.mean(list(v.values()))) if v else float("nan"))
            for k, v in (("checker", plain), ("checker + value conflicts", upgraded))}


def choose_claim_point(rows: list[dict], point: SentencePoint, floor_p: float, floor_r: float
                       ) -> tuple[ClaimPoint, list[list], dict]:
    """FL110 (an error) must be as reliable as FL100: the lowest threshold whose rows are hallucinated at least as
    often as FL100's. FL210 as bench/calibrate.py picks FL200: the most precise threshold (mean over task types)
    whose precision and recall reach the floors on every task type; if none does, the most precise one that
    keeps the recall floor."""
    _, fl100 = code_precision(rows, point, "FL100", unit="sentence")
    grid_c = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9]
    by_c = {c: code_precision(rows, point, "FL110", unit="claim", claim_point=ClaimPoint(c, 0.35))
            for c in grid_c}
    c_best = next((c for c in grid_c if by_c[c][1] >= fl100), grid_c[-1])
    curve, scored = [], []
    for u in [0.1, 0.2, 0.3, 0.35, 0.4, 0.5]:
        cp = ClaimPoint(c_best, u)
        per = per_task(rows, point, unit="claim", mode="strict", claim_point=cp)
        ps, rs, fs = zip(*per.values())
        scored.append((u, float(np.mean(ps)), min(ps), min(rs)))
        curve.append([u, *[f"{a:.2f}/{b:.2f}" for a, b, _ in per.values()]])
    feasible = [x for x in scored if x[2] >= floor_p and x[3] >= floor_r]
    pool = feasible or [x for x in scored if x[3] >= floor_r] or scored
    u_best = max(pool, key=lambda x: (round(x[1] if feasible else x[2], 4), -x[0]))[0]
    info = {"fl100_precision": fl100, "fl110_precision": {str(c): v for c, v in by_c.items()},
            "fl210_curve": curve, "tasks": list(per_task(rows, point).keys()), "feasible": bool(feasible)}
    return ClaimPoint(c_best, u_best), curve, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True, help="the eval_dev.py run (dumps NAME-calib.jsonl, NAME-dev.jsonl)")
    ap.add_argument("--min-precision", type=float, default=0.7)
    ap.add_argument("--min-recall", type=float, default=0.7)
    args = ap.parse_args()
    cfg = Config()
    configured = RULES.operating_point(cfg)
    point, claim_point = SentencePoint.of(configured), ClaimPoint.of(configured)
    out: dict = {"dump": args.name, "sentence_point": point.__dict__,
                 "configured_claim_point": claim_point.__dict__}
    calib_path = RESULTS / "dumps" / f"{args.name}-calib.jsonl"
    if calib_path.exists():
        calib = read_jsonl(calib_path)
        cp, curve, info = choose_claim_point(calib, point, args.min_precision, args.min_recall)
        print(f"calibration ({len(calib)} rows): FL110 {cp.contradiction}, FL210 {cp.unsupported} "
              f"({'feasible' if info['feasible'] else 'NO FL210 point reaches both floors on every task'})")
        print(f"rows with FL100 hallucinated: {info['fl100_precision']:.3f}; with FL110, by threshold: "
              + ", ".join(f"{c} {p:.3f} ({n})" for c, (n, p) in info["fl110_precision"].items()))
        print("FL210 threshold trade-off (precision/recall per task, unit = claim, strict):")
        print(table(["FL210 threshold", *info["tasks"]], curve))
        meta = json.loads(calib_path.with_suffix(".meta.json").read_text())
        info["fl110_value_conflicts"] = value_conflict_precision(calib, meta, point, cp)
        print("rows with FL110 hallucinated: " + ", ".join(
            f"{k} {p:.3f} ({n} rows)" for k, (n, p) in info["fl110_value_conflicts"].items()))
        out["calibration"] = {"rows": len(calib), "chosen": {"FL110": cp.contradiction, "FL210": cp.unsupported},
                              **info}
    dev = read_jsonl(RESULTS / "dumps" / f"{args.name}-dev.jsonl")
    body, results = [], {}
    for unit, mode in UNITS:
        s = summarise(dev, point, unit=unit, mode=mode, claim_point=claim_point)
        key = unit if unit == "sentence" else f"{unit}/{mode}"
        results[key] = s
        for task, m in s["tasks"].items():
            body.append([key, task, m["rows"], m["precision"], m["recall"], m["f1"], m["auroc_mean"],
                         "" if m["span_f1"] is None else m["span_f1"]])
        body.append([key, "**mean AUROC**", "", "", "", "", s["auroc_mean_all"], ""])
    print(f"development rows ({len(dev)}), claim point FL110 {claim_point.contradiction}, "
          f"FL210 {claim_point.unsupported}:")
    print(table(["unit", "task", "rows", "precision", "recall", "F1", "AUROC", "span F1"], body))
    commit = git_revision(ROOT) or ""
    out.update({"claim_point": claim_point.__dict__, "dev_rows": len(dev), "results": results,
                "command": f"python bench/claims_check.py --name {args.name}", "commit": commit})
    save("claims_check.json", out)


if __name__ == "__main__":
    main()
