"""Stage-3 training data: labelled outputs of real summarisation, QA, dialogue and data-to-text systems.

Reads the ``*_train`` files of ../shared/data/faithfulness (never a ``*_dev`` file or any file the
benchmarks report), splits each output into sentences and builds each sentence's premise with
the linter's own evidence assembly (``Linter.evidence``), so the checker learns on exactly
the (premise, hypothesis) shapes it will judge. Rows are split by context hash: 70 % training,
30 % calibration (``faithlint.train.splits``); the calibration rows also choose the operating point
(bench/calibrate.py). A replay of NLI training files keeps what the model knew.

Sentence labels, from what each set annotates:
- sentence-level sets (LFQA verification, Rotowire): the row's label; Rotowire NUMBER/NAME/WORD
  errors are contradictions (the box score has another value), others neutral;
- XSum hallucinations: sentences overlapping a marked span are neutral (extrinsic) or
  contradiction (intrinsic), unmarked sentences of a faithful summary entail;
- summary/response-level sets (FRANK, SummEval, Q2, FaithDial, HaluEval QA): every sentence of a
  faithful output entails; an unfaithful output is used only when it has one checkable sentence
  (or FRANK says all its sentences are wrong), since otherwise nobody knows which sentence is;
- HaluEval QA: hallucinated answers only up to 6 words, so answer length is no shortcut.

With ``--bags``, every output of a response-level set is also written whole to ``bags_{train,calib}.jsonl``
(its checkable sentences' premise/hypothesis pairs and the output's label). An unfaithful summary of
several sentences says only that *some* sentence is unsupported; as a bag it still teaches (the least
entailed sentence should not be entailed: ``training/sweep.py``'s multiple-instance loss), and the
calibration bags measure what the benchmarks measure, the response-level AUROC of the least entailed
sentence. The per-sentence rows are the same with or without ``--bags``.

    python training/build_real.py                  # -> training/data3/{train,calib}.jsonl + manifest
    python training/build_real.py --bags --out training/data3m   # the same rows, plus bags_*.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.config import Config  # noqa: E402
from faithlint.pipeline.linter import Linter  # noqa: E402
from faithlint.train.splits import context_bucket  # noqa: E402
from faithlint.types import ContextDoc  # noqa: E402

FILES = ["lfqa_verification_train", "rotowire_accuracy_train", "xsumfaith_train", "frank_train", "summeval_train",
         "q2_train", "faithdial_audit_train", "halueval_qa_train", "wice_claim_dev", "begin_dev_cmu",
         "begin_dev_tc", "begin_dev_wow"]
FAITHFUL = {"supported", "accurate", "faithful", "consistent", "entailment", "Fully attributable"}
SKIP = {"generic", "uncooperative", "Generic", "partial hallucination"}
NLI_REPLAY = {"snli_dev": 2500, "sick_train": 1500, "climate_fever_pairs": 1200, "breaking_nli": 500}
BAG_FILES = {"frank_train", "summeval_train", "q2_train", "faithdial_audit_train", "halueval_qa_train",
             "xsumfaith_train"}  # response-level labels: the sets whose unfaithful outputs are bags
MAX_PER_CONTEXT = 12  # SummEval has 16 faithful summaries of one article: don't let one article dominate


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def overlaps(a: int, b: int, spans: list[dict]) -> list[dict]:
    return [s for s in spans if s["start"] < b and a < s["end"]]


def length_shortcut(name: str, row: dict) -> bool:
    """A HaluEval answer longer than 6 words: only hallucinated ones are, so length would be the lesson."""
    return name.startswith("halueval") and len(row["text"].split()) > 6


def sentence_labels(name: str, row: dict, sents: list[tuple[int, int, str]]) -> list[str | None]:
    """One label (or None: unknown, skip) per sentence of the row's text."""
    label = row["label"]
    if label in SKIP:
        return [None] * len(sents)
    good = label in FAITHFUL
    if good:
        return ["entailment"] * len(sents)
    if name.startswith("rotowire"):
        kinds = {e.get("type") or e.get("category") for e in row.get("errors") or []}
        bad = "contradiction" if kinds & {"NUMBER", "NAME", "WORD"} else "neutral"
        return [bad] * len(sents)
    if name.startswith("xsumfaith"):
        spans = row.get("spans") or []
        kinds = Counter(w.get("type") for w in row.get("worker_spans") or [])
        intrinsic = kinds["intrinsic"] > kinds["extrinsic"]
        out: list[str | None] = []
        for a, b, _ in sents:
            out.append(("contradiction" if intrinsic else "neutral") if overlaps(a, b, spans) else None)
        return out
    if name.startswith("lfqa"):
        return ["neutral"] * len(sents)
    if name.startswith("frank") and row.get("sentence_labels"):
        return ["neutral"] * len(sents)
    if length_shortcut(name, row):
        return [None] * len(sents)
    return ["neutral"] if len(sents) == 1 else [None] * len(sents)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "training" / "data3")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--relevance", choices=["lexical", "embedding"], default="lexical")
    ap.add_argument("--bags", action="store_true", help="also write whole outputs as bags (see above)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # premises are ranked by word/number overlap here (the embedding ranking of inference costs an hour
    # of CPU for ~15k rows); the premise's shape - pieces in document order within the budget - is the same
    linter = Linter(Config(evidence="assembled", relevance=args.relevance))
    out = {"train": [], "calib": []}
    bags: dict[str, list[dict]] = {"train": [], "calib": []}
    per_bag_context: Counter = Counter()
    stats: Counter = Counter()
    inputs = {}
    for name in FILES:
        path = args.data / "faithfulness" / f"{name}.jsonl"
        inputs[name] = sha256(path)
        rows = read(path)
        per_context: Counter = Counter()
        rng.shuffle(rows)
        for r in rows:
            ctx_key = hashlib.sha1(r["context"].encode()).hexdigest()
            if per_context[ctx_key] >= MAX_PER_CONTEXT:
                continue
            _, ds = linter.sentences(r["text"], markdown=False)
            sents = [(s.start, s.end, s.text) for s in ds]
            if not sents:
                continue
            labels = sentence_labels(name, r, sents)
            keep = [(s, lab) for s, lab in zip(sents, labels) if lab is not None]
            bag = args.bags and name in BAG_FILES and r["label"] not in SKIP and \
                per_bag_context[ctx_key] < MAX_PER_CONTEXT and not length_shortcut(name, r)
            if not keep and not bag:
                continue
            query = r.get("query")
            copied, selections, hypotheses = linter.evidence([s[2] for s in sents], [ContextDoc(name, r["context"])],
                                                             query)
            by_sentence = {i: [(p, h) for p in sel.premises] for i, (sel, h) in enumerate(zip(selections, hypotheses))}
            split = "calib" if context_bucket(r["context"], "calib") else "train"
            if bag:
                per_bag_context[ctx_key] += 1
                pairs = [{"sentence": i, "premise": p, "hypothesis": h} for i in range(len(sents))
                         if copied[i] is None for p, h in by_sentence.get(i, [])]
                if pairs:
                    bags[split].append({"pairs": pairs, "faithful": r["label"] in FAITHFUL, "source": name,
                                        "doc_id": ctx_key})
            if not keep:
                continue
            per_context[ctx_key] += 1
            for i, lab in enumerate(labels):
                if lab is None or copied[i] is not None:
                    continue
                for premise, hypothesis in by_sentence.get(i, []):
                    out[split].append({"premise": premise, "hypothesis": hypothesis, "label": lab, "source": name,
                                       "doc_id": ctx_key})
                    stats[(name, split, lab)] += 1
        print(name, {k[1:]: v for k, v in stats.items() if k[0] == name}, flush=True)
    for name, n in NLI_REPLAY.items():
        path = args.data / "nli" / f"{name}.jsonl"
        inputs[name] = sha256(path)
        rows = read(path)
        rng.shuffle(rows)
        for r in rows[:n]:
            out["train"].append({"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
                                 "source": name, "doc_id": r["id"]})
            stats[(name, "train", r["label"])] += 1
    args.out.mkdir(parents=True, exist_ok=True)
    outputs = {}
    for split, rows in bags.items() if args.bags else ():
        path = args.out / f"bags_{split}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        outputs[path.name] = {"rows": len(rows), "sha256": sha256(path)}
    for split, rows in out.items():
        rng.shuffle(rows)
        path = args.out / f"{split}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        outputs[path.name] = {"rows": len(rows), "sha256": sha256(path)}
    manifest = {"stage": 3, "inputs": inputs, "outputs": outputs, "evidence": "assembled",
                "counts": {"|".join(k): v for k, v in sorted(stats.items())}}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    print(json.dumps(outputs, indent=2))


if __name__ == "__main__":
    main()
