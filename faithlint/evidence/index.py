"""Context documents cut the way selectors need them, cached per document version.

Sentences (with the checker's token counts), fixed windows per token budget and small pieces for
assembly are all derived from a document's text; in the language server the same context is
re-read on every edit, so each is computed once per (document, budget).
"""

from __future__ import annotations

import hashlib
import re
import sys
import threading
from collections.abc import Callable
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any

from cachetools import LRUCache, cachedmethod

from faithlint.cache.disk import DiskCache
from faithlint.cache.disk import key as disk_key
from faithlint.document.markdown import extract
from faithlint.document.sentences import SentenceSplitter, Span
from faithlint.evidence.pieces import PIECE_TOKENS, Piece, terms
from faithlint.evidence.windows import Window, build_windows
from faithlint.types import ContextDoc

MARKDOWN_SOURCES = (".md", ".markdown", ".mdx")


def doc_key(doc: ContextDoc) -> str:
    """Identifies a document version (path and text) in every cache key."""
    return hashlib.sha1((doc.source + "\x00" + doc.text).encode("utf-8")).hexdigest()


def _text_key(doc: ContextDoc) -> tuple[bool, str]:
    """What a split depends on: the text and whether it is read as Markdown (not the document's name)."""
    return doc.source.lower().endswith(MARKDOWN_SOURCES), hashlib.sha1(doc.text.encode("utf-8")).hexdigest()


class ContextIndex:
    """Sentences, windows and pieces of context documents; the checker's tokenizer sizes them.

    Every method takes the document's :func:`doc_key`: callers hash a long document once per check,
    not once per unit, and the key names the document version in the caches.
    """

    def __init__(self, splitter: Callable[[], SentenceSplitter], checker: Callable[[], Any],
                 disk: Callable[[], DiskCache | None] = lambda: None) -> None:
        self._splitter = splitter  # getters: the linter loads its models lazily
        self._checker = checker
        self._disk = disk  # the on-disk cache (None: off): a reopened workspace does not split its context again
        self._lock = threading.Lock()
        self.sentences_cache: LRUCache = LRUCache(2_000)
        self.windows_cache: LRUCache = LRUCache(4_000)
        # splits by text alone: a batch names one source's context differently on every line (``<id>#context[0]``),
        # and a corpus checks several responses per source (issue 41); the split depends on nothing else
        self.split_cache: LRUCache = LRUCache(512)

    @cachedmethod(attrgetter("sentences_cache"), key=lambda self, doc, key: key, lock=attrgetter("_lock"))
    def sentences(self, doc: ContextDoc, key: str) -> tuple[list[Span], list[int]]:
        """The document's sentences (never across paragraphs or Markdown blocks) and their token counts; from the
        disk cache when this text was split before by the same splitter, code and tokenizer."""
        disk = self._disk()
        if disk is None or not context_file(doc):
            return self._split(doc)
        checker = self._checker()
        tokenizer = getattr(checker, "name", type(checker).__name__)
        k = disk_key(_split_code(), _splitter_identity(self._splitter()), tokenizer,
                     str(doc.source.lower().endswith(MARKDOWN_SOURCES)), doc.text)
        got = disk.get_json("sentences", k)
        if isinstance(got, dict) and isinstance(got.get("spans"), list) and isinstance(got.get("counts"), list) \
                and len(got["spans"]) == len(got["counts"]):
            try:
                return [Span(int(a), int(b)) for a, b in got["spans"]], [int(n) for n in got["counts"]]
            except (TypeError, ValueError):
                pass  # a corrupt entry: split again and rewrite it
        spans, counts = self._split(doc)
        disk.put_json("sentences", k, {"spans": [[s.start, s.end] for s in spans], "counts": list(counts)})
        return spans, counts

    @cachedmethod(attrgetter("split_cache"), key=lambda self, doc: _text_key(doc), lock=attrgetter("_lock"))
    def _split(self, doc: ContextDoc) -> tuple[list[Span], list[int]]:
        splitter = self._splitter()
        spans: list[Span] = []
        if doc.source.lower().endswith(MARKDOWN_SOURCES):
            blocks = extract(doc.text, markdown=True).blocks  # headings, list items: own sentences
            for block, split in zip(blocks, splitter.split_many([b.text for b in blocks])):
                spans.extend(Span(*block.to_source(s.start, s.end)) for s in split)
        else:
            paras = paragraphs(doc.text)
            for (para_start, _), split in zip(paras, splitter.split_many([p for _, p in paras])):
                spans.extend(Span(para_start + s.start, para_start + s.end) for s in split)
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


@lru_cache(maxsize=1)
def _split_code() -> str:  # noqa: N802 - a constant computed once
    """The code that decides a split (its source files): a change to it invalidates cached splits."""
    from faithlint.document import markdown_patch, markdown_positions, sentences

    h = hashlib.sha1()
    for mod in (sentences, markdown_patch, markdown_positions, sys.modules[extract.__module__], sys.modules[__name__]):
        try:
            h.update(Path(mod.__file__ or "").read_bytes())
        except OSError:
            h.update(mod.__name__.encode())
    return h.hexdigest()


def _splitter_identity(splitter: SentenceSplitter) -> str:
    nlp = getattr(splitter, "nlp", None)
    meta = getattr(nlp, "meta", {}) or {}
    model = f"{meta.get('lang')}_{meta.get('name')}:{meta.get('version')}"
    return f"{type(splitter).__qualname__}:{splitter.backend}:{model}"


def context_file(doc: ContextDoc) -> bool:
    """Whether ``doc`` was read from a file: only files are cached on disk (a workspace is reopened; the inline
    contexts of a batch of pairs would only churn the cache)."""
    try:
        return Path(doc.source).is_file()
    except (OSError, ValueError):
        return False


def paragraphs(text: str) -> list[tuple[int, str]]:
    """Blank-line separated paragraphs with their offsets (sentences never cross them)."""
    out = []
    start = 0
    for m in re.finditer(r"(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)+", text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(s, p) for s, p in out if p.strip()]
