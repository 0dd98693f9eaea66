"""Choose the default operating point on RAGTruth's calibration part (issue 37, step 4), per kind of context.

The grounding model's thresholds were chosen on the calibration rows of the older real-output files, whose
outputs are mostly hallucinated; on today's LLM output (RAGTruth: about one sentence in ten is wrong) that point
flags half of all sentences and gives three faithful responses in four a false alarm. This script reads the
per-sentence dump of ``bench/eval_ragtruth.py --part calib`` (never the development part) and sweeps the FL200
threshold on the faithfulness score. A sentence is flagged at (FL200 ``t``, FL400 ``u``) when it had an FL100 (the
checker's own contradiction, which neither moves) or an FL410 (a record's attribute, deterministic), its score is
below ``t`` (unless it is a roll-up of a record's reviews, which FL200 leaves to FL300), or it has a value its
evidence lacks (FL400) and its score is below ``u``.

The shared point: the FL200 threshold with the best flagged-sentence F1 over all sentences (ties: the lower, more
precise threshold), FL400 at the model's (set with ``--fl400``; stage 8 chose 0.5 by comparing runs). FL300's stays
(uncertain sentences are info).

Per kind of context (``faithlint.rules.operating_point.context_kind``, what the linter knows at run time: records
verbalised from JSON/CSV, a question, prose; on RAGTruth data-to-text, QA and summaries, exactly, on every row) the
same sweep runs on that kind's sentences, with two ways for FL400: on its own below the shared FL400 threshold, or
only where FL200 flags (its threshold tied to FL200's: it then marks the value in a sentence already flagged). The
rule, simple because a kind has only 25-70 labelled sentences on the calibration part: a kind takes its best
flagged-sentence F1 point only where that beats the shared point on its sentences by more than one standard
deviation of the gain over 1,000 bootstrap draws of its responses (seed 0); else it keeps the shared point. The
figures at the neighbouring FL200 thresholds and the share of draws the kind's point won are written beside it.

Then a false-alarm budget (``--false-alarm-budget``, 0.35: the share of faithful responses that may see a
warning, the product's bound overall (issue 37) kept per kind): a kind whose point gives more of its faithful
calibration responses a false alarm than that takes the best-F1 FL200 threshold at or below its point that keeps
within the budget (flagging fewer sentences), where there is one. F1 alone is blind to how findings fall on
responses: on records the checker's doubts spread over many faithful overviews, one sentence each.

The sweep needs the dump to mark every sentence with an absent value, whatever its score: ``--make-dump NAME`` runs
``bench/eval_ragtruth.py --part calib`` with ``rules.FL400.threshold = 1.0`` (only FL400 differs from the default
point; the sweep reads the scores, FL100 and FL400) and notes it in the run's file, which the fit checks.

With ``--refit`` it first refits the grounding model itself on the same sentences (a checker trained anew,
stage 8, reads its own log-odds differently): a logistic regression over the dumped features
(``faithlint/evidence/grounding.py``) for "this sentence overlaps a labelled span", classes balanced, each
sentence with its own label (RAGTruth marks spans, so no multiple-instance rule is needed); the scores swept are
then the refitted model's. Both are chosen on the calibration part only; the development part is never read.

    python training/fit_point_ragtruth.py --make-dump NAME
    python training/fit_point_ragtruth.py --dump bench/results/ragtruth_NAME_calib_sentences.jsonl [--refit] [--dry-run]
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "training")]

from export_onnx import write_sums  # noqa: E402  (training/)

from faithlint.config import CONTEXT_KINDS  # noqa: E402
from faithlint.document.review_talk import reports_reviews  # noqa: E402
from faithlint.evidence.grounding import FILE  # noqa: E402
from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.train.revision import git_revision  # noqa: E402

GRID = [round(0.02 + 0.01 * i, 2) for i in range(49)]  # 0.02 ... 0.50
KIND_OF_TASK = {"data-to-text": "records", "qa": "question", "summary": "prose"}  # context_kind on every row
EVERY_FL400 = "FL400 at any score (rules.FL400.threshold = 1.0)"  # the note --make-dump leaves in the run's file
DRAWS, SEED = 1000, 0


def flagged(s: dict, t: float, u: float) -> bool:
    """Is sentence ``s`` flagged at FL200 threshold ``t`` and FL400 threshold ``u``?"""
    return ("FL100" in s["codes"] or "FL410" in s["codes"] or (s["score"] < t and not s["rollup"])
            or ("FL400" in s["codes"] and s["score"] < u))


def point_figures(sentences: Sequence[dict], t: float, u: float) -> dict[str, float]:
    """Flagged-sentence P/R/F1, response F1 and faithful responses with a false alarm at (``t``, ``u``)."""
    flags = [flagged(s, t, u) for s in sentences]
    tp = sum(f and s["positive"] for f, s in zip(flags, sentences))
    n, pos = sum(flags), sum(s["positive"] for s in sentences)
    p, r = tp / max(n, 1), tp / max(pos, 1)
    resp: dict[str, bool] = defaultdict(bool)
    label: dict[str, bool] = {}
    for f, s in zip(flags, sentences):
        resp[s["id"]] |= f
        label[s["id"]] = s["label"] == "hallucinated"
    rtp = sum(resp[i] and label[i] for i in resp)
    rp, rr = rtp / max(sum(resp.values()), 1), rtp / max(sum(label.values()), 1)
    faithful = [resp[i] for i in resp if not label[i]]
    return {"threshold": t, "fl400": u, "precision": round(p, 4), "recall": round(r, 4),
            "f1": round(2 * p * r / max(p + r, 1e-9), 4), "flagged": n,
            "response_f1": round(2 * rp * rr / max(rp + rr, 1e-9), 4),
            "false_alarm": round(sum(faithful) / max(len(faithful), 1), 4)}


def best(rows: Sequence[dict]) -> dict:
    """The best flagged-sentence F1 (ties: the lower FL200 threshold, then the lower FL400 one)."""
    return max(rows, key=lambda row: (row["f1"], -row["threshold"], -row["fl400"]))


def bootstrap(sentences: Sequence[dict], mine: dict, shared: dict) -> dict[str, float]:
    """The F1 gain of ``mine`` over ``shared`` on ``sentences``, its standard deviation over bootstrap draws of
    the responses, and the share of draws in which ``mine`` was better."""
    by_response: dict[str, list[dict]] = defaultdict(list)
    for s in sentences:
        by_response[s["id"]].append(s)
    ids = sorted(by_response)
    rnd = random.Random(SEED)
    gains = []
    for _ in range(DRAWS):
        drawn = [s for i in rnd.choices(ids, k=len(ids)) for s in by_response[i]]
        gains.append(point_figures(drawn, mine["threshold"], mine["fl400"])["f1"]
                     - point_figures(drawn, shared["threshold"], shared["fl400"])["f1"])
    return {"gain": round(mine["f1"] - shared["f1"], 4), "sd": round(statistics.pstdev(gains), 4),
            "share_better": round(sum(g > 0 for g in gains) / DRAWS, 3), "draws": DRAWS, "seed": SEED}


def kind_point(sentences: Sequence[dict], shared: tuple[float, float], budget: float = 1.0) -> dict:
    """The rule of the module docstring for one kind's sentences: its point, figures and how stable it is."""
    tables = {"alone": [point_figures(sentences, t, shared[1]) for t in GRID],
              "with FL200": [point_figures(sentences, t, t) for t in GRID]}
    own = best([row for rows in tables.values() for row in rows])
    at_shared = point_figures(sentences, *shared)
    boot = bootstrap(sentences, own, at_shared)
    taken = boot["gain"] > boot["sd"]
    chosen = own if taken else at_shared
    mode = "with FL200" if chosen["fl400"] == chosen["threshold"] and chosen["fl400"] != shared[1] else "alone"
    how = "its own best point" if taken else "the shared point (its own best gains less than one sd)"
    if chosen["false_alarm"] > budget:
        within = [row for row in tables[mode]
                  if row["threshold"] <= chosen["threshold"] and row["false_alarm"] <= budget]
        if within:
            how = (f"the best point within the false-alarm budget {budget:.2f} "
                   f"(the F1 rule's point gave {chosen['false_alarm']:.3f})")
            chosen = best(within)
    near = [row for row in tables[mode] if abs(row["threshold"] - chosen["threshold"]) <= 0.021]
    return {"thresholds": {"FL200": chosen["threshold"], "FL400": chosen["fl400"]},
            "taken": how, "false_alarm_budget": budget,
            "fl400": mode, "figures": chosen, "shared_figures": at_shared, "own_best": own, "bootstrap": boot,
            "neighbours": near, "sentences": len(sentences), "labelled": sum(s["positive"] for s in sentences),
            "responses": len({s["id"] for s in sentences}), "trade_off": tables[mode]}


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


def make_dump(name: str) -> None:
    """``bench/eval_ragtruth.py --name NAME --part calib`` with FL400 reported at any score (see the docstring)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import eval_ragtruth  # bench/

    from faithlint import api

    every = {"rules": {"FL400": {"threshold": 1.0}}}
    api_linter_for = api.linter_for
    api.linter_for = lambda config=None: api_linter_for(every if config is None else config)
    sys.argv = ["bench/eval_ragtruth.py", "--name", name, "--part", "calib", "--note", EVERY_FL400]
    try:
        eval_ragtruth.main()
    finally:
        api.linter_for = api_linter_for


def read_dump(path: Path) -> list[dict]:
    """The dump's sentences, each with its kind and whether FL200 leaves it to FL300 (a roll-up of reviews)."""
    if "calib" not in path.name:
        sys.exit(f"error: {path}: not a calibration-part dump (the point is never chosen on development rows)")
    run = path.with_name(path.name.removesuffix("_sentences.jsonl") + ".json")
    note = json.loads(run.read_text(encoding="utf-8")).get("note", "") if run.is_file() else ""
    if EVERY_FL400 not in note:
        sys.exit(f"error: {path}: not made with FL400 at any score ({run.name} has no such note): "
                 "make it with --make-dump NAME")
    sentences = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    for s in sentences:
        s["kind"] = KIND_OF_TASK[s["task"]]
        s["rollup"] = s["kind"] == "records" and reports_reviews(s["text"])  # RuleContext.left_to_info
    return sentences


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", type=Path, help="the calibration-part sentence dump --make-dump made")
    ap.add_argument("--make-dump", metavar="NAME", help="make the dump (bench/eval_ragtruth.py --part calib)")
    ap.add_argument("--out", type=Path, default=Path(DEFAULT_MODEL_DIR))
    ap.add_argument("--dry-run", action="store_true", help="print the trade-off and the choice, write nothing")
    ap.add_argument("--fl400", type=float, default=None, help="also set FL400's threshold (default: leave it)")
    ap.add_argument("--refit", action="store_true", help="refit the grounding model on the dump's features first")
    ap.add_argument("--false-alarm-budget", type=float, default=0.35, metavar="B",
                    help="largest share of a kind's faithful responses with a false alarm (default 0.35: issue 37's "
                         "bound overall, kept per kind)")
    args = ap.parse_args()
    if args.make_dump:
        make_dump(args.make_dump)
        return
    if args.dump is None:
        ap.error("give --dump (or --make-dump NAME first)")
    sentences = read_dump(args.dump)
    refitted = refit(sentences) if args.refit else None
    path = args.out / FILE
    model = json.loads(path.read_text(encoding="utf-8"))
    fl400 = args.fl400 if args.fl400 is not None else float(model["thresholds"]["FL400"])
    table = [point_figures(sentences, t, fl400) for t in GRID]
    shared = best(table)
    print("threshold  P      R      F1     flagged  response F1  faithful w/ false alarm")
    for row in table[::3] + ([shared] if shared not in table[::3] else []):
        print(f"{row['threshold']:.2f}      {row['precision']:.3f}  {row['recall']:.3f}  {row['f1']:.3f}  "
              f"{row['flagged']:7d}  {row['response_f1']:.3f}        {row['false_alarm']:.3f}")
    print(f"shared: FL200 {shared['threshold']:.2f}, FL400 {fl400:.2f} ({shared})")
    kinds = {}
    for kind in CONTEXT_KINDS:
        of_kind = [s for s in sentences if s["kind"] == kind]
        if of_kind:
            kinds[kind] = got = kind_point(of_kind, (shared["threshold"], fl400), args.false_alarm_budget)
            print(f"{kind}: {got['thresholds']} ({got['taken']}; FL400 {got['fl400']}); at it {got['figures']}; "
                  f"shared {got['shared_figures']}; own best {got['own_best']}; bootstrap {got['bootstrap']}")
    if args.dry_run:
        return
    before = dict(model["thresholds"])
    if refitted is not None:
        model.update(refitted)
        model.pop("calibration", None)  # figures of the older files' fit, which no longer hold
        model.pop("feasible", None)
        model["command"] = "python training/fit_point_ragtruth.py --refit --dump " + args.dump.as_posix()
    model["thresholds"]["FL200"] = shared["threshold"]
    model["thresholds"]["FL400"] = fl400
    model["operating_point"] = {
        "chosen_on": f"RAGTruth calibration part ({args.dump.as_posix()})",
        "rule": "shared: best flagged-sentence F1; per kind of context: its own best F1 point (FL400 alone or with "
                "FL200) where it gains more than one bootstrap sd of the gain over the shared point, else the shared; "
                f"then at most {args.false_alarm_budget:.2f} of a kind's faithful responses with a false alarm "
                "(the best F1 at a lower FL200 threshold within it)",
        "before": before, "figures": shared, "trade_off": table, "kinds": kinds,
        "date": datetime.date.today().isoformat(), "git": git_revision(ROOT),
        "command": "python training/fit_point_ragtruth.py --dump " + args.dump.as_posix()}
    path.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    if (args.out / "SHA256SUMS").exists():
        write_sums(args.out)
    print(f"wrote {path}: thresholds {before} -> {model['thresholds']}, per kind "
          f"{ {k: v['thresholds'] for k, v in kinds.items()} }")


if __name__ == "__main__":
    main()
