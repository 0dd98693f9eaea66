"""Overviews written from JSON business records: what a user checking data-to-text output sees.

``bench/data/business_records.jsonl`` holds six Yelp-style business records (the shape of the
held-out benchmark's data-to-text task: address, categories, stars, Python-literal attribute strings,
``"11:0-22:0"`` hours, reviews), each with one faithful overview written the way LLMs write them
(paraphrased, facts fused across fields) and one with two planted errors whose spans are labelled.
Six more overviews are written from three CSV tables (``"format": "csv"``: hotels with a ``price_usd`` column,
a menu priced in euros, shops with yes/no columns), with statements about the table as a whole (how many rows,
the cheapest, "every hotel includes breakfast") and planted errors among them.
The set was written by the project, not by a model under test, and is small: read it as a check of
how structured context is read, not as an estimate of precision on real outputs.

Each overview is checked with the default settings against its record as a ``.json`` (or ``.csv``) context file,
and the script prints:

- error/warning findings on the sentences of the faithful overviews (each one is a false alarm);
- planted errors caught (an error/warning finding overlaps the planted span);
- response precision/recall (flagged = any error or warning) and character span F1.

    python bench/eval_records.py [--out records.json] [--show]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from common import ROOT, read_jsonl, save

from faithlint.api import check, linter_for
from faithlint.types import DraftResult

DATA = ROOT / "bench" / "data" / "business_records.jsonl"
FLAGS = ("error", "warning")


def flagged(result: DraftResult) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.code) for f in result.findings if f.severity in FLAGS]


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def measure(results: list[tuple[dict, DraftResult, list[tuple[int, int, str]]]]) -> dict[str, object]:
    """The figures of the module docstring over ``results`` (row, result, error/warning findings)."""
    false_alarms = faithful_sentences = caught = planted = 0
    tp_chars = fp_chars = fn_chars = 0
    responses = []
    for r, res, found in results:
        hallucinated = r["label"] != "faithful"
        responses.append((hallucinated, bool(found)))
        if not hallucinated:
            faithful_sentences += len(res.sentences)
            false_alarms += len(found)
        for s in r["spans"]:
            planted += 1
            caught += any(overlaps((a, b), (s["start"], s["end"])) for a, b, _ in found)
        gold = {c for s in r["spans"] for c in range(s["start"], s["end"])}
        got = {c for a, b, _ in found for c in range(a, b)}
        tp_chars += len(gold & got)
        fp_chars += len(got - gold)
        fn_chars += len(gold - got)
    tp = sum(h and f for h, f in responses)
    precision = tp / max(sum(f for _, f in responses), 1)
    recall = tp / max(sum(h for h, _ in responses), 1)
    sp = tp_chars / max(tp_chars + fp_chars, 1)
    sr = tp_chars / max(tp_chars + fn_chars, 1)
    return {
        "overviews": len(results), "faithful_sentences": faithful_sentences,
        "false_alarms": false_alarms, "false_alarms_per_faithful_sentence": false_alarms / max(faithful_sentences, 1),
        "faithful_overviews_flagged": sum(f for h, f in responses if not h),
        "planted_errors": planted, "planted_caught": caught,
        "response_precision": precision, "response_recall": recall,
        "span_f1": 2 * sp * sr / (sp + sr) if sp + sr else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="records.json", help="result file in bench/results")
    ap.add_argument("--show", action="store_true", help="print every finding")
    args = ap.parse_args()

    rows = read_jsonl(DATA)
    linter = linter_for(None)
    tmp = Path(tempfile.mkdtemp(prefix="faithlint-records-"))
    results = []
    for r in rows:
        ctx = tmp / f"{r['id'].split('-')[0]}.{r.get('format', 'json')}"
        ctx.write_text(r["context"], encoding="utf-8")
        res = check(r["text"], [ctx], markdown=False, linter=linter)
        results.append((r, res, flagged(res)))
        if args.show:
            print(f"\n{r['id']} ({r['label']}): {len(flagged(res))} error/warning findings")
            for f in res.findings:
                print(f"  {f.code} {f.severity:7s} {r['text'][f.start:f.end]!r}: {f.message}")
    out = measure(results)
    for fmt in ("json", "csv"):
        out[fmt] = measure([x for x in results if x[0].get("format", "json") == fmt])
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=2))
    save(args.out, out)


if __name__ == "__main__":
    main()
