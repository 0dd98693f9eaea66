"""Shared helpers for the benchmark scripts (data location, sampling, tables)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT))

from faithlint.train.revision import git_revision  # noqa: E402,F401  (re-exported for the benchmarks' records)
from faithlint.train.splits import sample  # noqa: E402,F401  (the one deterministic sample; re-exported here)


@dataclass(frozen=True)
class SentencePoint(Mapping[str, float]):
    """The point calibrate.py searches, by the names its records use (``contradiction`` = FL100's threshold,
    ``unsupported`` FL200's, ``low`` FL300's, ``values`` FL400's); read by code like the linter's
    :class:`~faithlint.rules.operating_point.OperatingPoint` (``point["FL200"]``)."""

    contradiction: float
    unsupported: float
    low: float = 0.0
    values: float = 1.0
    CODES: ClassVar[dict[str, str]] = {"FL100": "contradiction", "FL200": "unsupported", "FL300": "low",
                                       "FL400": "values"}

    @classmethod
    def of(cls, point: Mapping[str, float]) -> SentencePoint:
        """The linter's point (by code) under the record's names."""
        return cls(**{name: point[code] for code, name in cls.CODES.items() if code in point})

    def __getitem__(self, code: str) -> float:
        return getattr(self, self.CODES[code])

    def __iter__(self) -> Iterator[str]:
        return iter(self.CODES)

    def __len__(self) -> int:
        return len(self.CODES)


@dataclass(frozen=True)
class ClaimPoint(SentencePoint):
    """A claim point (``contradiction`` = FL110's threshold, ``unsupported`` FL210's)."""

    CODES: ClassVar[dict[str, str]] = {"FL110": "contradiction", "FL210": "unsupported"}


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
