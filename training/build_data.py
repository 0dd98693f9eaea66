"""Build the training, calibration and held-out split for faithlint's checker.

Reads ../shared/data (see its README for which files are for training). Writes
JSONL files plus a manifest with the sha256 of every input file and output, so a
rerun can be checked for reproducibility.

Data policy (reported in the model card):
- NLI training files only (snli_dev, sick_train, sick_trial, climate_fever,
  breaking_nli); snli_test, mnli_dev_matched and sick_test stay out.
- wice_claim_dev and begin_dev_* are split by context hash: 70 % training,
  30 % calibration (temperature scaling, checkpoint choice).
- Synthetic pairs are built from the contexts of the training files and from
  the *unlabelled contexts* of the evaluation files whose context hash falls in
  the "synth" half; the other half ("unseen") is never seen in any form, and
  the benchmark reports its headline numbers on it.

Two stages (see train.py): stage 1 is the broad mix; stage 2 (``--stage 2``,
written to training/data2) continues training on fresh synthetic examples from
the same allowed contexts with another seed, minimal pairs (each hallucinated
hypothesis also appears untouched, as entailment, against the same window) and
windows sized exactly as the inference path sizes them, plus a replay of the NLI
mix so the model keeps what it knew (half of each sampled file; SICK, used whole in
stage 1, whole again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.train.splits import context_bucket  # noqa: E402
from faithlint.train.synth import Synthesizer, make_examples  # noqa: E402

NLI_TRAIN = {"snli_dev": 7000, "sick_train": None, "sick_trial": None,
             "climate_fever_pairs": 3500, "breaking_nli": 1500}
FAITH_TRAIN = ["wice_claim_dev", "begin_dev_cmu", "begin_dev_tc", "begin_dev_wow"]
EVAL_CONTEXT_FILES = ["summedits_ectsum", "summedits_news", "summedits_podcast", "summedits_qmsumm",
                      "summedits_sales_call", "summedits_sales_email", "summedits_samsum",
                      "summedits_scitldr", "qags_cnndm", "qags_xsum", "wice_claim_test",
                      "begin_test_wow", "dialfact_small"]
FAITH_LABEL = {"supported": "entailment", "partially_supported": "neutral", "not_supported": "neutral",
               "Fully attributable": "entailment", "Not fully attributable": "neutral", "Generic": "neutral"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def overlap_window(windows, text: str):
    words = {w.lower().strip(".,;:!?\"'()") for w in text.split()}
    return max(windows, key=lambda w: len(words & {x.lower().strip(".,;:!?\"'()") for x in w.text.split()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "data")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--max-synth-docs", type=int, default=2200)
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--stage", type=int, choices=[1, 2], default=1)
    args = ap.parse_args()
    stage2 = args.stage == 2
    if stage2:
        if args.out == ROOT / "training" / "data":
            args.out = ROOT / "training" / "data2"
        if args.seed == 13:
            args.seed = 14
    nli_counts = {k: (v or 10**9) // (2 if stage2 else 1) for k, v in NLI_TRAIN.items()}
    if not args.data.is_dir():
        sys.exit(f"error: data folder {args.data} not found")
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)

    from faithlint.document.sentences import SentenceSplitter, load_spacy
    from faithlint.evidence.windows import build_windows, token_budget
    from faithlint.models.checkers.tokens import load_tokenizer

    tok = load_tokenizer()

    def count(texts):
        return [len(x) for x in tok(list(texts), add_special_tokens=False)["input_ids"]]

    def offsets(text):
        return tok(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]

    inputs = {}
    train, calib = [], []
    # 1. NLI
    for name in NLI_TRAIN:
        p = args.data / "nli" / f"{name}.jsonl"
        inputs[str(p.relative_to(args.data))] = sha256(p)
        rows = read(p)
        rng.shuffle(rows)
        for r in rows[:nli_counts[name]]:
            train.append({"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
                          "kind": "nli_" + name, "doc_id": r["id"]})
    # 2. labelled faithfulness files marked for training/tuning
    splitter = SentenceSplitter()
    for name in FAITH_TRAIN:
        p = args.data / "faithfulness" / f"{name}.jsonl"
        inputs[str(p.relative_to(args.data))] = sha256(p)
        for r in read(p):
            ctx = r["context"][:20000]
            hyp = r["text"].strip()
            if not hyp or not ctx.strip():
                continue
            hyp_tokens = count([hyp])[0]
            budget = token_budget(args.max_length, hyp_tokens)
            sents = splitter.split(ctx)
            wins = build_windows(r["id"], ctx, sents, count([ctx[s.start:s.end] for s in sents]), budget, 32, offsets)
            if not wins:
                continue
            win = overlap_window(wins, hyp)
            ex = {"premise": win.text, "hypothesis": hyp, "label": FAITH_LABEL[r["label"]],
                  "kind": "faith_" + name, "doc_id": r["id"]}
            (calib if context_bucket(r["context"], "calib") else train).append(ex)
    # 3. synthetic from contexts
    contexts: dict[str, str] = {}
    for name in FAITH_TRAIN:
        for r in read(args.data / "faithfulness" / f"{name}.jsonl"):
            if not context_bucket(r["context"], "calib"):
                contexts.setdefault(hashlib.sha1(r["context"].encode()).hexdigest(), r["context"])
    for name in EVAL_CONTEXT_FILES:
        p = args.data / "faithfulness" / f"{name}.jsonl"
        inputs[str(p.relative_to(args.data)) + " (contexts only)"] = sha256(p)
        for r in read(p):
            if context_bucket(r["context"], "synth"):
                contexts.setdefault(hashlib.sha1(r["context"].encode()).hexdigest(), r["context"])
    items = sorted(contexts.items())
    rng.shuffle(items)
    items = [(k, v[:6000]) for k, v in items if len(v) >= 200][: args.max_synth_docs]
    print(f"synthesising from {len(items)} contexts", file=sys.stderr)
    nlp = load_spacy()
    budgets = sorted({token_budget(args.max_length, n) for n in (16, 24, 32, 48)}) if stage2 else None
    synth = Synthesizer(count, max_length=args.max_length, seed=args.seed, token_offsets=offsets,
                        paired=0.6 if stage2 else 0.0, budgets=budgets)
    synthetic = []
    for i in range(0, len(items), 200):
        synthetic.extend(e.to_dict() for e in make_examples(items[i:i + 200], nlp, synth, args.per_doc))
        print(f"  {i + 200} docs -> {len(synthetic)} examples", file=sys.stderr)
    # keep a slice of synthetic examples (by document) for calibration
    for e in synthetic:
        (calib if int(hashlib.sha1(e["doc_id"].encode()).hexdigest(), 16) % 20 == 0 else train).append(e)

    rng.shuffle(train)
    outputs = {}
    for fname, rows in (("train.jsonl", train), ("calib.jsonl", calib)):
        path = args.out / fname
        with path.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        outputs[fname] = {"rows": len(rows), "sha256": sha256(path),
                          "labels": {lab: sum(r["label"] == lab for r in rows) for lab in
                                     ("entailment", "neutral", "contradiction")}}
    kinds: dict[str, int] = {}
    for r in train:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    manifest = {"stage": args.stage, "seed": args.seed, "max_length": args.max_length, "inputs": inputs,
                "outputs": outputs,
                "train_kinds": dict(sorted(kinds.items()))}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    print(json.dumps(outputs, indent=2))


if __name__ == "__main__":
    main()
