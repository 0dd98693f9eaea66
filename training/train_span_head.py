"""Train the span head (faithlint/models/checkers/span_head.py): which words of a flagged sentence are unsupported.

Reads the span-labelled training-side real-output files (``xsumfaith_train``, ``rotowire_accuracy_train``;
never a ``*_dev`` file). Every sentence goes through the real pipeline (the bundled checker on its default
runtime, assembled evidence), and the checker graph's token states of each hypothesis token are recorded with
a label: does the token overlap a labelled hallucination span? A logistic regression is fitted on the rows of
the training bucket; the rows of the calibration bucket (whose contexts no gradient step saw) choose the
token threshold and the largest share of a sentence the head may mark, by the mean over the files of span F1
as the linter reports it (an FL100/FL200 finding covers the hull of its marked words, FL400 values as they
are) against whole-sentence findings. The chosen head, its provenance and these figures go to
``faithlint/models/default/span_head.json`` (and its hash to SHA256SUMS).

    python training/train_span_head.py [--limit N] [--C 0.1]

``--ragtruth`` learns from today's LLM output instead (issue 37): the head is fitted on the training part of
``ragtruth_dev`` (faithlint/train/ragtruth.py), its threshold and share chosen on the calibration part by the
mean span F1 over the three task types; the development part is never read. Run it after the checker and its
operating point are final (the sentences it narrows are the ones the point flags).

    python training/train_span_head.py --ragtruth [--limit N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # the development benchmark's span F1

from eval_dev import span_f1  # noqa: E402
from export_onnx import sha256, write_sums  # noqa: E402  # this folder: the shipped model's checksums

from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.models.checkers.span_head import FILE, marks_in_unit, span_features  # noqa: E402
from faithlint.rules.registry import RULES  # noqa: E402

FILES = ("xsumfaith_train", "rotowire_accuracy_train")
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
SHARES = (0.2, 0.35, 0.5, 0.75, 1.0)


class _Recorder:
    """Stands in for the head during a check: keeps each pair's token features, marks nothing."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []

    def token_probs(self, states: np.ndarray, cls_state: np.ndarray, entailment: float,
                    contradiction: float) -> np.ndarray:
        self.rows.append(span_features(states, cls_state, entailment, contradiction))
        return np.zeros(len(states), dtype=np.float32)

    def marks(self, text: str, offsets: list, probs: np.ndarray) -> list:
        return []


def sentences(linter, name: str, row: dict) -> list[dict]:
    """Each judged sentence of a row: its range, verdict, token features with labels and character offsets."""
    from faithlint.inputs.structured import context_from_string
    from faithlint.types import ContextDoc

    # RAGTruth's records are JSON: read as `check --pairs` reads them (bench/eval_ragtruth.py)
    ctx = [context_from_string(f"{row['id']}#context[0]", row["context"]) if name.startswith("ragtruth")
           else ContextDoc(name, row["context"])]
    query = row.get("query")
    res = linter.check(row["text"], ctx, query=query, markdown=False)
    gold = [(s["start"], s["end"]) for s in row["spans"]]
    out = []
    for s in res.sentences:
        copied, sel, hyp = linter.evidence([s.text], ctx, query)
        fl400 = [[f.start, f.end] for f in res.findings if f.code == "FL400" and s.start <= f.start < s.end]
        item = {"start": s.start, "end": s.end, "fl400": fl400,
                "p": [s.probs[k] for k in ("entailment", "neutral", "contradiction")]}
        delta = hyp[0].find(s.text)
        if copied[0] is None and len(sel[0].premises) == 1 and delta >= 0:
            rec = _Recorder()
            linter.checker._run_pairs(sel[0].premises, hyp, rec)
            offsets = linter.checker.token_offsets(hyp[0])
            if rec.rows and len(rec.rows[0]) == len(offsets):
                chars = [(s.start + a - delta, s.start + b - delta) for a, b in offsets]
                item.update(x=rec.rows[0], offsets=offsets, hyp=hyp[0],
                            y=np.array([any(a < gb and ga < b for ga, gb in gold) for a, b in chars]))
        out.append(item)
    return out


def dumped(rows: list[tuple[dict, list[dict]]], head=None, probs: dict[int, np.ndarray] | None = None) -> list[dict]:
    """``rows`` as bench/eval_dev.py dumps them, with the marks ``head`` gives each sentence (none without one),
    so their span F1 is the benchmark's (``eval_dev.span_f1``: the linter's error/warning ranges)."""
    out = []
    for row, sents in rows:
        dumped_sents = []
        for s in sents:
            marks: list[list[int]] = []
            if head is not None and "x" in s:
                found = head.marks(s["hyp"], s["offsets"], probs[id(s)])
                marks = [[s["start"] + a, s["start"] + b]
                         for a, b in marks_in_unit(found, row["text"][s["start"]:s["end"]], s["hyp"])]
            dumped_sents.append({"start": s["start"], "end": s["end"], "p": s["p"], "fl400": s["fl400"],
                                 "marks": marks})
        out.append({"spans": [[x["start"], x["end"]] for x in row["spans"]], "sentences": dumped_sents})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, default=0, help="rows per file and bucket (0: all)")
    ap.add_argument("--C", type=float, default=0.1, help="inverse L2 strength of the logistic regression")
    ap.add_argument("--out", type=Path, default=Path(DEFAULT_MODEL_DIR))
    ap.add_argument("--ragtruth", action="store_true", help="fit on RAGTruth's training part, choose on its "
                    "calibration part (instead of the XSum and Rotowire training files)")
    ap.add_argument("--also-from", type=Path, metavar="FILE", help="keep FILE's head (a span_head.json) as the "
                    "extra head asked where the new one marks a whole sentence (default: keep the current file's)")
    args = ap.parse_args()

    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from faithlint.config import Config
    from faithlint.models.checkers.span_head import SpanHead
    from faithlint.pipeline.linter import Linter
    from faithlint.train.splits import context_bucket, sample

    linter = Linter(Config())
    linter.load()
    t0 = time.time()
    buckets: dict[str, dict[str, list[tuple[dict, list[dict]]]]] = {"fit": {}, "calib": {}}
    if args.ragtruth:
        from faithlint.train.ragtruth import TASKS, part_rows

        for bucket, part in (("fit", "train"), ("calib", "calib")):
            for task in TASKS:
                chosen = sample(part_rows(part, args.data, task) or [], args.limit or None)
                if not chosen:
                    sys.exit(f"error: no RAGTruth {part} rows under {args.data}")
                buckets[bucket][f"ragtruth_{task}"] = [(r, sentences(linter, f"ragtruth_{task}", r)) for r in chosen]
                print(f"ragtruth {task} {part}: {len(chosen)} rows ({time.time() - t0:.0f} s)", flush=True)
    for name in () if args.ragtruth else FILES:
        path = args.data / "faithfulness" / f"{name}.jsonl"
        rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        rows = [r for r in rows if r.get("spans") is not None]
        for bucket in buckets:
            chosen = [r for r in rows if context_bucket(r["context"], "calib") == (bucket == "calib")]
            chosen = sample(chosen, args.limit or None)
            buckets[bucket][name] = [(r, sentences(linter, name, r)) for r in chosen]
            print(f"{name} {bucket}: {len(chosen)} rows ({time.time() - t0:.0f} s)", flush=True)

    fit = [s for rows in buckets["fit"].values() for _, ss in rows for s in ss if "x" in s]
    x, y = np.vstack([s["x"] for s in fit]), np.concatenate([s["y"] for s in fit])
    clf = LogisticRegression(C=args.C, max_iter=5000).fit(x, y)
    weights, bias = clf.coef_[0].astype(np.float32), float(clf.intercept_[0])
    calib = [s for rows in buckets["calib"].values() for _, ss in rows for s in ss if "x" in s]
    token_auroc = float(roc_auc_score(np.concatenate([s["y"] for s in calib]),
                                      np.concatenate([s["x"] @ weights + bias for s in calib])))
    unthresholded = SpanHead(weights, bias, threshold=0.0, max_share=1.0)  # the thresholds are chosen below
    probs = {id(s): unthresholded.probs(s["x"]) for s in calib}

    point = RULES.operating_point(linter.config)
    whole = {name: span_f1(dumped(rows), point) for name, rows in buckets["calib"].items()}
    grid = []
    for thr, share in itertools.product(THRESHOLDS, SHARES):
        head = SpanHead(weights, bias, thr, share)
        per = {name: span_f1(dumped(rows, head, probs), point) for name, rows in buckets["calib"].items()}
        grid.append((float(np.mean(list(per.values()))), thr, share, per))
    best = max(grid, key=lambda g: (round(g[0], 4), g[1]))  # ties: the higher threshold (fewer marks)
    print(f"token AUROC on calibration rows {token_auroc:.3f}; span F1 whole sentence {whole} -> "
          f"threshold {best[1]}, max share {best[2]}: {best[3]}")

    graph = Path(getattr(linter.checker, "graph", None) or args.out / "model.safetensors")  # the states read
    payload = {
        "version": 1,
        "model_file": graph.name,  # the int8 graph since issue 41 (its states are what the head reads)
        "model_sha256": sha256(graph),
        "features": "last_hidden_state of each hypothesis token (384), of [CLS] (384), P(entailment), "
                    "P(contradiction), 1/tokens, relative position",
        "weights": [round(float(w), 6) for w in weights], "bias": round(bias, 6),
        "threshold": best[1], "max_share": best[2],
        "trained_on": {name: len(rows) for name, rows in buckets["fit"].items()},
        "fit_tokens": int(len(y)), "C": args.C,
        "calibration": {"rows": {name: len(rows) for name, rows in buckets["calib"].items()},
                        "token_auroc": round(token_auroc, 4),
                        "span_f1_whole_sentence": {k: round(v, 4) for k, v in whole.items()},
                        "span_f1_chosen": {k: round(v, 4) for k, v in best[3].items()},
                        "grid": [[thr, share, {k: round(v, 4) for k, v in per.items()}]
                                 for _, thr, share, per in grid]},
        "command": "python training/train_span_head.py" + (" --ragtruth" if args.ragtruth else "")
                   + (f" --limit {args.limit}" if args.limit else "")
                   + (f" --C {args.C}" if args.C != 0.1 else ""),
    }
    target = args.out / FILE
    also = json.loads(target.read_text(encoding="utf-8")).get("also", []) if target.exists() else []
    if args.also_from:  # a head trained before (e.g. stage 7's XSum/Rotowire head) asked where this one marks all
        prev = json.loads(args.also_from.read_text(encoding="utf-8"))
        also = [{k: prev[k] for k in ("weights", "bias", "threshold")} | {"command": prev.get("command"),
                                                                          "trained_on": prev.get("trained_on")}]
    if also:
        payload["also"] = also
    target.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    if (args.out / "SHA256SUMS").exists():
        write_sums(args.out)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
