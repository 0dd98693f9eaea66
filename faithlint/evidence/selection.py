"""Evidence selectors: which parts of the context each unit is judged against.

``assembled`` (the default) builds one premise per unit from the small context pieces that carry
its facts; ``windows`` judges each unit against its TopP/TopK fixed windows, one pair per window,
and lets the aggregator decide. Also here: the verbatim shortcut and the Provenance-style claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from faithlint.evidence.pieces import LEXICAL_WEIGHT, Piece, assemble, lexical_overlap, premise_text
from faithlint.evidence.windows import Window
from faithlint.types import ContextDoc, Evidence

if TYPE_CHECKING:
    from faithlint.config import Config
    from faithlint.evidence.index import ContextIndex


@dataclass
class Selection:
    """The evidence chosen for one unit and the premises the checker reads for it.

    ``weights`` go to the aggregator with one probability row per premise; ``best`` is the index of
    the deciding evidence when the selector knows it (one assembled premise), ``None`` when the
    aggregator decides (one premise per window).
    """

    evidence: list[Evidence]
    premises: list[str]
    weights: list[float]
    best: int | None = None


@dataclass
class EvidenceRequest:
    """Everything a selector may use; ``skip[i]`` marks units that need no evidence (copied verbatim)."""

    texts: Sequence[str]
    hypotheses: Sequence[str]  # what the checker judges (a short answer gets its question)
    context: Sequence[ContextDoc]
    doc_keys: Sequence[str]
    budgets: Sequence[int]  # premise tokens left next to each hypothesis
    skip: Sequence[bool]
    query: str | None
    config: Config
    index: ContextIndex  # cached context sentences, windows and pieces
    relevance: Any  # .similarity(queries, docs) -> matrix


@runtime_checkable
class EvidenceSelector(Protocol):
    """Chooses, for every unit, the context evidence the checker will judge it against."""

    def select(self, request: EvidenceRequest) -> list[Selection]: ...


def _queries(request: EvidenceRequest, rows: Sequence[int]) -> list[str]:
    q = request.query
    return [f"{q} {request.texts[i]}" if q else request.texts[i] for i in rows]


class WindowedEvidence:
    """Fixed windows sized from each unit's own length: each unit is judged against its TopP/TopK windows."""

    name = "windows"

    def select(self, request: EvidenceRequest) -> list[Selection]:
        cfg = request.config
        per_unit: list[list[Window]] = []
        for budget, skip in zip(request.budgets, request.skip):
            ws: list[Window] = []
            if not skip:
                for doc, key in zip(request.context, request.doc_keys):
                    ws.extend(request.index.windows(doc, budget, cfg.overlap, key))
            per_unit.append(ws)
        # relevance over the union of candidate windows, computed once
        uniq: dict[tuple[str, int, int], int] = {}
        all_windows: list[Window] = []
        for ws in per_unit:
            for w in ws:
                if (w.source, w.start, w.end) not in uniq:
                    uniq[(w.source, w.start, w.end)] = len(all_windows)
                    all_windows.append(w)
        rows = [i for i, skip in enumerate(request.skip) if not skip]
        row = {i: r for r, i in enumerate(rows)}
        sim = request.relevance.similarity(_queries(request, rows), [w.text for w in all_windows])
        out: list[Selection] = []
        for i, ws in enumerate(per_unit):
            if i not in row or not ws:
                out.append(Selection([], [], []))
                continue
            cols = [uniq[(w.source, w.start, w.end)] for w in ws]
            sel = select(sim[row[i], cols], cfg.selection, cfg.top_k, cfg.top_p, cfg.max_windows)
            picked = [ws[j] for j in sel.indices]
            out.append(Selection([Evidence(w.source, w.start, w.end, w.text, wt) for w, wt in zip(picked, sel.weights)],
                                 [w.text for w in picked], list(sel.weights)))
        return out


class AssembledEvidence:
    """One premise per unit from the context pieces that carry its facts (see :mod:`faithlint.evidence.pieces`).

    The embedding model is the costly part of a check with a long context (every piece is embedded), so it
    only runs where it can change a premise: a context that fits a unit's budget whole is its premise
    whatever the ranking (the quoted piece is then the one sharing most words), and of a longer context
    only the pieces among each unit's ``evidence_candidates`` best by word and number overlap are embedded
    (12 kept every task type's development AUROC within 0.01 of embedding all; 8 did not).
    """

    name = "assembled"

    def select(self, request: EvidenceRequest) -> list[Selection]:
        pieces: list[Piece] = []
        piece_terms: list[frozenset[str]] = []
        for d, (doc, key) in enumerate(zip(request.context, request.doc_keys)):
            ps, ts = request.index.pieces(doc, d, key)
            pieces.extend(ps)
            piece_terms.extend(ts)
        total = sum(p.tokens for p in pieces)
        rows = [i for i, skip in enumerate(request.skip) if not skip and total > request.budgets[i]]
        row = {i: r for r, i in enumerate(rows)}
        lexical = {i: lexical_overlap(request.texts[i], piece_terms) for i, skip in enumerate(request.skip)
                   if not skip and pieces}
        sim = self._similarity(request, rows, pieces, [lexical[i] for i in rows])
        out: list[Selection] = []
        for i in range(len(request.texts)):
            if i not in lexical:
                out.append(Selection([], [], []))
                continue
            if i in row:
                scores = sim[row[i]] + LEXICAL_WEIGHT * lexical[i]
                idx = assemble(pieces, scores, request.budgets[i])
            else:  # the whole context fits: ranking changes nothing but the quote
                scores = lexical[i]
                idx = list(range(len(pieces)))
            evs = [Evidence(pieces[j].source, pieces[j].start, pieces[j].end, pieces[j].text, float(scores[j]))
                   for j in idx]
            best = int(np.argmax([scores[j] for j in idx]))  # the verdict is quoted from its most relevant piece
            out.append(Selection(evs, [premise_text(pieces, idx)], [1.0], best))
        return out

    def _similarity(self, request: EvidenceRequest, rows: list[int], pieces: list[Piece],
                    lexical: list[np.ndarray]) -> np.ndarray:
        """Embedding cosine of each row's unit with each piece. Only a unit's own candidates are ranked by
        cosine (the rest get the lowest cosine among them), so a unit's premise never depends on the other
        units of the draft: an edit elsewhere, or checking part of a draft first, changes nothing here."""
        if not rows:
            return np.zeros((0, len(pieces)), dtype=np.float32)
        queries = _queries(request, rows)
        k = request.config.evidence_candidates
        if not k or k >= len(pieces):
            return request.relevance.similarity(queries, [p.text for p in pieces])
        own = [np.argsort(-lex, kind="stable")[:k] for lex in lexical]
        keep = sorted({int(j) for cols in own for j in cols})
        column = {j: c for c, j in enumerate(keep)}
        part = request.relevance.similarity(queries, [pieces[j].text for j in keep])
        sim = np.empty((len(rows), len(pieces)), dtype=np.float32)
        for r, cols in enumerate(own):
            mine = part[r, [column[int(j)] for j in cols]]
            sim[r] = mine.min()
            sim[r, cols] = mine
        return sim


SELECTORS: dict[str, EvidenceSelector] = {s.name: s for s in (AssembledEvidence(), WindowedEvidence())}


def selector_for(name: str) -> EvidenceSelector:
    try:
        return SELECTORS[name]
    except KeyError:
        raise ValueError(f"unknown evidence selector {name!r} (known: {', '.join(SELECTORS)})") from None


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


@dataclass(frozen=True)
class WindowPick:
    """The windows chosen for one unit from its relevance row, and their weights."""

    indices: list[int]  # into the candidate list, in original (document) order
    weights: list[float]  # renormalised over the selection


def select(relevance: np.ndarray, method: str = "topp", top_k: int = 3, top_p: float = 0.9,
           max_windows: int = 4, temperature: float = 0.05) -> WindowPick:
    """Pick windows for one sentence from its relevance row."""
    n = len(relevance)
    if n == 0:
        return WindowPick([], [])
    z = (relevance - relevance.max()) / temperature
    p = np.exp(z)
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    if method == "topk":
        chosen = list(order[:max(1, min(top_k, max_windows))])
    elif method == "topp":
        chosen, mass = [], 0.0
        for i in order:
            chosen.append(int(i))
            mass += float(p[i])
            if mass >= top_p or len(chosen) >= max_windows:
                break
    else:
        raise ValueError(f"unknown selection method {method!r}")
    chosen = sorted(int(i) for i in chosen)
    w = np.array([p[i] for i in chosen], dtype=np.float64)
    w = w / w.sum() if w.sum() > 0 else np.full(len(chosen), 1 / len(chosen))
    return WindowPick(chosen, [float(x) for x in w])
