"""RAGTruth checker rows (issue 37): every sentence of a response against the premises inference builds for it.

The checker was trained on older real-output sets whose outputs are mostly wrong and unlike today's LLM text;
on RAGTruth its sentence AUROC is 0.70. These rows teach it today's output on the premises it really judges:
each response of one part of the RAGTruth split (``faithlint/train/ragtruth.py``; never the development part)
goes through the real pipeline at the default settings (``faithlint.api.check``, the context read as
``check --pairs`` reads it, the query given) and every judged sentence is paired with each premise of its
evidence selection (``Linter.evidence``), hypothesis as inference builds it (the query as its frame where the
settings say so). Labels from the human spans the sentence overlaps:

- a "conflict" span -> contradiction; a "baseless info" span -> neutral; no span -> entailment;
- a faithful sentence with several premises is paired only with the one the shipped checker finds most
  entailed (the others may well not hold its facts); an unfaithful one with every premise (none supports it);
- sentences copied word for word from the context (no premise) give no row.

Then ``--mix`` writes a training folder for ``training/train.py``: the training-part rows ``--copies`` times,
a replay of the negation and value-rewrite minimal pairs the checker learned in stages 6 and 7 (so that the
new lesson does not unteach them; ``training/build_negation.py --replay 0``, ``training/build_paraphrase.py``),
and the calibration-part rows as its ``calib.jsonl`` (scored after every epoch; never trained on).

    python training/build_ragtruth.py --part train --out training/data_rt/rt_train.jsonl
    python training/build_ragtruth.py --part calib --out training/data_rt/rt_calib.jsonl
    python training/build_negation.py --replay 0 && python training/build_paraphrase.py
    python training/build_ragtruth.py --mix training/data_rt
    python training/train.py --data training/data_rt --out training/runs/stage8 --base training/checker \
        --epochs 2 --lr 2e-5 --class-balance sqrt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LABEL_OF_TYPE = {"conflict": "contradiction", "baseless": "neutral"}


def sentence_label(start: int, end: int, spans: list[dict]) -> str:
    """The row label of the sentence ``[start, end)`` from the labelled ``spans`` it overlaps."""
    kinds = {("conflict" if "conflict" in s.get("type", "").lower() else "baseless")
             for s in spans if s["start"] < end and start < s["end"]}
    if not kinds:
        return "entailment"
    return LABEL_OF_TYPE["conflict"] if "conflict" in kinds else LABEL_OF_TYPE["baseless"]


def rows_of(linter, row: dict) -> list[dict]:
    """The training rows of one RAGTruth response."""
    from faithlint import api
    from faithlint.inputs.structured import context_from_string

    ctx = context_from_string(f"{row['id']}#context[0]", row["context"])
    query = row.get("query")
    res = api.check(row["text"], ctx, query=query, id=row["id"], markdown=False, linter=linter)
    sentences = [s for s in res.sentences]
    if not sentences:
        return []
    copied, sels, hyps = linter.evidence([s.text for s in sentences], [ctx], query)
    out = []
    for k, (s, c, sel, hyp) in enumerate(zip(sentences, copied, sels, hyps)):
        if c is not None or not sel.premises:
            continue
        label = sentence_label(s.start, s.end, row["spans"])
        premises = list(sel.premises)
        if label == "entailment" and len(premises) > 1:
            probs = linter.checker.score_pairs(premises, [hyp] * len(premises))
            premises = [premises[int(probs[:, 0].argmax())]]
        for p in premises:
            out.append({"premise": p, "hypothesis": hyp, "label": label, "source": f"ragtruth_{row['task']}",
                        "id": row["id"], "sentence": k, "windows": len(sel.premises)})
    return out


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def mix(folder: Path, neg: Path, para: Path, copies: int, neg_rows: int, para_rows: int, seed: int) -> None:
    """``folder/train.jsonl``, ``calib.jsonl`` and ``manifest.json`` from the RAGTruth rows and the replay."""
    rng = random.Random(seed)
    rt = read_jsonl(folder / "rt_train.jsonl")
    replay = []
    for path, n in ((neg / "train.jsonl", neg_rows), (para / "train.jsonl", para_rows)):
        rows = read_jsonl(path)
        rng.shuffle(rows)
        replay += rows[:n]
    rows = [{k: r[k] for k in ("premise", "hypothesis", "label", "source")} for r in rt * copies + replay]
    rng.shuffle(rows)
    with (folder / "train.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    calib = read_jsonl(folder / "rt_calib.jsonl")
    with (folder / "calib.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in calib)
    counts: dict[str, int] = {}
    for r in rows:
        counts[f"{r['source']}:{r['label']}"] = counts.get(f"{r['source']}:{r['label']}", 0) + 1
    manifest = {"stage": "ragtruth", "seed": seed, "copies": copies, "rows": len(rows), "calib_rows": len(calib),
                "sources": dict(sorted(counts.items())),
                "inputs": {p.as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                           for p in (folder / "rt_train.jsonl", folder / "rt_calib.jsonl", neg / "train.jsonl",
                                     para / "train.jsonl")},
                "sha256": hashlib.sha256((folder / "train.jsonl").read_bytes()).hexdigest()}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["train", "calib"])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--mix", type=Path, metavar="FOLDER", help="write FOLDER/train.jsonl from its rt_*.jsonl")
    ap.add_argument("--neg", type=Path, default=ROOT / "training" / "data_neg")
    ap.add_argument("--para", type=Path, default=ROOT / "training" / "data_para")
    ap.add_argument("--copies", type=int, default=2, help="times each RAGTruth training row is seen per epoch")
    ap.add_argument("--neg-rows", type=int, default=1200)
    ap.add_argument("--para-rows", type=int, default=800)
    ap.add_argument("--seed", type=int, default=23)
    args = ap.parse_args()
    if args.mix:
        mix(args.mix, args.neg, args.para, args.copies, args.neg_rows, args.para_rows, args.seed)
        return
    if not (args.part and args.out):
        ap.error("--part and --out are needed (or --mix FOLDER)")

    from faithlint.train.ragtruth import rows_and_linter

    loaded = rows_and_linter(args.part, args.limit)
    if loaded is None:
        return
    rows, linter = loaded
    t0 = time.time()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with args.out.open("w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            for r in rows_of(linter, row):
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
                n += 1
            if (i + 1) % 50 == 0:
                print(f"{i + 1}/{len(rows)} responses, {n} rows ({time.time() - t0:.0f} s)", flush=True)
    print(f"wrote {args.out}: {n} rows from {len(rows)} responses ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
