"""Refusing files that are not regular files, before anything opens them.

Opening a FIFO for reading blocks until some writer opens it, and a character device may never
end; either would hang ``check``, the watcher or the language server for good. Every path a
draft, context, query, pairs or config file is read from goes through :func:`require_regular`
first (:func:`faithlint.inputs.context.read_text` only bounds how much it reads, after opening).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from faithlint.errors import InputError
from faithlint.types import ContextDoc

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def non_regular_kind(path: Path) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a folder (symlinks followed), else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None  # missing, a symlink loop, no permission: the reader reports those in its own words
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def require_regular(path: Path, what: str = "file") -> None:
    """Raise a one-line InputError when ``path`` is a FIFO, socket or device rather than a regular file."""
    kind = non_regular_kind(Path(path))
    if kind is not None:
        raise InputError(f"{path}: is {kind}, not a regular file; faithlint reads only regular {what}s")


def require_regular_context(paths: Iterable[Path]) -> None:
    """:func:`require_regular` for context paths, looking inside folders the way context loading does."""
    from faithlint.inputs.context import CONTEXT_EXTENSIONS

    for given in paths:
        given = Path(given)
        if not given.is_dir():
            require_regular(given, "context file")
            continue
        for root, dirs, files in os.walk(given):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if not name.startswith(".") and os.path.splitext(name)[1].lower() in CONTEXT_EXTENSIONS:
                    require_regular(Path(root) / name, "context file")


def load_context_checked(paths: Sequence[Path], max_bytes: int) -> list[ContextDoc]:
    """:func:`faithlint.inputs.context.load_context` after :func:`require_regular_context`, naming the file when a
    JSON context is nested deeper than the parser's recursion limit (a one-line error, not a RecursionError)."""
    from faithlint.inputs.context import expand_folder, load_context

    require_regular_context(paths)
    try:
        return load_context(list(paths), max_bytes)
    except RecursionError:
        pass
    for given in paths:
        for f in (expand_folder(Path(given)) if Path(given).is_dir() else [Path(given)]):
            try:
                load_context([f], max_bytes)
            except RecursionError:
                raise InputError(f"{f}: nested too deeply to read (more levels than the JSON reader allows)") from None
    raise InputError("context nested too deeply to read")
