"""Batch checking of ``(id, text, context)`` pairs: ``faithlint check --pairs`` and corpus runs on Ray.

    >>> from faithlint.batch.engine import check_pairs
    >>> check_pairs(["shards/*.jsonl"], "out.jsonl", engine="ray", workers=2)   # doctest: +SKIP
    Summary(checked=200000, failed=3, skipped=0, failing=1804, loads=[4.9, 5.1])

Two engines write the same lines: ``local`` (this process, the default, no Ray needed) and ``ray`` (Ray Data:
``map_batches`` on a pool of actors that each load the models once; see docs/scale-out.md). Every output line
is made by :func:`check_line` from a row parsed by :func:`parse_pair`, in either engine, so a pair gives the
same bytes wherever it is checked.

Input: JSONL lines ``{"id", "text", "context": str | [str] | "context_files": [paths], "query"?}``.
``local`` validates every line before any model runs and stops at the first bad one (a one-line error);
``ray`` turns a bad line into an error line ``{"id", "error"}`` and goes on (a corpus job does not die on
line 3,141,592). With ``resume``, ids already in the output file are skipped and new lines appended.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from faithlint.batch.ray_engine import KILL_HOOK_ENV, RAY_MISSING, check_ray
from faithlint.batch.rows import (
    Progress,
    Summary,
    check_line,
    expand_inputs,
    is_remote,
    one_line,
    parse_pair,
    read_done,
    read_items,
)
from faithlint.errors import FaithlintError, InputError

PathLike = str | os.PathLike  # a shard, a glob, a folder or a URI (Ray)
__all__ = ["ENGINES", "KILL_HOOK_ENV", "RAY_MISSING", "Summary", "check_line", "check_pairs", "expand_inputs",
           "parse_pair", "read_done", "read_items"]

ENGINES = ("local", "ray")
BATCH_SIZE = 16  # rows per actor call: small enough that a retried batch (dead actor) loses little work


def check_pairs(inputs: PathLike | Sequence[PathLike], output: PathLike | None, *, config: Any = None,
                engine: str = "local", address: str | None = None, workers: int | None = None,
                gpus_per_worker: float = 0, cpus_per_worker: float = 1, resume: bool = False, progress: bool = True,
                allow_no_context: bool = False, batch_size: int = BATCH_SIZE,
                on_line: Callable[[str], None] | None = None) -> Summary:
    """Check JSONL shards of pairs into ``output`` (JSONL, one line per input line with its ``id``; None:
    stdout, local engine only), with ``engine="local"`` or ``"ray"``; see the module docstring.

    ``address``: the Ray cluster (``"auto"``, ``"ray://host:10001"``; None: the one this process is connected
    to, else what ``ray.init()`` finds: the cluster ``ray start`` started on this machine, else a new local
    one). ``workers``: actors (default: one per ``cpus_per_worker`` CPUs, or per ``gpus_per_worker`` GPUs, of
    the cluster). ``on_line``: called with each output line written (tests).
    """
    from faithlint.api import as_config

    if engine not in ENGINES:
        raise FaithlintError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    cfg = as_config(config)
    paths = expand_inputs([inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs))
    if not paths:
        raise InputError("no pairs files given")
    out_path = Path(output) if output is not None else None
    if out_path is None and (resume or engine == "ray"):
        raise FaithlintError(f"{'--resume' if resume else '--engine ray'} needs an output file (-o OUT.jsonl)")
    if out_path is not None:
        for p in paths:
            if not is_remote(p) and _same_file(Path(p), out_path):
                raise InputError(f"{out_path}: the output file is an input ({p}); faithlint never overwrites a "
                                 "pairs file: choose another -o path")
    done = read_done(out_path) if resume and out_path is not None else set()
    if engine == "ray":
        return check_ray(paths, out_path, cfg, done, address=address, workers=workers,  # type: ignore[arg-type]
                          gpus=gpus_per_worker, cpus=cpus_per_worker, progress=progress,
                          allow_no_context=allow_no_context, batch_size=batch_size, on_line=on_line)
    return _check_local(paths, out_path, cfg, done, progress=progress, allow_no_context=allow_no_context,
                        on_line=on_line)


def _check_local(paths: Sequence[str], output: Path | None, cfg: Any, done: set[str], *, progress: bool,
                 allow_no_context: bool, on_line: Callable[[str], None] | None) -> Summary:
    from faithlint.pipeline.linter import Linter

    for p in paths:
        if is_remote(p):
            raise InputError(f"{p}: the local engine reads local files; --engine ray reads {p.split(':')[0]}://")
    seen: set[str] = set()
    # every line is read and validated before any model runs, so a bad input fails fast (exit 2, one line)
    items = [it for p in paths for it in read_items(Path(p), cfg.max_file_size, allow_no_context, seen)]
    if not items:  # an empty batch must not pass CI as "0 findings"
        raise InputError(f"{', '.join(paths)}: no pairs to check (no JSON lines)")
    if output is not None:
        _refuse_context_as_output(output, [f for it in items for f in it["files"]])
    summary = Summary()
    todo = [it for it in items if it["id"] not in done]
    summary.skipped = len(items) - len(todo)
    linter = Linter(cfg)
    start = time.monotonic()
    if todo:
        linter.load()
    summary.loads.append(time.monotonic() - start)
    start = time.monotonic()
    prog = Progress(len(todo), progress)
    out = open(output, "a" if done else "w", encoding="utf-8") if output is not None else sys.stdout  # noqa: SIM115
    try:
        for item in todo:
            try:
                line, failing = check_line(item, linter)
            except (FaithlintError, KeyboardInterrupt):
                raise
            except Exception as exc:
                if os.environ.get("FAITHLINT_DEBUG"):
                    raise
                raise FaithlintError(f"{item['where']} (id {item['id']!r}): checking failed: {one_line(exc)}") \
                    from exc
            out.write(line + "\n")
            out.flush()
            summary.checked += 1
            summary.failing += failing
            if on_line:
                on_line(line)
            prog.advance(1)
    finally:
        prog.stop()
        if output is not None:
            out.close()
    summary.seconds = time.monotonic() - start
    return summary


def _same_file(a: Path, b: Path) -> bool:
    """The same file, symlinks and hard links included."""
    if a.resolve() == b.resolve():
        return True
    try:
        return b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_context_as_output(output: Path, files: Iterable[Path]) -> None:
    for f in files:
        if _same_file(Path(f), output):
            raise InputError(f"{output}: the output file is an input ({f}); faithlint never overwrites a draft or "
                             "its context: choose another -o path")
