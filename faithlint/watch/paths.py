"""Path tests the watcher makes on every event: normalising, "is it below", editor scratch files, git internals."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from faithlint.inputs.discovery import DRAFT_SUFFIXES, under

__all__ = ["CONFIG_NAMES", "DRAFT_SUFFIXES", "draft_display", "git_internal", "is_temp_name", "norm", "root_of",
           "under"]

CONFIG_NAMES: tuple[str, ...] = ("faithlint.toml", "pyproject.toml")
# Editor and tool scratch files: never drafts, and their events alone never matter.
_TEMP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".temp", ".bak", ".orig", ".crswap", "~", ".part",
                  "___jb_tmp___", "___jb_old___")


def norm(path: str | os.PathLike[str]) -> Path:
    """Absolute, normalised, symlinks kept (events arrive under the path we scheduled)."""
    return Path(os.path.normpath(os.path.abspath(os.fspath(path))))


def root_of(path: Path, roots: Iterable[Path]) -> Path | None:
    """The watched folder ``path`` lies in (itself included), or None."""
    for r in roots:
        if under(path, r):
            return r
    return None


def git_internal(path: str) -> bool:
    """Inside a ``.git`` folder (git's index and lock files churn on every status): only ``info/exclude`` counts."""
    parts = Path(path).parts
    return ".git" in parts and parts[-3:] != (".git", "info", "exclude")


def is_temp_name(name: str) -> bool:
    return (name.startswith((".#", "#", ".~")) or name.endswith(_TEMP_SUFFIXES) or name == "4913"
            or ".tmp" in name.split(".")[1:] and not name.endswith(DRAFT_SUFFIXES))


def draft_display(path: Path) -> str:
    """How a draft is named in messages and reports: relative to the cwd with ``/`` separators when below it.

    Not :func:`faithlint.inputs.context.display_path` on purpose: ``path`` is absolute and unresolved (a symlinked
    draft keeps its own name), the cwd is tried resolved first and then as given, and separators are always
    ``/`` (the name goes into the JSON reports).
    """
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        try:
            return path.relative_to(norm(Path.cwd())).as_posix()
        except ValueError:
            return str(path)
