"""Offsets to line/column positions, in code points (humans, SARIF) and UTF-16 (LSP).

faithlint works on code-point offsets into the draft exactly as read (CRLF kept).
Editors speak other units: LSP counts UTF-16 code units by default, so an emoji
such as 😀 is two "characters" there but one code point here. :class:`LineIndex`
converts between them; it precomputes line starts once so each lookup is a bisect
plus work proportional to one line, which keeps 10k-line documents cheap.

``\\r\\n``, ``\\n`` and a lone ``\\r`` each count as one line break, as in LSP.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class LineIndex:
    """Line table for one text; all positions are 0-based.

    Offsets outside ``[0, len(text)]`` are clamped rather than rejected, because
    findings may come from stale analyses of an edited buffer.
    """

    __slots__ = ("text", "_starts", "_ends", "_has_astral")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        ends: list[int] = []
        for m in _BREAK.finditer(text):
            ends.append(m.start())
            starts.append(m.end())
        ends.append(len(text))
        self._starts = starts
        self._ends = ends  # end of each line's content, before its break
        # Fast path: without astral characters UTF-16 columns equal code-point columns.
        self._has_astral = _ASTRAL.search(text) is not None

    # -- lines -----------------------------------------------------------------------------------

    @property
    def line_count(self) -> int:
        """Number of lines; a trailing break opens one more (empty) line, as editors show it."""
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[self._clamp_line(line)]

    def line_end(self, line: int) -> int:
        """Offset just past the line's content (the break itself excluded)."""
        return self._ends[self._clamp_line(line)]

    def line_text(self, line: int) -> str:
        line = self._clamp_line(line)
        return self.text[self._starts[line]:self._ends[line]]

    # -- offset -> position ----------------------------------------------------------------------

    def position(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` with the column in code points."""
        offset = self._clamp_offset(offset)
        line = bisect_right(self._starts, offset) - 1
        return line, offset - self._starts[line]

    def utf16_position(self, offset: int) -> tuple[int, int]:
        """``(line, character)`` with the character in UTF-16 code units, as LSP expects."""
        offset = self._clamp_offset(offset)
        line = bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        column = offset - start
        if self._has_astral and column:
            # Each astral char is one code point but two UTF-16 units.
            column += len(_ASTRAL.findall(self.text, start, offset))
        return line, column

    # -- position -> offset ----------------------------------------------------------------------

    def offset_of(self, line: int, column: int) -> int:
        """Inverse of :meth:`position`; the column is clamped to the line's content."""
        if line >= len(self._starts):
            return len(self.text)
        line = self._clamp_line(line)
        start = self._starts[line]
        return start + max(0, min(column, self._ends[line] - start))

    def offset_of_utf16(self, line: int, character: int) -> int:
        """Inverse of :meth:`utf16_position`.

        The character is clamped to the line's content; one pointing between the two
        halves of a surrogate pair maps to the start of that character, so an edit
        never splits an emoji. A line past the end maps to the end of the text.
        """
        if line >= len(self._starts):
            return len(self.text)
        line = self._clamp_line(line)
        start, end = self._starts[line], self._ends[line]
        if character <= 0:
            return start
        if not self._has_astral or _ASTRAL.search(self.text, start, end) is None:
            return start + min(character, end - start)
        units = 0
        text = self.text
        for i in range(start, end):
            width = 2 if ord(text[i]) > 0xFFFF else 1
            if units + width > character:
                return i
            units += width
        return end

    # -- LSP -------------------------------------------------------------------------------------

    def lsp_position(self, offset: int) -> dict[str, int]:
        line, character = self.utf16_position(offset)
        return {"line": line, "character": character}

    def lsp_range(self, start: int, end: int) -> dict[str, Any]:
        """An LSP ``Range`` (0-based, UTF-16) for the code-point span ``[start, end)``."""
        return {"start": self.lsp_position(start), "end": self.lsp_position(end)}

    # -- helpers ---------------------------------------------------------------------------------

    def _clamp_offset(self, offset: int) -> int:
        return max(0, min(offset, len(self.text)))

    def _clamp_line(self, line: int) -> int:
        return max(0, min(line, len(self._starts) - 1))
