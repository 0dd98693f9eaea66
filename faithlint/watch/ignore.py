"""``.gitignore`` handling for ``faithlint watch`` (nested files, negation, ``.git/info/exclude``) via ``pathspec``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faithlint.files import non_regular_kind
from faithlint.watch.paths import under


class IgnoreRules:
    """``.gitignore`` semantics (nested files, negation, ``.git/info/exclude``) via ``pathspec``.

    Without ``pathspec`` installed nothing is ignored (a warning says so once).
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

    def _top_for(self, path: Path) -> Path | None:
        for root in self.roots:
            if under(path, root):
                return self._tops[root]
        return None

    def _decide(self, path: Path, top: Path, is_dir: bool) -> bool:
        verdict: bool | None = None
        folder = top
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
        if path.name == ".git" or ".git" in path.parts:
            return True
        top = self._top_for(path)
        if top is None or path == top:
            return False
        for parent in reversed(path.parents):  # an ignored folder's contents cannot be re-included
            if parent == top or top not in parent.parents:
                continue
            hit = self._dir_cache.get(parent)
            if hit is None:
                hit = self._decide(parent, top, True)
                self._dir_cache[parent] = hit
            if hit:
                return True
        return self._decide(path, top, is_dir)
