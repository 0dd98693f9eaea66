"""``--report-dir``: one JSON report per draft (and optionally SARIF and HTML), kept up to date.

Reports are written atomically (temp file + :func:`os.replace`); a deleted draft's reports are removed, and
a report is never written over a draft or a file a draft reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from faithlint.cache.disk import atomic_write as write_atomically
from faithlint.inputs.context import display_path
from faithlint.watch.paths import root_of, under
from faithlint.watch.state import DraftState


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never half of one."""
    write_atomically(path, text.encode("utf-8"), prefix=f".{path.name}.", suffix=".tmp", mode=0o644)


class ReportWriter:
    """The reports below ``report_dir``; ``once(key, message, style)`` reports a write problem once."""

    def __init__(self, report_dir: Path, roots: Sequence[Path], *, sarif: bool, html: bool,
                 once: Callable[[str, str, str], None]) -> None:
        self.report_dir = report_dir
        self.roots = roots
        self.sarif = sarif
        self.html = html
        self._once = once

    def paths(self, draft: Path) -> dict[str, Path]:
        """Where ``draft``'s reports live: the draft's path below its root, plus ``.json``/``.sarif``/``.html``."""
        root = root_of(draft, self.roots) or draft.parent
        rel = draft.relative_to(root)
        if len(self.roots) > 1:
            rel = Path(self._root_label(root)) / rel
        base = self.report_dir / rel
        return {ext: base.with_name(base.name + "." + ext) for ext in ("json", "sarif", "html")}

    def _root_label(self, root: Path) -> str:
        names = [r.name or "root" for r in self.roots]
        i = self.roots.index(root)
        return names[i] if names.count(names[i]) == 1 else f"{names[i]}-{i + 1}"

    @staticmethod
    def _protected(target: Path, drafts: Mapping[Path, DraftState]) -> bool:
        """Never overwrite a draft or something a draft reads, whatever --report-dir says."""
        if target in drafts:
            return True
        return any(target == dep or under(target, dep) and dep.is_dir() for st in drafts.values()
                   for dep in st.deps)

    def write(self, st: DraftState, drafts: Mapping[Path, DraftState]) -> None:
        """Bring ``st``'s reports up to date (an error report when it could not be checked)."""
        from faithlint.report import render

        paths = self.paths(st.path)
        wanted: dict[str, str | None] = {}
        if st.result is not None:
            wanted["json"] = render([st.result], "json")
            wanted["sarif"] = render([st.result], "sarif", contexts=st.contexts) if self.sarif else None
            wanted["html"] = (render([st.result], "html", contexts=st.contexts) if self.html else None)
        else:
            wanted["json"] = json.dumps({"version": 1, "tool": "faithlint", "path": st.display, "error": st.error,
                                         "results": []}, indent=2, ensure_ascii=False) + "\n"
            wanted["sarif"] = wanted["html"] = None  # a stale report would claim results we no longer have
        for kind, text in wanted.items():
            target = paths[kind]
            try:
                if text is None:
                    target.unlink(missing_ok=True)
                elif self._protected(target, drafts):
                    self._once(f"protect:{target}", f"not writing {display_path(target)}: it is a draft or context "
                               "file (choose another --report-dir)", "bold red")
                else:
                    atomic_write(target, text)
            except OSError as exc:
                self._once(f"report:{target}:{exc.strerror}",
                           f"cannot write report {display_path(target)}: {exc.strerror or exc}", "bold red")

    def remove(self, draft: Path) -> None:
        """Delete ``draft``'s reports and the report folders that leaves empty."""
        paths = self.paths(draft)
        for target in paths.values():
            try:
                target.unlink(missing_ok=True)
            except OSError:
                pass
        folder = paths["json"].parent
        while folder != self.report_dir and under(folder, self.report_dir):  # prune empty report folders
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
