"""Context documents cut the way selectors need them, cached per document version.

Sentences (with the checker's token counts), fixed windows per token budget and small pieces for
assembly are all derived from a document's text; in the language server the same context is
re-read on every edit, so each is computed once per (document, budget).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from cachetools import LRUCache, cachedmethod

from faithlint.evidence import PIECE_TOKENS, Piece, terms
from faithlint.markdown import extract
from faithlint.sentences import SentenceSplitter, Span
from faithlint.types import ContextDoc
from faithlint.windows import Window, build_windows

MARKDOWN_SOURCES = (".md", ".markdown", ".mdx")


def doc_key(doc: ContextDoc) -> str:
    """Identifies a document version (path and text) in every cache key."""
    return hashlib.sha1((doc.source + "\x00" + doc.text).encode("utf-8")).hexdigest()


class ContextIndex:
    """Sentences, windows and pieces of context documents; the checker's tokenizer sizes them.

    Every method takes the document's :func:`doc_key`: callers hash a long document once per check,
    not once per unit, and the key names the document version in the caches.
    """

    def __init__(self, splitter: Callable[[], SentenceSplitter], checker: Callable[[], Any]) -> None:
        self._splitter = splitter  # getters: the linter loads its models lazily
        self._checker = checker
        self._lock = threading.Lock()
        self.sentences_cache: LRUCache = LRUCache(2_000)
        self.windows_cache: LRUCache = LRUCache(4_000)

    @cachedmethod(attrgetter("sentences_cache"), key=lambda self, doc, key: key, lock=attrgetter("_lock"))
    def sentences(self, doc: ContextDoc, key: str) -> tuple[list[Span], list[int]]:
        """The document's sentences (never across paragraphs or Markdown blocks) and their token counts."""
        splitter = self._splitter()
        spans: list[Span] = []
        if doc.source.lower().endswith(MARKDOWN_SOURCES):
            for block in extract(doc.text, markdown=True).blocks:  # headings, list items: own sentences
                spans.extend(Span(*block.to_source(s.start, s.end)) for s in splitter.split(block.text))
        else:
            for para_start, para in paragraphs(doc.text):
                spans.extend(Span(para_start + s.start, para_start + s.end) for s in splitter.split(para))
        return spans, self._checker().count_tokens([doc.text[s.start:s.end] for s in spans])

    @cachedmethod(attrgetter("windows_cache"), key=lambda self, doc, budget, overlap, key: (key, budget, overlap),
                  lock=attrgetter("_lock"))
    def windows(self, doc: ContextDoc, budget: int, overlap: int, key: str) -> list[Window]:
        """Windows of ``doc`` that fit ``budget`` tokens, overlapping by ``overlap``."""
        spans, counts = self.sentences(doc, key)
        return build_windows(doc.source, doc.text, spans, counts, budget, overlap, self._checker().token_offsets)

    @cachedmethod(attrgetter("windows_cache"), key=lambda self, doc, position, key: ("pieces", key, position),
                  lock=attrgetter("_lock"))
    def pieces(self, doc: ContextDoc, position: int, key: str) -> tuple[list[Piece], list[frozenset[str]]]:
        """Small pieces of ``doc`` (the ``position``-th context document) with their terms, for assembly."""
        checker = self._checker()
        spans, counts = self.sentences(doc, key)
        ws = build_windows(doc.source, doc.text, spans, counts, PIECE_TOKENS, 0, checker.token_offsets)
        tokens = checker.count_tokens([w.text for w in ws])
        ps = [Piece(w.source, w.start, w.end, w.text, n, position, k) for k, (w, n) in enumerate(zip(ws, tokens))]
        return ps, [terms(p.text) for p in ps]


def paragraphs(text: str) -> list[tuple[int, str]]:
    """Blank-line separated paragraphs with their offsets (sentences never cross them)."""
    out = []
    start = 0
    for m in re.finditer(r"(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)+", text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(s, p) for s, p in out if p.strip()]
