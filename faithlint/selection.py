"""Evidence selectors: which parts of the context each unit is judged against.

``assembled`` (the default) builds one premise per unit from the small context pieces that carry
its facts; ``windows`` judges each unit against its TopP/TopK fixed windows, one pair per window,
and lets the aggregator decide. Also here: the verbatim shortcut and the Provenance-style claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from faithlint.evidence import Piece, assemble, premise_text, rank_scores
from faithlint.relevance import select
from faithlint.stages import EvidenceRequest, EvidenceSelector, Selection
from faithlint.types import ContextDoc, Evidence
from faithlint.windows import Window


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
    """One premise per unit from the context pieces that carry its facts (see :mod:`faithlint.evidence`)."""

    name = "assembled"

    def select(self, request: EvidenceRequest) -> list[Selection]:
        pieces: list[Piece] = []
        piece_terms: list[frozenset[str]] = []
        for d, (doc, key) in enumerate(zip(request.context, request.doc_keys)):
            ps, ts = request.index.pieces(doc, d, key)
            pieces.extend(ps)
            piece_terms.extend(ts)
        rows = [i for i, skip in enumerate(request.skip) if not skip]
        row = {i: r for r, i in enumerate(rows)}
        sim = request.relevance.similarity(_queries(request, rows), [p.text for p in pieces]) if rows else None
        out: list[Selection] = []
        for i, text in enumerate(request.texts):
            if i not in row or not pieces:
                out.append(Selection([], [], []))
                continue
            scores = rank_scores(sim[row[i]], text, piece_terms)
            idx = assemble(pieces, scores, request.budgets[i])
            evs = [Evidence(pieces[j].source, pieces[j].start, pieces[j].end, pieces[j].text, float(scores[j]))
                   for j in idx]
            best = int(np.argmax([scores[j] for j in idx]))  # the verdict is quoted from its most relevant piece
            out.append(Selection(evs, [premise_text(pieces, idx)], [1.0], best))
        return out


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
