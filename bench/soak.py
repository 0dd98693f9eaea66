"""Language server soak: many edits with diagnostics after each; RSS growth and latency over time.

    python bench/soak.py [--edits 1000] [--window 100] [--draft-words 600] [--context-words 3000] [--model PATH]

Starts ``python -m faithlint serve`` over stdio (``debounce = 0``), opens a generated draft with its
sibling context (the texts of bench/lsp_latency.py), waits for the whole first check, then makes
``--edits`` edits -- mostly a year changed in one sentence, every tenth a sentence appended and, five
edits later, removed again, so the draft's size stays level -- each waiting for the diagnostics of its
version. Every ``--window`` edits it prints the server's resident memory (VmRSS, /proc) and the
didChange -> publishDiagnostics latency p50/p95 of that window; at the end, RSS growth from the
first window to the last (issue 17: under 10 % over 1,000 edits).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_latency import Bench, rss, workspace  # noqa: E402

from faithlint.server.text import DocumentIndex  # noqa: E402

YEAR = re.compile(r"\b(19|20)\d\d\b")
EXTRA = "\n\nThe harbour run by Atlas Labs won an award in 2011, having spent $4.2 million across 7 projects."


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def next_edit(text: str, i: int, rng: random.Random) -> tuple[int, int, str]:
    """(start, end, new text) of edit ``i``: a year, or the extra sentence appended / removed."""
    if i % 10 == 0 and EXTRA not in text:
        return len(text), len(text), EXTRA
    if i % 10 == 5 and EXTRA in text:
        a = text.index(EXTRA)
        return a, a + len(EXTRA), ""
    m = rng.choice(list(YEAR.finditer(text)))
    return m.start(), m.end(), str(rng.randint(1990, 2024))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp, draft, draft_text, init = workspace(args, "faithlint-soak-")
    b = Bench()
    pid, uri = await b.start_and_open(args.server, tmp, init, draft, draft_text)
    await b.wait_version(1, args.timeout)
    while not (await b.status())["documents"].get(uri, {}).get("complete"):
        await asyncio.sleep(0.05)

    rng = random.Random(17)
    text = draft_text
    windows: list[dict[str, Any]] = []
    latencies: list[float] = []
    t0 = time.perf_counter()
    for i in range(args.edits):
        version = i + 2
        a, z, new = next_edit(text, i, rng)
        change = types.TextDocumentContentChangePartial(range=DocumentIndex(text).range(a, z), text=new)
        text = text[:a] + new + text[z:]
        sent = time.perf_counter()
        b.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))
        latencies.append((await b.wait_version(version, args.timeout)) - sent)
        b.published.pop(version - 1, None)  # the client's own bookkeeping must not grow either
        b.latest.pop(version - 1, None)
        if (i + 1) % args.window == 0 or i + 1 == args.edits:
            ms = [x * 1000 for x in latencies]
            row = {"edits": i + 1, "rss_mib": rss(pid).get("VmRSS"), "p50_ms": round(pct(ms, 50), 1),
                   "p95_ms": round(pct(ms, 95), 1), "elapsed_s": round(time.perf_counter() - t0, 1)}
            windows.append(row)
            latencies = []
            if not args.json:
                print(f"  {row['edits']:>5} edits  RSS {row['rss_mib']:.1f} MiB  p50 {row['p50_ms']} ms  "
                      f"p95 {row['p95_ms']} ms  ({row['elapsed_s']} s)", flush=True)
    final = (await b.status())["documents"].get(uri, {})
    await b.client.shutdown_async(None)
    b.client.exit(None)
    await b.client.stop()
    first, last = windows[0]["rss_mib"], windows[-1]["rss_mib"]
    context_words = len((tmp / "report.context.md").read_text().split())
    return {"edits": args.edits, "draft_words": len(draft_text.split()), "context_words": context_words,
            "model": args.model or "bundled default", "windows": windows,
            "rss_growth_pct": round(100 * (last - first) / first, 2) if first and last else None,
            "final_version_checked": final.get("version") == args.edits + 1}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--edits", type=int, default=1000)
    p.add_argument("--window", type=int, default=100, help="edits per reported window")
    p.add_argument("--draft-words", type=int, default=600)
    p.add_argument("--context-words", type=int, default=3000)
    p.add_argument("--model", help="model folder or id (default: the bundled model)")
    p.add_argument("--server", nargs="+", default=[sys.executable, "-m", "faithlint", "serve"],
                   help="server command (default: python -m faithlint serve)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for any one set of diagnostics")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = p.parse_args()
    if not args.json:
        print(f"faithlint LSP soak: {args.edits} edits, diagnostics after each, debounce 0")
    res = asyncio.run(run(args))
    if args.json:
        print(json.dumps(res))
        return
    print(f"  RSS growth first window -> last: {res['rss_growth_pct']} %; last version checked: "
          f"{res['final_version_checked']}")


if __name__ == "__main__":
    main()
