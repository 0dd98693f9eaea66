"""Checker speed: the torch path against ONNX Runtime (fp32 and int8) and OpenVINO (fp32 and bf16, where
installed), interleaved in one run.

- pairs/s of ``score_pairs`` (tokenisation included) on real text pairs of about 128 and 256 tokens;
- ms per response: a whole ``Linter.check`` (evidence selection with the embedding model, the checker, the
  rules) on examples/rag-answer and a few development rows, caches cleared between repetitions;
- cold start: ``faithlint check examples/rag-answer/answer.md`` in a fresh process (imports and model loads).

Every variant is measured in turn within each repetition, so a machine shared with other jobs slows them
alike; the table reports medians and the ratio to torch fp32. Threads: the checkers' defaults (``threads``
config / $FAITHLINT_THREADS; torch: its own default).

    python bench/onnx_speed.py               # writes bench/results/onnx_speed.json
    python bench/onnx_speed.py --reps 3 --no-cold
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import DATA, ROOT, read_jsonl, save, table

EXAMPLE = ROOT / "examples" / "rag-answer"
DEV_FILES = ("halueval_qa_dev", "frank_dev", "q2_dev", "rotowire_accuracy_dev")


HYP = "The project cost $25 million and was funded by a city bond that voters approved in 2021."


def pairs_of_length(checker, tokens: int, n: int, context: str | None = None) -> tuple[list[str], list[str]]:
    """``n`` (premise, hypothesis) pairs of about ``tokens`` tokens together, cut from ``context`` (default: the
    example's)."""
    ctx = context if context is not None else (EXAMPLE / "answer.context.md").read_text()
    words = (ctx.replace("\n", " ") + " ") * 20
    words = words.split()
    hyp = HYP
    room = tokens - 3 - checker.count_tokens([hyp])[0]
    premises = []
    for i in range(n):
        start = (i * 7) % 200
        lo, hi = 1, 600
        while lo < hi:  # the longest run of words from ``start`` that fits ``room``
            mid = (lo + hi + 1) // 2
            if checker.count_tokens([" ".join(words[start:start + mid])])[0] <= room:
                lo = mid
            else:
                hi = mid - 1
        premises.append(" ".join(words[start:start + lo]))
    return premises, [hyp] * n


def responses() -> list[tuple[str, str, str, str | None]]:
    """(name, draft, context, query): the example and one row from each of a few development files."""
    out = [("rag-answer", (EXAMPLE / "answer.md").read_text(), (EXAMPLE / "answer.context.md").read_text(), None)]
    for name in DEV_FILES:
        path = DATA / "faithfulness" / f"{name}.jsonl"
        if path.exists():
            rows = [r for r in read_jsonl(path)[:50] if 200 < len(r["text"]) < 1500] or read_jsonl(path)[:1]
            r = rows[0]
            out.append((name, r["text"], r["context"], r.get("query")))
    return out


def cold_start(runtime: str) -> float:
    cfg = Path(os.environ.get("TMPDIR", "/tmp")) / f"faithlint-speed-{runtime}.toml"
    cfg.write_text(f'runtime = "{runtime}"\n')
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "faithlint", "check", str(EXAMPLE / "answer.md"), "--config", str(cfg),
                    "--format", "json", "--fail-on", "never"], check=True, capture_output=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=64, help="pairs per timed call")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-start runs")
    args = ap.parse_args()

    import torch

    from faithlint.config import Config
    from faithlint.evidence.relevance import EmbeddingRelevance, OnnxEmbeddingRelevance
    from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR, NLIChecker
    from faithlint.models.checkers.onnx_checker import (
        ONNXChecker,
        available_precisions,
        resolve_threads,
        why_not_openvino,
    )
    from faithlint.models.checkers.openvino_checker import OpenVINOChecker
    from faithlint.pipeline.linter import Linter
    from faithlint.types import ContextDoc

    variants = {"torch fp32": (NLIChecker(None, quantize="fp32"), EmbeddingRelevance())}
    onnx_rel = OnnxEmbeddingRelevance()
    have = available_precisions(DEFAULT_MODEL_DIR)
    for p in ("fp32", "int8"):
        if p in have:
            variants[f"onnx {p}"] = (ONNXChecker(None, precision=p), onnx_rel)
    runtimes = ["torch", "onnx"]
    if why_not_openvino(None, "cpu") is None:
        runtimes.append("openvino")
        for p in ("fp32", "bf16"):
            variants[f"openvino {p}"] = (OpenVINOChecker(None, precision=p), onnx_rel)
    variants["torch int8"] = (NLIChecker(None, quantize="int8"), variants["torch fp32"][1])
    names = list(variants)
    sets = {n: pairs_of_length(variants["torch fp32"][0], n, args.pairs) for n in (128, 256)}
    docs = responses()
    times: dict[str, dict[str, list[float]]] = {v: {} for v in names}
    for checker, rel in variants.values():  # warm-up: first calls allocate, spaCy and the rules load
        checker.score_pairs(*[x[:4] for x in sets[128]])
        Linter(Config(), checker=checker, relevance=rel).check(docs[0][1], [ContextDoc("context", docs[0][2])])
    for _ in range(args.reps):
        for length, (prem, hyp) in sets.items():
            for v in names:
                t = time.perf_counter()
                variants[v][0].score_pairs(prem, hyp)
                times[v].setdefault(f"pairs_per_s_{length}", []).append(len(prem) / (time.perf_counter() - t))
        for name, draft, context, query in docs:
            for v in names:
                checker, rel = variants[v]
                rel._cache.clear()
                linter = Linter(Config(), checker=checker, relevance=rel)
                t = time.perf_counter()
                linter.check(draft, [ContextDoc("context", context)], query=query, markdown=name == "rag-answer")
                times[v].setdefault(f"ms_{name}", []).append(1000 * (time.perf_counter() - t))
    cold: dict[str, list[float]] = {}
    if not args.no_cold:
        for _ in range(2):
            for runtime in runtimes:
                cold.setdefault(runtime, []).append(cold_start(runtime))
    med = {v: {k: statistics.median(x) for k, x in m.items()} for v, m in times.items()}
    keys = list(med[names[0]])
    rows = []
    for v in names:
        rows.append([v] + [f"{med[v][k]:.1f} ({med[v][k] / med['torch fp32'][k]:.2f}x)" for k in keys])
    result = {"median": med, "all": times, "reps": args.reps, "pairs_per_call": args.pairs,
              "cpus": len(os.sched_getaffinity(0)), "onnx_threads": resolve_threads(0),
              "torch_threads": torch.get_num_threads(),
              "cold_start_s": {k: statistics.median(x) for k, x in cold.items()}, "cold_all": cold,
              "responses": [d[0] for d in docs]}
    save("onnx_speed.json", result)
    print(table(["variant"] + keys, rows))
    print("ratios: value / torch fp32's (pairs/s: higher is faster; ms: lower is faster)")
    if cold:
        print("cold start (faithlint check on the example, new process): " +
              ", ".join(f"{k} {statistics.median(x):.2f} s" for k, x in cold.items()))


if __name__ == "__main__":
    main()
