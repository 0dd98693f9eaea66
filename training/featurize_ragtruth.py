"""Featurize RAGTruth responses for a learned grounding detector (issue 37): one record per judged sentence.

Every response of one part of the RAGTruth split (faithlint/train/ragtruth.py) goes through the real pipeline
at the default settings (the bundled checker, assembled evidence, grounding). For each sentence the record
keeps what a detector may read at run time — the checker's probabilities before and after grounding, the
grounding features, whether a query was given and whether the context is a structured record — and, for the
sentence's (premise, hypothesis) pair, the checker graph's token states of each hypothesis token with lexical
token features (is the token's word a content word, absent from the whole context, absent from the premise,
a number absent from the context). Labels: the sentence overlaps a labelled span; each token overlaps one.

    python training/featurize_ragtruth.py --part train --out /tmp/feat/train.pkl [--limit N]
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.evidence.pieces import STOPWORDS, number_term, terms  # noqa: E402

_WORD = re.compile(r"\w+(?:[.,]\d+)*")


class _Recorder:
    """Stands in for the span head during a second run of one pair: keeps the token states, marks nothing."""

    def __init__(self) -> None:
        self.states: list[tuple[np.ndarray, np.ndarray]] = []

    def token_probs(self, states: np.ndarray, cls_state: np.ndarray, entailment: float,
                    contradiction: float) -> np.ndarray:
        self.states.append((states.astype(np.float16), cls_state.astype(np.float16)))
        return np.zeros(len(states), dtype=np.float32)

    def marks(self, text: str, offsets: list, probs: np.ndarray) -> list:
        return []


def lexical(hyp: str, offsets: list[tuple[int, int]], premise: frozenset[str], context: frozenset[str]) -> np.ndarray:
    """Per token: [content word, absent from the context, absent from the premise, number, number absent]."""
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(hyp)]
    out = np.zeros((len(offsets), 5), dtype=np.float32)
    for t, (a, b) in enumerate(offsets):
        w = next((x for x in words if x[0] <= a < x[1] or (a <= x[0] < b)), None)
        if w is None:
            continue
        text = w[2]
        if text[0].isdigit():
            term = number_term(text)
            out[t, 3] = 1.0
            out[t, 4] = float(f"#{term}" not in context and term not in context)
            continue
        low = text.lower()
        if low in STOPWORDS:
            continue
        out[t, 0] = 1.0
        out[t, 1] = float(low not in context)
        out[t, 2] = float(low not in premise)
    return out


def featurize(linter, row: dict) -> list[dict]:
    from faithlint.evidence.grounding import context_terms
    from faithlint.inputs.structured import context_from_string

    ctx = [context_from_string(f"{row['id']}#context[0]", row["context"])]
    query = row.get("query")
    res = linter.check(row["text"], ctx, query=query, markdown=False)
    gold = [(s["start"], s["end"]) for s in row["spans"]]
    whole = context_terms([d.text for d in ctx])
    out = []
    n = len(res.sentences)
    for k, s in enumerate(res.sentences):
        flagged = [f.code for f in res.findings if f.severity in ("error", "warning") and f.start < s.end
                   and s.start < f.end]
        g = s.grounding
        item = {"id": row["id"], "task": row["task"], "start": s.start, "end": s.end, "text": s.text,
                "y": any(a < s.end and s.start < b for a, b in gold),
                "p": [s.probs[x] for x in ("entailment", "neutral", "contradiction")],
                "checker": [g.checker[x] for x in ("entailment", "neutral", "contradiction")] if g else None,
                "grounding": dict(g.features) if g else None, "codes": flagged,
                "query": bool(query), "structured": any(d.offsets is not None for d in ctx),
                "position": k / max(n - 1, 1), "sentences": n}
        copied, sel, hyp = linter.evidence([s.text], ctx, query)
        delta = hyp[0].find(s.text)
        if copied[0] is None and len(sel[0].premises) == 1 and delta >= 0:
            rec = _Recorder()
            linter.checker._run_pairs(sel[0].premises, hyp, rec)
            offsets = linter.checker.token_offsets(hyp[0])
            if rec.states and len(rec.states[0][0]) == len(offsets):
                chars = [(s.start + a - delta, s.start + b - delta) for a, b in offsets]
                item.update(states=rec.states[0][0], cls=rec.states[0][1], offsets=offsets, hyp=hyp[0],
                            delta=delta, lex=lexical(hyp[0], offsets, terms(sel[0].premises[0]), whole),
                            ty=np.array([any(a < gb and ga < b for ga, gb in gold) for a, b in chars]))
        out.append(item)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["train", "calib", "dev"], required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()

    from faithlint.train.ragtruth import rows_and_linter

    loaded = rows_and_linter(args.part, args.limit)
    if loaded is None:
        return
    rows, linter = loaded
    t0 = time.time()
    records = []
    for i, row in enumerate(rows):
        records.append({"row": {k: row[k] for k in ("id", "task", "label", "spans", "source_id")},
                        "sentences": featurize(linter, row)})
        if (i + 1) % 25 == 0:
            print(f"{i + 1}/{len(rows)} ({time.time() - t0:.0f} s)", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("wb") as f:
        pickle.dump(records, f, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"wrote {args.out}: {len(records)} responses, {sum(len(r['sentences']) for r in records)} sentences "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
