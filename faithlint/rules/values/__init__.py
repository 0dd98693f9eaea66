"""FL400, deterministic part: numbers, dates and named entities of a draft sentence that the evidence lacks.

Why this exists: NLI models are weak at noticing a swapped figure, year or name ("rose 12%" vs "rose 8%"), so
FL400 compares such values explicitly. Values are extracted with regular expressions (numbers, money, percents,
quantities, ordinals, dates, times) and spaCy NER (named entities, supplemented by a capitalised-name pattern
because the small English model misses many names). Each value is parsed into a structured form so that
equivalent spellings compare equal (``1,000`` == ``1000``, ``$2m`` == ``2 million dollars``,
``March 3, 2021`` == ``2021-03-03``, ``Obama`` ~ ``Barack Obama``). Without spaCy everything but NER still works.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from cachetools import LRUCache

from .extraction import _analyse
from .matching import _pick_context, _present, _same_count
from .model import Mismatch, Value, _Analysis
from .vocab import _CACHE_SIZE, _NLP_LOCK, ENTITY_LABELS, KINDS, SPACY_MODEL

__all__ = ["ALIGNED_KINDS", "ENTITY_LABELS", "KINDS", "SPACY_MODEL", "Mismatch", "Value", "ValueExtractor"]

ALIGNED_KINDS = frozenset({"number", "money", "percent", "quantity"})  # figures ``aligned`` rewrites


# ------------------------------------------------------------------------------------------------ extractor
@lru_cache(maxsize=1)
def _default_nlp() -> Any | None:
    """Load the English pipeline once per process; None when spaCy or the model is missing."""
    try:
        from faithlint.document.sentences import load_pipeline

        return load_pipeline(SPACY_MODEL)
    except (ImportError, OSError, ValueError):
        return None


class ValueExtractor:
    """Extracts comparable values from text and finds the draft values its evidence lacks.

    ``nlp``: a spaCy ``Language`` to reuse, ``None`` to load the default English pipeline (regex-only when it is
    not installed), or ``False`` to force regex-only extraction. Thread-safe; analyses are cached by text.
    """

    def __init__(self, nlp: Any = None, cache_size: int = _CACHE_SIZE) -> None:
        if nlp is None:
            nlp = _default_nlp()
        self.nlp = nlp if nlp is not False and nlp is not None else None
        self._disable: list[str] = []
        if self.nlp is not None:
            if "ner" not in self.nlp.pipe_names:
                self.nlp = None
            else:  # only NER (and the embedding layer it listens to) is needed: ~2x faster
                needed = {"ner"}
                for name, proc in self.nlp.pipeline:
                    if "ner" in getattr(proc, "listening_components", ()):
                        needed.add(name)
                self._disable = [n for n in self.nlp.pipe_names if n not in needed]
        self._cache: LRUCache = LRUCache(max(1, cache_size))
        self._cache_lock = threading.Lock()

    @property
    def backend(self) -> str:
        return "spacy" if self.nlp is not None else "regex"

    # ------------------------------------------------------------------ public API
    def values(self, text: str) -> list[Value]:
        """Every value in ``text``, in order of position (offsets are code points into ``text``)."""
        return [it.value for it in self._analyse_many([text])[0].items]

    def mismatches(self, sentence: str, evidence_texts: list[str]) -> list[Mismatch]:
        """Draft-sentence values with no equivalent value in any of ``evidence_texts``."""
        analyses = self._analyse_many([sentence, *evidence_texts])
        draft, evidence = analyses[0], analyses[1:]
        out = []
        for item in draft.items:
            if item.generic or _present(item, evidence):
                continue
            if item.count:  # "one VM" is not compared with an unrelated "4", only with a count of VMs
                other, aligned = _same_count(item, draft, evidence)
                if other is not None:
                    out.append(Mismatch(item.value, other, aligned))
                continue
            out.append(Mismatch(item.value, *_pick_context(item, draft, evidence)))
        return out

    def alignment(self, hypothesis: str, evidence_texts: list[str]) -> list[tuple[int, int, str]]:
        """Edits (start, end, new text; in order) that write each figure of ``hypothesis`` as its evidence writes
        the same value ("forty" -> "40", "12.5 million dollars" -> "$12.5 million", "60%" -> "60 percent"): the
        checker reads a figure in another form as a different one far more often than the same words
        (bench/paraphrase_probe.py). Only numbers, money, percents and quantities whose parsed values are equal;
        a form the evidence also uses is left alone."""
        analyses = self._analyse_many([hypothesis, *evidence_texts])
        forms: dict[str, str] = {}
        used: set[tuple[str, str]] = set()  # (value, as written) pairs of the evidence: forms it also uses
        for a in analyses[1:]:
            for it in a.items:
                if it.value.kind in ALIGNED_KINDS and not it.generic:
                    forms.setdefault(it.value.norm, it.value.text)
                    used.add((it.value.norm, it.value.text))
        return [(it.value.start, it.value.end, forms[it.value.norm]) for it in analyses[0].items
                if it.value.kind in ALIGNED_KINDS and not it.generic and it.value.norm in forms
                and (it.value.norm, it.value.text) not in used]

    def prepare(self, texts: list[str]) -> None:
        """Analyse ``texts`` now (one spaCy batch) so later calls find them in the cache."""
        self._analyse_many(list(texts))

    # ------------------------------------------------------------------ analysis and caching
    def _analyse_many(self, texts: list[str]) -> list[_Analysis]:
        found: dict[str, _Analysis] = {}
        with self._cache_lock:
            for t in texts:
                a = self._cache.get(t)
                if a is not None:
                    found[t] = a
        todo = list(dict.fromkeys(t for t in texts if t not in found))
        if todo:
            docs: list[Any] = [None] * len(todo)
            if self.nlp is not None:
                # texts beyond the pipeline's max_length would raise: they get regex-only entities
                idx = [i for i, t in enumerate(todo) if len(t) <= getattr(self.nlp, "max_length", 10**6)]
                with _NLP_LOCK:
                    parsed = list(self.nlp.pipe([todo[i] for i in idx], disable=self._disable))
                for i, doc in zip(idx, parsed, strict=True):
                    docs[i] = doc
            fresh = {t: _analyse(t, doc) for t, doc in zip(todo, docs, strict=True)}
            found.update(fresh)
            with self._cache_lock:
                self._cache.update(fresh)
        return [found[t] for t in texts]


