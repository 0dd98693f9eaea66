"""Code-point offsets <-> LSP positions, in whatever encoding was negotiated with the client.

faithlint reports code-point offsets into the document text; LSP positions count UTF-16 code
units by default (UTF-8 or UTF-32 when negotiated). Lines come from
:class:`faithlint.document.positions.LineIndex`, which breaks lines exactly where LSP does (``\\r\\n``,
``\\n``, ``\\r``) -- unlike ``str.splitlines``, which also breaks on U+2028, form feeds, etc.
Units per character come from pygls' :class:`~pygls.workspace.PositionCodec`, so the encoding
chosen during ``initialize`` is honoured without any hand-written UTF-16 arithmetic.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import PositionCodec

from faithlint.document.positions import LineIndex


class DocumentIndex:
    """Position conversions for one document text (built once per text, cheap to query)."""

    def __init__(self, text: str, codec: PositionCodec | None = None) -> None:
        self.text = text
        self.lines = LineIndex(text)
        self.codec = codec or PositionCodec()

    def position(self, offset: int) -> types.Position:
        """The LSP position of a code-point offset (clamped to the text)."""
        line, column = self.lines.position(offset)
        start = self.lines.line_start(line)
        prefix = self.text[start:start + column]
        # ASCII is one code unit per character in every LSP encoding; the codec walks characters in Python
        units = column if prefix.isascii() else self.codec.client_num_units(prefix)
        return types.Position(line=line, character=units)

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(max(start, end)))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of an LSP position; characters past the line's end clamp to it."""
        if position.line >= self.lines.line_count:
            return len(self.text)
        line = max(0, position.line)
        start, end = self.lines.line_start(line), self.lines.line_end(line)
        units = 0
        for i in range(start, end):
            width = self.codec.impl.code_units_for_char(self.text[i])
            if units + width > position.character:
                return i
            units += width
        return end
