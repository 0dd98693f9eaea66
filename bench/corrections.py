"""Corrections benchmark: how well each corrector repairs the sentences the default linter flags in hallucinated
model outputs (in the spirit of SynCheck's Table 2 and the RAC paper).

Data: the ``*_dev`` real-output files only (never training or test files), hallucinated rows only (the row's label
says the output is not supported), a fixed deterministic sample spread over the task types (QA, summaries,
dialogue, data-to-text: ``--limit`` responses in all, split evenly over the task types and then over each type's
files). Every sentence the default linter (``Config()``, unit "sentence") flags with FL100/FL110/FL200/FL210/FL400
is one *action*; each method is asked to correct it on its own (``correct(..., within=the sentence)``).

Methods (one table row each):

- ``rac``: :class:`~faithlint.fixes.correctors.rac.RACCorrector` as configured by default (deterministic value swaps; no
  LLM rewrite, since no ``llm_model``/``llm_endpoint`` is set);
- ``rac+llm``: the same with the default local LLM (``HFGenerator()``: SmolLM2-135M-Instruct) for its rewrites;
- ``fod``: :class:`~faithlint.fixes.correctors.fod.FODCorrector` (skipped, with the reason printed, when absent);
- ``delete``: delete the flagged sentence (:func:`faithlint.rules.sentence_fixes.sentence_deletion`);
- ``evidence``: replace the sentence with its best evidence sentence (the evidence sentence closest in wording,
  as the editor's "Replace the sentence with the evidence" fix quotes it), declined when it has no evidence.
- ``none`` (reference): no correction; what the judge says of the flagged sentences as they are.

Columns (see ``COLUMNS`` below, also saved in the JSON):

- supported (checker): share of *all* actions whose sentence, after the method's best (first) fix is applied, has
  no FL100/FL110/FL200/FL210 when the whole corrected draft is re-checked by the judge: the default linter with
  ``unit = "both"`` (sentence and claim verdicts; the settings RAC re-checks its own candidates with). A declined
  action counts as not supported; a deletion counts as "removed", never as supported.
- value-fixed (rule): among the actions whose sentence has a value error by the deterministic value rule (FL400's
  matching, ungated), the share whose corrected sentence has none, both times against the same evidence: every
  window the linters consulted for the original sentence (its own windows and its claims'). Independent of the NLI
  checker; declined and removed count as not fixed.
- informativeness: over the offered fixes, of the original sentence's claims the judge found entailed, the share
  kept: a claim is kept when every content word of its subject and of its object still appears in the corrected
  sentence (deletion keeps none).
- edit chars / edit share: over the offered fixes, the character edit distance (Levenshtein) between the sentence
  before and after, and that distance over the longer of the two (0: unchanged, 1: nothing in common).
- latency: seconds of the method's ``correct`` call per action, models loaded and warmed on a toy draft first
  (the load/warm-up time is reported separately). The baselines only compute an edit from the check the editor
  already has, so their latency is ~0.

The checker judges its own corrections for rac, rac+llm and fod: they only offer candidates the same checker
accepts, so their "supported (checker)" is biased upward (it counts how often they find a fix the checker likes,
not how often the fix is right). The value-rule column does not use the checker.

    python bench/corrections.py --methods rac,rac+llm,fod,delete,evidence --limit 40
    python bench/corrections.py --methods rac,delete,evidence --limit 6 --name trial
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from common import ROOT, data_dir, git_revision, read_jsonl, sample, save, table

TASK_FILES = {  # task type -> its real-output development files
    "qa": ["halueval_qa_dev", "lfqa_verification_dev"],
    "summary": ["frank_dev", "xsumfaith_dev", "summeval_dev"],
    "dialogue": ["q2_dev", "faithdial_audit_dev"],
    "data-to-text": ["rotowire_accuracy_dev"],
}
METHODS = ("rac", "rac+llm", "fod", "delete", "evidence")
SELF_JUDGED = ("rac", "rac+llm", "fod")
BIAS_NOTE = ("rac, rac+llm and fod re-check their own candidates with the same checker and settings as the judge "
             "(default model, unit=both) and offer only what it accepts: their 'supported (checker)' is biased "
             "upward (the checker judges its own corrections). delete and evidence are not filtered by the checker. "
             "The 'value-fixed (rule)' column is independent of the checker (deterministic value matching).")
COLUMNS = {
    "actions": "flagged sentences attempted (default linter: FL100/FL110/FL200/FL210/FL400 on the sentence)",
    "offered": "share of actions for which the method offered a fix",
    "supported (checker)": "share of all actions judged supported after the best fix: no FL100/FL110/FL200/FL210 "
                           "on the corrected sentence when the corrected draft is re-checked with the default "
                           "model, unit=both; declined and removed count as not supported",
    "removed": "share of actions whose fix deletes the sentence",
    "value errors": "actions whose sentence has a value the evidence lacks (FL400's deterministic value rule, "
                    "ungated, against every window consulted for the original sentence)",
    "value-fixed (rule)": "share of those whose corrected sentence has no such value (same rule, same windows); "
                          "declined and removed count as not fixed",
    "informativeness": "over offered fixes: share of the original sentence's entailed claims kept (every content "
                       "word of the claim's subject and object still in the corrected sentence; deletion keeps 0)",
    "edit chars": "over offered fixes: mean Levenshtein distance, sentence before vs after",
    "edit share": "over offered fixes: mean of that distance / the longer of the two (0 = unchanged, 1 = all new)",
    "latency mean s": "mean seconds of the method's correct(..., within=sentence) call, warm",
    "latency p90 s": "90th percentile of the same",
}


# ------------------------------------------------------------------------------------------------ data
def quotas(limit: int) -> dict[str, int]:
    """Responses per file: ``limit`` split evenly over the task types, then over each type's files (the first ones
    get the remainders)."""
    tasks = list(TASK_FILES)
    per_task = [limit // len(tasks) + (i < limit % len(tasks)) for i in range(len(tasks))]
    out: dict[str, int] = {}
    for task, n in zip(tasks, per_task):
        files = TASK_FILES[task]
        for j, name in enumerate(files):
            out[name] = n // len(files) + (j < n % len(files))
    return out


def responses(limit: int, data_path: str | None) -> list[dict]:
    from faithlint.train.monitor import FAITHFUL, SKIP

    data = data_dir(data_path)
    task_of = {f: t for t, fs in TASK_FILES.items() for f in fs}
    out = []
    for name, n in quotas(limit).items():
        if n <= 0:
            continue
        rows = read_jsonl(data / "faithfulness" / f"{name}.jsonl")
        rows = [r for r in rows if r["label"] not in FAITHFUL and r["label"] not in SKIP]
        for r in sample(rows, n):
            out.append({"file": name, "task": task_of[name], "id": r["id"], "text": r["text"],
                        "context": r["context"], "query": r.get("query")})
    return out


# ------------------------------------------------------------------------------------------------ measures
def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def region(start: int, end: int, edits: Any) -> tuple[int, int]:
    """Where the sentence ``[start, end)`` lies after ``edits`` (an edit inside it shifts its end only)."""
    a = start + sum(len(e.new_text) - (e.end - e.start) for e in edits if e.end <= start)
    b = end + sum(len(e.new_text) - (e.end - e.start) for e in edits if e.start < end)
    return a, max(a, b)


@dataclass
class Action:
    """One flagged sentence of one response, with what the judge and the value rule say of it before correction."""

    resp: int
    start: int
    end: int
    text: str
    codes: list[str]
    evidence_quote: str  # the best evidence sentence (the evidence baseline's replacement); "" without evidence
    windows: list[str]  # every window consulted for the sentence (sentence and claims, both linters)
    value_error: bool
    fl400: bool
    supported_before: bool  # the judge's verdict on the sentence as it is
    entailed_claims: list[set[str]] = field(default_factory=list)  # content words of each entailed claim's subj+obj


def blocking_in(result: Any, a: int, b: int) -> bool | None:
    """None: no sentence of ``result`` lies in ``[a, b)``; else whether a blocking finding overlaps it."""
    from faithlint.fixes.correctors.base import BLOCKING

    if not any(s.start < b and a < s.end for s in result.sentences):
        return None
    return any(f.code in BLOCKING and f.start < b and a < f.end for f in result.findings)


def actions_of(resp: list[dict], base: Any, judge: Any, max_per: int) -> list[Action]:
    """Every flagged sentence of every response (in text order, at most ``max_per`` per response when > 0)."""
    from faithlint.evidence.relevance import content_words
    from faithlint.fixes.correctors.base import flag_codes
    from faithlint.pipeline.linter import evidence_quote
    from faithlint.types import ContextDoc

    out = []
    for i, r in enumerate(resp):
        ctx = [ContextDoc(r["file"], r["context"])]
        res = base.check(r["text"], ctx, query=r["query"], markdown=False)
        jres = judge.check(r["text"], ctx, query=r["query"], markdown=False)
        n = 0
        for s in res.sentences:
            codes = flag_codes(res, s)
            if not codes or (max_per and n >= max_per):
                continue
            n += 1
            js = next((x for x in jres.sentences if x.start < s.end and s.start < x.end), None)
            windows = [w.text for w in s.windows]
            if s.evidence is not None:
                windows.append(s.evidence.text)
            claims: list[set[str]] = []
            if js is not None:
                windows += [w.text for w in js.windows]
                for c in js.claims or []:
                    windows += [w.text for w in c.windows]
                    if c.label == "entailment":
                        parts = [r["text"][a:b] for k, (a, b) in c.spans.items() if k != "predicate" and b > a] \
                            or [c.subject, c.object]
                        words = set().union(*(content_words(p) for p in parts))
                        if words:
                            claims.append(words)
            windows = list(dict.fromkeys(windows))
            value_error = bool(windows) and bool(judge.values.mismatches(s.text, windows))
            quote = evidence_quote(s.evidence, s.text, limit=10**6) if s.evidence is not None else ""
            out.append(Action(i, s.start, s.end, s.text, codes, quote, windows, value_error, "FL400" in codes,
                              blocking_in(jres, s.start, s.end) is False, claims))
    return out


# ------------------------------------------------------------------------------------------------ methods
class Baseline:
    """delete / evidence, in the corrector protocol (they read the default check the editor already has)."""

    def __init__(self, kind: str, acts: dict[tuple[int, int, int], Action]) -> None:
        self.kind, self.acts = kind, acts
        self.resp = -1

    def correct(self, text: str, context: Any, *, query: str | None = None, markdown: bool = True,
                within: tuple[int, int] | None = None, cancel: Any = None, progress: Any = None) -> Any:
        from faithlint.fixes.correctors.base import Corrections
        from faithlint.fixes.edits import Edit, Fix
        from faithlint.rules.sentence_fixes import sentence_deletion

        assert within is not None
        act = self.acts[(self.resp, *within)]
        out = Corrections()
        if self.kind == "delete":
            out.fixes.append(Fix("bench.delete", act.codes[0], "Delete the sentence",
                                 (sentence_deletion(text, act.start, act.end),)))
        elif act.evidence_quote:
            out.fixes.append(Fix("bench.evidence", act.codes[0], "Replace with the evidence",
                                 (Edit(act.start, act.end, act.evidence_quote),)))
        else:
            out.notes.append("no evidence for this sentence")
        return out


class Recorder:
    """A generator that keeps its answers (what the LLM proposed, offered or not), for the per-action records."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator
        self.name = getattr(generator, "name", "llm")
        self.answers: list[str] = []

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        answer = self.generator.chat(messages, max_new_tokens)
        self.answers.append(answer)
        return answer


def make_method(name: str, base: Any, acts: dict) -> tuple[Any, str | None]:
    """(the corrector, None) or (None, why it is skipped)."""
    if name in ("delete", "evidence"):
        return Baseline(name, acts), None
    if name == "rac":
        from faithlint.fixes.correctors.rac import RACCorrector

        return RACCorrector(base), None
    if name == "rac+llm":
        from faithlint.claims.llm import HFGenerator
        from faithlint.fixes.correctors.rac import RACCorrector

        return RACCorrector(base, generator=Recorder(HFGenerator(device=base.config.device))), None
    if name == "fod":
        try:
            from faithlint.fixes.correctors.fod import FODCorrector
        except ImportError as exc:
            return None, f"faithlint.fixes.correctors.fod is not available ({exc})"
        return FODCorrector(base), None
    return None, f"unknown method {name!r}"


WARM_TEXT = "The Eiffel Tower is 500 metres tall. It was built by Romans to store grain."
WARM_CONTEXT = "The Eiffel Tower is 330 metres tall. It was built for the 1889 World's Fair in Paris."


def warm_up(corrector: Any) -> float:
    """Seconds of a first correction of a toy draft (loads what the method's models need)."""
    from faithlint.types import ContextDoc

    if isinstance(corrector, Baseline):
        return 0.0
    t0 = time.perf_counter()
    gen = getattr(corrector, "_generator", None)
    if gen is not None and hasattr(gen, "chat"):
        gen.chat([{"role": "user", "content": "Say yes."}], 2)
        if isinstance(gen, Recorder):
            gen.answers.clear()
    corrector.correct(WARM_TEXT, [ContextDoc("warm", WARM_CONTEXT)], markdown=False)
    return time.perf_counter() - t0


def run_method(name: str, corrector: Any, acts: list[Action], resp: list[dict], judge: Any) -> list[dict]:
    from faithlint.evidence.relevance import content_words
    from faithlint.fixes.edits import apply_edits
    from faithlint.types import ContextDoc

    records = []
    for k, act in enumerate(acts):
        r = resp[act.resp]
        ctx = [ContextDoc(r["file"], r["context"])]
        if isinstance(corrector, Baseline):
            corrector.resp = act.resp
        rec: dict[str, Any] = {"file": r["file"], "id": r["id"], "task": r["task"], "start": act.start,
                               "end": act.end, "sentence": act.text, "codes": act.codes, "fl400": act.fl400,
                               "value_error": act.value_error, "supported_before": act.supported_before,
                               "entailed_claims": len(act.entailed_claims)}
        recorder = getattr(corrector, "_generator", None)
        if isinstance(recorder, Recorder):
            recorder.answers.clear()
        t0 = time.perf_counter()
        try:
            got = corrector.correct(r["text"], ctx, query=r["query"], markdown=False, within=(act.start, act.end),
                                    cancel=threading.Event())
            error = None
        except Exception as exc:  # noqa: BLE001  (one failing action must not end the run)
            got, error = None, f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        rec["latency_s"] = time.perf_counter() - t0
        fixes = [fx for fx in (got.fixes if got else []) if fx.span[0] < act.end and act.start < fx.span[1]
                 or fx.span[0] == fx.span[1] == act.start]
        if isinstance(recorder, Recorder):
            rec["llm_answers"] = list(recorder.answers)
        rec["notes"] = (got.notes if got else []) + ([error] if error else [])
        rec["offered"] = bool(fixes)
        rec.update(supported=False, removed=False, value_fixed=False, after=None, title=None, kept_claims=None,
                   edit_chars=None, edit_share=None)
        if fixes:
            fx = fixes[0]
            new = apply_edits(r["text"], fx.edits)
            a, b = region(act.start, act.end, fx.edits)
            after = new[a:b]
            rec.update(title=fx.title, after=after, n_fixes=len(fixes))
            dist = levenshtein(act.text, after.strip())
            rec["edit_chars"], rec["edit_share"] = dist, dist / max(len(act.text), len(after.strip()), 1)
            words = content_words(after)
            rec["kept_claims"] = sum(c <= words for c in act.entailed_claims)
            if not after.strip():
                rec["removed"] = True
            else:
                jres = judge.check(new, ctx, query=r["query"], markdown=False)
                rec["supported"] = blocking_in(jres, a, b) is False
                if act.value_error:
                    rec["value_fixed"] = not judge.values.mismatches(after.strip(), act.windows)
        records.append(rec)
        print(f"  {name} {k + 1}/{len(acts)} {r['file']}: offered={rec['offered']} supported={rec['supported']} "
              f"removed={rec['removed']} {rec['latency_s']:.2f}s", flush=True)
    return records


# ------------------------------------------------------------------------------------------------ summary
def summary(records: list[dict]) -> dict[str, Any]:
    n = len(records)
    offered = [r for r in records if r["offered"]]
    verr = [r for r in records if r["value_error"]]
    claims = sum(r["entailed_claims"] for r in offered)
    lat = [r["latency_s"] for r in records]
    return {
        "actions": n,
        "offered": len(offered) / n if n else float("nan"),
        "supported_checker": sum(r["supported"] for r in records) / n if n else float("nan"),
        "supported_of_offered": sum(r["supported"] for r in offered) / len(offered) if offered else float("nan"),
        "removed": sum(r["removed"] for r in records) / n if n else float("nan"),
        "value_errors": len(verr),
        "value_fixed_rule": sum(r["value_fixed"] for r in verr) / len(verr) if verr else float("nan"),
        "informativeness": sum(r["kept_claims"] for r in offered) / claims if claims else float("nan"),
        "entailed_claims_offered": claims,
        "edit_chars": float(np.mean([r["edit_chars"] for r in offered])) if offered else float("nan"),
        "edit_share": float(np.mean([r["edit_share"] for r in offered])) if offered else float("nan"),
        "latency_mean_s": float(np.mean(lat)) if lat else float("nan"),
        "latency_p90_s": float(np.percentile(lat, 90)) if lat else float("nan"),
    }


def row(name: str, s: dict[str, Any]) -> list[object]:
    def f(v: Any) -> object:  # NaN (a fresh run) or None (read back from JSON): nothing to average
        return "—" if v is None or isinstance(v, float) and np.isnan(v) else v

    def secs(v: Any) -> str:
        return "—" if f(v) == "—" else f"{v:.3f}"

    removed_only = name == "delete"
    return [name + (" ¹" if name in SELF_JUDGED else ""), s["actions"], f(s["offered"]),
            "—" if removed_only else f(s["supported_checker"]), f(s["removed"]), s["value_errors"],
            "—" if removed_only else f(s["value_fixed_rule"]), f(s["informativeness"]), f(s["edit_chars"]),
            f(s["edit_share"]), secs(s["latency_mean_s"]), secs(s["latency_p90_s"])]


def finite(obj: Any) -> Any:
    """``obj`` with NaN floats as None (strict JSON)."""
    if isinstance(obj, float) and np.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def machine() -> dict[str, Any]:
    import torch

    return {"cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "cuda": torch.cuda.is_available(), "python": platform.python_version(), "platform": platform.platform()}


HEADER = ["method", "actions", "offered", "supported (checker)", "removed", "value errors", "value-fixed (rule)",
          "informativeness", "edit chars", "edit share", "latency mean s", "latency p90 s"]


def report(out: dict[str, Any]) -> None:
    """Print the table and its notes from a result (a fresh run's, or saved ones merged)."""
    body = [row("none (as drafted)", out["none"])] + [row(n, r["summary"]) for n, r in out["methods"].items()]
    mach = out["machine"]
    print()
    print(table(HEADER, body))
    print()
    print(f"¹ {BIAS_NOTE}")
    print("delete: its sentences are removed, not corrected (counted under 'removed', never as supported). "
          "Latency: the method's correct() call per flagged sentence, models loaded and warm; later sentences of "
          "the same draft find its check in the corrector's cache, as an editor's would.")
    spread = ", ".join(f"{t} {n}" for t, n in out["tasks"].items())
    print(f"Data: {out['responses']} hallucinated responses from the *_dev files ({spread}), "
          f"{out['actions']} sentences flagged by the default linter (Config(), unit=sentence). Judge: default model, "
          f"unit=both. Machine: {mach['cpu_count']} CPUs, torch threads {mach['torch_threads']}, CUDA {mach['cuda']}. "
          f"Model load {out['model_load_s']:.1f}s; warm-up (first correction, loads the LLM) per method: "
          + ", ".join(f"{n} {r['warm_up_s']:.1f}s" for n, r in out["methods"].items()) + "; wall per action "
          "(correction + the judge's re-check): "
          + ", ".join(f"{n} {r['wall_s'] / max(out['actions'], 1):.1f}s" for n, r in out["methods"].items()) + ".")
    for n, why in out["skipped"].items():
        print(f"skipped {n}: {why}")


def merge(paths: list[str], name: str) -> None:
    """One table from saved results of the same sample (e.g. fod run on its own): a later file's method wins."""
    from pathlib import Path

    from common import RESULTS

    outs = []
    for p in paths:
        path = Path(p) if Path(p).exists() else RESULTS / f"corrections_{p}.json"
        outs.append(json.loads(path.read_text()))
    keys = [o["action_keys"] for o in outs]
    if any(k != keys[0] for k in keys[1:]):
        raise SystemExit("the results were not run on the same flagged sentences (same --limit and settings?)")
    out = dict(outs[0])
    out["methods"] = {n: r for o in outs for n, r in o["methods"].items()}
    done = set(out["methods"])
    out["skipped"] = {n: why for o in outs for n, why in o["skipped"].items() if n not in done}
    out["merged_from"] = [o["command"] for o in outs]
    report(out)
    path = save(f"corrections{'_' + name if name else ''}.json", finite(out))
    print(f"saved {path.relative_to(ROOT)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data")
    ap.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated, from {', '.join(METHODS)}")
    ap.add_argument("--limit", type=int, default=40, help="hallucinated responses in all (split over task types)")
    ap.add_argument("--max-per-response", type=int, default=0,
                    help="at most this many flagged sentences per response (text order); 0 = all")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--name", default="", help="result file bench/results/corrections[_NAME].json")
    ap.add_argument("--merge", nargs="+", metavar="RESULT",
                    help="run nothing: merge saved results (NAME of corrections_NAME.json, or a path) into one table")
    args = ap.parse_args()
    if args.merge:
        merge(args.merge, args.name)
        return
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]

    import torch

    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter

    if args.threads:
        torch.set_num_threads(args.threads)
    t_start = time.perf_counter()
    base = Linter(Config())
    t0 = time.perf_counter()
    base.load()
    judge = Linter(base.config.model_copy(update={"unit": "both"}), checker=base.checker, relevance=base.relevance,
                   splitter=base.splitter, values=base.values, claims=base.claims)
    judge.load()
    load_s = time.perf_counter() - t0
    resp = responses(args.limit, args.data)
    t0 = time.perf_counter()
    acts = actions_of(resp, base, judge, args.max_per_response)
    prep_s = time.perf_counter() - t0
    by_key = {(a.resp, a.start, a.end): a for a in acts}
    print(f"{len(resp)} hallucinated responses, {len(acts)} flagged sentences (actions); models {load_s:.1f}s, "
          f"default + judge checks {prep_s:.1f}s", flush=True)

    results: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in methods:
        corrector, why = make_method(name, base, by_key)
        if corrector is None:
            skipped[name] = why or ""
            print(f"{name}: skipped: {why}", flush=True)
            continue
        try:
            warm = warm_up(corrector)
        except Exception as exc:  # noqa: BLE001
            skipped[name] = f"warm-up failed: {type(exc).__name__}: {exc}"
            print(f"{name}: skipped: {skipped[name]}", flush=True)
            continue
        t0 = time.perf_counter()
        records = run_method(name, corrector, acts, resp, judge)
        wall = time.perf_counter() - t0
        results[name] = {"summary": summary(records), "warm_up_s": warm, "wall_s": wall, "records": records}
        print(f"{name}: warm-up {warm:.1f}s, {wall:.1f}s for {len(acts)} actions (judge re-checks included)",
              flush=True)

    none = {"actions": len(acts), "offered": float("nan"),
            "supported_checker": sum(a.supported_before for a in acts) / len(acts) if acts else float("nan"),
            "removed": float("nan"), "value_errors": sum(a.value_error for a in acts), "value_fixed_rule": 0.0,
            "informativeness": float("nan"), "edit_chars": float("nan"), "edit_share": float("nan"),
            "latency_mean_s": 0.0, "latency_p90_s": 0.0}
    tasks: dict[str, int] = {}
    for r in resp:
        tasks[r["task"]] = tasks.get(r["task"], 0) + 1
    commit = git_revision(ROOT) or ""
    out = {"command": "python bench/corrections.py " + " ".join(
               f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v not in (None, "", 0)),
           "commit": commit, "machine": machine(), "settings": {
               "limit": args.limit, "quotas": quotas(args.limit), "max_per_response": args.max_per_response,
               "flagging_linter": "Config() (unit=sentence, default model)",
               "judge": "Config(unit='both'), default model (the settings RAC re-checks with)",
               "rac": "RACCorrector(default linter): value swaps only (no llm_model/llm_endpoint)",
               "rac+llm": "RACCorrector(default linter, generator=HFGenerator()): SmolLM2-135M-Instruct rewrites",
               "fod": "FODCorrector(default linter)"},
           "self_judged_note": BIAS_NOTE, "columns": COLUMNS, "responses": len(resp), "tasks": tasks,
           "actions": len(acts), "action_keys": [[resp[a.resp]["file"], resp[a.resp]["id"], a.start, a.end]
                                                 for a in acts],
           "model_load_s": load_s, "prep_s": prep_s,
           "total_s": time.perf_counter() - t_start, "none": none, "skipped": skipped, "methods": results}
    report(out)
    path = save(f"corrections{'_' + args.name if args.name else ''}.json", finite(out))
    print(f"saved {path.relative_to(ROOT)} ({out['total_s']:.0f}s in all)")


if __name__ == "__main__":
    main()
