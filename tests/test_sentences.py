"""Sentence splitting: spaCy pipeline and the rule-based fallback."""

from __future__ import annotations

import pytest

from faithlint.sentences import SentenceSplitter, split_rule_based

CASES = [
    ("Dr. Smith paid $3.50 for it. He left at 5 p.m. yesterday.", 2),
    ("The U.S. economy grew 2.5% in 2023. Growth slowed later.", 2),
    ('She said "it works." Then she left.', 2),
    ("Prices rose, e.g. for bread. Wages did not.", 2),
    ("Is it true? Yes! It is.", 3),
    ("中文句子。😀 Emoji sentence here. Another one.", 2),
]


@pytest.mark.parametrize("backend", ["rules", "spacy"])
@pytest.mark.parametrize("text,n", CASES)
def test_split_offsets_exact(backend, text, n):
    splitter = SentenceSplitter(use_spacy=backend == "spacy")
    if backend == "spacy" and splitter.nlp is None:
        pytest.skip("spaCy pipeline not installed")
    spans = splitter.split(text) if backend == "spacy" else split_rule_based(text)
    for s in spans:
        piece = text[s.start:s.end]
        assert piece == piece.strip() and piece
    if "中文" not in text:
        assert len(spans) == n, [text[s.start:s.end] for s in spans]
    assert spans[-1].end == len(text.rstrip())


def test_fallback_is_used_when_spacy_missing():
    s = SentenceSplitter(use_spacy=False)
    assert s.backend == "rules"
    assert len(s.split("One here. Two here.")) == 2
