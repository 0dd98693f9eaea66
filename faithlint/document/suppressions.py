"""Suppression comments: ``<!-- faithlint-disable ... -->`` and friends, parsed from a draft's source.

Syntax (Markdown and plain text alike)
    ``<!-- faithlint-disable [CODES] -->``, ``<!-- faithlint-enable [CODES] -->``,
    ``<!-- faithlint-disable-next-line [CODES] -->`` and
    ``<!-- faithlint-disable-line [CODES] -->``. CODES are separated by spaces or
    commas; none means every code. A code is a *prefix*, ruff-style: ``FL2`` matches
    ``FL200``..``FL299`` and ``FL`` matches all FL codes (case-insensitive). Text after
    ``--`` inside the comment is a free-form reason and is ignored. Ranges start on the
    comment's own line; ``disable-next-line`` targets the next line that is neither
    blank nor made only of suppression comments (so several can be stacked). In
    Markdown, comments inside code (fenced, indented or inline) and inside front
    matter are documentation, not directives, and are ignored (the caller passes
    those ranges as ``excluded``).

:func:`faithlint.document.markdown.extract` calls :func:`scan_directives` and puts the result on
``Extracted.suppressions``. :meth:`Suppressions.suppressing` says which directive and code silenced a finding,
so the linter can report the codes that silenced nothing (FL001) and those no rule has (FL002), as ruff's RUF100.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Directive", "Suppressions", "scan_directives"]


@dataclass(frozen=True)
class Directive:
    """One parsed suppression comment."""

    kind: str  # "disable" | "enable" | "disable-next-line" | "disable-line"
    codes: tuple[str, ...]  # upper-cased code prefixes; empty = every code
    line: int  # 0-based source line of the comment's start
    offset: int  # source code-point offset of "<!--"
    target: int | None = None  # the line a next-line/line directive applies to (None: no such line)
    end: int = 0  # source code-point offset just after "-->"
    spans: tuple[tuple[int, int], ...] = ()  # source offsets of each of ``codes`` in the comment

    def matches(self, code: str) -> bool:
        """Ruff-style prefix match: ``FL2`` covers FL200..FL299."""
        return self.matching(code) is not None

    def matching(self, code: str) -> str | None:
        """The first of :attr:`codes` that covers ``code`` ("" when the directive names none), else None."""
        if not self.codes:
            return ""
        code = code.upper()
        return next((c for c in self.codes if code.startswith(c)), None)


@dataclass
class Suppressions:
    """The suppression comments of one draft; answers "is this finding silenced?"."""

    directives: list[Directive] = field(default_factory=list)

    def is_suppressed(self, code: str, source_line: int) -> bool:
        """``source_line`` is the 0-based line of the finding's start in the source."""
        return self.suppressing(code, source_line) is not None

    def suppressing(self, code: str, source_line: int) -> tuple[Directive, str] | None:
        """The directive that silences ``code`` on ``source_line`` and its code that matched ("" for a directive
        without codes), or None. A line directive wins; else the last matching range directive decides."""
        state: tuple[Directive, str] | None = None
        for d in self.directives:  # kept in source order, so the last matching range directive wins
            hit = d.matching(code)
            if hit is None:
                continue
            if d.kind in ("disable-next-line", "disable-line"):
                if d.target == source_line:
                    return d, hit
            elif d.line <= source_line:
                state = (d, hit) if d.kind == "disable" else None
        return state


_DIRECTIVE = re.compile(r"<!--\s*faithlint-(disable-next-line|disable-line|disable|enable)(?![\w-])(.*?)-->", re.S)
_CODE = re.compile(r"[A-Za-z]+\d*")


def _parse_codes(args: str) -> list[tuple[str, int, int]]:
    """The codes of a comment's arguments with their offsets in ``args``; "-- reason" is free text."""
    args = args.split("--", 1)[0]
    return [(m[0].upper(), m.start(), m.end()) for m in re.finditer(r"[^\s,]+", args) if _CODE.fullmatch(m[0])]


def scan_directives(norm: str, n2o: Sequence[int], excluded: list[tuple[int, int]]
                    ) -> tuple[Suppressions, list[tuple[int, int]]]:
    """Parse suppression comments in ``norm``; returns them and their norm spans (for removal in plain text).

    ``norm`` is the normalised source (see ``faithlint.document.markdown``), ``n2o`` maps its offsets back to the
    source, and comments starting inside an ``excluded`` norm range are not directives.
    """
    found: list[tuple[re.Match[str], str, list[tuple[str, int, int]]]] = []
    for m in _DIRECTIVE.finditer(norm):
        if any(a <= m.start() < b for a, b in excluded):
            continue
        found.append((m, m.group(1), _parse_codes(m.group(2))))
    if not found:
        return Suppressions(), []
    spans = [(m.start(), m.end()) for m, _, _ in found]
    # A line made only of suppression comments counts as blank when looking for "the next line".
    masked = list(norm)
    for a, b in spans:
        for i in range(a, b):
            if masked[i] != "\n":
                masked[i] = " "
    lines = "".join(masked).split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    directives = []
    for m, kind, codes in found:
        line = bisect_right(starts, m.start()) - 1
        target: int | None = None
        if kind == "disable-line":
            target = line
        elif kind == "disable-next-line":
            j = bisect_right(starts, m.end() - 1)
            while j < len(lines) and not lines[j].strip():
                j += 1
            target = j if j < len(lines) else None
        base = m.start(2)
        directives.append(Directive(kind, tuple(c for c, _, _ in codes), line, n2o[m.start()], target,
                                    n2o[m.end() - 1] + 1,
                                    tuple((n2o[base + a], n2o[base + b - 1] + 1) for _, a, b in codes)))
    return Suppressions(directives), spans
