"""Corpus checking on Ray: pairs/s with ``--engine local`` and ``--engine ray`` (1 and 2 workers), model load per actor.

The same N drafts as bench/batch.py (QAGS and SummEdits rows from ../shared/data when present, otherwise the
example in examples/rag-answer), checked by :func:`faithlint.batch.engine.check_pairs` with each engine; every Ray run
starts its own local Ray runtime on this machine (``ray.init()``: all its CPUs), as ``faithlint check --engine
ray`` without ``--address`` does. Outputs are compared line for line with the local engine's.

    python bench/ray_throughput.py [-n 200]

wall: end to end (Ray start, actor starts and model loads included); after load: the rows over the time after
the slowest model load (local: after its one load).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from batch import drafts
from common import DATA, save, table

from faithlint.batch.engine import check_pairs

RUNS = [("local", None, 1.0), ("ray", 1, 1.0), ("ray", 2, 1.0), ("ray", 1, 2.0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--out", default="ray_throughput.json", help="result file in bench/results")
    args = ap.parse_args()
    items = drafts(args.n)
    rows, results = [], []
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "pairs.jsonl"
        src.write_text("".join(json.dumps(x) + "\n" for x in items))
        reference = None
        for engine, workers, cpus in RUNS:
            out = Path(tmp) / f"{engine}-{workers}-{cpus}.jsonl"
            t = time.time()
            s = check_pairs(src, out, engine=engine, workers=workers, cpus_per_worker=cpus, progress=False,
                            config={"fail_on": "never"})
            wall = time.time() - t
            text = out.read_text(encoding="utf-8")
            reference = reference or text
            after = s.seconds - (max(s.loads) if engine == "ray" and s.loads else 0.0)
            name = "local (1 process)" if engine == "local" else \
                f"ray, {workers} worker{'s' if workers > 1 else ''} x {cpus:g} CPU"
            r = {"engine": engine, "workers": workers, "cpus_per_worker": cpus if engine == "ray" else None,
                 "pairs": s.checked, "failed": s.failed, "wall_s": wall, "pairs_per_s_wall": s.checked / wall,
                 "pairs_per_s_after_load": s.checked / after if after > 0 else None, "model_load_s": s.loads,
                 "same_output_as_local": text == reference}
            results.append(r)
            rows.append([name, s.checked, f"{wall:.1f}", f"{r['pairs_per_s_wall']:.2f}",
                         f"{r['pairs_per_s_after_load']:.2f}" if r["pairs_per_s_after_load"] else "-",
                         ", ".join(f"{x:.1f}" for x in s.loads), "yes" if r["same_output_as_local"] else "NO"])
            print(rows[-1], flush=True)
    print(table(["engine", "pairs", "wall s", "pairs/s (wall)", "pairs/s (after load)", "model load s per actor",
                 "output = local"], rows))
    path = save(args.out, {"n": args.n, "source": "shared/data" if DATA.is_dir() else "examples",
                           "cpus": os.cpu_count(), "runs": results})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
