"""The git revision a model or a benchmark figure was made from, for its provenance record."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_revision(cwd: str | Path, short: bool = True, mark_dirty: bool = False) -> str | None:
    """``git rev-parse [--short] HEAD`` in ``cwd`` (``-dirty`` appended when asked and the tree has changes), or
    None outside a git checkout or without git: a record says "unknown" rather than failing the run."""
    try:
        head = subprocess.run(["git", "rev-parse", *(["--short"] if short else []), "HEAD"], cwd=cwd,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = mark_dirty and bool(subprocess.run(["git", "status", "--porcelain"], cwd=cwd, capture_output=True,
                                                   text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "") if head else None
