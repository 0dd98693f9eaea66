"""Negation minimal pairs: teach the checker that polarity, not the word "not", decides a contradiction.

The shipped checker learned "not" in the hypothesis as a sign of contradiction: its synthetic contradictions
added negations (``faithlint synth``'s negation kind) while its entailed hypotheses rarely held one. On
``bench/negation_probe.py`` it judges 17 % of negated sentences copied from their own premise contradictions
(1.5 % of plain ones) and only 4 % of sentences whose "not" was deleted ("purchases are not reimbursed" ->
"purchases are reimbursed": entailed, 0.87, against a user's context). This builds pairs from training-bucket
contexts of the ``*_train`` files (never a development file; the calibration bucket's contexts go to
``calib.jsonl``), each against a premise of the sentences around it (one to four before, one to four after):

- a sentence with a negation, copied -> entailment;
- the same sentence with its one "not"/"never"/"n't" removed -> contradiction (the minimal pair);
- a plain sentence with "not" after its first auxiliary -> contradiction, and the plain sentence -> entailment;

plus a replay of stage-3 rows (``training/build_real.py``), so the real-output lesson stays.

    python training/build_real.py --out training/data3          # if not built yet
    python training/build_negation.py --stage3 training/data3   # -> training/data_neg/{train,calib}.jsonl
    python training/train.py --data training/data_neg --out training/runs/neg \\
        --base training/checker --epochs 1 --lr 2e-5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "training")]

from build_values import stage3_rows  # noqa: E402

from faithlint.train.splits import context_bucket  # noqa: E402

FILES = ["frank_train", "xsumfaith_train", "summeval_train", "lfqa_verification_train", "q2_train",
         "faithdial_audit_train", "rotowire_accuracy_train"]
SENT = re.compile(r"(?<=[.!?])\s+")
NEGATION = re.compile(r"\b(not|never|no|none|nor|cannot)\b|n't\b", re.IGNORECASE)
# one removable negation: " not"/" never" dropped, "didn't" -> "did", "can't" -> "can", "won't" -> "will"
REMOVABLE = re.compile(r"\s(?:not|never)\b|(?<=\w)n't\b|\b(?:can't|won't|cannot)\b", re.IGNORECASE)
IRREGULAR = {"can't": "can", "won't": "will", "cannot": "can"}
AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|may|might|must)\b")


def remove_negation(s: str) -> str | None:
    """``s`` with its one removable negation taken out, or None (none, or several)."""
    found = list(REMOVABLE.finditer(s))
    if len(found) != 1 or len(NEGATION.findall(s)) != 1:
        return None
    m = found[0]
    word = m.group(0)
    new = IRREGULAR.get(word.lower().strip())
    if new is not None:
        new = new.capitalize() if word[:1].isupper() else new
        return s[:m.start()] + new + s[m.end():]
    return s[:m.start()] + s[m.end():]


def add_negation(s: str) -> str | None:
    m = AUXILIARY.search(s)
    return None if m is None else s[:m.end()] + " not" + s[m.end():]


def contexts(data: Path, bucket: str) -> list[str]:
    """Distinct contexts of the training files in ``bucket`` ("train" or "calib")."""
    out: dict[str, str] = {}
    for name in FILES:
        path = data / "faithfulness" / f"{name}.jsonl"
        if not path.exists():
            sys.exit(f"error: {path}: not found")
        for line in path.open(encoding="utf-8"):
            ctx = json.loads(line)["context"]
            if context_bucket(ctx, "calib") == (bucket == "calib"):
                out.setdefault(hashlib.sha1(ctx.encode()).hexdigest(), ctx)
    return [out[k] for k in sorted(out)]


def usable(doc: str) -> tuple[list[str], list[int]]:
    """A context's sentences, and the indices of those a pair may be made of (6 to 40 words, one line)."""
    sents = [s.strip() for s in SENT.split(doc) if s.strip()]
    return sents, [i for i, s in enumerate(sents) if 6 <= len(s.split()) <= 40 and "\n" not in s]


def around(sents: list[str], i: int, rng: random.Random) -> str:
    """The premise a pair of sentence ``i`` is judged against: it and one to four sentences on each side."""
    lo, hi = max(0, i - rng.randint(1, 4)), min(len(sents), i + 1 + rng.randint(1, 4))
    return " ".join(sents[lo:hi])


def pairs(docs: list[str], rng: random.Random, per_doc: int, plain_per_doc: int) -> list[dict]:
    rows: list[dict] = []
    for doc in docs:
        sents, ok = usable(doc)
        negated = [i for i in ok if NEGATION.search(sents[i])]
        plain = [i for i in ok if not NEGATION.search(sents[i]) and AUXILIARY.search(sents[i])]
        rng.shuffle(negated)
        rng.shuffle(plain)
        for i, kind in [*((i, "negated") for i in negated[:per_doc]), *((i, "plain") for i in plain[:plain_per_doc])]:
            premise = around(sents, i, rng)
            s = sents[i]
            other = remove_negation(s) if kind == "negated" else add_negation(s)
            rows.append({"premise": premise, "hypothesis": s, "label": "entailment", "source": f"neg_{kind}_copy"})
            if other is not None:
                rows.append({"premise": premise, "hypothesis": other, "label": "contradiction",
                             "source": "neg_removed" if kind == "negated" else "neg_added"})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--stage3", type=Path, default=ROOT / "training" / "data3")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "data_neg")
    ap.add_argument("--per-doc", type=int, default=4, help="negated sentences per context")
    ap.add_argument("--plain-per-doc", type=int, default=1,
                    help="plain sentences per context (copy + negation added): few, the model knows those")
    ap.add_argument("--replay", type=int, default=3000, help="stage-3 training rows replayed")
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    stage3 = stage3_rows(args.stage3) if args.replay else []  # --replay 0: no stage-3 rows needed
    rng = random.Random(args.seed)
    rows = pairs(contexts(args.data, "train"), rng, args.per_doc, args.plain_per_doc)
    calib = pairs(contexts(args.data, "calib"), rng, 1, 1)
    rng.shuffle(stage3)
    rows += [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
              "source": r.get("source", "stage3")} for r in stage3[:args.replay]]
    rng.shuffle(rows)
    write_pairs(args.out, rows, calib, {"stage": "negation", "seed": args.seed})


def write_pairs(out: Path, rows: list[dict], calib: list[dict], meta: dict) -> None:
    """``train.jsonl``, ``calib.jsonl`` and a manifest (rows per source, the training file's sha256) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, part in (("train", rows), ("calib", calib)):
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in part)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    manifest = {**meta, "rows": len(rows), "calib_rows": len(calib), "sources": dict(sorted(counts.items())),
                "sha256": hashlib.sha256((out / "train.jsonl").read_bytes()).hexdigest()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
