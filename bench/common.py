"""Shared helpers for the benchmark scripts (data location, sampling, tables)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT))

from faithlint.train.revision import git_revision  # noqa: E402,F401  (re-exported for the benchmarks' records)
from faithlint.train.splits import sample  # noqa: E402,F401  (the one deterministic sample; re-exported here)


def data_dir(path: str | None) -> Path:
    d = Path(path) if path else DATA
    if not d.is_dir():
        print(f"skipped: data folder {d} not found (pass --data)", file=sys.stderr)
        raise SystemExit(0)
    return d


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def table(header: list[str], rows: list[list[object]]) -> str:
    def fmt(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def save(name: str, obj: object) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(obj, indent=2))
    return path
