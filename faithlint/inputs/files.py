"""Refusing files that are not regular files, before anything opens them.

Opening a FIFO for reading blocks until some writer opens it, and a character device may never
end; either would hang ``check``, the watcher or the language server for good. Every path a
draft, context, query, pairs or config file is read from goes through :func:`require_regular`
first (:func:`faithlint.inputs.context.read_text` only bounds how much it reads, after opening).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from faithlint.errors import InputError

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
