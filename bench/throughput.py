"""Checker CPU throughput (pairs/s at 128 and 256 tokens, batch 32) and load time.

Measures the bundled model as it runs by default (its chosen precision) and,
for comparison, the other precisions (fp32, bf16, int8). Threads: whatever torch uses by default on this machine.

    python bench/throughput.py
"""

from __future__ import annotations

import argparse
import os
import time

from common import save, table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="checker model (default: bundled)")
    args = ap.parse_args()
    import torch

    from faithlint.models.checkers.nli import NLIChecker
    from faithlint.train.training import pairs_per_second as pairs_per_s

    t = time.perf_counter()
    checker = NLIChecker(args.model)
    load_s = time.perf_counter() - t
    rows = []
    res = {"load_s": load_s, "threads": torch.get_num_threads(), "cpus": os.cpu_count(),
           "precision": checker.quantize or "fp32"}
    for length in (128, 256):
        res[f"pairs_per_s_{length}"] = pairs_per_s(checker.model, length, bf16=checker.autocast)
    rows.append([res["precision"] + " (default)", res["pairs_per_s_128"], res["pairs_per_s_256"]])
    others = [p for p in ("fp32", "bf16", "int8") if p != res["precision"]]
    for precision in others:
        other = NLIChecker(args.model, quantize=precision)
        for length in (128, 256):
            res[f"{precision}_pairs_per_s_{length}"] = pairs_per_s(other.model, length, bf16=other.autocast)
        rows.append([precision, res[f"{precision}_pairs_per_s_128"], res[f"{precision}_pairs_per_s_256"]])
    save("throughput.json", res)
    print(table(["precision", "pairs/s @128 tok", "pairs/s @256 tok"], rows))
    print(f"load time {load_s:.2f} s (bundled: includes sha256 check); torch threads {res['threads']}")


if __name__ == "__main__":
    main()
