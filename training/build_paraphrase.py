"""Value-rewrite minimal pairs: a faithful rewrite of a figure is entailed, the same rewrite with another value is not.

``bench/paraphrase_probe.py`` shows the checker reading some faithful rewrites of a context's figures as
contradictions (a count written as a word 16 % of the time, "about" -> "around" 12 %, against 4 % for the
sentence copied). This builds pairs from training-bucket contexts of the ``*_train`` files (never a development
file; the calibration bucket's contexts go to ``calib.jsonl``), each against the sentences around it, with the
rewrites of ``faithlint/train/rewrites.py``:

- every meaning-preserving rewrite of a sentence's value -> entailment (source ``para_<kind>``);
- one value-changing twin of the same sentence -> contradiction (``para_changed_<kind>``), so that the lesson
  is "the same value in another form", not "a rewritten figure is fine".

For the sweep's distilled recipes (``training/sweep.py``, ``para`` recipes): these rows learn their labels,
every other row the starting checker's probabilities.

    python training/build_paraphrase.py            # -> training/data_para/{train,calib}.jsonl + manifest
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "training")]

from build_negation import around, contexts, usable, write_pairs  # noqa: E402

from faithlint.train.rewrites import paraphrases, value_changes  # noqa: E402


def pairs(docs: list[str], rng: random.Random, per_doc: int) -> list[dict]:
    """Rewrite pairs of at most ``per_doc`` sentences per context (those with a rewritable value)."""
    rows: list[dict] = []
    for doc in docs:
        sents, ok = usable(doc)
        ok = [i for i in ok if paraphrases(sents[i])]
        rng.shuffle(ok)
        for i in ok[:per_doc]:
            premise = around(sents, i, rng)
            for kind, new in paraphrases(sents[i]):
                rows.append({"premise": premise, "hypothesis": new, "label": "entailment", "source": f"para_{kind}"})
            changes = value_changes(sents[i], rng)
            if changes:
                kind, new = rng.choice(changes)
                rows.append({"premise": premise, "hypothesis": new, "label": "contradiction",
                             "source": f"para_{kind}"})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "data_para")
    ap.add_argument("--per-doc", type=int, default=10, help="sentences per context (at most)")
    ap.add_argument("--seed", type=int, default=19)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = pairs(contexts(args.data, "train"), rng, args.per_doc)
    calib = pairs(contexts(args.data, "calib"), rng, 1)
    rng.shuffle(rows)
    write_pairs(args.out, rows, calib, {"stage": "paraphrase", "seed": args.seed})

if __name__ == "__main__":
    main()
