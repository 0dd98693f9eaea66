"""Development benchmark on real model outputs: what users would see at the default operating point.

Every row's ``text`` is checked against its ``context`` by the real pipeline, and each
sentence's verdict and FL400 ranges are dumped (bench/results/dumps/NAME.jsonl), so metrics at
any operating point are recomputed without the model (bench/calibrate.py). Reported per file
and per task type (QA, summary, dialogue, data-to-text, claims):

- response precision / recall / F1 of "flagged" (any error or warning finding) for
  "hallucinated" (the label says the output, or the sentence, is not supported);
- span F1 where spans are labelled (XSum hallucinations, Rotowire): characters of error/warning
  findings against the labelled characters, over all rows;
- AUROC of 1 - min sentence P(entailment) at the level the set labels (response or sentence).

Files: the ``*_dev`` halves of the real-output sets (all rows, or --limit per file) and the
earlier development sets (only rows whose context is in the "unseen" half; see
faithlint/train/splits.py). ``--split calib`` runs on the calibration rows of the training-side files
instead (for choosing the operating point, never for reporting).

    python bench/eval_dev.py --name v2 --limit 300
    python bench/eval_dev.py --name v01 --model PATH --evidence windows --limit 300
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from common import RESULTS, ClaimPoint, SentencePoint, data_dir, read_jsonl, sample, save, table

from faithlint.train.monitor import FAITHFUL, SKIP, TRAIN_FILES, calib_rows

TASKS = {  # file -> task type
    "halueval_qa_dev": "qa", "lfqa_verification_dev": "qa",
    "frank_dev": "summary", "xsumfaith_dev": "summary", "summeval_dev": "summary",
    "q2_dev": "dialogue", "faithdial_audit_dev": "dialogue",
    "rotowire_accuracy_dev": "data-to-text",
    "wice_claim_test": "claims",
    "summedits_ectsum": "summary", "summedits_news": "summary", "summedits_podcast": "summary",
    "summedits_qmsumm": "summary", "summedits_sales_call": "summary", "summedits_sales_email": "summary",
    "summedits_samsum": "summary", "summedits_scitldr": "summary", "qags_cnndm": "summary", "qags_xsum": "summary",
    "begin_test_wow": "dialogue", "dialfact_small": "dialogue",
}
NEW = [f for f in TASKS if f.endswith("_dev")]
CALIB = TRAIN_FILES  # the training-side real-output files, whose calibration rows choose operating points


def task_of(name: str) -> str:
    return TASKS.get(name) or TASKS.get(name.replace("_train", "_dev"), "other")


def rows_for(data: Path, name: str, split: str, limit: int, old_limit: int) -> list[dict]:
    """The rows of one file a run reads: calibration rows (``split="calib"``), else development rows (the
    "unseen" half of an earlier file), without FaithDial's generic/uncooperative ones, sampled."""
    from faithlint.train.splits import context_bucket

    if split == "calib":
        return calib_rows(data, name, limit)
    rows = read_jsonl(data / "faithfulness" / f"{name}.jsonl")
    if name not in NEW:
        rows = [r for r in rows if context_bucket(r["context"], "unseen")]
    rows = [r for r in rows if r["label"] not in SKIP]
    return sample(rows, (limit if name in NEW else old_limit) or None)


def dump_rows(args) -> Path:
    """Run the linter over the rows and write one JSON line per row."""
    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter
    from faithlint.types import ContextDoc

    data = data_dir(args.data)
    cfg = Config(rules={"FL400": {"threshold": 1.0}},  # every value mismatch: flagged_ranges applies the gate
                 model=args.model, evidence=args.evidence, grounding=args.grounding,
                 unit=args.unit, runtime=args.runtime,
                 precision=args.precision, relevance=args.relevance,
                 **({"split": args.sentence_split} if args.sentence_split else {}),
                 **({"context_split": args.context_split} if args.context_split else {}),
                 **({} if args.evidence_candidates is None else {"evidence_candidates": args.evidence_candidates}))
    relevance = None
    if getattr(args, "embedding_dir", None):
        from faithlint.evidence.relevance import OnnxEmbeddingRelevance

        relevance = OnnxEmbeddingRelevance(args.embedding_dir)
    linter = Linter(cfg, relevance=relevance)
    t0 = time.time()
    linter.load()
    load_s = time.time() - t0
    path = RESULTS / "dumps" / f"{args.name}-{args.split}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    files = args.files or (CALIB if args.split == "calib" else list(TASKS))
    n_sent, elapsed = 0, 0.0
    with path.open("w", encoding="utf-8") as out:
        for name in files:
            rows = rows_for(data, name, args.split, args.limit, args.old_limit)
            t0 = time.time()
            for r in rows:
                res = linter.check(r["text"], [ContextDoc(name, r["context"])], query=r.get("query"), markdown=False)
                sents = []
                for s in res.sentences:
                    fl400 = [[f.start, f.end] for f in res.findings if f.code == "FL400" and s.start <= f.start < s.end]
                    sents.append({"start": s.start, "end": s.end, "p": [round(s.probs[k], 5) for k in
                                                                        ("entailment", "neutral", "contradiction")],
                                  "fl400": fl400, "fl100": any(f.code == "FL100" and s.start <= f.start < s.end
                                                               for f in res.findings),
                                  "marks": [[s.start + a, s.start + b] for a, b in s.marks]})
                    if args.with_evidence:  # what the checker read, for feature studies
                        sents[-1]["evidence"] = "\n".join(w.text for w in s.windows)
                    if s.grounding is not None:  # the checker's own probabilities (training/fit_grounding.py)
                        sents[-1]["checker_p"] = [round(s.grounding.checker[k], 5) for k in
                                                  ("entailment", "neutral", "contradiction")]
                    if s.claims is not None:  # unit = "both": the sentence's own verdict and each claim's
                        sents[-1]["claims"] = [{"start": c.start, "end": c.end, "p": [round(c.probs[k], 5) for k in
                                                ("entailment", "neutral", "contradiction")]} for c in s.claims]
                out.write(json.dumps({"file": name, "id": r["id"], "task": task_of(name),
                                      "hallucinated": r["label"] not in FAITHFUL, "len": len(r["text"]),
                                      "spans": [[s["start"], s["end"]] for s in r["spans"]] if "spans" in r else None,
                                      "sentences": sents}) + "\n")
                n_sent += len(res.sentences)
            elapsed += time.time() - t0
            print(f"{name}: {len(rows)} rows", flush=True)
    meta = {"name": args.name, "split": args.split, "limit_per_file": args.limit, "old_limit": args.old_limit,
            "model": args.model or "bundled", "runtime": type(linter.checker).__name__,
            "precision": args.precision, "relevance": f"{type(linter.relevance).__name__} {args.embedding_dir or ''}",
            "evidence": args.evidence, "grounding": linter.grounding is not None, "unit": args.unit,
            "sentence_split": cfg.split,
            "context_split": cfg.context_split, "sentences": n_sent,
            "sentences_per_s": n_sent / max(elapsed, 1e-9),
            "model_load_s": load_s, "fl400": "every value mismatch (the gate is applied when scoring)"}
    path.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2))
    return path


def claims_verdict(s: dict, mode: str) -> list[float] | None:
    """The aggregate of a dumped sentence's claims (None: no claims were extracted)."""
    from faithlint.claims.aggregate import aggregate

    return list(aggregate([c["p"] for c in s["claims"]], mode)[0]) if s.get("claims") else None


def unit_codes(s: dict, point, unit: str = "sentence", mode: str = "strict", claim_point=None
               ) -> tuple[list[float], list[tuple[str, int, int]]]:
    """(the probabilities deciding the sentence, the error/warning findings (code, start, end)) of one dumped
    sentence as the linter reports them with ``unit`` (see Linter._findings: the same gate and de-duplication)."""
    from faithlint.claims.verdicts import replaced
    from faithlint.rules.operating_point import claim_code, sentence_code

    agg = claims_verdict(s, mode) if unit != "sentence" else None
    p = agg if unit == "claim" and agg is not None else s["p"]
    out = []
    if point is None:  # v0.1: the argmax label decides
        code = (None, "FL200", "FL100")[int(np.argmax(p))]
    else:
        code = sentence_code(p[0], p[2], point)
    if code in ("FL100", "FL200"):  # narrowed to the hull of the span head's marks, as the linter reports it
        marks = s.get("marks") or [[s["start"], s["end"]]]
        out.append((code, marks[0][0], marks[-1][1]))
    if agg is not None and point is not None:
        cp = claim_point or ClaimPoint(point["FL100"], point["FL200"])
        gate = mode == "strict" or claim_code(agg[0], agg[2], cp) is not None
        found = [(c2, c["start"], c["end"]) for c in s["claims"]
                 if gate and (c2 := claim_code(c["p"][0], c["p"][2], cp))]
        drop = replaced({c for c, _, _ in found})
        out = [f for f in out if f[0] not in drop] + found
    return p, out


def flagged_ranges(row: dict, point, fl400: bool = True, unit: str = "sentence", mode: str = "strict",
                   claim_point=None) -> list[tuple[int, int]]:
    """Character ranges of error/warning findings of one dumped row at an operating point.

    ``unit`` other than "sentence" needs a dump of a ``--unit both`` run. FL400 ranges are those found with the
    sentence's own evidence (with ``unit = "claim"`` the linter looks in its claims' evidence: a close
    approximation), reported where the deciding probabilities doubt the sentence.
    """
    out = []
    for s in row["sentences"]:
        p, found = unit_codes(s, point, unit, mode, claim_point)
        out.extend((a, b) for _, a, b in found)
        if fl400 and (point is None or point["FL400"] >= 1.0 or p[0] < point["FL400"]):
            out.extend(tuple(r) for r in s["fl400"])
    return out


def row_score(row: dict, unit: str = "sentence", mode: str = "strict") -> float:
    """Hallucination score of a row: 1 - the least entailed sentence (0 for a row with nothing checked); with
    claims, a sentence's P(entailment) is its claims' aggregate (``both``: the lower of the two)."""
    def entailed(s: dict) -> float:
        agg = claims_verdict(s, mode) if unit != "sentence" else None
        if agg is None:
            return s["p"][0]
        return agg[0] if unit == "claim" else min(agg[0], s["p"][0])
    return 1.0 - min((entailed(s) for s in row["sentences"]), default=1.0)


def prf(y: list[bool], pred: list[bool]) -> tuple[float, float, float]:
    tp = sum(a and b for a, b in zip(y, pred))
    p = tp / max(sum(pred), 1)
    r = tp / max(sum(y), 1)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def auroc(y: list[bool], s: list[float]) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s)) if len(set(y)) == 2 else float("nan")


def span_f1(rows: list[dict], point, **unit) -> float:
    tp = fp = fn = 0
    for r in rows:
        gold = {c for a, b in r["spans"] for c in range(a, b)}
        got = {c for a, b in flagged_ranges(r, point, **unit) for c in range(a, b)}
        tp += len(gold & got)
        fp += len(got - gold)
        fn += len(gold - got)
    p, rc = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return 2 * p * rc / (p + rc) if p + rc else 0.0


def metrics(rows: list[dict], point, **unit) -> dict:
    """``unit``: keyword arguments of :func:`flagged_ranges` (unit, mode, claim_point)."""
    y = [r["hallucinated"] for r in rows]
    pred = [bool(flagged_ranges(r, point, **unit)) for r in rows]
    p, rc, f = prf(y, pred)
    scored = {k: v for k, v in unit.items() if k in ("unit", "mode")}
    out = {"rows": len(rows), "hallucinated": int(sum(y)), "precision": p, "recall": rc, "f1": f,
           "flag_all_f1": prf(y, [True] * len(y))[2], "auroc": auroc(y, [row_score(r, **scored) for r in rows])}
    spanned = [r for r in rows if r["spans"] is not None]
    out["span_f1"] = span_f1(spanned, point, **unit) if spanned else None
    return out


def summarise(rows: list[dict], point, **unit) -> dict:
    files: dict[str, list[dict]] = {}
    for r in rows:
        files.setdefault(r["file"], []).append(r)
    per_file = {name: metrics(rs, point, **unit) for name, rs in files.items()}
    tasks: dict[str, dict] = {}
    for task in sorted({r["task"] for r in rows}):
        names = [n for n in files if task_of(n) == task]
        pooled = metrics([r for n in names for r in files[n]], point, **unit)
        pooled["auroc_mean"] = float(np.nanmean([per_file[n]["auroc"] for n in names]))
        new = [n for n in names if n in NEW or n.endswith("_train")]
        pooled["new_files"] = metrics([r for n in new for r in files[n]], point, **unit) if new else None
        tasks[task] = pooled
    return {"files": per_file, "tasks": tasks,
            "auroc_mean_all": float(np.nanmean([m["auroc"] for m in per_file.values()])),
            "auroc_mean_new": float(np.nanmean([m["auroc"] for n, m in per_file.items() if n in NEW] or [np.nan]))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--name", required=True, help="name of this run (dump and result file names)")
    ap.add_argument("--limit", type=int, default=0, help="rows per real-output file (deterministic sample); 0 = all")
    ap.add_argument("--old-limit", type=int, default=100, help="rows per earlier development file")
    ap.add_argument("--split", choices=["dev", "calib"], default="dev")
    ap.add_argument("--files", nargs="*", help="only these files")
    ap.add_argument("--model", help="checker model (default: bundled)")
    ap.add_argument("--evidence", choices=["assembled", "windows"], default="assembled")
    ap.add_argument("--runtime", choices=["auto", "onnx", "torch"], default="auto",
                    help="where the checker and the embedding model run (config runtime)")
    ap.add_argument("--precision", choices=["auto", "fp32", "bf16", "int8"], default="auto",
                    help="checker precision (config precision)")
    ap.add_argument("--evidence-candidates", type=int, default=None,
                    help="pieces per sentence ranked by the embedding model (config evidence_candidates, whose "
                         "default is used when absent; 0: all)")
    ap.add_argument("--context-split", choices=["senter", "parser", "rules"], default=None,
                    help="how contexts are cut into sentences (default: the config's)")
    ap.add_argument("--sentence-split", choices=["senter", "parser"], default=None,
                    help="the spaCy component that cuts drafts into sentences (default: the config's)")
    ap.add_argument("--relevance", choices=["embedding", "lexical"], default="embedding",
                    help="how context pieces are ranked (config relevance)")
    ap.add_argument("--embedding-dir", help="an ONNX embedding export to use instead of the bundled one")
    ap.add_argument("--unit", choices=["sentence", "both"], default="sentence",
                    help="both: dump each sentence's claims too (bench/claims_check.py compares the units)")
    ap.add_argument("--grounding", choices=["on", "off"], default="on",
                    help="score sentences with the checker's grounding model (off: P(entailment) alone)")
    ap.add_argument("--with-evidence", action="store_true", help="dump each sentence's evidence text too")
    ap.add_argument("--reuse", action="store_true", help="recompute metrics from an existing dump")
    ap.add_argument("--argmax", action="store_true", help="v0.1's operating point: the argmax label decides")
    args = ap.parse_args()
    path = RESULTS / "dumps" / f"{args.name}-{args.split}.jsonl"
    if not args.reuse:
        path = dump_rows(args)
    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter

    rows = read_jsonl(path)
    meta = json.loads(path.with_suffix(".meta.json").read_text())
    # the point the run's linter reports findings at: with grounding, the grounding model's calibrated one
    grounded = "on" if meta.get("grounding") else "off"
    point = None if args.argmax else Linter(Config(model=args.model, grounding=grounded)).operating_point()
    result = {**meta, "operating_point": SentencePoint.of(point).__dict__ if point else "argmax",
              **summarise(rows, point)}
    save(f"dev_{args.name}.json" if args.split == "dev" else f"calib_{args.name}.json", result)
    body = [[t, m["rows"], m["precision"], m["recall"], m["f1"], m["flag_all_f1"], m["auroc_mean"],
             "" if m["span_f1"] is None else m["span_f1"]] for t, m in result["tasks"].items()]
    print(table(["task", "rows", "precision", "recall", "F1", "flag-all F1", "AUROC", "span F1"], body))
    print(f"mean AUROC over files {result['auroc_mean_all']:.3f} (new real-output files "
          f"{result['auroc_mean_new']:.3f}); {meta['sentences_per_s']:.1f} sentences/s")


if __name__ == "__main__":
    main()
