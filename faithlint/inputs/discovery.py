"""Which files are drafts, and finding them below a folder: the one walk of ``check``, ``fix`` and ``watch``.

Drafts are ``.md``/``.markdown``/``.mdx``/``.txt`` files. Below the folder given (never the folder itself nor
anything above it, so ``check ..`` and a folder inside ``.hidden/`` work) hidden names, context files
(``*.context.*``, anything in ``*.context/`` or ``*.sources/``) and whatever ``.gitignore`` files ignore are
skipped. ``.gitignore`` follows git's rules via ``pathspec``: nested files, negation, ``.git/info/exclude``, from
the top of the git work tree that holds the folder. A file named explicitly is always a draft (as in ruff).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from faithlint.inputs.files import non_regular_kind
from faithlint.inputs.pairing import is_context_file

DRAFT_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".mdx", ".txt")


def under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def skipped_below(rel: Path) -> bool:
    """Is ``rel`` (a path relative to the folder given) hidden or a context file, so never found as a draft?"""
    return any(part.startswith(".") for part in rel.parts) or is_context_file(rel)


class IgnoreRules:
    """``.gitignore`` semantics (nested files, negation, ``.git/info/exclude``) via ``pathspec``, for paths below
    ``roots`` (absolute, normalised). The roots themselves and their parent folders are never ignored: they
    were given.

    Without ``pathspec`` installed nothing is ignored (:attr:`available` says so).
    """

    def __init__(self, roots: Sequence[Path], enabled: bool = True) -> None:
        self.enabled = enabled
        self.available = True
        try:
            import pathspec  # noqa: F401
        except ImportError:
            self.available = False
        self.roots = list(roots)
        self._tops = {root: self._git_top(root) for root in self.roots}
        self._specs: dict[Path, Any] = {}
        self._dir_cache: dict[Path, bool] = {}

    @property
    def active(self) -> bool:
        return self.enabled and self.available

    @staticmethod
    def _git_top(root: Path) -> Path:
        for folder in (root, *root.parents):
            if (folder / ".git").exists():
                return folder
        return root

    def reload(self) -> None:
        self._specs.clear()
        self._dir_cache.clear()

    def _spec(self, folder: Path, top: Path) -> Any:
        if folder in self._specs:
            return self._specs[folder]
        import pathspec

        lines: list[str] = []
        sources = [folder / ".gitignore"]
        if folder == top:
            sources.insert(0, folder / ".git" / "info" / "exclude")
        for src in sources:
            try:
                if non_regular_kind(src) is None:  # a FIFO named .gitignore must not block the watcher
                    lines += src.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                pass
        spec = pathspec.GitIgnoreSpec.from_lines(lines) if any(x.strip() for x in lines) else None
        self._specs[folder] = spec
        return spec

    def _root_for(self, path: Path) -> Path | None:
        for root in self.roots:
            if under(path, root):
                return root
        return None

    def _decide(self, path: Path, top: Path, is_dir: bool) -> bool:
        verdict: bool | None = None
        chain = [top, *[p for p in reversed(path.parents) if top in p.parents]]
        for folder in chain:
            spec = self._spec(folder, top)
            if spec is None:
                continue
            rel = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            if hasattr(spec, "check_file"):  # pathspec >= 0.12: knows which pattern decided, negations included
                res = spec.check_file(rel)
                if res.include is not None:
                    verdict = res.include
            elif spec.match_file(rel):
                verdict = True
        return bool(verdict)

    def ignored(self, path: Path, is_dir: bool = False) -> bool:
        if not self.active:
            return False
        root = self._root_for(path)
        if root is None or path == root:
            return False
        if ".git" in path.relative_to(root).parts:
            return True
        top = self._tops[root]
        for parent in reversed(path.parents):  # an ignored folder's contents cannot be re-included
            if root not in parent.parents:  # the root and what holds it were given: never ignored
                continue
            hit = self._dir_cache.get(parent)
            if hit is None:
                hit = self._decide(parent, top, True)
                self._dir_cache[parent] = hit
            if hit:
                return True
        return self._decide(path, top, is_dir)


def walk_drafts(root: Path, ignore: IgnoreRules | None = None, *, skip_dir: Callable[[Path], bool] | None = None,
                onerror: Callable[[OSError], None] | None = None) -> Iterator[Path]:
    """Every draft below ``root`` (absolute, normalised), sorted per folder; symlinked folders are not followed
    (no loops). ``skip_dir`` prunes more folders (watch's report folder)."""
    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        folder = Path(dirpath)
        rel = folder.relative_to(root)
        dirnames[:] = sorted(d for d in dirnames if not (
            skipped_below(rel / d) or d.endswith((".context", ".sources"))
            or (skip_dir is not None and skip_dir(folder / d))
            or (ignore is not None and ignore.ignored(folder / d, is_dir=True))))
        for name in sorted(filenames):
            p = folder / name
            if (p.suffix.lower() in DRAFT_SUFFIXES and not skipped_below(rel / name)
                    and not (ignore is not None and ignore.ignored(p)) and os.path.isfile(p)):
                yield p


def find_drafts(paths: Sequence[Path], *, gitignore: bool = True) -> list[Path]:
    """The drafts ``paths`` name: files as given, folders walked (:func:`walk_drafts`); duplicates dropped.

    Paths keep the spelling given (``../notes/a.md``). Raises :class:`~faithlint.errors.InputError` for a
    missing path or a folder without drafts.
    """
    from faithlint.errors import InputError

    out: list[Path] = []
    for p in paths:
        if not p.exists():
            raise InputError(f"{p}: no such file or directory")
        if not p.is_dir():
            out.append(p)
            continue
        root = Path(os.path.normpath(os.path.abspath(p)))
        rules = IgnoreRules([root], enabled=gitignore)
        found = sorted(p / f.relative_to(root) for f in walk_drafts(root, rules))
        if not found:
            raise InputError(f"{p}: no drafts (.md or .txt) found in this folder")
        out.extend(found)
    seen: set[Path] = set()
    return [p for p in out if not (p.resolve() in seen or seen.add(p.resolve()))]  # type: ignore[func-returns-value]
