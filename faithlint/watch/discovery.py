"""Which files ``faithlint watch`` treats as drafts, and finding them all below the watched folders.

Drafts are found as ``faithlint check FOLDER`` finds them (:mod:`faithlint.inputs.discovery`: ``.md``/``.markdown``/
``.mdx``/``.txt``, not hidden below the folder, not context files, not ignored by ``.gitignore``), narrowed by
``--include`` / ``--exclude`` globs (relative to the watched folder, ``**`` spans folders) and without editors'
scratch files or the report folder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from faithlint.inputs.context import display_path
from faithlint.inputs.discovery import DRAFT_SUFFIXES, IgnoreRules, skipped_below, under, walk_drafts
from faithlint.inputs.pairing import match_glob
from faithlint.watch.paths import is_temp_name, root_of


class DraftFinder:
    """The draft test and the folder walk; ``once(key, message)`` reports a problem once (unreadable folders)."""

    def __init__(self, roots: Sequence[Path], report_dir: Path | None, ignore: IgnoreRules, *,
                 include: Sequence[str], exclude: Sequence[str], once: Callable[[str, str], None]) -> None:
        self.roots = roots
        self.report_dir = report_dir
        self.ignore = ignore
        self.include = include
        self.exclude = exclude
        self._once = once

    def in_report_dir(self, path: Path) -> bool:
        return self.report_dir is not None and under(path, self.report_dir)

    def is_draft(self, path: Path) -> bool:
        """Would ``path`` (existing or not) be watched as a draft? A path test (plus cached .gitignore reads)."""
        root = root_of(path, self.roots)
        if root is None or path == root or self.in_report_dir(path):
            return False
        if path.suffix.lower() not in DRAFT_SUFFIXES or is_temp_name(path.name):
            return False
        rel = path.relative_to(root)
        if skipped_below(rel) or any(part.endswith((".context", ".sources")) for part in rel.parts[:-1]):
            return False
        posix = rel.as_posix()

        def matches(glob: str) -> bool:  # like .gitignore: a glob without "/" matches the name at any depth
            return match_glob(posix, glob) if "/" in glob.rstrip("/") else match_glob(rel.name, glob)

        if self.include and not any(matches(g) for g in self.include):
            return False
        if any(matches(g) for g in self.exclude):
            return False
        return not self.ignore.ignored(path)

    def scan(self) -> set[Path]:
        """Every draft below the roots now (symlinked folders are not followed: no loops)."""
        found: set[Path] = set()
        def onerror(exc: OSError) -> None:
            where = exc.filename or "?"
            why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
            self._once(f"walk:{where}", f"cannot read folder {display_path(Path(where))}: {why} (skipped)")

        for root in self.roots:
            found.update(p for p in walk_drafts(root, self.ignore, skip_dir=self.in_report_dir, onerror=onerror)
                         if self.is_draft(p))
        return found
