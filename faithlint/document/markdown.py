"""Draft source -> checkable prose blocks, with an exact offset map back to the source.

Every finding faithlint reports is anchored to a code-point offset in the draft *as read
from disk* (CRLF kept, BOM kept), so this module never re-finds text by searching for
it: each character of a block's ``text`` carries the source index it came from.

The pieces
    This module holds the extraction itself (:func:`extract`, :class:`Extracted`,
    :class:`Block`, :func:`line_of`). In Markdown mode the positions come from an
    instrumented markdown-it parser (:mod:`faithlint.document.markdown_patch`, which says why
    markdown-it is patched, and :mod:`faithlint.document.markdown_positions`, which mirrors its
    line slicing with positions); front matter is :mod:`faithlint.document.front_matter`;
    suppression comments are :mod:`faithlint.document.suppressions` (``Directive`` and
    ``Suppressions`` are re-exported here for existing imports).

What is not checked (absent from ``blocks``)
    YAML front matter, fenced and indented code, inline code, HTML blocks and inline
    HTML (comments included), link destinations and titles (link text is kept),
    images *including their alt text* (alt text describes a picture, not a claim of
    the draft, and is often a file name), autolinks ``<https://...>``, reference
    definitions, table pipes and delimiter rows, and all markup characters. Backslash
    escapes keep the escaped character (mapped to it, not to the backslash); HTML
    entities keep the decoded character(s), mapped to the ``&`` (and following
    characters of the entity when it decodes to several code points).

Synthetic characters
    A soft or hard line break becomes one space mapped to the line break (the ``\\r``
    of a CRLF). A dropped inline element (inline code, image, autolink, most inline
    HTML) becomes one space mapped to the element's first character, so words never
    glue together; runs of whitespace that contain such a synthetic space are
    collapsed to one character (a real space is preferred). Inline formatting tags
    such as ``<b>``/``<sup>`` are dropped without a space, like ``*``/``**``.
    For synthetic spaces ``source[map[i]] != text[i]``; for every other character
    (except decoded entities) ``source[map[i]] == text[i]``. ``map`` is strictly
    increasing.

Suppression comments (both modes)
    Parsed by :mod:`faithlint.document.suppressions` (syntax documented there). In Markdown,
    comments inside code (fenced, indented or inline) and inside front matter are
    documentation, not directives, and are ignored; in plain text the directives are
    removed from the checked text (one space each).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from faithlint.document.front_matter import split_front_matter
from faithlint.document.markdown_patch import instrumented_parser
from faithlint.document.suppressions import Directive, Suppressions, scan_directives

__all__ = ["Block", "Directive", "Extracted", "Suppressions", "extract", "line_of"]

_BREAK = re.compile(r"\r\n|\r|\n")
_NEEDS_NORMALISING = re.compile(r"[\r\x00]")


# --------------------------------------------------------------------------- public types


@dataclass
class Block:
    """One checkable piece of prose and where each of its characters lives in the source."""

    text: str
    map: list[int]  # len(text) + 1 entries; map[i] = source index of text[i]; last = just after the last char
    kind: str  # "paragraph" | "heading" | "list_item" | "table_cell" | "blockquote" | "text"

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """Plain ``[start, end)`` -> source ``[s, e)``; ``e`` is just after the source char of ``text[end-1]``.

        Out-of-range arguments are clamped (findings may come from a stale analysis).
        """
        n = len(self.text)
        start = max(0, min(start, n))
        end = max(start, min(end, n))
        s = self.map[start]
        if end <= start:
            return s, s
        return s, self.map[end - 1] + 1


@dataclass
class Extracted:
    """Everything the linter needs from a draft's source before sentence splitting."""

    source: str
    blocks: list[Block]
    front_matter: dict | None = None
    front_matter_error: str | None = None
    suppressions: Suppressions = field(default_factory=Suppressions)


# --------------------------------------------------------------------------- lines


@lru_cache(maxsize=16)
def _line_starts(source: str) -> tuple[int, ...]:
    starts = [0]
    starts.extend(m.end() for m in _BREAK.finditer(source))
    return tuple(starts)


def line_of(source: str, offset: int) -> int:
    """0-based line of a code-point offset; ``\\r\\n`` (once), ``\\n`` and a lone ``\\r`` break lines.

    The ``\\n`` of a CRLF belongs to the line it ends. Offsets are clamped.
    """
    return max(0, bisect_right(_line_starts(source), max(0, offset)) - 1)


# --------------------------------------------------------------------------- normalisation


def _normalise(source: str) -> tuple[str, Sequence[int]]:
    """CRLF/CR -> LF, NUL -> U+FFFD, leading BOM dropped, as markdown-it does; plus norm -> source offsets.

    Every line break stays one character, so line numbers are identical in both strings.
    """
    start = 1 if source.startswith("\ufeff") else 0
    if not _NEEDS_NORMALISING.search(source):
        return source[start:], range(start, len(source) + 1)
    chars: list[str] = []
    n2o: list[int] = []
    i, n = start, len(source)
    while i < n:
        ch = source[i]
        n2o.append(i)
        if ch == "\r":
            chars.append("\n")
            i += 2 if i + 1 < n and source[i + 1] == "\n" else 1
            continue
        chars.append("\ufffd" if ch == "\x00" else ch)
        i += 1
    n2o.append(n)
    return "".join(chars), n2o


# --------------------------------------------------------------------------- piece assembly


class _Pieces:
    """Characters of a block under construction: (char, norm position, synthetic?)."""

    __slots__ = ("chars", "pos", "synth")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.pos: list[int] = []
        self.synth: list[bool] = []

    def add(self, ch: str, pos: int, synth: bool = False) -> None:
        if pos >= 0:  # -1 marks characters markdown-it invented (tab expansion); they are never output
            self.chars.append(ch)
            self.pos.append(pos)
            self.synth.append(synth)

    def block(self, kind: str, n2o: Sequence[int]) -> Block | None:
        """Collapse synthetic whitespace, trim, and map to source offsets."""
        order = range(len(self.chars))
        if any(self.pos[i] >= self.pos[i + 1] for i in range(len(self.pos) - 1)):
            order = sorted(order, key=lambda i: self.pos[i])  # e.g. reordered lone "~" markers
        out_c: list[str] = []
        out_p: list[int] = []
        run: list[int] = []

        def flush_run() -> None:
            if not run:
                return
            if any(self.synth[i] for i in run):
                real = [i for i in run if not self.synth[i]]
                keep = [real[0] if real else run[0]]
            else:
                keep = run
            for i in keep:
                if not out_p or self.pos[i] > out_p[-1]:
                    out_c.append(self.chars[i])
                    out_p.append(self.pos[i])
            run.clear()

        for i in order:
            if self.chars[i].isspace():
                run.append(i)
                continue
            flush_run()
            if not out_p or self.pos[i] > out_p[-1]:
                out_c.append(self.chars[i])
                out_p.append(self.pos[i])
        run.clear()  # trailing whitespace is trimmed
        lead = 0
        while lead < len(out_c) and out_c[lead].isspace():
            lead += 1
        out_c, out_p = out_c[lead:], out_p[lead:]
        if not out_c:
            return None
        mapped = [n2o[p] for p in out_p]
        mapped.append(mapped[-1] + 1)
        return Block("".join(out_c), mapped, kind)


# --------------------------------------------------------------------------- markdown extraction

# Inline HTML that only formats text: dropping it must not split a word ("H<sub>2</sub>O").
_FORMAT_TAG = re.compile(r"</?(?:a|abbr|b|bdi|bdo|cite|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|"
                         r"time|u|var)(?:[\s/>])", re.I)


# An edit re-parses the whole draft, but the blocks it did not touch come out the same, only shifted: each
# block's result is kept under everything it is computed from, relative to its first character.
_BLOCKS: OrderedDict[tuple, tuple[str | None, list[int], list[tuple[int, int]]]] = OrderedDict()
_BLOCKS_MAX = 4096
_BLOCKS_LOCK = threading.Lock()


def _inline_block(tok: Any, kind: str, n2o: Sequence[int], code_spans: list[tuple[int, int]]) -> Block | None:
    """:func:`_build_inline_block`, remembered per block: the same block at another offset is shifted, not rebuilt."""
    content: str = tok.content
    cmap: list[int] = tok.meta.get("fl_map") or [-1] * len(content)
    base = next((p for p in cmap if p >= 0), -1)
    if base < 0:
        return _build_inline_block(tok, kind, n2o, code_spans)
    # every edit builds these keys for every block: the common case (no unmapped character) at C speed
    rel = tuple(p - base if p >= 0 else None for p in cmap) if -1 in cmap else tuple(map(base.__rsub__, cmap))
    # a range (no CR in the draft) maps every position the same way; a list needs its own shape in the key
    shape = () if isinstance(n2o, range) else tuple(n2o[p] - n2o[base] if p >= 0 else None for p in cmap)
    children = tuple((c.type, c.meta.get("fl_span"), c.content, c.info, c.markup) for c in tok.children or ())
    key = (kind, content, rel, shape, children)
    shift = n2o[base]
    with _BLOCKS_LOCK:
        hit = _BLOCKS.get(key)
        if hit is not None:
            _BLOCKS.move_to_end(key)
    if hit is None:
        spans: list[tuple[int, int]] = []
        block = _build_inline_block(tok, kind, n2o, spans)
        hit = (block.text if block else None, [m - shift for m in block.map] if block else [],
               [(a - base, b - base) for a, b in spans])
        with _BLOCKS_LOCK:
            _BLOCKS[key] = hit
            if len(_BLOCKS) > _BLOCKS_MAX:
                _BLOCKS.popitem(last=False)
    text, rel_map, rel_spans = hit
    code_spans.extend((a + base, b + base) for a, b in rel_spans)
    return Block(text, list(map(shift.__add__, rel_map)), kind) if text is not None else None


def _build_inline_block(tok: Any, kind: str, n2o: Sequence[int], code_spans: list[tuple[int, int]]) -> Block | None:
    content: str = tok.content
    cmap: list[int] = tok.meta.get("fl_map") or [-1] * len(content)
    n = len(content)

    def at(i: int) -> int:
        return cmap[i] if 0 <= i < n else -1

    pieces = _Pieces()
    skip_autolink = False
    for child in tok.children or []:
        typ = child.type
        span = child.meta.get("fl_span")
        if skip_autolink:
            skip_autolink = typ != "link_close"
            continue
        if span is None:
            continue
        a, b = span
        c = child.content
        if typ == "text":
            if c and content[a:a + len(c)] == c:
                for k, ch in enumerate(c):
                    pieces.add(ch, at(a + k))
        elif typ == "text_special":
            if child.info == "escape" and content[a:a + 1] == "\\" and content[a + 1:a + 1 + len(c)] == c:
                for k, ch in enumerate(c):
                    pieces.add(ch, at(a + 1 + k))
            elif content[a:a + len(c)] == c:
                for k, ch in enumerate(c):
                    pieces.add(ch, at(a + k))
            else:  # decoded entity: chars sit on the entity's own characters, starting at "&"
                for k, ch in enumerate(c[: b - a]):
                    pieces.add(ch, at(a + k))
        elif typ in ("softbreak", "hardbreak"):
            pieces.add(" ", at(a + 1 if content[a:a + 1] == "\\" else a), True)
        elif typ == "code_inline":
            pieces.add(" ", at(a), True)
            if at(a) >= 0 and at(b - 1) >= 0:
                code_spans.append((at(a), at(b - 1) + 1))
        elif typ == "image":
            pieces.add(" ", at(a), True)
        elif typ == "html_inline":
            if not _FORMAT_TAG.match(c + " "):
                pieces.add(" ", at(a), True)
        elif typ == "link_open" and child.markup == "autolink":
            pieces.add(" ", at(a), True)
            skip_autolink = True
    return pieces.block(kind, n2o)


def _extract_markdown(norm: str, n2o: Sequence[int], fm_end: int) -> tuple[list[Block], list[tuple[int, int]]]:
    """Blocks plus the norm ranges where comments are not directives (code)."""
    parse_src = norm
    if fm_end:  # same length, same lines: front matter becomes blank lines
        parse_src = re.sub(r"[^\n]", " ", norm[:fm_end]) + norm[fm_end:]
    tokens = instrumented_parser().parse(parse_src)
    line_starts = [0] + [m.end() for m in re.finditer("\n", norm)]

    def line_offset(line: int) -> int:
        return line_starts[line] if line < len(line_starts) else len(norm)

    blocks: list[Block] = []
    excluded: list[tuple[int, int]] = []
    containers: list[str] = []
    for i, tok in enumerate(tokens):
        typ = tok.type
        if typ in ("blockquote_open", "list_item_open"):
            containers.append(typ)
        elif typ in ("blockquote_close", "list_item_close"):
            if containers:
                containers.pop()
        elif typ in ("fence", "code_block") and tok.map:
            excluded.append((line_offset(tok.map[0]), line_offset(tok.map[1])))
        elif typ == "inline":
            parent = tokens[i - 1].type if i else ""
            if parent == "heading_open":
                kind = "heading"
            elif parent in ("th_open", "td_open"):
                kind = "table_cell"
            elif containers and containers[-1] == "list_item_open":
                kind = "list_item"
            elif containers:
                kind = "blockquote"
            else:
                kind = "paragraph"
            block = _inline_block(tok, kind, n2o, excluded)
            if block is not None:
                blocks.append(block)
    return blocks, excluded


# --------------------------------------------------------------------------- plain text


def _extract_plain(norm: str, n2o: Sequence[int], removed: list[tuple[int, int]]) -> list[Block]:
    """Paragraphs separated by blank lines; suppression comments removed (a space each)."""
    gone = bytearray(len(norm))
    starts_at: set[int] = set()
    for a, b in removed:
        gone[a:b] = b"\x01" * (b - a)
        starts_at.add(a)
    blocks: list[Block] = []
    pieces = _Pieces()
    pos = 0
    for line in norm.split("\n"):
        end = pos + len(line)
        line_pieces: list[tuple[str, int, bool]] = []
        for k in range(pos, end):
            if gone[k]:
                if k in starts_at:
                    line_pieces.append((" ", k, True))
            else:
                line_pieces.append((norm[k], k, False))
        while line_pieces and line_pieces[-1][0].isspace():
            line_pieces.pop()
        lead = 0
        while lead < len(line_pieces) and line_pieces[lead][0].isspace():
            lead += 1
        del line_pieces[:lead]  # indentation of continuation lines is not text
        if not line_pieces:
            if pieces.chars:
                block = pieces.block("text", n2o)
                if block is not None:
                    blocks.append(block)
                pieces = _Pieces()
        else:
            if pieces.chars:
                pieces.add(" ", pos - 1, True)  # the line break ending the previous line
            for ch, p, synth in line_pieces:
                pieces.add(ch, p, synth)
        pos = end + 1
    if pieces.chars:
        block = pieces.block("text", n2o)
        if block is not None:
            blocks.append(block)
    return blocks


# --------------------------------------------------------------------------- entry point


def extract(source: str, markdown: bool = True) -> Extracted:
    """Split a draft into checkable blocks with offset maps, front matter and suppressions.

    ``markdown=False`` treats the draft as plain text (no front matter, no Markdown).
    Never raises on malformed input; a broken front matter is reported in
    ``front_matter_error`` and still excluded from checking.
    """
    norm, n2o = _normalise(source)
    if not markdown:
        suppressions, spans = scan_directives(norm, n2o, [])
        return Extracted(source, _extract_plain(norm, n2o, spans), None, None, suppressions)
    fm_end, fm, fm_error = split_front_matter(norm)
    blocks, excluded = _extract_markdown(norm, n2o, fm_end)
    if fm_end:
        excluded.append((0, fm_end))
    suppressions, _ = scan_directives(norm, n2o, excluded)
    return Extracted(source, blocks, fm, fm_error, suppressions)
