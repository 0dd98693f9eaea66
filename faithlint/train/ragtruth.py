"""The RAGTruth split: training, calibration and development parts that never share a source.

``../shared/data/faithfulness/ragtruth_dev.jsonl`` holds several model responses per source (the same
question, article or business record). Responses to one source are alike, so a model trained or calibrated
on some of them would be measured on near-copies; every split here is therefore by ``source_id``.

Per task type (QA, summary, data-to-text) the sources are ordered by a SHA-256 of their id (stable across
runs, machines and Python versions, unlike ``hash``) and cut at 50 % / 15 % / 35 %: training, calibration,
development. Stratifying per task keeps each task's share the same in every part. Numbers are reported only
on the development part (``bench/eval_ragtruth.py``); training and calibration code read the other two.

    >>> from faithlint.train.ragtruth import part_rows
    >>> rows = part_rows("dev")          # doctest: +SKIP  (None when ../shared/data is absent)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

FILE = Path("faithfulness") / "ragtruth_dev.jsonl"
PARTS: dict[str, float] = {"train": 0.50, "calib": 0.15, "dev": 0.35}
TASKS = ("qa", "summary", "data-to-text")
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"  # ../shared/data from the repository root


def source_key(source_id: Any) -> str:
    """The stable sort key of a source (a hex SHA-256 of its id)."""
    return hashlib.sha256(f"ragtruth:{source_id}".encode()).hexdigest()


def assign(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, Any], str]:
    """``{(task, source_id): part}``: each task's sources in hash order, cut at the :data:`PARTS` proportions."""
    sources: dict[str, set[Any]] = {}
    for r in rows:
        sources.setdefault(r["task"], set()).add(r["source_id"])
    out: dict[tuple[str, Any], str] = {}
    for task, ids in sources.items():
        ordered = sorted(ids, key=source_key)
        n_train = round(len(ordered) * PARTS["train"])
        n_calib = round(len(ordered) * PARTS["calib"])
        for i, sid in enumerate(ordered):
            out[(task, sid)] = "train" if i < n_train else "calib" if i < n_train + n_calib else "dev"
    return out


def split(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of each part, in file order."""
    parts = assign(rows)
    out: dict[str, list[dict[str, Any]]] = {p: [] for p in PARTS}
    for r in rows:
        out[parts[(r["task"], r["source_id"])]].append(r)
    return out


def data_file(data: str | Path | None = None) -> Path | None:
    """The RAGTruth file under ``data`` (default ``../shared/data``), or None when it is absent."""
    path = Path(data or DEFAULT_DATA) / FILE
    return path if path.is_file() else None


def read_rows(data: str | Path | None = None) -> list[dict[str, Any]] | None:
    """All rows of the file, or None when it is absent."""
    path = data_file(data)
    if path is None:
        return None
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def part_rows(part: str, data: str | Path | None = None, task: str | None = None) -> list[dict[str, Any]] | None:
    """The rows of one part ("train", "calib" or "dev"), optionally of one task; None when the data is absent."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}: expected one of {', '.join(PARTS)}")
    if task is not None and task not in TASKS:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(TASKS)}")
    rows = read_rows(data)
    if rows is None:
        return None
    return [r for r in split(rows)[part] if task is None or r["task"] == task]


def rows_and_linter(part: str, limit: int = 0) -> tuple[list[dict[str, Any]], Any] | None:
    """The first ``limit`` rows (all: 0) of one part and a loaded default linter, for the training scripts that
    run responses through the pipeline; None (after saying so) when the data is absent."""
    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter

    rows = part_rows(part)
    if rows is None:
        print(f"skipped: ../shared/data/{FILE.as_posix()} is absent")
        return None
    linter = Linter(Config())
    linter.load()
    return (rows[:limit] if limit else rows), linter


def sizes(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """``{part: {task or "all": {sources, responses, hallucinated}}}`` of the split of ``rows``."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for part, prow in split(rows).items():
        out[part] = {}
        for task in (*TASKS, "all"):
            rs = [r for r in prow if task == "all" or r["task"] == task]
            out[part][task] = {"sources": len({(r["task"], r["source_id"]) for r in rs}), "responses": len(rs),
                               "hallucinated": sum(r["label"] == "hallucinated" for r in rs)}
    return out
