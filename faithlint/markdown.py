"""Draft source -> checkable prose blocks, with an exact offset map back to the source.

Every finding faithlint reports is anchored to a code-point offset in the draft *as read
from disk* (CRLF kept, BOM kept), so this module never re-finds text by searching for
it: each character of a block's ``text`` carries the source index it came from.

How positions are obtained (``markdown=True``)
    markdown-it-py tokens only carry line ranges, so the parser is instrumented:

    * the block rules that produce inline content (paragraph, setext/ATX heading,
      table) are wrapped, and right after they run we recompute, from the same
      ``bMarks``/``tShift``/``eMarks`` arrays markdown-it used, where each character of
      the inline ``content`` lives in the (normalised) source;
    * every inline rule is wrapped to record the ``[start, end)`` span of the
      content it consumed on the tokens it pushed, and ``pushPending`` is hooked so
      plain-text tokens know where their text started;
    * the rules that merge text tokens after the fact (``text_join`` and
      ``fragments_join``) are disabled so those spans survive.

    Everything is verified against the token contents; if a mirror ever disagreed
    with markdown-it (an unknown future version), a greedy in-order alignment inside
    the token's line range is used instead, so extraction never crashes.

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
    ``<!-- faithlint-disable [CODES] -->``, ``<!-- faithlint-enable [CODES] -->``,
    ``<!-- faithlint-disable-next-line [CODES] -->`` and
    ``<!-- faithlint-disable-line [CODES] -->``. CODES are separated by spaces or
    commas; none means every code. A code is a *prefix*, ruff-style: ``FL2`` matches
    ``FL200``..``FL299`` and ``FL`` matches all FL codes (case-insensitive). Text after
    ``--`` inside the comment is a free-form reason and is ignored. Ranges start on the
    comment's own line; ``disable-next-line`` targets the next line that is neither
    blank nor made only of suppression comments (so several can be stacked). In
    Markdown, comments inside code (fenced, indented or inline) and inside front
    matter are documentation, not directives, and are ignored.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import yaml
from markdown_it import MarkdownIt

__all__ = ["Block", "Directive", "Extracted", "Suppressions", "extract", "line_of"]

# What markdown-it's ``mdTrim`` strips (CommonMark whitespace); older versions used str.strip().
try:  # pragma: no cover - depends on the installed markdown-it-py
    from markdown_it.common.utils import MD_TRIM_CHARS as _MD_TRIM
except ImportError:  # pragma: no cover
    _MD_TRIM = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
        "\u2028\u2029\u202f\u205f\u3000"

_TRIM_VARIANTS: tuple[str | None, ...] = (_MD_TRIM, None)
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


@dataclass(frozen=True)
class Directive:
    """One parsed suppression comment."""

    kind: str  # "disable" | "enable" | "disable-next-line" | "disable-line"
    codes: tuple[str, ...]  # upper-cased code prefixes; empty = every code
    line: int  # 0-based source line of the comment's start
    offset: int  # source code-point offset of "<!--"
    target: int | None = None  # the line a next-line/line directive applies to (None: no such line)

    def matches(self, code: str) -> bool:
        """Ruff-style prefix match: ``FL2`` covers FL200..FL299."""
        if not self.codes:
            return True
        code = code.upper()
        return any(code.startswith(c) for c in self.codes)


@dataclass
class Suppressions:
    """The suppression comments of one draft; answers "is this finding silenced?"."""

    directives: list[Directive] = field(default_factory=list)

    def is_suppressed(self, code: str, source_line: int) -> bool:
        """``source_line`` is the 0-based line of the finding's start in the source."""
        state = False
        for d in self.directives:  # kept in source order, so the last matching range directive wins
            if d.kind in ("disable-next-line", "disable-line"):
                if d.target == source_line and d.matches(code):
                    return True
            elif d.line <= source_line and d.matches(code):
                state = d.kind == "disable"
        return state


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


# --------------------------------------------------------------------------- front matter

_FM_OPEN = re.compile(r"---[ \t]*\n")
_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)


def _front_matter(norm: str) -> tuple[int, dict | None, str | None]:
    """Find ``---``-fenced YAML at the very start; returns (end offset in norm, data, error)."""
    m = _FM_OPEN.match(norm)
    if not m:
        return 0, None, None
    close = _FM_CLOSE.search(norm, m.end())
    if not close:
        return 0, None, None  # an unclosed "---" is just a thematic break
    end = close.end() + 1 if close.end() < len(norm) else close.end()
    body = norm[m.end():close.start()]
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).strip()
        if mark is not None:
            return end, None, f"front matter line {mark.line + 2}: {problem}"  # 1-based file line
        return end, None, f"front matter: {problem}"
    if data is None:
        return end, {}, None
    if not isinstance(data, dict):
        return end, None, f"front matter line 2: expected a mapping, got {type(data).__name__}"
    return end, data, None


# --------------------------------------------------------------------------- suppressions

_DIRECTIVE = re.compile(r"<!--\s*faithlint-(disable-next-line|disable-line|disable|enable)(?![\w-])(.*?)-->", re.S)
_CODE = re.compile(r"[A-Za-z]+\d*")


def _parse_codes(args: str) -> tuple[str, ...]:
    args = args.split("--", 1)[0]  # "-- reason" is free text
    return tuple(t.upper() for t in re.split(r"[\s,]+", args) if t and _CODE.fullmatch(t))


def _scan_directives(norm: str, n2o: Sequence[int], excluded: list[tuple[int, int]]
                     ) -> tuple[Suppressions, list[tuple[int, int]]]:
    """Parse suppression comments in ``norm``; returns them and their norm spans (for removal in plain text)."""
    found: list[tuple[re.Match[str], str, tuple[str, ...]]] = []
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
        directives.append(Directive(kind, codes, line, n2o[m.start()], target))
    return Suppressions(directives), spans


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


# --------------------------------------------------------------------------- markdown-it instrumentation


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
        variants = []
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


def _wrap_block(name: str, fn: Callable[..., bool]) -> Callable[..., bool]:
    def rule(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
        n0 = len(state.tokens)
        ok = fn(state, start_line, end_line, silent)
        if ok and not silent:
            new = state.tokens[n0:]
            if name == "table":
                _annotate_table(state, new)
            else:
                for tok in new:
                    if tok.type == "inline" and tok.map:
                        _set_map(state, tok, _BLOCK_ANNOTATORS[name](state, tok))
        return ok

    return rule


def _hook_state(state: Any) -> None:
    """Make flushed plain-text tokens remember where their text started (once per StateInline)."""
    if state.__dict__.get("_fl_hooked"):
        return
    state._fl_hooked = True
    state._fl_pstart = None
    original = state.pushPending

    def push_pending() -> Any:
        start = state._fl_pstart
        tok = original()
        if start is not None:
            tok.meta["fl_span"] = (start, start + len(tok.content))
        state._fl_pstart = None
        return tok

    state.pushPending = push_pending


def _wrap_inline(name: str, fn: Callable[[Any, bool], bool]) -> Callable[[Any, bool], bool]:
    per_char = name in ("emphasis", "strikethrough")

    def rule(state: Any, silent: bool) -> bool:
        if silent:
            return fn(state, silent)
        _hook_state(state)
        pos0, n0 = state.pos, len(state.tokens)
        if not state.pending:
            state._fl_pstart = pos0  # whatever this rule appends to pending starts here
        ok = fn(state, silent)
        if ok:
            p = pos0
            for tok in state.tokens[n0:]:
                if "fl_span" in tok.meta:
                    continue
                if per_char:  # one token per delimiter run piece, in order
                    tok.meta["fl_span"] = (p, p + len(tok.content))
                    p += len(tok.content)
                else:
                    tok.meta["fl_span"] = (pos0, state.pos)
        return ok

    return rule


def _fallback_char(state: Any, silent: bool) -> bool:
    """markdown-it's own "no rule matched" step, as a rule so it goes through the wrapper."""
    if not silent:
        ch = state.src[state.pos]
        append = getattr(state, "append_pending", None)
        if append is not None:
            append(ch)
        else:  # pragma: no cover - markdown-it-py < 4
            state.pending += ch
    state.pos += 1
    return True


def _build_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.core.ruler.disable("text_join", ignoreInvalid=True)
    md.inline.ruler2.disable("fragments_join", ignoreInvalid=True)
    md.inline.ruler.push("fl_fallback", _fallback_char)
    for r in list(md.inline.ruler.__rules__):
        md.inline.ruler.at(r.name, _wrap_inline(r.name, r.fn), {"alt": list(r.alt)})
    for r in list(md.block.ruler.__rules__):
        if r.name in ("paragraph", "lheading", "heading", "table"):
            md.block.ruler.at(r.name, _wrap_block(r.name, r.fn), {"alt": list(r.alt)})
    return md


_local = threading.local()


def _parser() -> MarkdownIt:
    """One instrumented parser per thread (the wrappers keep no state, but markdown-it caches lazily)."""
    md = getattr(_local, "md", None)
    if md is None:
        md = _local.md = _build_parser()
    return md


# --------------------------------------------------------------------------- markdown extraction

# Inline HTML that only formats text: dropping it must not split a word ("H<sub>2</sub>O").
_FORMAT_TAG = re.compile(r"</?(?:a|abbr|b|bdi|bdo|cite|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|"
                         r"time|u|var)(?:[\s/>])", re.I)


def _inline_block(tok: Any, kind: str, n2o: Sequence[int], code_spans: list[tuple[int, int]]) -> Block | None:
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
    tokens = _parser().parse(parse_src)
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
        suppressions, spans = _scan_directives(norm, n2o, [])
        return Extracted(source, _extract_plain(norm, n2o, spans), None, None, suppressions)
    fm_end, fm, fm_error = _front_matter(norm)
    blocks, excluded = _extract_markdown(norm, n2o, fm_end)
    if fm_end:
        excluded.append((0, fm_end))
    suppressions, _ = _scan_directives(norm, n2o, excluded)
    return Extracted(source, blocks, fm, fm_error, suppressions)
