"""The core: (draft text, context, config) -> findings with exact offsets.

Everything else (CLI, language server, watcher, reports) wraps :class:`Linter`.
Pipeline: Markdown-aware extraction with an offset map -> sentences -> context
windows sized from each sentence's own length -> relevance + TopP/TopK window
selection -> one batched NLI pass over all (window, sentence) pairs, with a
verdict cache keyed by (window, sentence, model, settings) -> aggregation ->
rules -> suppression comments.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from faithlint.config import Config
from faithlint.evidence import PIECE_TOKENS, Piece, assemble, premise_text, rank_scores, terms
from faithlint.markdown import Block, Extracted, extract, line_of
from faithlint.relevance import LexicalRelevance, content_words, select
from faithlint.rules.catalog import RULES
from faithlint.rules.operating_point import sentence_code
from faithlint.sentences import SentenceSplitter, Span
from faithlint.types import LABELS, ContextDoc, DraftResult, Evidence, Finding, SentenceResult
from faithlint.windows import Window, build_windows, token_budget


@dataclass
class DraftSentence:
    block: Block
    plain_start: int  # offset in block.text
    plain_end: int
    start: int  # offsets in the source
    end: int

    @property
    def text(self) -> str:
        return self.block.text[self.plain_start:self.plain_end]

    def to_source(self, a: int, b: int) -> tuple[int, int]:
        """Sentence-relative plain offsets -> source offsets."""
        return self.block.to_source(self.plain_start + a, self.plain_start + b)


@dataclass
class Stats:
    """Counters the server's status command and the benchmarks read."""

    sentences_checked: int = 0
    sentences_rescored: int = 0  # sentences with at least one pair the cache did not have
    pairs_scored: int = 0
    pair_cache_hits: int = 0
    drafts_checked: int = 0
    last: dict[str, int] = field(default_factory=dict)


def scale_1_5(score: float) -> int:
    """Map a faithfulness probability onto the 1-5 scale (5 = fully supported)."""
    return int(1 + round(4 * min(max(score, 0.0), 1.0)))


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class Linter:
    """Checks drafts against their context; keeps models and caches between calls."""

    def __init__(self, config: Config | None = None, checker: Any = None, relevance: Any = None,
                 splitter: SentenceSplitter | None = None, values: Any = None) -> None:
        self.config = config or Config()
        self._checker = checker
        self._relevance = relevance
        self._splitter = splitter
        self._values = values
        self._load_lock = threading.Lock()
        self._pair_cache = _LRU(200_000)
        self._ctx_cache = _LRU(2_000)
        self._win_cache = _LRU(4_000)
        self._value_cache = _LRU(20_000)
        self._verbatim_cache = _LRU(20_000)
        self.stats = Stats()

    # lazily loaded parts, so constructing a Linter is free and errors surface on first use
    @property
    def checker(self) -> Any:
        with self._load_lock:
            if self._checker is None:
                c = self.config
                self._checker = load_checker(c.model, c.device, c.max_length, c.batch_size, c.precision)
            return self._checker

    @property
    def relevance(self) -> Any:
        with self._load_lock:
            if self._relevance is None:
                if self.config.relevance == "embedding":
                    from faithlint.relevance import EmbeddingRelevance

                    self._relevance = EmbeddingRelevance()
                else:
                    self._relevance = LexicalRelevance()
            return self._relevance

    @property
    def splitter(self) -> SentenceSplitter:
        with self._load_lock:
            if self._splitter is None:
                self._splitter = SentenceSplitter()
            return self._splitter

    @property
    def values(self) -> Any:
        with self._load_lock:
            if self._values is None:
                from faithlint.rules.values import ValueExtractor

                nlp = self._splitter.nlp if self._splitter is not None else None
                self._values = ValueExtractor(nlp=nlp)
            return self._values

    def load(self) -> None:
        """Load every model now (the server does this in the background at start)."""
        _ = self.checker, self.relevance, self.splitter
        if self.config.rule_enabled("FL400"):
            _ = self.values

    # ------------------------------------------------------------------ public API
    def sentences(self, text: str, markdown: bool = True) -> tuple[Extracted, list[DraftSentence]]:
        ex = extract(text, markdown=markdown)
        out = []
        for block in ex.blocks:
            if block.kind == "heading" and not self.config.check_headings:
                continue  # titles are not claims
            for s in self.splitter.split(block.text):
                if len(block.text[s.start:s.end].split()) < self.config.min_words:
                    continue  # "Pricing", "Yes." : nothing to verify
                a, b = block.to_source(s.start, s.end)
                out.append(DraftSentence(block, s.start, s.end, a, b))
        return ex, out

    def check(self, text: str, context: Sequence[ContextDoc], *, path: str | None = None, id: str | None = None,
              query: str | None = None, markdown: bool = True,
              cancelled: Callable[[], bool] | None = None,
              partial: Callable[[DraftResult], None] | None = None, first: int = 8) -> DraftResult:
        """Check one draft. ``cancelled`` is polled between stages (the server cancels superseded checks).

        With ``partial``, a long draft (over ``3 * first`` sentences) is checked in two passes: the
        first ``first`` sentences, handed to ``partial`` as a result of their own, then the rest; an
        editor shows the top of a freshly opened draft while the rest is still being checked.
        """
        ex, sents = self.sentences(text, markdown)
        result = DraftResult(text=text, path=path, id=id)
        if ex.front_matter_error:
            result.notes.append(ex.front_matter_error)
        if not sents:
            result.score = {"mean": 1.0, "min": 1.0, "unsupported_share": 0.0}
            return result
        if not context:
            result.notes.append("no context: only rules that need no context ran")
            result.score = {"mean": float("nan"), "min": float("nan"), "unsupported_share": float("nan")}
            return result
        self.stats.last = {"pairs": 0, "scored": 0, "sentences_rescored": 0}
        texts = [s.text for s in sents]
        # short drafts are quick as a whole; splitting them would only make their diagnostics flicker
        progressive = partial is not None and 0 < first and len(sents) > 3 * first
        bounds = [0, first, len(sents)] if progressive else [0, len(sents)]
        verdicts: list[tuple[np.ndarray, Evidence | None, list[Evidence]]] = []
        for a, b in zip(bounds, bounds[1:]):
            verdicts.extend(self._judge(texts[a:b], context, query, cancelled))
            if cancelled and cancelled():
                break
            if partial is not None and b < len(sents):
                partial(self._result(DraftResult(text=text, path=path, id=id, notes=list(result.notes)),
                                     ex, sents[:b], verdicts))
        self.stats.drafts_checked += 1
        return self._result(result, ex, sents, verdicts, cancelled)

    def _result(self, result: DraftResult, ex: Extracted, sents: list[DraftSentence],
                verdicts: list[tuple[np.ndarray, Evidence | None, list[Evidence]]],
                cancelled: Callable[[], bool] | None = None) -> DraftResult:
        for s, (probs, evidence, windows) in zip(sents, verdicts):
            label = LABELS[int(np.argmax(probs))]
            score = float(probs[0])
            result.sentences.append(SentenceResult(
                start=s.start, end=s.end, text=s.text, label=label,
                probs={k: float(v) for k, v in zip(LABELS, probs)}, score=score, scale_1_5=scale_1_5(score),
                evidence=evidence, windows=windows))
        if cancelled and cancelled():
            return result
        result.findings = self._findings(ex, sents[:len(result.sentences)], result.sentences)
        scores = [s.score for s in result.sentences]
        result.score = {"mean": float(np.mean(scores)), "min": float(np.min(scores)),
                        "unsupported_share": float(np.mean([s.label != "entailment" for s in result.sentences]))}
        return result

    # ------------------------------------------------------------------ stages
    @staticmethod
    def _doc_key(doc: ContextDoc) -> str:
        return hashlib.sha1((doc.source + "\x00" + doc.text).encode("utf-8")).hexdigest()

    def _context_sentences(self, doc: ContextDoc, key: str) -> tuple[list[Span], list[int]]:
        hit = self._ctx_cache.get(key)
        if hit is None:
            spans: list[Span] = []
            if doc.source.lower().endswith((".md", ".markdown", ".mdx")):
                for block in extract(doc.text, markdown=True).blocks:  # headings, list items: own sentences
                    spans.extend(Span(*block.to_source(s.start, s.end)) for s in self.splitter.split(block.text))
            else:
                for para_start, para in _paragraphs(doc.text):
                    spans.extend(Span(para_start + s.start, para_start + s.end) for s in self.splitter.split(para))
            counts = self.checker.count_tokens([doc.text[s.start:s.end] for s in spans])
            hit = (spans, counts)
            self._ctx_cache.put(key, hit)
        return hit

    def windows_for(self, doc: ContextDoc, budget: int, doc_key: str | None = None) -> list[Window]:
        """Windows of ``doc`` for a token budget; ``doc_key`` saves re-hashing a long document per sentence."""
        doc_key = doc_key or self._doc_key(doc)
        key = (doc_key, budget, self.config.overlap)
        hit = self._win_cache.get(key)
        if hit is None:
            spans, counts = self._context_sentences(doc, doc_key)
            hit = build_windows(doc.source, doc.text, spans, counts, budget, self.config.overlap,
                                self.checker.token_offsets)
            self._win_cache.put(key, hit)
        return hit

    def _judge(self, sentences: Sequence[str], context: Sequence[ContextDoc], query: str | None,
               cancelled: Callable[[], bool] | None) -> list[tuple[np.ndarray, Evidence | None, list[Evidence]]]:
        cfg = self.config
        copied, chosen, pairs = self.evidence_pairs(sentences, context, query)
        if cancelled and cancelled():
            return [(np.array([0.0, 1.0, 0.0]), None, []) for _ in sentences]
        probs, fresh = self._score(pairs)
        out = []
        k = 0
        rescored = 0
        for (evs, weights, best), hit in zip(chosen, copied):
            n = len(weights) if evs else 0
            p = probs[k:k + n]
            rescored += bool(fresh[k:k + n].any())
            k += n
            self.stats.sentences_checked += 1
            if hit is not None:
                out.append((np.array([1.0, 0.0, 0.0]), hit, [hit]))
                continue
            if n == 0:
                out.append((np.array([0.0, 1.0, 0.0]), None, []))
                continue
            if best is None:  # windows: the aggregator picks the deciding window
                agg, best = aggregate(p, np.array(weights), cfg.aggregation)
            else:  # one assembled premise: its verdict, quoted from its most relevant piece
                agg = p[0]
            out.append((agg, evs[best], evs))
        self.stats.sentences_rescored += rescored
        self.stats.last["sentences_rescored"] += rescored
        return out

    def evidence_pairs(self, sentences: Sequence[str], context: Sequence[ContextDoc], query: str | None = None
                       ) -> tuple[list[Evidence | None], list[tuple[list[Evidence], list[float], int | None]],
                                  list[tuple[str, str]]]:
        """The (premise, hypothesis) pairs the checker will judge, with their evidence.

        Returns, per sentence, the verbatim evidence when the sentence is copied from the context
        (no pair then) and (evidence list, weights, deciding index or None for the aggregator); and
        the flat list of pairs. Training data is built with this too (training/build_data.py).
        """
        cfg = self.config
        checker = self.checker
        counts = checker.count_tokens(sentences)
        model_max = getattr(checker, "model_max", 512)
        budgets = [token_budget(cfg.max_length, n, model_max=model_max) for n in counts]
        doc_keys = [self._doc_key(doc) for doc in context]
        hypotheses = [claim(s, query, cfg.query_claim) for s in sentences]
        copied = [self._verbatim(s, context, doc_keys) if cfg.verbatim and h == s else None
                  for s, h in zip(sentences, hypotheses)]
        if cfg.evidence == "assembled":
            chosen, pairs = self._assembled(sentences, hypotheses, context, doc_keys, budgets, copied, query)
        else:
            chosen, pairs = self._windowed(sentences, hypotheses, context, doc_keys, budgets, copied, query)
        return copied, chosen, pairs

    def _windowed(self, sentences: Sequence[str], hypotheses: Sequence[str], context: Sequence[ContextDoc],
                  doc_keys: list[str], budgets: list[int], copied: list[Evidence | None], query: str | None
                  ) -> tuple[list[tuple[list[Evidence], list[float], int | None]], list[tuple[str, str]]]:
        """Fixed windows: each sentence is judged against its TopP/TopK windows, one pair per window."""
        cfg = self.config
        per_sentence_windows: list[list[Window]] = []
        for b, hit in zip(budgets, copied):
            if hit is not None:
                per_sentence_windows.append([])
                continue
            ws: list[Window] = []
            for doc, doc_key in zip(context, doc_keys):
                ws.extend(self.windows_for(doc, b, doc_key))
            per_sentence_windows.append(ws)
        # relevance over the union of candidate windows, computed once
        uniq: dict[tuple[str, int, int], int] = {}
        all_windows: list[Window] = []
        for ws in per_sentence_windows:
            for w in ws:
                k = (w.source, w.start, w.end)
                if k not in uniq:
                    uniq[k] = len(all_windows)
                    all_windows.append(w)
        # only sentences the model will judge need relevance (a copied one already has its evidence)
        row = {i: r for r, i in enumerate(i for i, hit in enumerate(copied) if hit is None)}
        queries = [f"{query} {sentences[i]}" if query else sentences[i] for i in row]
        sim = self.relevance.similarity(queries, [w.text for w in all_windows])
        chosen: list[tuple[list[Evidence], list[float], int | None]] = []
        pairs: list[tuple[str, str]] = []
        for i, ws in enumerate(per_sentence_windows):
            if i not in row:
                chosen.append(([], [], None))
                continue
            cols = [uniq[(w.source, w.start, w.end)] for w in ws]
            sel = select(sim[row[i], cols], cfg.selection, cfg.top_k, cfg.top_p, cfg.max_windows)
            picked = [ws[j] for j in sel.indices]
            chosen.append(([Evidence(w.source, w.start, w.end, w.text, wt) for w, wt in zip(picked, sel.weights)],
                           sel.weights, None))
            pairs.extend((w.text, hypotheses[i]) for w in picked)
        return chosen, pairs

    def _assembled(self, sentences: Sequence[str], hypotheses: Sequence[str], context: Sequence[ContextDoc],
                   doc_keys: list[str], budgets: list[int], copied: list[Evidence | None], query: str | None
                   ) -> tuple[list[tuple[list[Evidence], list[float], int | None]], list[tuple[str, str]]]:
        """Assembled evidence: one premise per sentence from the context pieces that carry its facts."""
        pieces: list[Piece] = []
        piece_terms: list[frozenset[str]] = []
        for d, (doc, doc_key) in enumerate(zip(context, doc_keys)):
            ps, ts = self._pieces(doc, doc_key, d)
            pieces.extend(ps)
            piece_terms.extend(ts)
        row = {i: r for r, i in enumerate(i for i, hit in enumerate(copied) if hit is None)}
        queries = [f"{query} {sentences[i]}" if query else sentences[i] for i in row]
        sim = self.relevance.similarity(queries, [p.text for p in pieces]) if row else None
        chosen: list[tuple[list[Evidence], list[float], int | None]] = []
        pairs: list[tuple[str, str]] = []
        for i, sentence in enumerate(sentences):
            if i not in row or not pieces:
                chosen.append(([], [], None))
                continue
            scores = rank_scores(sim[row[i]], sentence, piece_terms)
            idx = assemble(pieces, scores, budgets[i])
            evs = [Evidence(pieces[j].source, pieces[j].start, pieces[j].end, pieces[j].text, float(scores[j]))
                   for j in idx]
            best = int(np.argmax([scores[j] for j in idx]))
            chosen.append((evs, [1.0], best))
            pairs.append((premise_text(pieces, idx), hypotheses[i]))
        return chosen, pairs

    def _pieces(self, doc: ContextDoc, doc_key: str, d: int) -> tuple[list[Piece], list[frozenset[str]]]:
        key = ("pieces", doc_key, d)
        hit = self._win_cache.get(key)
        if hit is None:
            spans, counts = self._context_sentences(doc, doc_key)
            ws = build_windows(doc.source, doc.text, spans, counts, PIECE_TOKENS, 0, self.checker.token_offsets)
            tokens = self.checker.count_tokens([w.text for w in ws])
            ps = [Piece(w.source, w.start, w.end, w.text, n, d, k) for k, (w, n) in enumerate(zip(ws, tokens))]
            hit = (ps, [terms(p.text) for p in ps])
            self._win_cache.put(key, hit)
        return hit

    def _score(self, pairs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities for each pair, and which pairs the model had to run (not cached)."""
        name = getattr(self.checker, "name", type(self.checker).__name__)
        keys = [hashlib.sha1(f"{name}\x00{self.config.max_length}\x00{p}\x00{h}".encode()).hexdigest()
                for p, h in pairs]
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        todo = []
        for i, k in enumerate(keys):
            hit = self._pair_cache.get(k)
            if hit is None:
                todo.append(i)
            else:
                out[i] = hit
        self.stats.pair_cache_hits += len(pairs) - len(todo)
        self.stats.pairs_scored += len(todo)
        self.stats.last["pairs"] += len(pairs)  # check() starts each draft's counts at 0
        self.stats.last["scored"] += len(todo)
        if todo:
            scored = self.checker.score_pairs([pairs[i][0] for i in todo], [pairs[i][1] for i in todo])
            for i, row in zip(todo, scored):
                out[i] = row
                self._pair_cache.put(keys[i], row.copy())
        fresh = np.zeros(len(pairs), dtype=bool)
        fresh[todo] = True
        return out, fresh

    def _findings(self, ex: Extracted, sents: list[DraftSentence], results: list[SentenceResult]) -> list[Finding]:
        cfg = self.config
        point = cfg.operating_point()
        findings: list[Finding] = []
        for s, r in zip(sents, results):
            quote = evidence_quote(r.evidence, s.text) if r.evidence else ""
            base = {"label": r.label, "score": r.score, "evidence": r.evidence}
            data = {"sentence": [s.start, s.end], "evidence_quote": quote}
            code = sentence_code(r.probs["entailment"], r.probs["contradiction"], point)
            if code == "FL100" and cfg.rule_enabled("FL100"):
                findings.append(Finding("FL100", cfg.severity_for("FL100", RULES["FL100"].severity),
                                        f"Contradicted by the context (contradiction {r.probs['contradiction']:.2f}, "
                                        f"score {r.score:.2f}, {r.scale_1_5}/5): \u201c{quote}\u201d",
                                        s.start, s.end, data=dict(data), **base))
            elif code == "FL200" and cfg.rule_enabled("FL200"):
                findings.append(Finding("FL200", cfg.severity_for("FL200", RULES["FL200"].severity),
                                        f"Not supported by the context (score {r.score:.2f}, {r.scale_1_5}/5); "
                                        f"closest evidence: \u201c{quote}\u201d", s.start, s.end,
                                        data=dict(data), **base))
            elif code is not None and cfg.rule_enabled("FL300"):
                findings.append(Finding("FL300", cfg.severity_for("FL300", RULES["FL300"].severity),
                                        f"Low faithfulness {r.score:.2f} (below {point.low:.2f}, {r.scale_1_5}/5); "
                                        f"evidence: \u201c{quote}\u201d", s.start, s.end, data=dict(data), **base))
            if cfg.rule_enabled("FL400") and r.windows and (point.values >= 1.0 or r.score < point.values):
                for m in self._mismatches(s.text, [w.text for w in r.windows]):
                    a, b = s.to_source(m.value.start, m.value.end)
                    ctx = m.context_value
                    msg = f"\u2018{m.value.text}\u2019 ({m.value.kind}) does not appear in the evidence"
                    msg += (f"; the context has \u2018{ctx.text}\u2019" if ctx
                            else f"; the evidence has no {m.value.kind}")
                    findings.append(Finding(
                        "FL400", cfg.severity_for("FL400", RULES["FL400"].severity), msg, a, b, label=r.label,
                        score=r.score, evidence=r.evidence,
                        data={"value": m.value.text, "kind": m.value.kind,
                              "context_value": ctx.text if ctx else None, "sentence": [s.start, s.end]}))
        kept = [f for f in findings if not ex.suppressions.is_suppressed(f.code, line_of(ex.source, f.start))]
        kept.sort(key=lambda f: (f.start, f.code))
        return kept


    def _verbatim(self, sentence: str, context: Sequence[ContextDoc], doc_keys: list[str]) -> Evidence | None:
        key = (sentence, *doc_keys)
        if key not in self._verbatim_cache:
            self._verbatim_cache.put(key, verbatim_evidence(sentence, context))
        return self._verbatim_cache[key]

    def _mismatches(self, sentence: str, evidence: list[str]) -> list[Any]:
        """FL400 values, cached: an edit elsewhere leaves this sentence and its evidence unchanged."""
        key = hashlib.sha1("\x00".join([sentence, *evidence]).encode("utf-8")).hexdigest()
        hit = self._value_cache.get(key)
        if hit is None:
            hit = self.values.mismatches(sentence, evidence)
            self._value_cache.put(key, hit)
        return hit


_QUOTES = {"'": "['\u2018\u2019]", "\u2018": "['\u2018\u2019]", "\u2019": "['\u2018\u2019]",
           '"': '["\u201c\u201d]', "\u201c": '["\u201c\u201d]', "\u201d": '["\u201c\u201d]'}


_SENTENCE_START = ".!?:;\"'\u201d\u2019)]*#>-|\u2022"


def verbatim_evidence(sentence: str, context: Sequence[ContextDoc], min_words: int = 4) -> Evidence | None:
    """Where ``sentence`` stands word for word, as a whole sentence, in the context.

    Case, spacing and quote style aside. A copied sentence is supported by definition; asking the
    model costs time and risks a false alarm. A fragment of a longer sentence does not count ("is
    open on Sundays" inside "denied that it is open on Sundays").
    """
    words = sentence.split()
    if len(words) < min_words or not re.search(r"[.!?][\"'\u201d\u2019)]?$", sentence):
        return None
    pattern = r"\s+".join("".join(_QUOTES.get(ch, re.escape(ch)) for ch in w) for w in words)
    rx = re.compile(r"(?<!\w)" + pattern, re.IGNORECASE)
    for doc in context:
        for m in rx.finditer(doc.text):
            before = doc.text[:m.start()]
            prev = before.rstrip()
            if not prev or prev[-1] in _SENTENCE_START or "\n" in before[len(prev):]:
                return Evidence(doc.source, m.start(), m.end(), m.group(0), 1.0)
    return None


def claim(sentence: str, query: str | None, mode: str) -> str:
    """Provenance-style claim: a short answer fragment ("In 2019.") means nothing without its question."""
    if not query or mode == "never":
        return sentence
    if mode == "always" or len(sentence.split()) <= 5:
        q = query.strip().rstrip("?").strip()
        return f"The answer to the question \u201c{q}?\u201d is: {sentence}"
    return sentence


_CHECKERS: dict[tuple, Any] = {}
_CHECKERS_LOCK = threading.Lock()


def load_checker(model: str | None, device: str, max_length: int, batch_size: int,
                 precision: str = "auto") -> Any:
    """One loaded model per process and settings: batch runs, tests and the server share it."""
    from faithlint.checkers.nli import NLIChecker

    key = (model, device, max_length, batch_size, precision)
    with _CHECKERS_LOCK:
        if key not in _CHECKERS:
            _CHECKERS[key] = NLIChecker(model, device=device, max_length=max_length, batch_size=batch_size,
                                        quantize=None if precision == "auto" else precision)
        return _CHECKERS[key]


def aggregate(probs: np.ndarray, weights: np.ndarray, mode: str) -> tuple[np.ndarray, int]:
    """Combine per-window probabilities; returns (probs, index of the deciding window).

    max: the window that most entails decides, unless another contradicts more
    strongly than it entails; weighted: relevance-weighted mean; min: the least
    supportive window decides.
    """
    if mode == "max":
        be = int(np.argmax(probs[:, 0]))
        bc = int(np.argmax(probs[:, 2]))
        best = be if probs[be, 0] >= probs[bc, 2] else bc
        return probs[best], best
    if mode == "weighted":
        agg = (probs * weights[:, None]).sum(0) / max(weights.sum(), 1e-9)
        return agg, int(np.argmax(weights))
    if mode == "min":
        worst = int(np.argmin(probs[:, 0]))
        return probs[worst], worst
    raise ValueError(f"unknown aggregation {mode!r}")


def evidence_quote(evidence: Evidence, sentence: str, limit: int = 140) -> str:
    """The evidence sentence closest in wording to the draft sentence, shortened."""
    return _quote(evidence.text, sentence, limit)


@lru_cache(maxsize=20_000)
def _quote(evidence: str, sentence: str, limit: int) -> str:  # every check quotes every finding's evidence
    pieces = [p.strip() for p in _split_quote(evidence) if p.strip()]
    if not pieces:
        return ""
    words = content_words(sentence)
    best = max(pieces, key=lambda p: len(words & content_words(p)))
    best = " ".join(best.split())
    return best if len(best) <= limit else best[:limit - 1].rstrip() + "\u2026"


def _split_quote(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+|\s*\n\s*", text)


def _paragraphs(text: str) -> list[tuple[int, str]]:
    """Blank-line separated paragraphs with their offsets (sentences never cross them)."""
    out = []
    start = 0
    for m in re.finditer(r"(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)+", text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(s, p) for s, p in out if p.strip()]
