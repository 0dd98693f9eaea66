"""Speed against v0.1 (issue 15): every figure as a ratio to v0.1 measured in the same run on the same machine.

v0.1 is commit f30fa74 (the end of the first release: torch checker, fixed windows). The script extracts it
into a temporary folder (``git archive REV | tar -x``; removed at the end; ``--baseline-dir DIR`` reuses a
tree) and runs each tree in its own process with ``PYTHONPATH=<tree>`` and this interpreter, so both use
this venv's libraries. No workaround was needed for v0.1 in this venv; one caveat: the venv's editable
install of the main checkout serves any faithlint module a tree lacks from that checkout, so the worker
never imports a module by trial (v0.1 has no ``faithlint.api``) and reports any faithlint module loaded
from outside its tree (there should be none).

1. Batch: ms per response on development drafts of each task type (``--per-file`` rows per file, the
   deterministic ``sample``): QA = halueval_qa_dev + lfqa_verification_dev, summary = frank_dev +
   xsumfaith_dev + summeval_dev, dialogue = q2_dev + faithdial_audit_dev, data-to-text =
   rotowire_accuracy_dev. One worker per tree (bench/_speed_worker.py) loads the models and warms up on
   a tiny check, then times each response's check with ``time.perf_counter`` (model loading excluded):
   the current tree through ``faithlint.api.check(..., markdown=False)``, v0.1 through
   ``Linter.check(text, [ContextDoc], id=, query=, markdown=False)`` as its ``check --pairs`` does; both
   with default settings. Both workers stay up and each response is checked by one then the other
   (the order alternating), so a machine shared with other jobs slows both alike; with ``--reps`` each
   repetition starts fresh workers (empty caches) and the per-response times are medians over them.
   Reported per task type and overall: median and mean ms per response, sentences/s (sentences the
   tree split the responses into / time), and each worker's peak resident memory after the batch (VmHWM).
2. Checker pairs/s at about 128 and 256 tokens: ``--pairs`` pairs (bench/onnx_speed.py ``pairs_of_length``
   from examples/rag-answer's context, built once with the current tree's tokenizer and given to both),
   one ``score_pairs`` call per tree in turn, ``--pair-calls`` calls each, median; in the same workers,
   after the batch (so the batch's peak memory is read before).
3. Language server: bench/lsp_latency.py ``--json --server-pythonpath <tree>`` for each tree in turn
   (a 2,000-word draft with a 10,000-word sibling context): didChange -> diagnostics p50/p95 over
   ``--edits`` one-sentence edits, cold start (spawn -> first diagnostics, and -> the whole draft's), the
   server's peak resident memory; medians over ``--reps``.

4. ``--ragtruth N`` (issue 41): part 1 on the development part of ``ragtruth_dev`` instead -- real RAG answers,
   news summaries and overviews written from JSON records, with the contexts they were written from (a JSON
   record verbalised as ``check --pairs`` reads it); N responses per task type, 0 for all 449. Both trees'
   mean ms per stage (the linter's ``stats.stage_ms``: parse, split, evidence, checker, rules, results) are
   printed side by side, and the mean per response with the model load included (one load per batch run).
   ``--baseline REV`` then names the release compared (``--baseline-name`` its label), e.g. the previous one.
   Part 3 then runs twice: on the generated 2,000-word draft and on README's example (``lsp_latency.py
   --example``).

Ratios are "times better now": v0.1 / now for times and memory, now / v0.1 for rates, so above 1 is better.
Memory is MiB (from /proc). The Markdown table (``--markdown``) notes the issue's targets. Threads: each
tree's defaults (torch's, ONNX Runtime's ``threads`` / $FAITHLINT_THREADS).

    python bench/speed.py                                  # everything; writes bench/results/speed.json
    python bench/speed.py --per-file 3 --edits 5 --markdown
    python bench/speed.py --skip-lsp --reps 3 --baseline-dir /tmp/v01
    python bench/speed.py --ragtruth 0 --baseline 6773fe6 --baseline-name "stop 38" --skip-pairs --markdown
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import DATA, ROOT, read_jsonl, sample, save, table

BENCH = ROOT / "bench"
WORKER = BENCH / "_speed_worker.py"
TASKS = {
    "QA": ("halueval_qa_dev", "lfqa_verification_dev"),
    "summary": ("frank_dev", "xsumfaith_dev", "summeval_dev"),
    "dialogue": ("q2_dev", "faithdial_audit_dev"),
    "data-to-text": ("rotowire_accuracy_dev",),
}
TREES = ("base", "now")  # the baseline tree (--baseline, v0.1 by default) and this checkout


# ------------------------------------------------------------------------------------------- trees
def git_describe(rev: str) -> str:
    """``rev`` with its commit subject, for the record."""
    p = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %s", rev], capture_output=True, text=True)
    return p.stdout.strip() or rev


def extract(rev: str) -> Path:
    """``rev`` of this repository as a plain folder (git archive | tar -x)."""
    tmp = Path(tempfile.mkdtemp(prefix="faithlint-v01-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp


def tree_env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


class Worker:
    """One tree's bench/_speed_worker.py process: a JSON request per line in, a JSON reply per line out."""

    def __init__(self, label: str, tree: Path, log: Path) -> None:
        self.label, self.tree = label, tree
        self.log = log.open("ab")
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], cwd=tree, env=tree_env(tree), text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.ready: dict[str, Any] | None = None

    def read(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise SystemExit(f"{self.label} worker ({self.tree}) stopped; see {self.log.name}")
        return json.loads(line)

    def wait_ready(self) -> dict[str, Any]:
        self.ready = self.read()
        want = (self.tree / "faithlint").resolve()
        if Path(self.ready["faithlint"]) != want:
            raise SystemExit(f"{self.label} worker imported faithlint from {self.ready['faithlint']}, not {want}")
        return self.ready

    def ask(self, **req: Any) -> dict[str, Any]:
        self.proc.stdin.write(json.dumps(req) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self.read()

    def close(self) -> dict[str, Any]:
        try:
            return self.ask(cmd="exit")
        finally:
            self.proc.wait(timeout=60)
            self.log.close()


# ------------------------------------------------------------------------------------------- data
def responses(per_file: int, data: Path) -> list[dict[str, Any]]:
    rows = []
    for task, files in TASKS.items():
        for name in files:
            path = data / "faithfulness" / f"{name}.jsonl"
            if not path.exists():
                print(f"note: {path} not found; {task} goes without it", file=sys.stderr)
                continue
            usable = [r for r in read_jsonl(path) if isinstance(r.get("context"), str) and r.get("text", "").strip()]
            for r in sample(usable, per_file):
                rows.append({"task": task, "file": name, "id": r.get("id"), "text": r["text"],
                             "context": r["context"], "query": r.get("query")})
    return rows


RAGTRUTH_TASKS = {"qa": "QA", "summary": "summary", "data-to-text": "data-to-text"}


def ragtruth_responses(per_task: int, data: Path) -> list[dict[str, Any]]:
    """The development part of ragtruth_dev (issue 41): real RAG answers, news summaries and overviews from JSON
    records with the contexts they were written from; ``per_task`` rows per task type in file order (0: all).
    Contexts are read as ``check --pairs`` reads a line (a JSON record is verbalised)."""
    from faithlint.train import ragtruth

    rows = ragtruth.part_rows("dev", data)
    if rows is None:
        raise SystemExit(f"{data}/faithfulness/ragtruth_dev.jsonl not found: --ragtruth needs ../shared/data")
    out: list[dict[str, Any]] = []
    for task, name in RAGTRUTH_TASKS.items():
        mine = [r for r in rows if r["task"] == task]
        for r in mine[:per_task] if per_task else mine:
            out.append({"task": name, "file": "ragtruth_dev", "id": r["id"], "text": r["text"],
                        "context": r["context"], "query": r.get("query"), "structured": True})
    return out


def ratio(old: float | None, new: float | None, higher_better: bool = False) -> float | None:
    if not old or not new:
        return None
    return round(new / old if higher_better else old / new, 2)


def med(values: list[float]) -> float | None:
    vals = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(vals) if vals else None


# ------------------------------------------------------------------------------------------- parts 1-2
def run_workers(trees: dict[str, Path], rows: list[dict[str, Any]], args: argparse.Namespace,
                logdir: Path) -> dict[str, Any]:
    ms: dict[str, list[list[float]]] = {t: [[] for _ in rows] for t in trees}
    stage_ms: dict[str, dict[str, float]] = {t: {} for t in trees}  # summed over every check, per stage
    checks: dict[str, int] = {t: 0 for t in trees}
    sents: dict[str, list[int]] = {t: [0] * len(rows) for t in trees}
    pair_s: dict[str, dict[int, list[float]]] = {t: {128: [], 256: []} for t in trees}
    rss: dict[str, list[float]] = {t: [] for t in trees}
    info: dict[str, Any] = {}
    pairs: dict[int, dict[str, Any]] = {}
    ctx = (ROOT / "examples" / "rag-answer" / "answer.context.md").read_text()
    for rep in range(args.reps):
        workers = {t: Worker(t, tree, logdir / f"worker-{t}.log") for t, tree in trees.items()}
        try:
            for t, w in workers.items():
                info.setdefault(t, []).append(w.wait_ready())
            for i, row in enumerate(rows):
                order = list(trees) if (i + rep) % 2 == 0 else list(reversed(trees))
                for t in order:
                    r = workers[t].ask(cmd="check", text=row["text"], context=row["context"], query=row["query"],
                                       structured=row.get("structured", False))
                    ms[t][i].append(r["ms"])
                    sents[t][i] = r["sentences"]
                    checks[t] += 1
                    for k, v in (r.get("stage_ms") or {}).items():
                        stage_ms[t][k] = stage_ms[t].get(k, 0.0) + v
                if args.progress and (i + 1) % 10 == 0:
                    print(f"  rep {rep + 1}: {i + 1}/{len(rows)} responses", file=sys.stderr)
            for t, w in workers.items():
                m = w.ask(cmd="rss")
                rss[t].append(m["VmHWM"])
                if m.get("foreign_modules"):
                    print(f"warning: {t} loaded faithlint modules from elsewhere: {m['foreign_modules']}",
                          file=sys.stderr)
            if not args.skip_pairs:
                for length in (128, 256):
                    if length not in pairs:
                        pairs[length] = workers["now"].ask(cmd="build_pairs", context=ctx, tokens=length,
                                                           n=args.pairs)
                    for k in range(args.pair_calls):
                        for t in (list(trees) if (k + rep) % 2 == 0 else list(reversed(trees))):
                            r = workers[t].ask(cmd="pairs", premises=pairs[length]["premises"],
                                               hypotheses=pairs[length]["hypotheses"])
                            pair_s[t][length].append(len(pairs[length]["premises"]) / r["s"])
        finally:
            for w in workers.values():
                try:
                    w.close()
                except Exception:  # noqa: BLE001  (a worker that already died)
                    w.proc.kill()
    out: dict[str, Any] = {"workers": info}
    if not args.skip_batch:
        per_row = {t: [statistics.median(x) for x in ms[t]] for t in trees}
        batch: dict[str, Any] = {}
        for task in [*dict.fromkeys(r["task"] for r in rows), "overall"]:
            idx = [i for i, r in enumerate(rows) if task in ("overall", r["task"])]
            if not idx:
                continue
            batch[task] = {"responses": len(idx)}
            for t in trees:
                x = [per_row[t][i] for i in idx]
                n_s = sum(sents[t][i] for i in idx)
                batch[task][t] = {"median_ms": statistics.median(x), "mean_ms": statistics.fmean(x),
                                  "sentences": n_s, "sentences_per_s": n_s / (sum(x) / 1000) if sum(x) else None}
            b = batch[task]
            b["ratio"] = {"median_ms": ratio(b["base"]["median_ms"], b["now"]["median_ms"]),
                          "mean_ms": ratio(b["base"]["mean_ms"], b["now"]["mean_ms"]),
                          "sentences_per_s": ratio(b["base"]["sentences_per_s"], b["now"]["sentences_per_s"], True)}
        load = {t: med([w["load_s"] for w in info.get(t, [])]) for t in trees}
        for t in trees:  # the mean with the model load shared over the responses (a batch run loads once)
            o = batch["overall"][t]
            o["mean_ms_with_load"] = o["mean_ms"] + 1000 * (load[t] or 0.0) / max(batch["overall"]["responses"], 1)
        batch["overall"]["ratio"]["mean_ms_with_load"] = ratio(batch["overall"]["base"]["mean_ms_with_load"],
                                                               batch["overall"]["now"]["mean_ms_with_load"])
        out["batch"] = batch
        out["batch_peak_rss_mib"] = {t: med(rss[t]) for t in trees}
        out["batch_stage_ms"] = {t: {k: round(v / checks[t], 2) for k, v in stage_ms[t].items()}
                                 for t in trees if stage_ms[t]}
        out["per_response_ms"] = {t: [{"file": rows[i]["file"], "id": rows[i]["id"], "ms": ms[t][i],
                                       "sentences": sents[t][i]} for i in range(len(rows))] for t in trees}
    if not args.skip_pairs:
        out["pairs_per_s"] = {str(n): {**{t: med(pair_s[t][n]) for t in trees},
                                       "ratio": ratio(med(pair_s["base"][n]), med(pair_s["now"][n]), True),
                                       "tokens_mean": round(pairs[n]["tokens"], 1), "pairs_per_call": args.pairs,
                                       "all": {t: pair_s[t][n] for t in trees}}
                              for n in (128, 256)}
    return out


# ------------------------------------------------------------------------------------------- part 3
def imported_from(tree: Path) -> Path:
    """The faithlint a process started in ``tree`` with ``PYTHONPATH=<tree>`` imports (as ``-m faithlint`` does)."""
    p = subprocess.run([sys.executable, "-c", "import faithlint; print(faithlint.__file__)"], cwd=tree,
                       env=tree_env(tree), check=True, capture_output=True, text=True)
    return Path(p.stdout.strip()).resolve().parent


def run_lsp(trees: dict[str, Path], args: argparse.Namespace, logdir: Path) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in trees}
    for t, tree in trees.items():
        if (got := imported_from(tree)) != (tree / "faithlint").resolve():
            raise SystemExit(f"{t}: a server started in {tree} would import faithlint from {got}")
    for rep in range(args.reps):
        for t in (list(trees) if rep % 2 == 0 else list(reversed(trees))):
            cmd = [sys.executable, str(BENCH / "lsp_latency.py"), "--json", "--edits", str(args.edits),
                   "--draft-words", str(args.draft_words), "--context-words", str(args.context_words),
                   "--timeout", str(args.lsp_timeout), "--server-pythonpath", str(trees[t])]
            if t == "now":  # v0.1 has no disk cache: its second open is a first open again
                cmd.append("--reopen")
            if getattr(args, "example", False):
                cmd.append("--example")
            if args.progress:
                print(f"  language server, {t} (rep {rep + 1})", file=sys.stderr)
            p = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True,
                               capture_output=True)
            (logdir / f"lsp-{t}-{rep}.log").write_text(p.stdout + p.stderr)
            if p.returncode != 0:
                raise SystemExit(f"lsp_latency.py failed for {t} (exit {p.returncode}):\n{p.stderr[-3000:]}")
            runs[t].append(json.loads(p.stdout.strip().splitlines()[-1]))

    def pick(t: str, *path: str) -> float | None:
        vals = []
        for r in runs[t]:
            v: Any = r
            for k in path:
                v = v.get(k) if isinstance(v, dict) else None
            vals.append(v)
        return med(vals)

    figures = {"edit_p50_ms": ("edit_latency_ms", "p50"), "edit_p95_ms": ("edit_latency_ms", "p95"),
               "cold_start_s": ("cold_start_s",), "cold_start_whole_s": ("cold_start_whole_s",),
               "model_load_s": ("model_load_s",), "server_peak_rss_mib": ("rss_mib", "peak")}
    out: dict[str, Any] = {}
    for name, path in figures.items():
        vals = {t: pick(t, *path) for t in trees}
        out[name] = {**vals, "ratio": ratio(vals["base"], vals["now"])}
    for name in ("cold_start_s", "cold_start_whole_s"):
        out["reopened_" + name] = pick("now", "reopened", name)
    stage_names = list(runs["now"][0].get("stage_ms") or {})
    out["edit_stage_ms"] = {k: pick("now", "stage_ms", k) for k in stage_names}
    out["draft_words"] = runs["now"][0]["draft_words"]
    out["context_words"] = runs["now"][0]["context_words"]
    out["edits"] = args.edits
    out["runs"] = runs
    return out


# ------------------------------------------------------------------------------------------- report
def fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "n/a"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def rows_for(res: dict[str, Any]) -> list[list[str]]:
    """figure | baseline | now | ratio | target, one row per headline figure (targets: issue 15's against v0.1,
    issue 41's on ragtruth_dev)."""
    rows: list[list[str]] = []
    rt = res.get("ragtruth") is not None

    def add(name: str, old: Any, new: Any, r: Any, target: str = "", digits: int = 1) -> None:
        rows.append([name, fmt(old, digits), fmt(new, digits), f"{r:.2f}×" if r else "n/a", target])

    b = res.get("batch", {})
    if "overall" in b:
        o = b["overall"]
        what = "ragtruth_dev development responses" if rt else "dev responses"
        add(f"batch: median ms per response ({o['responses']} {what})", o["base"]["median_ms"],
            o["now"]["median_ms"], o["ratio"]["median_ms"], "" if rt else "≤ 100 ms and ≥ 10× v0.1")
        add("batch: mean ms per response", o["base"]["mean_ms"], o["now"]["mean_ms"], o["ratio"]["mean_ms"])
        add("batch: mean ms per response, model load included", o["base"].get("mean_ms_with_load"),
            o["now"].get("mean_ms_with_load"), o["ratio"].get("mean_ms_with_load"), "≤ 100 ms" if rt else "")
        add("batch: sentences/s", o["base"]["sentences_per_s"], o["now"]["sentences_per_s"],
            o["ratio"]["sentences_per_s"])
        for task in b:
            if task != "overall":
                t = b[task]
                add(f"batch, {task}: median ms ({t['responses']})", t["base"]["median_ms"], t["now"]["median_ms"],
                    t["ratio"]["median_ms"])
    for n, p in res.get("pairs_per_s", {}).items():
        add(f"checker pairs/s at {n} tokens", p["base"], p["now"], p["ratio"])
    lsp = res.get("lsp")
    if lsp:
        add("server: edit → diagnostics p50 (ms)", lsp["edit_p50_ms"]["base"], lsp["edit_p50_ms"]["now"],
            lsp["edit_p50_ms"]["ratio"])
        add("server: edit → diagnostics p95 (ms)", lsp["edit_p95_ms"]["base"], lsp["edit_p95_ms"]["now"],
            lsp["edit_p95_ms"]["ratio"], "≤ 150 ms" if rt else "≤ 100 ms")
        add("server: cold start → first diagnostics (s)", lsp["cold_start_s"]["base"], lsp["cold_start_s"]["now"],
            lsp["cold_start_s"]["ratio"], "≤ 3 s", 2)
        add(f"server: cold start → whole {lsp['draft_words']:,}-word draft (s)", lsp["cold_start_whole_s"]["base"],
            lsp["cold_start_whole_s"]["now"], lsp["cold_start_whole_s"]["ratio"], "≤ 8 s", 2)
    ex = res.get("lsp_example")
    if ex:
        add("server, README's example: edit → diagnostics p95 (ms)", ex["edit_p95_ms"]["base"],
            ex["edit_p95_ms"]["now"], ex["edit_p95_ms"]["ratio"], "≤ 100 ms")
        add("server, README's example: cold start → first diagnostics (s)", ex["cold_start_s"]["base"],
            ex["cold_start_s"]["now"], ex["cold_start_s"]["ratio"], "≤ 3 s", 2)
        add("server, README's example: peak RSS (MiB)", ex["server_peak_rss_mib"]["base"],
            ex["server_peak_rss_mib"]["now"], ex["server_peak_rss_mib"]["ratio"], "≤ 600 MB", 0)
    if lsp and lsp.get("reopened_cold_start_s") is not None:
        add("server: reopened workspace → first diagnostics (s)", None, lsp["reopened_cold_start_s"], None, "", 2)
        add("server: reopened workspace → whole draft (s)", None, lsp["reopened_cold_start_whole_s"], None, "", 2)
    if "batch_peak_rss_mib" in res:
        m = res["batch_peak_rss_mib"]
        add("batch: peak RSS (MiB)", m["base"], m["now"], ratio(m["base"], m["now"]), "≤ 600 MB", 0)
    if lsp:
        m = lsp["server_peak_rss_mib"]
        add("server: peak RSS (MiB)", m["base"], m["now"], m["ratio"], "≤ 600 MB", 0)
    return rows


def stage_text(stages: dict[str, float]) -> str:
    return ", ".join(f"{k} {fmt(v)}" for k, v in stages.items()) + f", total {fmt(sum(stages.values()))}"


def markdown(res: dict[str, Any]) -> str:
    rows = rows_for(res)
    name = res.get("baseline_name", "v0.1")
    issue = "issue 41" if res.get("ragtruth") is not None else "issue 15"
    head = f"| figure | {name} | now | ratio | target ({issue}) |\n|---|---:|---:|---:|---|\n"
    body = "\n".join("| " + " | ".join(r) + " |" for r in rows)
    m = res["machine"]
    batch_stages = res.get("batch_stage_ms") or {}
    if batch_stages.get("now"):
        body += ("\n\nWhere a batch check's time goes (mean ms per response, the linter's `stats.stage_ms`): now "
                 + stage_text(batch_stages["now"])
                 + (f"; {name} " + stage_text(batch_stages["base"]) if batch_stages.get("base") else "") + ".")
    stages = (res.get("lsp") or {}).get("edit_stage_ms") or {}
    if stages:
        body += ("\n\nWhere an edit's time goes in the server (mean ms per edit, `faithlint.status` → `lastCheckMs`): "
                 + ", ".join(f"{k} {fmt(v)}" for k, v in stages.items()) + ".")
    rows_note = (f"{res['ragtruth'] or 'all'} responses per task type of ragtruth_dev's development part"
                 if res.get("ragtruth") is not None else f"{res['per_file']} responses per dev file")
    return (head + body + f"\n\nMeasured in one run on the same machine ({m['cpus']} CPUs, {res['reps']} "
            f"repetition(s), {rows_note}); ratio = {name} / now for times and memory, "
            f"now / {name} for rates (above 1 is better now). {name} = {res['baseline']}. "
            f"`python bench/speed.py{res.get('argv', '')}`")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="f30fa74", metavar="REV",
                    help="the revision compared with this checkout (default f30fa74, v0.1)")
    ap.add_argument("--baseline-name", default=None, help="its name in the tables (default: v0.1 for f30fa74, "
                                                          "else the revision)")
    ap.add_argument("--baseline-dir", type=Path, metavar="DIR", help="use this tree as the baseline instead")
    ap.add_argument("--ragtruth", type=int, default=None, metavar="N",
                    help="batch on ragtruth_dev's development part instead (issue 41): N responses per task "
                         "type (0: all 449)")
    ap.add_argument("--data", type=Path, default=DATA, help="shared data folder (default ../shared/data)")
    ap.add_argument("--per-file", type=int, default=20, help="responses sampled per dev file (default 20)")
    ap.add_argument("--reps", type=int, default=1, help="repetitions, interleaved; medians are reported")
    ap.add_argument("--pairs", type=int, default=64, help="pairs per timed score_pairs call (default 64)")
    ap.add_argument("--pair-calls", type=int, default=3, help="timed score_pairs calls per length and tree")
    ap.add_argument("--edits", type=int, default=30, help="one-sentence edits in the server run (default 30)")
    ap.add_argument("--draft-words", type=int, default=2000)
    ap.add_argument("--context-words", type=int, default=10000)
    ap.add_argument("--lsp-timeout", type=float, default=900.0, help="seconds to wait for any one diagnostics")
    ap.add_argument("--skip-batch", action="store_true")
    ap.add_argument("--skip-pairs", action="store_true")
    ap.add_argument("--skip-lsp", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="also print a README-ready Markdown table")
    ap.add_argument("--quiet", dest="progress", action="store_false", help="no progress lines on stderr")
    ap.add_argument("--logs", type=Path, help="keep the workers' and servers' stderr here (default: a temp folder)")
    args = ap.parse_args()

    t_start = time.perf_counter()
    tmp_tree = None
    logdir = args.logs or Path(tempfile.mkdtemp(prefix="faithlint-speed-logs-"))
    logdir.mkdir(parents=True, exist_ok=True)
    try:
        if args.baseline_dir:
            base = args.baseline_dir.resolve()
            baseline = f"{args.baseline} (tree {base})"
        else:
            tmp_tree = base = extract(args.baseline)
            baseline = git_describe(args.baseline)
        if not (base / "faithlint" / "__init__.py").exists():
            raise SystemExit(f"{base}: no faithlint package there")
        trees = {"base": base, "now": ROOT}
        name = args.baseline_name or ("v0.1" if args.baseline == "f30fa74" else args.baseline)
        res: dict[str, Any] = {
            "baseline": baseline, "baseline_name": name, "per_file": args.per_file, "reps": args.reps,
            "ragtruth": args.ragtruth, "tasks": list(RAGTRUTH_TASKS.values()) if args.ragtruth is not None else TASKS,
            "argv": "".join(" " + shlex.quote(a) for a in sys.argv[1:]),
            "machine": {"cpus": len(os.sched_getaffinity(0)), "load_avg_start": os.getloadavg(),
                        "python": sys.version.split()[0], "faithlint_threads": os.environ.get("FAITHLINT_THREADS")},
        }
        if not (args.skip_batch and args.skip_pairs):
            rows = [] if args.skip_batch else ragtruth_responses(args.ragtruth, args.data) \
                if args.ragtruth is not None else responses(args.per_file, args.data)
            if args.progress:
                print(f"batch: {len(rows)} responses x {len(trees)} trees x {args.reps} rep(s)", file=sys.stderr)
            res.update(run_workers(trees, rows, args, logdir))
        if not args.skip_lsp:
            res["lsp"] = run_lsp(trees, args, logdir)
            if args.ragtruth is not None:  # issue 41 also asks for README's example in the server
                res["lsp_example"] = run_lsp(trees, argparse.Namespace(**{**vars(args), "example": True}), logdir)
        res["machine"]["load_avg_end"] = os.getloadavg()
        res["wall_s"] = round(time.perf_counter() - t_start, 1)
        path = save("speed_ragtruth.json" if args.ragtruth is not None else "speed.json", res)
    finally:
        if tmp_tree is not None:
            shutil.rmtree(tmp_tree, ignore_errors=True)

    rows = rows_for(res)
    name = res["baseline_name"]
    print(table(["figure", name, "now", "ratio", "target"], rows))
    if "batch" in res:
        trows = []
        for task, b in res["batch"].items():
            trows.append([task, b["responses"]] + [fmt(b[t][k]) for t in TREES
                                                   for k in ("median_ms", "mean_ms", "sentences_per_s")]
                         + [f"{b['ratio']['median_ms']:.2f}×" if b["ratio"]["median_ms"] else "n/a"])
        print()
        print(table(["task", "n", f"{name} median ms", f"{name} mean ms", f"{name} sent/s", "now median ms",
                     "now mean ms",
                     "now sent/s", "ratio (median)"], trows))
    for t, stages in (res.get("batch_stage_ms") or {}).items():
        print(f"\nwhere a batch check's time goes, {name if t == 'base' else t} (mean ms per response): "
              + stage_text(stages))
    print(f"\nratio: {name} / now for times and memory, now / {name} for rates (above 1 = better now); memory in MiB. "
          f"{res['wall_s']:.0f} s in all; logs in {logdir}; results in {path}")
    if args.markdown:
        print()
        print(markdown(res))


if __name__ == "__main__":
    main()
