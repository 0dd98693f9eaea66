"""Where each character of an inline token's ``content`` lives in the source markdown-it parsed.

markdown-it-py tokens only carry line ranges (``Token.map``). The block rules that
produce inline content (paragraph, setext/ATX heading, table) build that ``content``
from the ``bMarks``/``tShift``/``eMarks``/``bsCount`` arrays of ``StateBlock``: they
slice lines (``getLines``), strip indentation, trim CommonMark whitespace and, for
tables, split rows into cells. The functions here mirror those steps *with positions*,
so that right after such a rule ran (see :mod:`faithlint.document.markdown_patch`),
:func:`annotate_block` can store on every new inline token
``tok.meta["fl_map"]``: one source index per character of ``tok.content`` (``-1`` for
characters markdown-it invented, e.g. spaces from tab expansion).

Every mirror is checked against the token's actual ``content``; if none agrees (an
unknown future markdown-it version), a greedy in-order alignment inside the token's
line range is used instead (:func:`_greedy_map`), so extraction never crashes. The
tests assert that the fallback never runs on the supported versions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["ANNOTATED_BLOCK_RULES", "annotate_block"]

# What markdown-it's ``mdTrim`` strips (CommonMark whitespace); older versions used str.strip().
try:  # pragma: no cover - depends on the installed markdown-it-py
    from markdown_it.common.utils import MD_TRIM_CHARS as _MD_TRIM
except ImportError:  # pragma: no cover
    _MD_TRIM = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
        "\u2028\u2029\u202f\u205f\u3000"

_TRIM_VARIANTS: tuple[str | None, ...] = (_MD_TRIM, None)

# The block rules whose inline tokens get an "fl_map".
ANNOTATED_BLOCK_RULES = ("paragraph", "lheading", "heading", "table")


def _trim(s: str, pos: list[int], chars: str | None) -> tuple[str, list[int]]:
    left = len(s) - len(s.lstrip(chars))
    right = len(s.rstrip(chars))
    if right <= left:
        return "", []
    return s[left:right], pos[left:right]


def _get_lines(state: Any, begin: int, end: int, indent: int) -> tuple[str, list[int]]:
    """``StateBlock.getLines(begin, end, indent, False)`` with the source position of every char (-1: invented)."""
    src = state.src
    parts: list[str] = []
    pos: list[int] = []
    for line in range(begin, end):
        line_indent = 0
        line_start = first = state.bMarks[line]
        last = state.eMarks[line] + 1 if line + 1 < end else state.eMarks[line]
        while first < last and line_indent < indent:
            ch = src[first]
            if ch in " \t":
                line_indent += 4 - (line_indent + state.bsCount[line]) % 4 if ch == "\t" else 1
            elif first - line_start < state.tShift[line]:
                line_indent += 1
            else:
                break
            first += 1
        if line_indent > indent:
            parts.append(" " * (line_indent - indent))
            pos.extend([-1] * (line_indent - indent))
        parts.append(src[first:last])
        pos.extend(range(first, last))
    return "".join(parts), pos


def _split_cells(s: str, pos: list[int]) -> list[tuple[str, list[int]]]:
    """markdown-it's table ``escapedSplit`` with positions (``\\|`` loses its backslash)."""
    cells: list[tuple[str, list[int]]] = []
    cur_s, cur_p = "", []
    last, escaped = 0, False
    for i, ch in enumerate(s):
        if ch == "|":
            if not escaped:
                cells.append((cur_s + s[last:i], cur_p + pos[last:i]))
                cur_s, cur_p = "", []
                last = i + 1
            else:
                cur_s += s[last:i - 1]
                cur_p = cur_p + pos[last:i - 1]
                last = i
        escaped = ch == "\\"
    cells.append((cur_s + s[last:], cur_p + pos[last:]))
    return cells


def _greedy_map(content: str, src: str, lo: int, hi: int) -> list[int]:
    """Last resort: match content chars in order inside ``src[lo:hi]``; unmatched chars get -1."""
    out: list[int] = []
    j = lo
    for ch in content:
        k = j
        while k < hi and src[k] != ch:
            k += 1
        if k < hi:
            out.append(k)
            j = k + 1
        else:
            out.append(-1)
    return out


def _set_map(state: Any, tok: Any, candidates: list[tuple[str, list[int]]]) -> None:
    for s, p in candidates:
        if s == tok.content:
            tok.meta["fl_map"] = p
            return
    a, b = tok.map or (0, 0)
    lo = state.bMarks[a] if a < len(state.bMarks) else 0
    hi = state.eMarks[b - 1] if 0 < b <= len(state.eMarks) else len(state.src)
    tok.meta["fl_map"] = _greedy_map(tok.content, state.src, lo, hi)


def _lines_candidates(state: Any, tok: Any) -> list[tuple[str, list[int]]]:
    s, p = _get_lines(state, tok.map[0], tok.map[1], state.blkIndent)
    return [_trim(s, p, chars) for chars in _TRIM_VARIANTS]


def _heading_candidates(state: Any, tok: Any) -> list[tuple[str, list[int]]]:
    line = tok.map[0]
    pos, end = state.bMarks[line] + state.tShift[line], state.eMarks[line]
    while pos < end and state.src[pos] == "#":
        pos += 1
    out = []
    for chars in _TRIM_VARIANTS:
        rest = state.src[pos:end]
        start = pos + len(rest) - len(rest.lstrip(chars))
        n = len(tok.content)
        out.append((state.src[start:start + n], list(range(start, start + n))))
    return out


def _annotate_table(state: Any, new_tokens: list[Any]) -> None:
    rows: dict[int, list[Any]] = {}
    for tok in new_tokens:
        if tok.type == "inline" and tok.map:
            rows.setdefault(tok.map[0], []).append(tok)
    for line, toks in rows.items():
        a, b = state.bMarks[line] + state.tShift[line], state.eMarks[line]
        variants: list[list[tuple[str, list[int]]]] = []
        for chars in _TRIM_VARIANTS:
            text, pos = _trim(state.src[a:b], list(range(a, b)), chars)
            cells = _split_cells(text, pos)
            if cells and cells[0][0] == "":
                cells.pop(0)
            if cells and cells[-1][0] == "":
                cells.pop()
            variants.append(cells)
        for i, tok in enumerate(toks):
            cands = [_trim(*cells[i], chars) if i < len(cells) else ("", [])
                     for cells, chars in zip(variants, _TRIM_VARIANTS, strict=True)]
            _set_map(state, tok, cands)


_BLOCK_ANNOTATORS: dict[str, Callable[[Any, Any], list[tuple[str, list[int]]]]] = {
    "paragraph": _lines_candidates,
    "lheading": _lines_candidates,
    "heading": _heading_candidates,
}


def annotate_block(name: str, state: Any, new_tokens: list[Any]) -> None:
    """Set ``meta["fl_map"]`` on the inline tokens that block rule ``name`` (one of ANNOTATED_BLOCK_RULES) pushed."""
    if name == "table":
        _annotate_table(state, new_tokens)
    else:
        for tok in new_tokens:
            if tok.type == "inline" and tok.map:
                _set_map(state, tok, _BLOCK_ANNOTATORS[name](state, tok))
