"""Suppression comments as fixes, for any rule's finding (display-only: offered in the editor, as ruff's server
offers ``# noqa``): ``<!-- faithlint-disable-next-line FLxxx -->`` above the line, or ``<!-- faithlint-disable
FLxxx -->`` for the whole file."""

from __future__ import annotations

import re
from typing import Any

from faithlint.rules.fix import Edit, FixTarget, Proposal, line_start
from faithlint.rules.registry import RULES


def newline_of(text: str) -> str:
    """The text's own line break, so inserted lines match the file's style."""
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    if i < 0 and "\r" in text:
        return "\r"
    return "\n"


class DisableForLine:
    """``<!-- faithlint-disable-next-line FLxxx -->`` on its own line above the finding, same indentation."""

    id = "faithlint.disableLine"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.code not in RULES or target.span("start_end") is None:
            return []
        return [Proposal(f"Disable {target.code} for this line")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("start_end")
        assert span is not None
        start = line_start(target.text, span[0])
        indent = re.match(r"[ \t]*", target.text[start:]).group(0)  # type: ignore[union-attr]
        comment = f"{indent}<!-- faithlint-disable-next-line {target.code} -->{newline_of(target.text)}"
        return [Edit(start, start, comment)]


_FM_OPEN = re.compile(r"\ufeff?---[ \t]*$")
_FM_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*$")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def front_matter_end(text: str) -> int:
    """Offset just after a closed ``---`` front matter block at the top (0 without one)."""
    first = True
    for m in _LINES.finditer(text):
        line = m.group(0)
        if not line:
            break
        content = line.rstrip("\r\n")
        if first:
            if not _FM_OPEN.match(content):
                return 0
            first = False
        elif _FM_CLOSE.match(content):
            return m.end()
    return 0


class DisableForFile:
    """``<!-- faithlint-disable FLxxx -->`` at the top of the draft, after its front matter."""

    id = "faithlint.disableFile"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.code not in RULES:
            return []
        return [Proposal(f"Disable {target.code} for this file")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        text = target.text
        at = front_matter_end(text)
        nl = newline_of(text)
        prefix = nl if at == len(text) and at > 0 and text[-1] not in "\r\n" else ""
        if at == 0 and text.startswith("\ufeff"):
            at = 1
        return [Edit(at, at, f"{prefix}<!-- faithlint-disable {target.code} -->{nl}")]
