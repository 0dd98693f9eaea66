"""The instrumented markdown-it parser: why and how faithlint patches markdown-it-py.

Why a patch is needed
    faithlint anchors every finding to an exact code-point offset in the draft, so each
    character of extracted prose must know where it came from. markdown-it-py tokens
    only carry *line* ranges (``Token.map``); neither markdown-it-py (checked up to 4.x)
    nor mdit-py-plugins has a documented API for column or offset positions of block
    content or inline tokens, and re-finding text by searching for it is ambiguous
    (repeated words, entities, escapes). So the parser is instrumented here. The only
    markdown-it-py *public* API used is ``MarkdownIt(...).enable``, ``Ruler.disable``,
    ``Ruler.push`` and ``Ruler.at``; the rest relies on internals listed below.

What is patched
    * the block rules that produce inline content (:data:`ANNOTATED_BLOCK_RULES`) are
      wrapped (``Ruler.at``); right after one ran, :func:`annotate_block` recomputes
      where each character of the inline ``content`` lives (see
      :mod:`faithlint.document.markdown_positions`) and stores it as ``tok.meta["fl_map"]``;
    * every inline rule is wrapped to record the ``[start, end)`` span of the content
      it consumed on the tokens it pushed (``tok.meta["fl_span"]``), and the
      ``pushPending`` method of each ``StateInline`` *instance* is replaced so plain-text
      tokens know where their text started;
    * markdown-it's "no rule matched, append one character to pending" step is added as
      a last inline rule (``fl_fallback``) so it goes through the wrapper too;
    * the rules that merge text tokens after the fact (``text_join`` and
      ``fragments_join``) are disabled (public ``Ruler.disable``) so those spans survive.

Internals relied on
    ``Ruler.__rules__`` (to get each rule's original function and ``alt`` list),
    ``StateInline.pos``/``pending``/``tokens``/``append_pending``/``pushPending``, and
    ``StateBlock.src``/``tokens``/``bMarks``/``eMarks``/``tShift``/``bsCount``/``blkIndent``.
    If a future version changed them so the mirrors disagree with a token's content,
    :mod:`faithlint.document.markdown_positions` falls back to a greedy alignment instead of
    crashing; tests/test_markdown.py fails loudly if that fallback ever runs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt

from faithlint.document.markdown_positions import ANNOTATED_BLOCK_RULES, annotate_block

__all__ = ["instrumented_parser"]


def _wrap_block(name: str, fn: Callable[..., bool]) -> Callable[..., bool]:
    def rule(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
        n0 = len(state.tokens)
        ok = fn(state, start_line, end_line, silent)
        if ok and not silent:
            annotate_block(name, state, state.tokens[n0:])
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


_INLINE_CACHE_MAX = 4096


def _cached_inline(cache: OrderedDict[tuple[str, str], list[Any]]) -> Callable[[Any], None]:
    """markdown-it's core ``inline`` rule, remembering each block's inline tokens by its content.

    An edit re-parses the whole draft, and inline parsing is most of that; but a block's inline
    tokens (and the spans recorded on them, relative to the block's content) depend only on its
    content and the draft's link reference definitions, so unchanged blocks reuse them. Nothing
    after this rule changes inline tokens (``text_join`` is off; no typographer, no linkify)."""

    def inline(state: Any) -> None:
        refs = state.env.get("references") or {}
        refs_key = repr(sorted(refs.items())) if refs else ""
        for tok in state.tokens:
            if tok.type != "inline":
                continue
            key = (tok.content, refs_key)
            children = cache.get(key)
            if children is None:
                children = []
                state.md.inline.parse(tok.content, state.md, state.env, children)
                cache[key] = children
                if len(cache) > _INLINE_CACHE_MAX:
                    cache.popitem(last=False)
            else:
                cache.move_to_end(key)
            tok.children = list(children)

    return inline


def _build_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.core.ruler.at("inline", _cached_inline(OrderedDict()))  # one parser per thread: its own cache
    md.core.ruler.disable("text_join", ignoreInvalid=True)
    md.inline.ruler2.disable("fragments_join", ignoreInvalid=True)
    md.inline.ruler.push("fl_fallback", _fallback_char)
    for r in list(md.inline.ruler.__rules__):
        md.inline.ruler.at(r.name, _wrap_inline(r.name, r.fn), {"alt": list(r.alt)})
    for r in list(md.block.ruler.__rules__):
        if r.name in ANNOTATED_BLOCK_RULES:
            md.block.ruler.at(r.name, _wrap_block(r.name, r.fn), {"alt": list(r.alt)})
    return md


_local = threading.local()


def instrumented_parser() -> MarkdownIt:
    """One instrumented parser per thread (the wrappers keep no state, but markdown-it caches lazily)."""
    md = getattr(_local, "md", None)
    if md is None:
        md = _local.md = _build_parser()
    return md
