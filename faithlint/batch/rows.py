"""Rows in and out of a pairs batch, the same for every engine (:mod:`faithlint.batch.engine`): an input line parsed
into a pair, the output line of a checked pair or of a failed one, shard paths, the ids of a half-written output
(resume), and the progress line."""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faithlint.errors import InputError
from faithlint.types import SEVERITY_RANK

PLAIN_EVERY_S = 30.0  # progress line interval when stderr is not a terminal


@dataclass
class Summary:
    """What a batch run did. ``checked``: result lines written; ``failed``: error lines written (a bad input
    line, or checking raised); ``skipped``: rows already in the output (``resume``); ``failing``: checked rows
    with a finding at or above ``fail_on``; ``loads``: model-load seconds of each actor start (Ray: one per
    actor, plus one per restart; local: the one load of this process)."""

    checked: int = 0
    failed: int = 0
    skipped: int = 0
    failing: int = 0
    loads: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        rate = f", {self.checked / self.seconds:.1f} rows/s" if self.seconds > 0 and self.checked else ""
        return f"{self.checked} checked, {self.failed} failed, {self.skipped} skipped{rate}"


# ---------------------------------------------------------------------------------------------- one row
def parse_pair(line: str, where: str, base: Path, max_bytes: int, allow_no_context: bool = False) -> dict[str, Any]:
    """One input line as ``{id, text, context, query, files}`` or an InputError starting with ``where``.
    ``base``: the folder relative ``context_files`` are read from (the pairs file's)."""
    from faithlint.inputs.context import load_context
    from faithlint.inputs.structured import context_from_string
    from faithlint.types import ContextDoc

    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{where}: invalid JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object")
    if "id" not in obj or not isinstance(obj.get("text"), str):
        raise InputError(f"{where}: needs 'id' and a string 'text'")
    ident = str(obj["id"])
    if not obj["text"].strip():
        raise InputError(f"{where}: id {ident!r} has an empty 'text'")
    ctx: list[ContextDoc] = []
    paths: list[Path] = []
    if "context" in obj:
        c = obj["context"]
        if isinstance(c, str):
            c = [c]
        if not isinstance(c, list) or not all(isinstance(x, str) for x in c):
            raise InputError(f"{where}: 'context' must be a string or a list of strings")
        ctx = [context_from_string(f"{ident}#context[{i}]", x) for i, x in enumerate(c)]  # JSON: verbalised
    if "context_files" in obj:
        files = obj["context_files"]
        if not isinstance(files, list) or not all(isinstance(x, str) for x in files):
            raise InputError(f"{where}: 'context_files' must be a list of paths")
        paths = [(base / f) if not Path(f).is_absolute() else Path(f) for f in files]
        ctx += load_context(paths, max_bytes)
    query = obj.get("query")
    if query is not None and not isinstance(query, str):
        raise InputError(f"{where}: 'query' must be a string")
    if not ctx and not allow_no_context:
        raise InputError(f"{where}: id {ident!r} has no context")
    return {"id": ident, "text": obj["text"], "context": ctx, "query": query, "files": paths}


def line_id(line: str, fallback: str) -> str:
    """The id of an input line as its output line will carry it (``fallback`` when the line has none)."""
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return fallback
    return str(obj["id"]) if isinstance(obj, dict) and "id" in obj else fallback


def check_line(item: dict[str, Any], linter: Any) -> tuple[str, bool]:
    """The output line (JSON, no newline) of a parsed pair, and whether it fails ``fail_on``."""
    from faithlint import api
    from faithlint.report.records import result_to_dict

    res = api.check(item["text"], item["context"], id=item["id"], query=item["query"], markdown=False,
                    linter=linter)
    return json.dumps(result_to_dict(res), ensure_ascii=False), _fails(res.findings, linter.config.fail_on)


def error_line(ident: str, message: str) -> str:
    return json.dumps({"id": ident, "error": message}, ensure_ascii=False)


def _fails(findings: Iterable[Any], fail_on: str) -> bool:
    if fail_on == "never":
        return False
    floor = SEVERITY_RANK[fail_on]
    return any(SEVERITY_RANK.get(f.severity, 0) >= floor for f in findings)


def one_line(exc: BaseException) -> str:
    """An unexpected exception as one short line for an error row: its type and message."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


# ---------------------------------------------------------------------------------------------- inputs
def is_remote(path: str) -> bool:
    """A URI (``s3://...``) that Ray Data reads, not a local path."""
    return "://" in path and not path.startswith("file://")


def expand_inputs(inputs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Shard paths in order: local globs and folders (their ``*.jsonl``) expanded and sorted; a URI
    (``s3://...``) is passed on as given, for Ray Data to read."""
    out: list[str] = []
    for given in inputs:
        s = os.fspath(given)
        if is_remote(s):
            out.append(s)
            continue
        if s.startswith("file://"):
            s = s[len("file://"):]
        if glob.has_magic(s):
            found = sorted(p for p in glob.glob(s, recursive=True) if Path(p).is_file())
            if not found:
                raise InputError(f"{s}: no files match")
            out.extend(found)
        elif Path(s).is_dir():
            found = sorted(str(p) for p in Path(s).rglob("*.jsonl") if p.is_file())
            if not found:
                raise InputError(f"{s}: no .jsonl files in this folder")
            out.extend(found)
        else:
            out.append(s)
    seen: set[str] = set()
    return [p for p in out if not (os.path.abspath(p) in seen or seen.add(os.path.abspath(p)))]


def read_items(path: Path, max_bytes: int, allow_no_context: bool = False,
               seen: set[str] | None = None) -> Iterator[dict[str, Any]]:
    """The pairs of one JSONL file, validated (the first bad line is an InputError naming it and its line)."""
    from faithlint.inputs.context import read_text
    from faithlint.inputs.files import require_regular

    require_regular(path, "pairs file")
    raw = read_text(path, max_bytes=max(max_bytes, 1 << 30))
    seen = set() if seen is None else seen
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        item = parse_pair(line, where, path.parent, max_bytes, allow_no_context)
        if item["id"] in seen:
            raise InputError(f"{where}: duplicate id {item['id']!r}")
        seen.add(item["id"])
        item["line"] = n
        item["where"] = where
        yield item


def read_done(output: Path) -> set[str]:
    """Ids already in an output file (``resume``). A last line cut off by an interruption (no newline, or not
    JSON) is removed from the file, so appending starts on a fresh line."""
    try:
        data = output.read_bytes()
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise InputError(f"{output}: cannot read it to resume ({exc.strerror or exc})") from None
    keep = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
    done: set[str] = set()
    lines = keep.decode("utf-8", errors="replace").split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict) or "id" not in obj:
            if n >= len(lines) - 1:  # the last complete-looking line, half written: drop it too
                keep = keep[: keep.rstrip(b"\n").rfind(b"\n") + 1]
                break
            raise InputError(f"{output}: line {n} is not a faithlint JSONL line; cannot resume into it")
        done.add(str(obj["id"]))
    if len(keep) != len(data):
        with output.open("r+b") as fh:
            fh.truncate(len(keep))
    return done


# ---------------------------------------------------------------------------------------------- progress
class Progress:
    """Rows done, rows/s and ETA on stderr: a live bar on a terminal, a plain line every 30 s otherwise."""

    def __init__(self, total: int | None, enabled: bool, done: int = 0) -> None:
        self.total, self.n, self.start = total, 0, time.monotonic()
        self.skipped = done
        self.enabled = enabled and (total is None or total > 1)
        self.bar: Any = None
        self.last = self.start
        if self.enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                                transient=True, console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task("checking", total=total, rate="")

    def advance(self, rows: int) -> None:
        self.n += rows
        if not self.enabled:
            return
        now = time.monotonic()
        rate = self.n / max(now - self.start, 1e-9)
        if self.bar is not None:
            self.bar.update(self.task, advance=rows, rate=f"{rate:.1f} rows/s")
        elif now - self.last >= PLAIN_EVERY_S:
            self.last = now
            of = f"/{self.total}" if self.total else ""
            eta = ""
            if self.total and rate > 0:
                left = int((self.total - self.n) / rate)
                eta = f", ETA {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"
            print(f"faithlint: {self.n}{of} rows, {rate:.1f} rows/s{eta}", file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def mean_row_bytes(paths: Sequence[str]) -> float:
    """Mean bytes of a row in Ray Data (its line plus the other columns), from the local shards' sizes and
    line counts (16 KiB when no shard is local)."""
    size = lines = 0
    for p in paths:
        if is_remote(p):
            continue
        try:
            with open(p, "rb") as fh:
                for line in fh:
                    size += len(line)
                    lines += 1
        except OSError:
            continue
    return size / lines + 64 if lines else 16 << 10


def count_rows(paths: Sequence[str], done: set[str]) -> int | None:
    """Rows left to check, for the ETA (None when a shard is not a local file)."""
    total = 0
    for p in paths:
        if is_remote(p):
            return None
        try:
            with open(p, encoding="utf-8-sig", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if line.strip() and (not done or line_id(line, f"{Path(p).name}:{n}") not in done):
                        total += 1
        except OSError:
            return None
    return total
