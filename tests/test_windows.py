"""Context windows, relevance selection and aggregation (no models)."""

from __future__ import annotations

import numpy as np
import pytest

from faithlint.document.sentences import Span, split_rule_based
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.evidence.selection import select
from faithlint.evidence.windows import build_windows, token_budget
from faithlint.pipeline.aggregators import aggregate
from faithlint.pipeline.linter import scale_1_5


def words(texts):
    return [len(t.split()) for t in texts]


def make(text):
    spans = split_rule_based(text)
    return spans, words([text[s.start:s.end] for s in spans])


def test_windows_pack_sentences_and_overlap():
    text = " ".join(f"Sentence number {i} has exactly six words." for i in range(10))
    spans, counts = make(text)
    assert counts == [7] * 10
    wins = build_windows("ctx", text, spans, counts, budget=21, overlap=7)
    assert all(w.text == text[w.start:w.end] for w in wins)
    assert all(len(w.text.split()) <= 21 for w in wins)
    # consecutive windows share about `overlap` tokens: the last sentence of one starts the next
    for a, b in zip(wins, wins[1:]):
        assert b.start < a.end and b.start > a.start
    assert wins[0].start == 0 and wins[-1].end == len(text)


def test_every_sentence_is_in_some_window():
    text = "Short one. " + "A much longer sentence with many many words in it here. " * 3 + "End."
    spans, counts = make(text)
    wins = build_windows("c", text, spans, counts, budget=12, overlap=4)
    for s in spans:
        assert any(w.start <= s.start and s.end <= w.end for w in wins)


def test_long_sentence_is_cut_at_token_boundaries_with_overlap():
    text = " ".join(f"w{i}" for i in range(50)) + "."
    spans = [Span(0, len(text))]

    def offsets(piece):
        out, pos = [], 0
        for tok in piece.split(" "):
            out.append((pos, pos + len(tok)))
            pos += len(tok) + 1
        return out

    wins = build_windows("c", text, spans, [50], budget=20, overlap=5, token_offsets=offsets)
    assert len(wins) == 3  # tokens 0-19, 15-34, 30-49
    assert wins[0].text.split()[-5:] == wins[1].text.split()[:5]
    assert wins[-1].end == len(text)


def test_budget_never_truncates_the_sentence():
    assert token_budget(192, 30) == 144  # 192 - 3 - 30 = 159 -> quantised to 144
    big = token_budget(192, 300, model_max=512)
    assert big >= 48 and big + 300 + 3 <= 512


@pytest.mark.parametrize("method", ["topk", "topp"])
def test_selection_keeps_document_order_and_renormalises(method):
    rel = np.array([0.1, 0.9, 0.2, 0.85, 0.0])
    sel = select(rel, method, top_k=2, top_p=0.9, max_windows=3)
    assert sel.indices == sorted(sel.indices)
    assert 1 in sel.indices and 3 in sel.indices
    assert abs(sum(sel.weights) - 1) < 1e-9


def test_topp_stops_at_mass_and_topk_at_k():
    rel = np.array([0.9, 0.1, 0.1, 0.1])
    assert select(rel, "topp", top_p=0.9, max_windows=4).indices == [0]
    assert len(select(rel, "topk", top_k=3, max_windows=4).indices) == 3


def test_lexical_relevance_prefers_overlap():
    sim = LexicalRelevance().similarity(["The library reopened in March"],
                                        ["Cats sleep a lot.", "The library reopened on March 4."])
    assert sim[0, 1] > sim[0, 0]


def test_aggregation_modes():
    probs = np.array([[0.1, 0.8, 0.1], [0.7, 0.2, 0.1], [0.05, 0.15, 0.8]])
    w = np.array([0.5, 0.3, 0.2])
    agg, best = aggregate(probs, w, "max")
    assert best == 2  # contradiction 0.8 beats the best entailment 0.7
    agg, best = aggregate(probs[:2], w[:2], "max")
    assert best == 1 and agg[0] == pytest.approx(0.7)
    agg, best = aggregate(probs, w, "weighted")
    assert agg == pytest.approx((probs * w[:, None]).sum(0))
    assert best == 0
    agg, best = aggregate(probs, w, "min")
    assert best == 2 and agg[0] == pytest.approx(0.05)


def test_scale():
    assert [scale_1_5(x) for x in (0.0, 0.2, 0.5, 0.8, 1.0)] == [1, 2, 3, 4, 5]
