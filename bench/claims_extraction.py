"""Triplet extraction benchmark: each claim extractor against the hand-checked gold set (issue 13).

The gold set, ``tests/data/claims_gold.jsonl``, is 100 sentences written for this benchmark (not taken from a
data set), grouped into short drafts so that pronouns have their antecedents. Each line gives the atomic facts the
sentence states, as (subject, predicate, object) with subject and object copied from the sentence. Its conventions:

* predicate: the sentence's words for the relation, verb group with auxiliaries and negation ("did not announce"),
  plus the preposition for a prepositional argument ("landed in"); passive keeps the surface order
  ("was dictated to"); a copula is written as it stands ("is", "was");
* apposition: predicate ``""`` (the sentence has no word for it), e.g. (Porto, "", Portugal's second-largest city);
* each object, prepositional argument and coordinated conjunct is a triplet of its own
  ("rose 4.5 percent to 31.20 euros" -> (shares, rose, 4.5 percent), (shares, rose to, 31.20 euros));
* a noun's own modifiers stay in its phrase ("support for Python 3.13", "Companies that break its rules"): an
  object cut short of its information is a miss;
* relative and participial clauses state facts about the noun they modify ("which passed by a vote of 7 to 2");
  a restrictive clause only narrows its noun and stays in the phrase;
* reported speech is attributed, not asserted: (Mayor Karen Bell, said, the changes would take effect in July);
  an "according to X" phrase makes no triplet of its own; clauses of condition ("If the file does not exist") and
  questions assert nothing;
* a pronoun subject is written as it stands, with ``subject_resolved`` naming its antecedent.

Scoring, per sentence: a predicted triplet matches a gold one when subject and object each match and the predicate
matches or both predicates are copula-like (empty or forms of "be"). Two strings match when the token F1 of their
lowercased words, ignoring "the/a/an" and edge punctuation, is at least 0.5; a pronoun subject also matches its
antecedent. A predicate with a negation ("not", "never", "no", "n't") never matches one without. Pairs are matched
one to one, greedily by the summed F1 of the three parts. Precision = matched predicted / predicted, recall =
matched gold / gold; figures per construction and per domain use the sentences tagged with it. Cost: wall time of
``extract_sentences`` over all drafts (a draft's sentences in order, one call per draft) per sentence, and the
model load separately.

    python bench/claims_extraction.py                        # spaCy and, when it loads, the bundled SmolLM2
    python bench/claims_extraction.py --extractors spacy
    python bench/claims_extraction.py --extractors llm --endpoint http://localhost:8000/v1 --endpoint-model NAME
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from common import ROOT, git_revision, read_jsonl, save, table

GOLD = ROOT / "tests" / "data" / "claims_gold.jsonl"
THRESHOLD = 0.5
_DETERMINERS = {"the", "a", "an"}
_COPULA = {"is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re"}
_NEGATION = {"not", "never", "no", "cannot"}
_EDGE = re.compile(r"^[^\w$£€%#]+|[^\w$£€%#]+$")

Triple = tuple[str, str, str]


# ---------------------------------------------------------------------------------------------------- matching
def tokens(text: str) -> list[str]:
    """Lowercased words without determiners; edge punctuation off so "a.m." ~ "a.m" and "--fast" ~ "fast"."""
    out = []
    for raw in text.lower().split():
        word = _EDGE.sub("", raw)
        if word and word not in _DETERMINERS:
            out.append(word)
    return out


def token_f1(a: str, b: str) -> float:
    """Bag-of-words F1: lenient on span boundaries, strict on content (a number or name missing costs recall)."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0
    common = sum(min(ta.count(w), tb.count(w)) for w in set(ta))
    if not common:
        return 0.0
    p, r = common / len(ta), common / len(tb)
    return 2 * p * r / (p + r)


def _negated(pred: str) -> bool:
    return any(w in _NEGATION or w.endswith("n't") for w in tokens(pred))


def _copula_like(pred: str) -> bool:
    return all(w in _COPULA for w in tokens(pred))


def pair_score(pred: Triple, gold: dict) -> float | None:
    """Summed F1 of the three parts when the predicted triplet matches the gold one, else None."""
    subjects = [gold["subject"]] + ([gold["subject_resolved"]] if gold.get("subject_resolved") else [])
    s = max(token_f1(pred[0], g) for g in subjects)
    o = token_f1(pred[2], gold["object"])
    if s < THRESHOLD or o < THRESHOLD or _negated(pred[1]) != _negated(gold["predicate"]):
        return None
    p = 1.0 if _copula_like(pred[1]) and _copula_like(gold["predicate"]) else token_f1(pred[1], gold["predicate"])
    return None if p < THRESHOLD else s + p + o


def match(predicted: Sequence[Triple], gold: Sequence[dict]) -> list[tuple[int, int]]:
    """One-to-one (predicted index, gold index) pairs, best-scoring first."""
    pairs = []
    for i, p in enumerate(predicted):
        for j, g in enumerate(gold):
            score = pair_score(p, g)
            if score is not None:
                pairs.append((score, i, j))
    used_p: set[int] = set()
    used_g: set[int] = set()
    out = []
    for _, i, j in sorted(pairs, key=lambda x: (-x[0], x[1], x[2])):
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            out.append((i, j))
    return out


def _prf(n_pred: int, n_gold: int, matched: int) -> dict:
    p = matched / n_pred if n_pred else 0.0
    r = matched / n_gold if n_gold else 0.0
    return {"predicted": n_pred, "gold": n_gold, "matched": matched, "precision": p, "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0}


def score(rows: Sequence[dict], predictions: Sequence[Sequence[Triple]]) -> dict:
    """Precision/recall/F1 over the gold rows, per construction and domain, and the misses and false positives."""
    per_row = []
    misses, false_positives = [], []
    for row, pred in zip(rows, predictions, strict=True):
        pairs = match(pred, row["triplets"])
        per_row.append((len(pred), len(row["triplets"]), len(pairs)))
        where = f"{row['draft']}/{row['index']}"
        got_p, got_g = {i for i, _ in pairs}, {j for _, j in pairs}
        misses += [{"sentence": where, **g} for j, g in enumerate(row["triplets"]) if j not in got_g]
        false_positives += [{"sentence": where, "subject": p[0], "predicate": p[1], "object": p[2]}
                            for i, p in enumerate(pred) if i not in got_p]

    def total(idx: Sequence[int]) -> dict:
        return _prf(*(sum(per_row[i][k] for i in idx) for k in range(3)))

    groups: dict[str, dict[str, list[int]]] = {"construction": {}, "domain": {}}
    for i, row in enumerate(rows):
        for tag in row.get("constructions", []):
            groups["construction"].setdefault(tag, []).append(i)
        groups["domain"].setdefault(row["domain"], []).append(i)
    return {
        "all": total(range(len(rows))),
        "by_construction": {k: total(v) for k, v in sorted(groups["construction"].items())},
        "by_domain": {k: total(v) for k, v in sorted(groups["domain"].items())},
        "misses": misses,
        "false_positives": false_positives,
    }


# ---------------------------------------------------------------------------------------------------- running
def load_gold(path: Path = GOLD) -> list[dict]:
    return read_jsonl(path)


def drafts(rows: Sequence[dict]) -> list[list[int]]:
    """Row indices of each draft, its sentences in order: an extractor reads a draft as a whole."""
    by: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by.setdefault(row["draft"], []).append(i)
    return [sorted(ids, key=lambda i: rows[i]["index"]) for ids in by.values()]


def run(extractor: Any, rows: Sequence[dict]) -> tuple[list[list[Triple]], float, list[str]]:
    """(predicted strings per row, seconds spent in extract_sentences, the extractor's notes)."""
    out: list[list[Triple]] = [[] for _ in rows]
    notes: list[str] = []
    elapsed = 0.0
    for ids in drafts(rows):
        sentences = [rows[i]["sentence"] for i in ids]
        t0 = time.perf_counter()
        ext = extractor.extract_sentences(sentences)
        elapsed += time.perf_counter() - t0
        notes += ext.notes
        for i, sentence, triplets in zip(ids, sentences, ext.triplets, strict=True):
            out[i] = [tuple(sentence[s.start : s.end] for s in (t.subject, t.predicate, t.object))  # type: ignore[misc]
                      for t in triplets]
    return out, elapsed, notes


def spacy_extractor() -> tuple[Any, Callable[[], object]]:
    from faithlint.claims.triplets import SpacyTripletExtractor

    ext = SpacyTripletExtractor()
    return ext, lambda: ext.nlp


def llm(args: argparse.Namespace) -> tuple[Any, Callable[[], object]]:
    from faithlint.claims.llm import llm_extractor

    ext = llm_extractor(args.model, args.device, args.endpoint, args.endpoint_model, args.api_key_env)
    load = getattr(ext.generator, "_load", None)  # the local model loads lazily; an endpoint has nothing to load
    return ext, load if callable(load) else (lambda: None)


def evaluate(name: str, factory: Callable[[], tuple[Any, Callable[[], object]]], rows: Sequence[dict]) -> dict:
    t0 = time.perf_counter()
    ext, load = factory()
    load()
    load_s = time.perf_counter() - t0
    predictions, elapsed, notes = run(ext, rows)
    result = score(rows, predictions)
    result.update({"extractor": name, "load_s": load_s, "extract_s": elapsed,
                   "ms_per_sentence": 1000 * elapsed / len(rows), "notes": notes})
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=Path, default=GOLD)
    ap.add_argument("--extractors", default="spacy,llm", help="comma-separated: spacy, llm")
    ap.add_argument("--model", help="local Hugging Face model for the llm extractor (default: bundled SmolLM2)")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--endpoint", help="OpenAI-compatible server URL for the llm extractor")
    ap.add_argument("--endpoint-model", help="model name on --endpoint")
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY")
    ap.add_argument("--out", default="claims_extraction.json", help="file name under bench/results")
    args = ap.parse_args()
    rows = load_gold(args.gold)
    factories: dict[str, Callable[[], tuple[Any, Callable[[], object]]]] = {
        "spacy": spacy_extractor, "llm": lambda: llm(args)}
    results = []
    for name in [n.strip() for n in args.extractors.split(",") if n.strip()]:
        if name not in factories:
            print(f"skipped {name}: unknown extractor (spacy, llm)", file=sys.stderr)
            continue
        label = name
        if name == "llm":
            label = f"llm ({args.endpoint_model or args.model or 'endpoint'})" if args.endpoint else \
                f"llm ({args.model or 'smollm2-135m-instruct'})"
        try:
            results.append(evaluate(label, factories[name], rows))
        except Exception as exc:  # a missing or broken extractor must not cost the other rows
            print(f"skipped {label}: {type(exc).__name__}: {exc}", file=sys.stderr)
    out = {
        "gold": str(args.gold.relative_to(ROOT) if args.gold.is_relative_to(ROOT) else args.gold),
        "sentences": len(rows),
        "gold_triplets": sum(len(r["triplets"]) for r in rows),
        "rule": f"token F1 >= {THRESHOLD} on subject, object and predicate (or both copula-like), "
                "negation must agree, one-to-one greedy",
        "command": " ".join(["python", *sys.argv]),
        "commit": git_revision(ROOT, short=False, mark_dirty=True),
        "extractors": results,
    }
    path = save(args.out, out)
    body = [[r["extractor"], r["all"]["predicted"], r["all"]["precision"], r["all"]["recall"], r["all"]["f1"],
             f"{r['ms_per_sentence']:.1f}", f"{r['load_s']:.1f}"] for r in results]
    print(table(["extractor", "triplets", "precision", "recall", "F1", "ms/sentence", "load s"], body))
    for r in results:
        print(f"\n{r['extractor']}, recall by construction (gold triplets):")
        print(", ".join(f"{k} {v['recall']:.2f} ({v['gold']})" for k, v in r["by_construction"].items()
                        if k != "no_claim"))
        if "no_claim" in r["by_construction"]:
            print(f"sentences with no claim: {r['by_construction']['no_claim']['predicted']} triplets predicted")
        if r["notes"]:
            print(f"{r['extractor']}: {len(r['notes'])} notes (dropped outputs), first: {r['notes'][0]}")
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
