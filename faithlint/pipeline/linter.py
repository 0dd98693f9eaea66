"""The core: (draft text, context, config) -> findings with exact offsets.

Everything else (CLI, language server, watcher, reports) wraps :class:`Linter`. The linter wires
the stages of :mod:`faithlint.pipeline.stages` once: Markdown-aware extraction with an offset map -> units
(sentences) -> evidence selection (assembled premises or windows, sized from each unit's own
length) -> one batched checker pass over all (premise, hypothesis) pairs, with a verdict cache
keyed by (premise, hypothesis, model, settings) -> aggregation -> the registered rules ->
suppression comments.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from operator import attrgetter
from typing import Any

import numpy as np
from cachetools import LRUCache, cachedmethod

from faithlint.cache.digests import digest
from faithlint.cache.disk import DiskCache, open_cache
from faithlint.claims.aggregate import supported_share
from faithlint.claims.extractors import extractor_for, extractor_settings, warm_up
from faithlint.claims.units import ClaimUnit, ClaimUnits
from faithlint.claims.verdicts import claim_result, claims_flag, deduplicated, take_claims_verdict
from faithlint.config import Config, ContextKind
from faithlint.document.markdown import Extracted, extract
from faithlint.document.sentences import SentenceSplitter, Splitters, load_spacy
from faithlint.document.units import SentenceExtractor, split_units
from faithlint.errors import ModelError
from faithlint.evidence.grounding import FILE, GroundingModel, context_terms_of, ground
from faithlint.evidence.index import ContextIndex, context_file, doc_key
from faithlint.evidence.pieces import evidence_quote
from faithlint.evidence.selection import claim, selector_for, verbatim_evidence
from faithlint.evidence.windows import token_budget
from faithlint.models.checkers.base import Checker, as_checker
from faithlint.models.checkers.span_head import marks_in_unit
from faithlint.pipeline.aggregators import aggregator_for
from faithlint.pipeline.figures import hypothesis_edits, marks_before_edits, rewritten
from faithlint.pipeline.registry import CheckerSettings, RelevanceSettings, checker_for, models_key, relevance_for
from faithlint.pipeline.registry import load_checker as load_checker  # re-exported: it was defined here first
from faithlint.pipeline.scoring import PairScorer
from faithlint.pipeline.stages import (
    Aggregator,
    EvidenceRequest,
    EvidenceSelector,
    RuleLike,
    Selection,
    Unit,
    UnitExtractor,
    as_rule,
)
from faithlint.pipeline.stats import Stats as Stats  # re-exported: it was defined here first
from faithlint.rules.base import Judged, RuleContext
from faithlint.rules.finish import finish
from faithlint.rules.fl400_absent_value import AbsentValue
from faithlint.rules.operating_point import OperatingPoint, context_kind
from faithlint.rules.registry import RULES
from faithlint.types import ClaimResult, ContextDoc, DraftResult, Evidence, Finding, SentenceResult, Verdict
from faithlint.types import scale_1_5 as scale_1_5  # re-exported: it was defined here before types.py


class _Checking(threading.local):
    """The config of the check running in this thread (``Linter.check(config=...)``; None: the linter's own)."""

    config: Config | None = None


class Linter:
    """Checks drafts against their context; keeps models and caches between calls.

    Every stage can be replaced (see :mod:`faithlint.pipeline.stages`); models load on first use, so
    constructing a Linter is free and loading errors surface on the first check.
    """

    def __init__(self, config: Config | None = None, checker: Any = None, relevance: Any = None,
                 splitter: SentenceSplitter | Splitters | None = None, values: Any = None, *,
                 extractor: UnitExtractor | None = None, selector: EvidenceSelector | None = None,
                 aggregator: Aggregator | None = None, rules: Sequence[RuleLike] | None = None,
                 monitor: Any = None, claims: ClaimUnits | None = None) -> None:
        self._config = config or Config()
        self._checking = _Checking()
        # a given checker or relevance model is kept whatever the settings; loaded ones follow models_key
        self._checker: Checker | None = as_checker(checker) if checker is not None else None
        self._checker_key: CheckerSettings | None = None
        self._relevance = relevance
        self._relevance_key: RelevanceSettings | None = None
        self._splitters = splitter if isinstance(splitter, Splitters) else Splitters(splitter)  # RAC shares them
        self._values = values
        self.extractor: UnitExtractor = extractor or SentenceExtractor(lambda: self.splitter)
        self._selector = selector
        self._aggregator = aggregator
        self._rules = [as_rule(r) for r in rules] if rules is not None else None
        self._monitor = monitor
        self._claims = claims
        self._claims_name: Any = None  # the extractor settings the claims were built for (None: given or none yet)
        self.index = ContextIndex(lambda: self.context_splitter, lambda: self.checker, lambda: self.disk_cache)
        self._stored: LRUCache = LRUCache(256)  # context documents: how many piece embeddings are on disk
        self._load_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._value_cache: LRUCache = LRUCache(20_000)
        self._verbatim_cache: LRUCache = LRUCache(20_000)
        # evidence selected per unit: an edit re-selects only the sentences it changed
        self._selection_cache: LRUCache = LRUCache(20_000)
        self.stats = Stats()
        self.scorer = PairScorer(self.stats, self._cache_lock)

    # ------------------------------------------------------------------ settings
    @property
    def config(self) -> Config:
        """The settings of the check in progress (``check(config=...)``, :meth:`using`), else the linter's own."""
        return self._checking.config or self._config

    @config.setter
    def config(self, config: Config) -> None:
        self._config = config

    @contextmanager
    def using(self, config: Config | None) -> Iterator[Config]:
        """Run what the block does with ``config`` (None: the linter's own) in this thread, as :meth:`check` does
        with its ``config``: one linter serves drafts whose settings differ; models reload where
        :func:`~faithlint.pipeline.registry.models_key` differs."""
        outer = self._checking.config
        self._checking.config = config or outer
        try:
            yield self.config
        finally:
            self._checking.config = outer

    # ------------------------------------------------------------------ lazily loaded parts
    @property
    def checker(self) -> Checker:
        return self._checker_for(self.config)

    def _checker_for(self, config: Config) -> Checker:
        with self._load_lock:
            key = models_key(config).checker
            if self._checker is None or (self._checker_key is not None and self._checker_key != key):
                self._checker = checker_for(key)
                self._checker_key = key
            return self._checker

    @property
    def relevance(self) -> Any:
        return self._relevance_for(self.config)

    def _relevance_for(self, config: Config) -> Any:
        with self._load_lock:
            key = models_key(config).relevance
            if self._relevance is None or (self._relevance_key is not None and self._relevance_key != key):
                self._relevance = relevance_for(key)
                self._relevance_key = key
            return self._relevance

    @property
    def splitter(self) -> SentenceSplitter:
        """How drafts are cut into sentences (``split``); a splitter given to the constructor is always used."""
        return self._splitters.get(self.config.split)

    @property
    def context_splitter(self) -> SentenceSplitter:
        """How context documents are cut into sentences (``context_split``)."""
        return self._splitters.get(self.config.context_split)

    @property
    def values(self) -> Any:
        with self._load_lock:
            if self._values is None:
                from faithlint.rules.values import ValueExtractor

                self._values = ValueExtractor(nlp=self._splitters.nlp() or load_spacy())  # one pipeline per process
            return self._values

    @property
    def disk_cache(self) -> DiskCache | None:
        """The on-disk cache of context splits and piece embeddings (``cache_dir``; None when off)."""
        return open_cache(self.config.cache_dir, self.config.cache_max_mb)

    @property
    def monitor(self) -> Any:
        """The SynCheck-style monitor (:mod:`faithlint.monitor`); loaded only when ``monitor = "on"``."""
        if self._monitor is not None:
            return self._monitor
        from faithlint.monitor.monitor import load_monitor

        c = self.config
        return load_monitor(c.surrogate, c.device, c.monitor_max_context, c.monitor_model)

    @property
    def grounding(self) -> GroundingModel | None:
        """The checker's ``grounding.json`` (attached by :func:`load_checker`) with ``grounding = "on"``; None with
        the monitor on (it reads the same signals) or a checker without one (LLM, Hugging Face id, a given fake)."""
        c = self.config
        if c.grounding != "on" or c.monitor == "on":
            return None
        return self.checker.grounding

    @property
    def claims(self) -> ClaimUnits:
        """The claim extractor ``config.claim_extractor`` names, with its per-sentence cache."""
        with self._load_lock:
            c = self.config
            name = extractor_settings(c)
            if self._claims is None or (self._claims_name is not None and self._claims_name != name):
                nlp = self._splitters.nlp()
                self._claims = ClaimUnits(extractor_for(c, nlp))
                self._claims_name = name
            return self._claims

    @property
    def selector(self) -> EvidenceSelector:
        """The selector given, else the one ``config.evidence`` names (the server swaps configs per check)."""
        return self._selector or selector_for(self.config.evidence)

    @property
    def aggregator(self) -> Aggregator:
        return self._aggregator or aggregator_for(self.config.aggregation)

    @property
    def rules(self) -> list[RuleLike]:
        """The rules this linter runs (enabled or not: ``select``/``ignore`` decide per check)."""
        return self._rules if self._rules is not None else list(RULES.values())

    @property
    def matches_values(self) -> bool:
        """Do checks match values (FL400 on)? Then :attr:`values` loads with the models and idle work prepares the
        context's pieces for it (:mod:`faithlint.evidence.warm_up`)."""
        return self.config.rule_enabled(AbsentValue.code)

    def cache_sizes(self) -> dict[str, int]:
        """Entries per cache (the server's status command shows them)."""
        return {"pairs": len(self.scorer.pairs), "contextDocs": len(self.index.sentences_cache),
                "windows": len(self.index.windows_cache), "values": len(self._value_cache),
                "selections": len(self._selection_cache)}

    def load(self) -> None:
        """Load every model now (the server does this in the background at start)."""
        self.load_models()
        if self.matches_values:
            _ = self.values
        if self.config.monitor == "on":
            self.monitor.load()
        if self.config.unit != "sentence":
            warm_up(self.claims.extractor)

    def load_models(self) -> None:
        """Load the checker and relevance models on a helper thread while spaCy loads on this one: OpenVINO and
        ONNX Runtime build their sessions without holding the GIL, so a cold start waits for the slower, not both."""
        config = self.config  # the helper thread has no check of its own
        with ThreadPoolExecutor(1, thread_name_prefix="faithlint-load") as pool:
            models = pool.submit(lambda: (self._checker_for(config), self._relevance_for(config)))
            _ = self.splitter, self.context_splitter
            models.result()
        gc.freeze()  # the models live as long as the process: full collections (~0.1 s, mid-check) skip them

    # ------------------------------------------------------------------ public API
    def sentences(self, text: str, markdown: bool = True, extracted: Extracted | None = None,
                  query: str | None = None) -> tuple[Extracted, list[Unit]]:
        """The parsed draft and the units the checker will judge (``query``: see :class:`SentenceExtractor`)."""
        ex = extracted if extracted is not None else extract(text, markdown=markdown)
        return ex, self.extractor.units(ex, self.config, query=query)

    def check(self, text: str, context: Sequence[ContextDoc], *, path: str | None = None, id: str | None = None,
              query: str | None = None, markdown: bool = True, extracted: Extracted | None = None,
              cancelled: Callable[[], bool] | None = None,
              partial: Callable[[DraftResult], None] | None = None, first: int = 8,
              config: Config | None = None) -> DraftResult:
        """Check one draft. ``cancelled`` is polled between stages (the server cancels superseded checks).

        ``config``: this draft's settings (None: the linter's own); drafts whose settings choose the same models
        (:func:`~faithlint.pipeline.registry.models_key`) share one linter and its caches this way.
        ``extracted``: the draft already parsed by :func:`faithlint.document.markdown.extract` (preparation parses
        it for its front matter; it is not parsed twice). With ``partial``, a long draft (over ``3 * first``
        units) is checked in two passes: the first ``first`` units, handed to ``partial`` as a result of
        their own, then the rest; an editor shows the top of a freshly opened draft while the rest is
        still being checked.
        """
        with self.using(config):
            return self._check(text, context, path, id, query, markdown, extracted, cancelled, partial, first)

    def _check(self, text: str, context: Sequence[ContextDoc], path: str | None, id: str | None, query: str | None,
               markdown: bool, extracted: Extracted | None, cancelled: Callable[[], bool] | None,
               partial: Callable[[DraftResult], None] | None, first: int) -> DraftResult:
        self.stats.stage_ms = {}
        t = time.perf_counter()
        ex = extracted if extracted is not None else extract(text, markdown=markdown)
        t = self.stats.add_ms("parse", t)
        units, unchecked = split_units(self.extractor, ex, self.config, query)
        self.stats.add_ms("split", t)
        result = DraftResult(text=text, path=path, id=id, unchecked=unchecked)
        if ex.front_matter_error:
            result.notes.append(ex.front_matter_error)
        if not units:
            result.score = {"mean": 1.0, "min": 1.0, "unsupported_share": 0.0}
            return result
        if not context:
            result.notes.append("no context: only rules that need no context ran")
            result.score = {"mean": float("nan"), "min": float("nan"), "unsupported_share": float("nan")}
            return result
        self.stats.last = {"pairs": 0, "scored": 0, "sentences_rescored": 0}
        claims: list[list[ClaimUnit]] = [[] for _ in units]
        if self.config.unit != "sentence":
            claims, notes = self.claims.claims(units)
            result.notes.extend(notes)
        # short drafts are quick as a whole; splitting them would only make their diagnostics flicker
        progressive = partial is not None and 0 < first and len(units) > 3 * first
        bounds = [0, first, len(units)] if progressive else [0, len(units)]
        verdicts: list[Verdict | None] = []
        claim_verdicts: list[list[Verdict]] = []
        for a, b in zip(bounds, bounds[1:]):
            got, got_claims = self._judge_units(units[a:b], claims[a:b], context, query, cancelled)
            verdicts.extend(got)
            claim_verdicts.extend(got_claims)
            if cancelled and cancelled():
                break
            if partial is not None and b < len(units):
                partial(self._result(DraftResult(text=text, path=path, id=id, notes=list(result.notes),
                                                 unchecked=unchecked),
                                     ex, units[:b], verdicts, None, context, query, claims[:b], claim_verdicts))
        self.stats.drafts_checked += 1
        return self._result(result, ex, units, verdicts, cancelled, context, query, claims, claim_verdicts)

    def evidence(self, texts: Sequence[str], context: Sequence[ContextDoc], query: str | None = None,
                 standalone: Sequence[bool] = ()) -> tuple[list[Evidence | None], list[Selection], list[str]]:
        """The evidence each unit will be judged against: (verbatim evidence or None, selection, hypothesis).

        A unit copied word for word from the context needs no checker (its selection is empty).
        Training data is built with this too (training/build_real.py), so the checker learns on the
        premises it judges: pair each of ``selection.premises`` with the hypothesis. ``standalone[i]``: text
        ``i`` is a claim, a whole proposition that never takes the query as its hypothesis's frame.
        """
        cfg = self.config
        checker = self.checker
        counts = self.scorer.token_counts(checker, texts)
        budgets = [token_budget(cfg.max_length, n, model_max=checker.model_max) for n in counts]
        keys = [doc_key(doc) for doc in context]
        alone = list(standalone) + [False] * (len(texts) - len(standalone))
        hypotheses = [s if a else claim(s, query, cfg.query_claim) for s, a in zip(texts, alone)]
        copied = [self._verbatim(s, context, keys) if cfg.verbatim and h == s else None
                  for s, h in zip(texts, hypotheses)]
        skip = [c is not None for c in copied]
        disk_docs = self._disk_documents(context, keys)
        self._load_embeddings(disk_docs)
        # a unit's selection depends on its own text, budget and query, the context and the settings only
        fp = self._settings_fingerprint()
        sel_keys = [digest(fp, t, h, str(b), str(k), query or "", *keys)
                    for t, h, b, k in zip(texts, hypotheses, budgets, skip)]
        with self._cache_lock:
            got: list[Selection | None] = [self._selection_cache.get(k) for k in sel_keys]
        todo = [i for i, sel in enumerate(got) if sel is None]
        if todo:
            request = EvidenceRequest([texts[i] for i in todo], [hypotheses[i] for i in todo], context, keys,
                                      [budgets[i] for i in todo], [skip[i] for i in todo], query, cfg, self.index,
                                      self.relevance)
            fresh = self.selector.select(request)
            with self._cache_lock:
                for i, sel in zip(todo, fresh):
                    got[i] = sel
                    self._selection_cache[sel_keys[i]] = sel
            self._store_embeddings(disk_docs)
        return copied, [sel for sel in got if sel is not None], hypotheses

    def _disk_documents(self, context: Sequence[ContextDoc], keys: Sequence[str]) -> list[tuple[tuple, list[str]]]:
        """The context files whose piece embeddings the disk cache keeps: ((key, position), piece texts)."""
        disk = self.disk_cache
        if disk is None or self._selector is not None or self.config.evidence != "assembled" or \
                not hasattr(self.relevance, "store_cached"):
            return []
        return [((key, d), [p.text for p in self.index.pieces(doc, d, key)[0]])
                for d, (doc, key) in enumerate(zip(context, keys)) if context_file(doc)]

    def _load_embeddings(self, docs: list[tuple[tuple, list[str]]]) -> None:
        """A reopened workspace embeds again only what no earlier process embedded (read once per document)."""
        for ident, texts in docs:
            if ident not in self._stored:
                self._stored[ident] = self.relevance.load_cached(texts, self.disk_cache)

    def _store_embeddings(self, docs: list[tuple[tuple, list[str]]]) -> None:
        """Only the pieces a check ranked are embedded; the file is rewritten when a check embedded more."""
        for ident, texts in docs:
            n = self.relevance.known(texts)
            if n > self._stored.get(ident, 0):
                self.relevance.store_cached(texts, self.disk_cache)
                self._stored[ident] = n

    def _settings_fingerprint(self) -> str:
        """What besides a unit and the context decides its evidence: every setting, the selector (a given one by
        identity), the relevance model and the checker's tokenizer."""
        custom = id(self._selector) if self._selector is not None else ""
        parts = [self.config.model_dump_json(), type(self.selector).__qualname__, custom,
                 getattr(self.relevance, "name", type(self.relevance).__name__), getattr(self.relevance, "runtime", ""),
                 self.checker.name]
        return digest(*map(str, parts)).hex()

    # ------------------------------------------------------------------ stages
    def _judge_units(self, units: Sequence[Unit], claims: Sequence[list[ClaimUnit]], context: Sequence[ContextDoc],
                     query: str | None, cancelled: Callable[[], bool] | None
                     ) -> tuple[list[Verdict | None], list[list[Verdict]]]:
        """Verdicts of the sentences that need their own (None where claims decide) and of every claim, in one
        checker pass: with ``unit = "claim"`` a sentence with claims is judged through them only."""
        own = [self.config.unit != "claim" or not c for c in claims]
        texts = [u.text for u, o in zip(units, own) if o]
        standalone = [False] * len(texts)
        texts += [c.text for cs in claims for c in cs]
        standalone += [True] * (len(texts) - len(standalone))
        got = iter(self._judge(texts, context, query, cancelled, standalone) if texts else [])
        verdicts = [next(got) if o else None for o in own]
        claim_verdicts = [[next(got) for _ in cs] for cs in claims]
        self.stats.claims_checked += sum(len(cs) for cs in claims)
        return verdicts, claim_verdicts

    def _judge(self, texts: Sequence[str], context: Sequence[ContextDoc], query: str | None,
               cancelled: Callable[[], bool] | None, standalone: Sequence[bool] = ()) -> list[Verdict]:
        t = time.perf_counter()
        copied, selections, hypotheses = self.evidence(texts, context, query, standalone)
        t = self.stats.add_ms("evidence", t)
        if cancelled and cancelled():
            return [Verdict.neutral() for _ in texts]
        # the checker reads the unit's figures as its evidence writes them ("forty" -> "40"); marks map back
        edits = hypothesis_edits(selections, hypotheses) if self.config.align_values else [[] for _ in texts]
        pairs = [(p, rewritten(h, e)) for sel, h, e in zip(selections, hypotheses, edits) for p in sel.premises]
        probs, fresh, marks = self.scorer.score(self.checker, self.config.max_length, pairs)
        self.stats.add_ms("checker", t)
        out: list[Verdict] = []
        k = 0
        rescored = 0
        for text, h, sel, hit, e in zip(texts, hypotheses, selections, copied, edits):
            n = len(sel.premises)
            p = probs[k:k + n]
            m = [marks_before_edits(x, e) for x in marks[k:k + n]]
            rescored += bool(fresh[k:k + n].any())
            k += n
            self.stats.sentences_checked += 1
            if hit is not None:
                out.append(Verdict.copied(hit))
            elif n == 0 or not sel.evidence:
                out.append(Verdict.neutral())
            elif sel.best is None:  # one premise per window: the aggregator picks the deciding one
                agg, best = self.aggregator(p, np.array(sel.weights))
                out.append(Verdict(agg, sel.evidence[best], sel.evidence, marks_in_unit(m[best], text, h)))
            else:  # one assembled premise: its verdict, quoted from the piece the selector names
                out.append(Verdict(p[0], sel.evidence[sel.best], sel.evidence, marks_in_unit(m[0], text, h)))
        self.stats.sentences_rescored += rescored
        self.stats.last["sentences_rescored"] += rescored
        return out

    def _result(self, result: DraftResult, ex: Extracted, units: list[Unit], verdicts: Sequence[Verdict | None],
                cancelled: Callable[[], bool] | None = None, context: Sequence[ContextDoc] = (),
                query: str | None = None, claims: Sequence[list[ClaimUnit]] = (),
                claim_verdicts: Sequence[list[Verdict]] = ()) -> DraftResult:
        t_all = time.perf_counter()
        use_claims = self.config.unit != "sentence"
        for i, (u, verdict) in enumerate(zip(units, verdicts)):
            cs = [claim_result(c, v) for c, v in zip(claims[i], claim_verdicts[i])] if use_claims else None
            if verdict is None:  # judged through its claims only (their aggregate is taken below)
                result.sentences.append(_sentence_result(u, Verdict.neutral(), cs, "claims"))
            else:
                result.sentences.append(_sentence_result(u, verdict, cs))
        if cancelled and cancelled():
            return result
        point = None
        kind = context_kind(context, query)
        if self.config.monitor == "on" and context and result.sentences:
            point = self._monitor_verdicts(result.sentences, context, query, kind)
        elif context and result.sentences and (model := self.grounding) is not None:
            # claims keep the checker's verdicts (their own operating point), as does a sentence judged by them
            ground(model, result.sentences, context_terms_of([doc_key(d) for d in context], context))
            point = self.operating_point(kind)
        for s in result.sentences:
            if s.verdict_from == "claims" and s.claims:
                take_claims_verdict(s, self.config.claim_aggregation)
        t = time.perf_counter()
        result.findings = self._findings(ex, units[:len(result.sentences)], result.sentences, point, claims, context,
                                         kind)
        t_all += self.stats.add_ms("rules", t) - t  # the rules' time is not the results' too
        scores = [s.score for s in result.sentences]
        result.score = {"mean": float(np.mean(scores)), "min": float(np.min(scores)),
                        "unsupported_share": float(np.mean([s.label != "entailment" for s in result.sentences]))}
        if use_claims:
            labels = [c.label for s in result.sentences for c in s.claims or ()]
            result.score["claims"] = float(len(labels))
            result.score["claims_supported_share"] = supported_share(labels)
        self.stats.add_ms("results", t_all)
        return result

    def _monitor_verdicts(self, results: list[SentenceResult], context: Sequence[ContextDoc],
                          query: str | None, kind: ContextKind | None = None) -> OperatingPoint:
        """Replace each unit's score by the monitor's P(faithful); returns the monitor's operating point.

        The checker's own probabilities stay in the verdict's features; P(contradiction) stays the
        checker's (:func:`~faithlint.monitor.monitor.rescored`), so FL100 still means "contradicted".
        Claims are read like sentences (their verbalised text); their token marks are dropped, since
        they index the verbalisation, not the draft.
        """
        from faithlint.monitor.monitor import rescored

        cfg = self.config
        monitor = self.monitor
        units: list[SentenceResult] = [r for r in results if r.verdict_from == "sentence"]
        units += [c for r in results for c in r.claims or ()]
        verdicts = monitor.judge(units, context, query, self.values_absent, cfg.monitor_aggregator)
        for r, v in zip(units, verdicts):
            r.set_verdict([*rescored(v.p, r.probs["contradiction"]).values()])
            r.monitor = dataclasses.replace(v, marks=[]) if isinstance(r, ClaimResult) else v
        return RULES.operating_point(cfg, monitor.model.thresholds.get(cfg.monitor_aggregator) or {}, kind)

    def operating_point(self, kind: ContextKind | None = None) -> OperatingPoint:
        """The thresholds of this linter's sentence findings without the monitor: configured ones (for ``kind``, the
        kind of context checked against: :func:`~faithlint.rules.operating_point.context_kind`), else the grounding
        model's calibrated ones where it scores sentences (its point for ``kind`` where it has one), else the rules'
        defaults."""
        model = self.grounding
        if model is None:
            return RULES.operating_point(self.config, None, kind)
        return RULES.operating_point(self.config, {**model.thresholds, **kind_thresholds(model).get(kind or "", {})},
                                     kind)

    def _findings(self, ex: Extracted, units: list[Unit], results: list[SentenceResult],
                  point: OperatingPoint | None = None, claims: Sequence[list[ClaimUnit]] = (),
                  context: Sequence[ContextDoc] = (), kind: ContextKind | None = None) -> list[Finding]:
        cfg = self.config
        # with the monitor on, claims are scored by it too and take its calibrated point
        point = RULES.operating_point(cfg, None, kind) if point is None else point
        ctx = RuleContext(cfg, point, self._mismatches, context)
        rules = [r for r in self.rules if cfg.rule_enabled(r.code)]
        sentence_rules = [r for r in rules if "sentence" in r.units]
        claim_rules = [r for r in rules if "claim" in r.units]
        findings: list[Finding] = []
        for i, (u, r) in enumerate(zip(units, results)):
            judged = Judged(u, r, lambda r=r: evidence_quote(r.evidence, r.text) if r.evidence else "")
            own = [f for rule in sentence_rules for f in rule.check(judged, ctx)]
            found: list[Finding] = []
            if r.claims and claim_rules and claims_flag(r, cfg.claim_aggregation, point):
                for cu, cr in zip(claims[i], r.claims):
                    judged_claim = Judged(cu, cr, lambda cr=cr: evidence_quote(cr.evidence, cr.text)
                                          if cr.evidence else "")
                    found.extend(f for rule in claim_rules for f in rule.check(judged_claim, ctx))
            findings.extend(deduplicated(own, found))
            findings.extend(found)
        return finish(findings, ex, cfg)

    @cachedmethod(attrgetter("_verbatim_cache"), key=lambda self, sentence, context, keys: (sentence, *keys),
                  lock=attrgetter("_cache_lock"))
    def _verbatim(self, sentence: str, context: Sequence[ContextDoc], keys: list[str]) -> Evidence | None:
        return verbatim_evidence(sentence, context)

    def values_absent(self, result: SentenceResult) -> int:
        """How many of the sentence's values its evidence lacks (what FL400 would mark; a monitor feature)."""
        return len(self._mismatches(result.text, [w.text for w in result.windows])) if result.windows else 0

    @cachedmethod(attrgetter("_value_cache"), key=lambda self, sentence, evidence: digest(sentence, *evidence),
                  lock=attrgetter("_cache_lock"))
    def _mismatches(self, sentence: str, evidence: list[str]) -> list[Any]:
        """FL400 values, cached: an edit elsewhere leaves this sentence and its evidence unchanged."""
        return self.values.mismatches(sentence, evidence)


def kind_thresholds(model: GroundingModel) -> dict[str, dict[str, float]]:
    """The grounding model's thresholds per kind of context (``operating_point.kinds.KIND.thresholds`` in its
    ``grounding.json``, chosen by ``training/fit_point_ragtruth.py``; none: one point for every kind)."""
    kinds = (model.meta.get("operating_point") or {}).get("kinds") or {}
    try:
        return {str(k): {str(c): float(t) for c, t in v["thresholds"].items()} for k, v in kinds.items()}
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{FILE}: operating_point.kinds: not thresholds by kind of context "
                         f"({type(exc).__name__}: {exc})") from None


def _sentence_result(u: Unit, verdict: Verdict, claims: list[ClaimResult] | None,
                     verdict_from: str = "sentence") -> SentenceResult:
    return SentenceResult(start=u.start, end=u.end, text=u.text, **verdict.fields(), claims=claims,
                          verdict_from=verdict_from, marks=list(verdict.marks))
