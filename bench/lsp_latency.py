"""Language server latency: didChange -> publishDiagnostics for one-sentence edits, cold start, memory.

    python bench/lsp_latency.py [--model PATH] [--monitor on|off] [--edits 50] [--draft-words 2000]
                                [--context-words 10000] [--server-pythonpath DIR] [--cold-starts N] [--json]

``--example`` opens README's example (``examples/rag-answer``) instead of the generated draft.

Starts ``python -m faithlint serve`` over stdio with ``debounce = 0``, opens a generated
2,000-word draft (its supported sentences reworded from the context, not copied) whose sibling
context has 10,000 words, waits for the first diagnostics (cold
start with an empty disk cache: process spawn -> first diagnostics, model loading included; the server publishes a long
draft's first sentences before the rest) and for the whole draft's, then makes ``--edits``
one-sentence edits, each waiting for the diagnostics of its version, and prints p50/p95 of
those latencies, how many pairs each edit re-scored, and the server's resident memory
(VmRSS now, VmHWM peak, from /proc). ``--monitor on`` starts the server with the monitor on
(``initializationOptions``), so each check also runs the surrogate LM and the aggregator; the
figures then count the diagnostics the monitor narrowed to the words it marked.

``--server-pythonpath DIR`` runs the server of another faithlint tree (``PYTHONPATH=DIR``, started in
DIR, same interpreter; bench/speed.py uses it for v0.1): figures its status command lacks come out as null, and
``monitor`` is only sent when on (older servers reject the key; off is the default).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from faithlint.server.text import DocumentIndex

NAMES = ["Helen Okafor", "Marlow & Finch", "the city council", "Riverside", "the museum board", "Dr. Lena Ortiz",
         "the transit agency", "Northgate School", "the county", "Atlas Labs"]
THINGS = ["library", "bridge", "clinic", "school", "park", "museum", "station", "stadium", "harbour", "market"]
VERBS = ["opened", "closed", "expanded", "was renovated", "was rebuilt", "reported growth", "hired staff",
         "cut costs", "raised funds", "won an award"]


def facts(rng: random.Random) -> tuple:
    return (rng.randint(1990, 2024), rng.choice(THINGS), rng.choice(NAMES), rng.choice(VERBS),
            rng.randint(1, 90), rng.randint(0, 9), rng.randint(2, 60))


def as_context(f: tuple) -> str:
    year, thing, name, verb, m, d, n = f
    return f"In {year}, the {thing} managed by {name} {verb} after spending ${m}.{d} million on {n} projects."


def as_draft(f: tuple) -> str:
    """The same facts reworded, as a generated draft would (a verbatim copy needs no model)."""
    year, thing, name, verb, m, d, n = f
    return f"The {thing} run by {name} {verb} in {year}, having spent ${m}.{d} million across {n} projects."


def make_texts(draft_words: int, context_words: int, seed: int = 7) -> tuple[str, str]:
    rng = random.Random(seed)
    ctx_facts: list[tuple] = []
    while sum(len(as_context(f).split()) for f in ctx_facts) < context_words:
        ctx_facts.append(facts(rng))
    ctx_sents = [as_context(f) for f in ctx_facts]
    paras = [" ".join(ctx_sents[i:i + 5]) for i in range(0, len(ctx_sents), 5)]
    context = "\n\n".join(paras) + "\n"
    draft_sents: list[str] = []
    while sum(len(s.split()) for s in draft_sents) < draft_words:
        s = as_draft(rng.choice(ctx_facts))
        if rng.random() < 0.3:  # some unsupported or altered sentences
            s = s.replace("million", "billion") if rng.random() < 0.5 else as_draft(facts(rng))
        draft_sents.append(s)
    body = "\n\n".join(" ".join(draft_sents[i:i + 4]) for i in range(0, len(draft_sents), 4))
    return "# Report\n\n" + body + "\n", context


def rss(pid: int) -> dict[str, float]:
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024.0  # MiB
    except OSError:
        pass
    return out


def last_stats(st: dict[str, Any]) -> dict[str, Any]:
    """The first linter's counts for its latest check ({} where the status command has none)."""
    linters = st.get("linters") or []
    return dict((linters[0].get("stats") or {}).get("last") or {}) if linters else {}


def narrowed(d: types.Diagnostic) -> bool:
    """A sentence finding (FL100/FL200/FL300; FL400 always marks just its value) whose range the monitor
    narrowed to its marked words: its data's start/end differ from its sentence's."""
    data = d.data if isinstance(d.data, dict) else {}
    sentence = data.get("sentence")
    return (data.get("code") in ("FL100", "FL200", "FL300") and isinstance(sentence, list) and len(sentence) == 2
            and [data.get("start"), data.get("end")] != sentence)


class Bench:
    def __init__(self) -> None:
        self.client = LanguageClient("faithlint-bench", "1")
        self.published: dict[int | None, float] = {}
        self.latest: dict[int | None, float] = {}
        self.event = asyncio.Event()
        self.last: list[types.Diagnostic] = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.published.setdefault(params.version, now)  # first diagnostics of each version
            self.latest[params.version] = now
            self.last = list(params.diagnostics)
            self.event.set()

        @self.client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def on_progress_create(params: types.WorkDoneProgressCreateParams) -> None:
            return None

    async def wait_version(self, version: int, timeout: float) -> float:
        deadline = time.perf_counter() + timeout
        while version not in self.published:
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for version {version} within {timeout}s")
            try:
                await asyncio.wait_for(self.event.wait(), remaining)
            except asyncio.TimeoutError:
                pass
        return self.published[version]

    async def start_and_open(self, server: list[str], root: Path, init: dict[str, Any], draft: Path,
                             text: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[int, str]:
        """Start the server over stdio, initialize it on ``root`` and open ``draft``: (server pid, draft uri).

        ``env``, ``cwd``: the server's environment and folder (default: this process's)."""
        await self.client.start_io(*server, **({"env": env} if env is not None else {}),
                                   **({"cwd": str(cwd)} if cwd is not None else {}))
        pid = self.client._server.pid  # type: ignore[union-attr]
        caps = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)))
        await self.client.initialize_async(types.InitializeParams(capabilities=caps, root_uri=root.as_uri(),
                                                                  initialization_options=init))
        self.client.initialized(types.InitializedParams())
        uri = draft.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="markdown", version=1, text=text)))
        return pid, uri

    async def status(self) -> dict[str, Any]:
        return await self.client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="faithlint.status"))


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"


def workspace(args: argparse.Namespace, prefix: str) -> tuple[Path, Path, str, dict[str, Any]]:
    """A temporary folder with the draft and its sibling context: (folder, draft, its text, init). The draft is
    generated, or with ``--example`` README's example (``examples/rag-answer``: an 11-line answer, its context)."""
    if getattr(args, "example", False):
        draft_text = (EXAMPLE / "answer.md").read_text(encoding="utf-8")
        context_text = (EXAMPLE / "answer.context.md").read_text(encoding="utf-8")
    else:
        draft_text, context_text = make_texts(args.draft_words, args.context_words)
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    # removed at exit: with its disk cache and compiled checker a workspace holds ~60 MB, and --cold-starts makes many
    atexit.register(shutil.rmtree, tmp, True)
    draft = tmp / "report.md"
    draft.write_text(draft_text)
    (tmp / "report.context.md").write_text(context_text)
    init: dict[str, Any] = {"debounce": 0}
    if getattr(args, "monitor", "off") == "on":  # off is the default; servers before the monitor reject the key
        init["monitor"] = "on"
    if args.model:
        init["model"] = args.model
    return tmp, draft, draft_text, init


async def reopen(args: argparse.Namespace, tmp: Path, draft: Path, draft_text: str, init: dict[str, Any],
                 env: dict[str, str], cwd: Path | None) -> dict[str, float]:
    """A second server on the same workspace and disk cache (a reopened workspace): cold start figures."""
    b = Bench()
    t0 = time.perf_counter()
    _, uri = await b.start_and_open([sys.executable, "-m", "faithlint", "serve"], tmp, init, draft, draft_text,
                                    env=env, cwd=cwd)
    first = await b.wait_version(1, args.timeout) - t0
    while not (await b.status())["documents"].get(uri, {}).get("complete"):
        await asyncio.sleep(0.05)
    whole = b.latest.get(1, first) - t0
    await b.client.shutdown_async(None)
    b.client.exit(None)
    await b.client.stop()
    return {"cold_start_s": round(first, 2), "cold_start_whole_s": round(whole, 2)}


async def cold_start(args: argparse.Namespace) -> float:
    """One more cold start: a fresh server, workspace and disk cache, seconds from spawn to first diagnostics."""
    tmp, draft, draft_text, init = workspace(args, "faithlint-bench-")
    env = {**os.environ, "FAITHLINT_CACHE_DIR": str(tmp / ".cache")}
    cwd = Path(args.server_pythonpath).resolve() if getattr(args, "server_pythonpath", None) else None
    if cwd is not None:
        env["PYTHONPATH"] = str(cwd)
    b = Bench()
    t0 = time.perf_counter()
    await b.start_and_open([sys.executable, "-m", "faithlint", "serve"], tmp, init, draft, draft_text, env=env, cwd=cwd)
    first = await b.wait_version(1, args.timeout) - t0
    await b.client.shutdown_async(None)
    b.client.exit(None)
    await b.client.stop()
    return first


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp, draft, draft_text, init = workspace(args, "faithlint-bench-")
    b = Bench()
    t0 = time.perf_counter()
    cwd = None
    # a fresh disk cache: the cold start is a first open (``reopen`` measures a second one on the same cache)
    env = {**os.environ, "FAITHLINT_CACHE_DIR": str(tmp / ".cache")}
    if getattr(args, "server_pythonpath", None):  # ``python -m`` puts its folder first on sys.path: run it there
        cwd = Path(args.server_pythonpath).resolve()
        env["PYTHONPATH"] = str(cwd)
    pid, uri = await b.start_and_open([sys.executable, "-m", "faithlint", "serve"], tmp, init, draft, draft_text,
                                      env=env, cwd=cwd)
    first = await b.wait_version(1, args.timeout)
    cold = first - t0
    while not (st := await b.status())["documents"].get(uri, {}).get("complete"):  # a long draft's top comes first
        await asyncio.sleep(0.05)
    whole = b.latest.get(1, first) - t0
    first_pairs = last_stats(st)
    mem_after_open = rss(pid)
    if args.pause:  # the user reads the findings before typing: the server's idle work (warm-up) runs now
        await asyncio.sleep(args.pause)

    rng = random.Random(11)
    text = draft_text
    latencies: list[float] = []
    scored: list[int] = []
    timings: list[dict[str, float]] = []
    stages: list[dict[str, float]] = []
    import re

    years = [m for m in re.finditer(r"\b(19|20)\d\d\b", text)]
    for i in range(args.edits):
        version = i + 2
        m = rng.choice(years)
        new_year = str(rng.randint(1990, 2024))
        idx = DocumentIndex(text)
        change = types.TextDocumentContentChangePartial(range=idx.range(m.start(), m.end()), text=new_year)
        text = text[:m.start()] + new_year + text[m.end():]
        years = [y for y in re.finditer(r"\b(19|20)\d\d\b", text)]
        sent = time.perf_counter()
        b.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[change]))
        got = await b.wait_version(version, args.timeout)
        latencies.append(got - sent)
        st = await b.status()
        scored.append(last_stats(st).get("scored", 0))
        timings.append(st.get("lastCheckSeconds") or {})
        stages.append(st.get("lastCheckMs") or {})
    mem = rss(pid)
    st = await b.status()
    await b.client.shutdown_async(None)
    b.client.exit(None)
    await b.client.stop()
    reopened = await reopen(args, tmp, draft, draft_text, init, env, cwd) if args.reopen else None
    colds = [cold] + [await cold_start(args) for _ in range(args.cold_starts - 1)]
    lat_ms = sorted(x * 1000 for x in latencies)
    stage_names = [k for k in (stages[0] if stages else {}) if all(isinstance(t.get(k), (int, float)) for t in stages)]

    def pct(p: float) -> float:
        return lat_ms[min(len(lat_ms) - 1, int(round(p / 100 * (len(lat_ms) - 1))))] if lat_ms else float("nan")

    return {
        "draft_words": len(draft_text.split()), "context_words": len((tmp / "report.context.md").read_text().split()),
        "model": args.model or "bundled default", "monitor": init.get("monitor", "off"), "edits": args.edits,
        "pause_s": args.pause,
        "server_pythonpath": str(cwd) if cwd else None,
        "cold_start_s": round(cold, 2), "cold_start_whole_s": round(whole, 2),
        "cold_starts": {"runs": [round(c, 2) for c in colds], "median": round(statistics.median(colds), 2),
                        "min": round(min(colds), 2)},
        "partial_first": (st.get("partialResultsDelivered") or 0) > 0, "model_load_s": st.get("modelLoadSeconds"),
        "first_check_pairs": first_pairs,
        "edit_latency_ms": {"p50": round(pct(50), 1), "p95": round(pct(95), 1),
                            "mean": round(statistics.fmean(lat_ms), 1) if lat_ms else None,
                            "max": round(lat_ms[-1], 1) if lat_ms else None},
        "pairs_rescored_per_edit": {"median": statistics.median(scored) if scored else None,
                                    "max": max(scored) if scored else None},
        "server_ms": {k: (round(1000 * statistics.fmean(t[k] for t in timings), 1)
                          if all(isinstance(t.get(k), (int, float)) for t in timings) else None)
                      for k in ("check", "publish")} if timings else None,
        "stage_ms": {k: round(statistics.fmean(t[k] for t in stages), 1) for k in stage_names} or None,
        "reopened": reopened,
        "rss_mib": {"after_open": mem_after_open.get("VmRSS"), "end": mem.get("VmRSS"), "peak": mem.get("VmHWM")},
        "diagnostics": len(b.last), "diagnostics_narrowed": sum(narrowed(d) for d in b.last),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model folder or id (default: the bundled model)")
    p.add_argument("--monitor", choices=["on", "off"], default="off",
                   help="start the server with the monitor on (surrogate LM + aggregator per check); default off")
    p.add_argument("--edits", type=int, default=50)
    p.add_argument("--draft-words", type=int, default=2000)
    p.add_argument("--context-words", type=int, default=10000)
    p.add_argument("--example", action="store_true",
                   help="README's example (examples/rag-answer) instead of a generated draft (its years are edited)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for any one set of diagnostics")
    p.add_argument("--server-pythonpath", metavar="DIR",
                   help="run the server of the faithlint tree in DIR (PYTHONPATH=DIR, this interpreter)")
    p.add_argument("--reopen", action="store_true",
                   help="then start a second server on the same workspace and disk cache (reopened workspace)")
    p.add_argument("--cold-starts", type=int, default=1, metavar="N",
                   help="cold starts to time, each a fresh server, workspace and disk cache (default 1; the first is "
                        "the edited session's): their median and minimum are reported too, the machine's speed "
                        "varying from one start to the next")
    p.add_argument("--pause", type=float, default=0.0,
                   help="seconds between the whole draft's diagnostics and the first edit (default 0: the edits "
                        "start at once, before the server's idle warm-up of the context runs)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = p.parse_args()
    res = asyncio.run(run(args))
    if args.json:
        print(json.dumps(res))
        return
    print(f"faithlint LSP latency ({res['model']}, monitor {res['monitor']}): draft {res['draft_words']} words, "
          f"context {res['context_words']} words, {res['edits']} one-sentence edits, debounce 0")
    print(f"  cold start to first diagnostics: {res['cold_start_s']:.2f} s"
          + (" (the draft's first sentences)" if res["partial_first"] else "")
          + f"; to the whole draft's: {res['cold_start_whole_s']:.2f} s "
          f"(model load {res['model_load_s'] or 0:.2f} s; first check scored {res['first_check_pairs']})")
    if len(res["cold_starts"]["runs"]) > 1:
        c = res["cold_starts"]
        print(f"  cold starts to first diagnostics ({len(c['runs'])}): median {c['median']:.2f} s, "
              f"min {c['min']:.2f} s ({', '.join(f'{x:.2f}' for x in c['runs'])})")
    lat = res["edit_latency_ms"]
    print(f"  didChange -> diagnostics: p50 {lat['p50']} ms, p95 {lat['p95']} ms, mean {lat['mean']} ms, "
          f"max {lat['max']} ms")
    if res["server_ms"]:
        print(f"  of which, in the server (mean): check {res['server_ms']['check']} ms, "
              f"diagnostics + sending {res['server_ms']['publish']} ms")
    print(f"  pairs re-scored per edit: median {res['pairs_rescored_per_edit']['median']}, "
          f"max {res['pairs_rescored_per_edit']['max']}")
    m = res["rss_mib"]
    if res.get("stage_ms"):
        print("  per edit in the server (mean ms): " + ", ".join(f"{k} {v}" for k, v in res["stage_ms"].items()))
    if res.get("reopened"):
        r = res["reopened"]
        print(f"  reopened workspace (disk cache filled): first diagnostics {r['cold_start_s']:.2f} s, "
              f"whole draft {r['cold_start_whole_s']:.2f} s")
    print(f"  server memory: RSS {m['after_open']} MiB after open, {m['end']} MiB at end, peak {m['peak']} MiB")
    print(f"  diagnostics on the final version: {res['diagnostics']}"
          + (f" ({res['diagnostics_narrowed']} narrowed to the monitor's marks)" if res["monitor"] == "on" else ""))


if __name__ == "__main__":
    main()
