"""Stage-3b data: value minimal pairs, so the stage-3 checker keeps calling a changed number a contradiction.

Stage 3 (real model outputs) taught the checker that summaries paraphrase; it also made it lenient with
a changed amount next to a premise full of other amounts (the example's "$25 million" against the
context's "$12.5 million" came out entailed). Stage 3b is a short warm-started pass over:

- value minimal pairs from training-bucket contexts of FRANK, LFQA, SummEval and XSum (``*_train`` files,
  the same context split as stage 3): a context sentence with one number, amount or year changed
  (contradiction) and untouched (entailment), against a premise of the sentences around it;
- ``faithlint synth --kinds intrinsic,paraphrase`` on the same contexts: swapped entities, dates and
  numbers, negations and antonyms (contradiction), and their untouched or reworded sentences (entailment);
- a replay of 3,200 stage-3 training rows, so the real-output lesson stays.

    python training/build_values.py            # -> training/data3b/{train,calib}.jsonl + manifest
    python training/train.py --data training/data3b --out training/runs/stage3b \
        --base training/runs/stage3/final --epochs 1 --lr 2e-5

The shipped model's stage-3b rows came from a first, hand-run version of this recipe: the same pair
construction, seeds and mix, but its 160 contexts were another draw from the same training bucket (the
draw was not recorded), so a rerun builds rows of the same kind, not the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.train.splits import context_bucket  # noqa: E402

FILES = ["frank_train", "lfqa_verification_train", "summeval_train", "xsumfaith_train"]
PER_FILE = 40
NUM = re.compile(r"(\$|£|€)?\d+(?:[.,]\d+)*(?:\s?(?:million|billion|percent|%|m|bn))?")
SENT = re.compile(r"(?<=[.!?])\s+")


def contexts(data: Path) -> dict[str, str]:
    """PER_FILE training-bucket contexts per file, chosen by hash (stable across runs)."""
    out: dict[str, str] = {}
    for name in FILES:
        seen: dict[str, str] = {}
        for line in (data / "faithfulness" / f"{name}.jsonl").open(encoding="utf-8"):
            ctx = json.loads(line)["context"]
            if context_bucket(ctx, "calib"):
                continue
            seen.setdefault(hashlib.sha1(ctx.encode()).hexdigest()[:10], ctx)
        for key in sorted(seen)[:PER_FILE]:
            out[f"{name}_{key}"] = seen[key]
    return out


def changed(digits: str, rng: random.Random) -> str | None:
    try:
        val = float(digits.replace(",", ""))
    except ValueError:
        return None
    new = val * rng.choice([2, 3, 0.5, 1.5]) if val > 10 else val + rng.choice([1, 2, 3, 5])
    text = f"{new:,.0f}" if "," in digits else (f"{new:.1f}" if "." in digits else f"{int(round(new))}")
    return None if text == digits else text


def value_pairs(docs: dict[str, str], rng: random.Random, per_doc: int = 8) -> list[dict]:
    rows = []
    for name in sorted(docs):
        sents = [s for s in SENT.split(docs[name]) if s.strip()]
        cands = [i for i, s in enumerate(sents) if NUM.search(s) and 6 <= len(s.split()) <= 40]
        rng.shuffle(cands)
        for i in cands[:per_doc]:
            s = sents[i]
            m = rng.choice(list(NUM.finditer(s)))
            digits = re.search(r"\d+(?:[.,]\d+)*", m.group(0)).group(0)
            new = changed(digits, rng)
            if new is None:
                continue
            hyp = s[:m.start()] + m.group(0).replace(digits, new, 1) + s[m.end():]
            lo, hi = max(0, i - rng.randint(1, 4)), min(len(sents), i + rng.randint(2, 5))
            premise = " ".join(sents[lo:hi])
            rows.append({"premise": premise, "hypothesis": hyp, "label": "contradiction", "source": "numswap"})
            rows.append({"premise": premise, "hypothesis": s, "label": "entailment", "source": "numswap"})
    return rows


def stage3_rows(stage3: Path) -> list[dict]:
    """Stage 3's training rows (``training/build_real.py``), replayed beside new pairs so the real-output lesson
    stays; exits when they are not built yet."""
    path = stage3 / "train.jsonl"
    if not path.is_file():
        sys.exit(f"error: {path}: missing; run training/build_real.py first")
    return [json.loads(line) for line in path.open(encoding="utf-8")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--stage3", type=Path, default=ROOT / "training" / "data3")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "data3b")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    stage3 = stage3_rows(args.stage3)
    rng = random.Random(args.seed)
    docs = contexts(args.data)
    rows = value_pairs(docs, rng)
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in docs.items():
            (Path(tmp) / f"{name}.txt").write_text(text, encoding="utf-8")
        out = Path(tmp) / "synth.jsonl"
        subprocess.run([sys.executable, "-m", "faithlint", "synth", tmp, "-o", str(out), "--kinds",
                        "intrinsic,paraphrase", "--seed", str(args.seed)], check=True)
        synth = [json.loads(line) for line in out.open(encoding="utf-8")]
    rows += [r for r in synth if r["label"] == "contradiction"]
    rows += [r for r in synth if r["label"] == "entailment"
             and (r.get("kind") == "minimal_pair" or str(r.get("kind", "")).startswith("paraphrase"))][:900]
    rng.shuffle(stage3)
    rows += stage3[:3200]
    rows = [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
             "source": r.get("source", r.get("kind", "synth"))} for r in rows]
    rng.shuffle(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "train.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    # the loss on held-out rows during training only: 300 rows of stage 3's calibration split
    calib = (args.stage3 / "calib.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:300]
    (args.out / "calib.jsonl").write_text("".join(calib), encoding="utf-8")
    manifest = {"stage": "3b", "seed": args.seed, "contexts": len(docs), "rows": len(rows),
                "sha256": hashlib.sha256((args.out / "train.jsonl").read_bytes()).hexdigest()}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{len(rows)} rows from {len(docs)} contexts -> {args.out}")


if __name__ == "__main__":
    main()
