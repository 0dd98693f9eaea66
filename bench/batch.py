"""Batch mode on 200 drafts: sentences checked per second and peak memory.

Runs ``faithlint check --pairs FILE --format jsonl`` in a subprocess (models
load once for the whole file) on 200 drafts with their contexts: QAGS and
SummEdits rows from ../shared/data when present, otherwise variations of the
example in examples/rag-answer.

    python bench/batch.py
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import DATA, ROOT, read_jsonl, sample, save


def drafts(n: int) -> list[dict]:
    rows: list[dict] = []
    if DATA.is_dir():
        for name in ("qags_cnndm", "qags_xsum", "summedits_news", "summedits_samsum"):
            rows += [{"text": r["text"], "context": [r["context"]]}
                     for r in read_jsonl(DATA / "faithfulness" / f"{name}.jsonl")]
        rows = sample(rows, n)
    else:
        ex = ROOT / "examples" / "rag-answer"
        ctx = (ex / "answer.context.md").read_text()
        text = (ex / "answer.md").read_text().split("---", 2)[-1]
        rows = [{"text": text, "context": [ctx]} for _ in range(n)]
    return [{"id": f"d{i:03d}", **r} for i, r in enumerate(rows[:n])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--out", default="batch.json", help="result file in bench/results")
    ap.add_argument("check_args", nargs="*", help="extra `faithlint check` arguments after --, e.g. -- --model DIR")
    args = ap.parse_args()
    items = drafts(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "pairs.jsonl"
        src.write_text("".join(json.dumps(x) + "\n" for x in items))
        out = Path(tmp) / "out.jsonl"
        t = time.time()
        proc = subprocess.run([sys.executable, "-m", "faithlint", "check", "--pairs", str(src), "--format", "jsonl",
                               "-o", str(out), "--fail-on", "never", *args.check_args], capture_output=True, text=True)
        elapsed = time.time() - t
        if proc.returncode != 0:
            sys.exit(f"faithlint failed ({proc.returncode}): {proc.stderr.strip()}")
        lines = [json.loads(x) for x in out.read_text().splitlines()]
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    n_sent = sum(len(x["sentences"]) for x in lines)
    res = {"drafts": len(lines), "sentences": n_sent, "wall_s": elapsed, "sentences_per_s": n_sent / elapsed,
           "peak_rss_mb": peak_mb, "source": "shared/data" if DATA.is_dir() else "examples"}
    res["check_args"] = args.check_args
    save(args.out, res)
    print(f"{len(lines)} drafts, {n_sent} sentences in {elapsed:.1f} s (incl. model load): "
          f"{n_sent / elapsed:.1f} sentences/s; peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
