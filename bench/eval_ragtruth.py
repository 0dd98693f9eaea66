"""RAGTruth benchmark: what users see at the default settings, per task type (issue 37).

Checks the responses of one part of ``../shared/data/faithfulness/ragtruth_dev.jsonl`` (development by
default; the split by source is faithlint/train/ragtruth.py) with the shipped checker through the library
(``faithlint.api.check``, default ``Config()``, text + context + query; a JSON context is verbalised exactly
as ``faithlint check --pairs`` does it) and reports per task type (QA, summary, data-to-text) and overall:

- response precision / recall / F1: a response is flagged when it has any error or warning finding (info
  findings do not count), positive when its label is "hallucinated";
- flagged-sentence precision / recall over faithlint's own sentence units: a sentence is flagged when an
  error/warning finding overlaps it, positive when a labelled span overlaps it;
- the share of faithful responses with any error/warning finding (false alarms);
- span precision / recall / F1 at character level, micro over all characters of the part (predicted: the union
  of error/warning finding ranges; gold: the union of labelled spans);
- sentence AUROC of 1 - the sentence's faithfulness score;
- milliseconds per response (models loaded once; the load is reported apart, and included in a second figure);
- a boilerplate diagnostic: how often sentences that look like LLM boilerplate ("Based on the provided
  passages", "Sure, ...", "I hope this helps") without a labelled span are flagged.

Writes bench/results/ragtruth_NAME.json (metrics, sizes, per-response findings, the command and timings) and
bench/results/ragtruth_NAME_sentences.jsonl (one line per sentence, for studying false alarms without a
re-run; ``--reuse`` recomputes the metrics from these two files). A part other than dev adds ``_PART`` to NAME.

    python bench/eval_ragtruth.py --name stage7
    python bench/eval_ragtruth.py --name stage7 --part calib
    python bench/eval_ragtruth.py --name try --task summary --limit 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Iterable, Sequence

from common import RESULTS, ROOT, data_dir, git_revision, read_jsonl, save, table

from faithlint.train import ragtruth
from faithlint.types import LABELS

Range = tuple[int, int]
FLAGGING = ("error", "warning")
TASK_NAMES = {"qa": "QA", "summary": "summary", "data-to-text": "data-to-text", "all": "all"}
BOILERPLATE = [re.compile(p, re.I) for p in (  # sentences LLMs add around the content (a diagnostic only)
    r"^\W*(sure|certainly|of course|absolutely|okay|great)\b",
    r"^\W*(hello|hi|hey|greetings|dear)\b",
    r"\bbased (solely |only )?on the (provided|given|above|following)\b",
    r"\baccording to the (provided|given) (passages?|information|data|context|text|article|news)\b",
    r"\b(here is|here's|below is)\b.{0,80}\b(summary|overview|answer|response|description)\b",
    r"\bin (about |approximately |under |less than )?\d+ words\b",
    r"\bi hope (this|that) (helps|answers|is helpful)\b",
    r"\b(let me know|feel free to)\b",
    r"\b(the )?(provided |given )?(passages?|context|information|data) (does|do) not (provide|mention|contain|"
    r"include|specify|say)\b",
    r"\bi (cannot|can't|am unable to|was unable to)\b",
    r"^\W*(in (conclusion|summary)|overall|to summari[sz]e)\b\W*$",
)]


# ---------------------------------------------------------------------------------------------- metrics
def overlaps(a: Range, b: Range) -> bool:
    """Character overlap of half-open ranges; an empty range overlaps a range it lies inside."""
    if a[0] == a[1]:
        return b[0] <= a[0] < b[1]
    if b[0] == b[1]:
        return a[0] <= b[0] < a[1]
    return max(a[0], b[0]) < min(a[1], b[1])


def chars(ranges: Iterable[Range]) -> set[int]:
    """The characters covered by the union of ``ranges``."""
    return {c for a, b in ranges for c in range(a, b)}


def prf(tp: int, predicted: int, positive: int) -> dict[str, float]:
    """Precision, recall and F1 from counts (0 where undefined)."""
    p = tp / predicted if predicted else 0.0
    r = tp / positive if positive else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def span_scores(pairs: Iterable[tuple[Sequence[Range], Sequence[Range]]]) -> dict[str, float]:
    """Character-level P/R/F1 micro-averaged over all (predicted ranges, gold ranges) pairs of a part."""
    tp = npred = ngold = 0
    for pred, gold in pairs:
        p, g = chars(pred), chars(gold)
        tp, npred, ngold = tp + len(p & g), npred + len(p), ngold + len(g)
    return {**prf(tp, npred, ngold), "predicted_chars": npred, "gold_chars": ngold}


def sentence_labels(sentences: Sequence[Range], findings: Sequence[Range], spans: Sequence[Range]
                    ) -> list[tuple[bool, bool]]:
    """(flagged, positive) of each sentence: an error/warning finding / a labelled span overlaps it."""
    return [(any(overlaps(s, f) for f in findings), any(overlaps(s, g) for g in spans)) for s in sentences]


def auroc(y: Sequence[bool], score: Sequence[float]) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, score)) if len(set(y)) == 2 else None


def is_boilerplate(text: str) -> bool:
    return any(p.search(text.strip()) for p in BOILERPLATE)


def metrics(responses: list[dict], sentences: list[dict]) -> dict:
    """The benchmark's figures for a set of response records and their sentence records (see :func:`run`)."""
    y = [r["hallucinated"] for r in responses]
    pred = [bool(r["findings"]) for r in responses]
    resp = prf(sum(a and b for a, b in zip(y, pred)), sum(pred), sum(y))
    faithful = [p for a, p in zip(y, pred) if not a]
    sent = prf(sum(s["flagged"] and s["positive"] for s in sentences), sum(s["flagged"] for s in sentences),
               sum(s["positive"] for s in sentences))
    spans = span_scores(([(f[2], f[3]) for f in r["findings"]], r["spans"]) for r in responses)
    boiler = [s for s in sentences if s["boilerplate"]]
    boiler_neg = [s for s in boiler if not s["positive"]]
    false_alarms = [s for s in sentences if s["flagged"] and not s["positive"]]
    ms = [r["ms"] for r in responses]
    return {
        "responses": len(responses), "hallucinated": sum(y), "sources": len({r["source_id"] for r in responses}),
        "response": resp, "flag_all_f1": prf(sum(y), len(y), sum(y))["f1"],
        "sentences": len(sentences), "positive_sentences": sum(s["positive"] for s in sentences),
        "flagged_sentences": sum(s["flagged"] for s in sentences), "sentence": sent,
        "faithful_with_false_alarm": sum(faithful) / len(faithful) if faithful else None,
        "faithful_responses": len(faithful),
        "span": spans,
        "sentence_auroc": auroc([s["positive"] for s in sentences], [1 - s["score"] for s in sentences]),
        "gold_spans_outside_sentences": sum(r["gold_outside"] for r in responses),
        "findings_outside_sentences": sum(r["findings_outside"] for r in responses),
        "ms_per_response": sum(ms) / len(ms) if ms else None,
        "boilerplate": {"sentences": len(boiler), "without_span": len(boiler_neg),
                        "without_span_flagged": sum(s["flagged"] for s in boiler_neg),
                        "without_span_flagged_share": (sum(s["flagged"] for s in boiler_neg) / len(boiler_neg)
                                                       if boiler_neg else None),
                        "share_of_false_alarm_sentences": (sum(s["boilerplate"] for s in false_alarms)
                                                           / len(false_alarms) if false_alarms else None)},
    }


def summarise(responses: list[dict], sentences: list[dict]) -> dict[str, dict]:
    out = {}
    for task in (*ragtruth.TASKS, "all"):
        rs = [r for r in responses if task == "all" or r["task"] == task]
        if rs:
            ids = {r["id"] for r in rs}
            out[task] = metrics(rs, [s for s in sentences if s["id"] in ids])
    return out


# ---------------------------------------------------------------------------------------------- the run
def parse_settings(ap: argparse.ArgumentParser, text: str | None) -> dict | None:
    """``--settings``: a JSON object of settings, checked as faithlint.toml's are (a bad one is a usage error)."""
    if text is None:
        return None
    from faithlint import api
    from faithlint.errors import ConfigError

    try:
        settings = json.loads(text)
        if not isinstance(settings, dict):
            raise ValueError("not a JSON object")
        api.as_config(settings)
    except (ValueError, ConfigError) as exc:
        ap.error(f"--settings: {str(exc).splitlines()[0]}")
    return settings


def run(rows: list[dict], settings: dict | None = None) -> tuple[list[dict], list[dict], dict]:
    """Check every row at the default settings, or ``settings`` over them: (response records, sentence records,
    timings)."""
    from faithlint import api
    from faithlint.inputs.structured import context_from_string

    linter = api.linter_for(settings or None)
    t0 = time.perf_counter()
    linter.load()
    load_s = time.perf_counter() - t0
    responses, sentences = [], []
    for i, r in enumerate(rows):
        ctx = context_from_string(f"{r['id']}#context[0]", r["context"])  # as `check --pairs` reads a line
        t = time.perf_counter()
        res = api.check(r["text"], ctx, query=r.get("query"), id=r["id"], markdown=False, linter=linter)
        ms = (time.perf_counter() - t) * 1000
        found = [(f.code, f.severity, f.start, f.end) for f in res.findings if f.severity in FLAGGING]
        spans = [(s["start"], s["end"]) for s in r["spans"]]
        units = [(s.start, s.end) for s in res.sentences]
        for s, (flagged, positive) in zip(res.sentences, sentence_labels(units, [f[2:] for f in found], spans)):
            hit = [f for f in found if overlaps((s.start, s.end), f[2:])]
            sentences.append({"id": r["id"], "task": r["task"], "label": r["label"], "start": s.start, "end": s.end,
                              "text": s.text, "flagged": flagged, "codes": sorted({f[0] for f in hit}),
                              "severity": "error" if any(f[1] == "error" for f in hit) else
                              "warning" if hit else None, "score": round(s.score, 5), "positive": positive,
                              "boilerplate": is_boilerplate(s.text),
                              # what the grounding stage read (training/fit_point_ragtruth.py --refit refits it)
                              "checker": [round(s.grounding.checker[k], 5) for k in LABELS] if s.grounding else None,
                              "features": dict(s.grounding.features) if s.grounding else None})
        responses.append({"id": r["id"], "source_id": r["source_id"], "task": r["task"], "model": r["model"],
                          "hallucinated": r["label"] == "hallucinated", "spans": spans, "findings": found,
                          "ms": round(ms, 2), "sentences": len(units),
                          "gold_outside": sum(not any(overlaps(u, g) for u in units) for g in spans),
                          "findings_outside": sum(not any(overlaps(u, f[2:]) for u in units) for f in found)})
        if (i + 1) % 25 == 0:
            print(f"{i + 1}/{len(rows)} responses", file=sys.stderr, flush=True)
    check_s = sum(r["ms"] for r in responses) / 1000
    return responses, sentences, {"model_load_s": load_s, "check_s": check_s,
                                  "ms_per_response_with_load": (load_s + check_s) * 1000 / max(len(rows), 1)}


# ---------------------------------------------------------------------------------------------- report
def sizes_table(sizes: dict) -> str:
    body = [[part, TASK_NAMES[t], v["sources"], v["responses"], v["hallucinated"]]
            for part, per in sizes.items() for t, v in per.items()]
    return table(["part", "task", "sources", "responses", "hallucinated"], body)


def metrics_table(per_task: dict[str, dict]) -> str:
    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{100 * v:.1f}"

    body = [[TASK_NAMES[t], f"{m['responses']} ({m['hallucinated']})", pct(m["response"]["precision"]),
             pct(m["response"]["recall"]), pct(m["response"]["f1"]), pct(m["flag_all_f1"]),
             f"{m['sentences']} ({m['positive_sentences']})", pct(m["sentence"]["precision"]),
             pct(m["sentence"]["recall"]), pct(m["faithful_with_false_alarm"]), pct(m["span"]["precision"]),
             pct(m["span"]["recall"]), pct(m["span"]["f1"]),
             "n/a" if m["sentence_auroc"] is None else f"{m['sentence_auroc']:.3f}",
             f"{m['ms_per_response']:.0f}"] for t, m in per_task.items()]
    return table(["task", "responses (halluc.)", "resp. P", "resp. R", "resp. F1", "flag-all F1",
                  "sentences (pos.)", "flagged-sent. P", "sent. R", "faithful w/ false alarm", "span P", "span R",
                  "span F1 (micro)", "sent. AUROC", "ms/resp."], body)


def boilerplate_table(per_task: dict[str, dict]) -> str:
    body = [[TASK_NAMES[t], m["sentences"], m["boilerplate"]["sentences"], m["boilerplate"]["without_span"],
             m["boilerplate"]["without_span_flagged"],
             "n/a" if m["boilerplate"]["without_span_flagged_share"] is None
             else f"{100 * m['boilerplate']['without_span_flagged_share']:.1f} %",
             "n/a" if m["boilerplate"]["share_of_false_alarm_sentences"] is None
             else f"{100 * m['boilerplate']['share_of_false_alarm_sentences']:.1f} %"] for t, m in per_task.items()]
    return table(["task", "sentences", "boilerplate", "of them without span", "flagged",
                  "flagged share", "share of all false-alarm sentences"], body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="the data folder (default ../shared/data)")
    ap.add_argument("--name", required=True, help="name of this run (result file names)")
    ap.add_argument("--part", choices=list(ragtruth.PARTS), default="dev",
                    help="which part of the split to check (numbers are reported only on dev)")
    ap.add_argument("--task", choices=list(ragtruth.TASKS), help="only this task type")
    ap.add_argument("--limit", type=int, default=0, help="only the first N responses of the part (0: all)")
    ap.add_argument("--reuse", action="store_true", help="recompute the metrics from this name's result files")
    ap.add_argument("--note", help="a note kept in the result file (e.g. the machine and its load)")
    ap.add_argument("--settings", metavar="JSON", help="settings over the defaults, as faithlint.toml's keys in a JSON "
                    "object (e.g. '{\"check_boilerplate\": true}'): what a change measures against")
    args = ap.parse_args()
    settings = parse_settings(ap, args.settings)
    stem = f"ragtruth_{args.name}" + ("" if args.part == "dev" else f"_{args.part}")
    dump = RESULTS / f"{stem}_sentences.jsonl"
    if args.limit < 0:
        ap.error("--limit must be 0 (all) or more")
    if args.reuse:
        if not (RESULTS / f"{stem}.json").is_file() or not dump.is_file():
            sys.exit(f"error: --reuse needs {RESULTS / stem}.json and {dump.name}: run without --reuse first")
        record = json.loads((RESULTS / f"{stem}.json").read_text())
        responses, sentences = record["responses"], read_jsonl(dump)
    else:
        rows = ragtruth.read_rows(data_dir(args.data))  # exits 0 with a message when the data folder is absent
        if rows is None:
            print(f"skipped: {ragtruth.FILE} not found in the data folder", file=sys.stderr)
            raise SystemExit(0)
        sizes = ragtruth.sizes(rows)
        print(sizes_table(sizes) + "\n", flush=True)
        chosen = [r for r in ragtruth.split(rows)[args.part] if args.task in (None, r["task"])]
        chosen = chosen[:args.limit] if args.limit else chosen
        t0 = time.perf_counter()
        responses, sentences, timing = run(chosen, settings)
        record = {"name": args.name, "part": args.part, "task": args.task, "limit": args.limit,
                  "command": "python " + shlex.join(sys.argv), "revision": git_revision(ROOT),
                  "settings": ("default Config()" + (f" with {json.dumps(settings)}" if settings else "")
                               + " via faithlint.api.check (markdown=False, as check --pairs)"),
                  "split": {"proportions": ragtruth.PARTS, "by": "source_id, stratified per task", "sizes": sizes},
                  "cpus": os.cpu_count(), **timing, "wall_s": time.perf_counter() - t0, "responses": responses}
        dump.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sentences), encoding="utf-8")
    per_task = summarise(responses, sentences)
    record["metrics"] = per_task
    if args.note:
        record["note"] = args.note
    save(f"{stem}.json", {k: v for k, v in record.items() if k != "responses"} | {"responses": responses})
    print(metrics_table(per_task))
    print("\nboilerplate sentences (diagnostic):\n" + boilerplate_table(per_task))
    print(f"\nmodel load {record['model_load_s']:.1f} s; {per_task['all']['ms_per_response']:.0f} ms per response "
          f"({record['ms_per_response_with_load']:.0f} ms with the load); results in {RESULTS / stem}.json")


if __name__ == "__main__":
    main()
