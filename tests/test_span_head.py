"""The span head: words it marks, how findings narrow to them, and the bundled graph's token states."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.models.checkers.span_head import FILE, SpanHead, span_features
from faithlint.pipeline.linter import Linter
from faithlint.types import ContextDoc


def _head(threshold: float = 0.5, max_share: float = 0.5) -> SpanHead:
    return SpanHead(np.zeros(2 * 4 + 4, dtype=np.float32), 0.0, threshold, max_share)


def _offsets(text: str) -> list[tuple[int, int]]:
    """Word-piece-like offsets: each word split after its third character."""
    out = []
    pos = 0
    for w in text.split(" "):
        a = text.index(w, pos)
        out += [(a, min(a + 3, a + len(w))), *([(a + 3, a + len(w))] if len(w) > 3 else [])]
        pos = a + len(w)
    return out


def test_marks_are_whole_words_and_adjacent_words_join() -> None:
    text = "The Celtics scored 112 points in Boston on Friday."
    offs = _offsets(text)
    probs = np.zeros(len(offs))
    for i, (a, b) in enumerate(offs):
        if text[a:b] in ("112", "poi", "Fri"):  # a piece of a word marks the whole word
            probs[i] = 0.9
    assert [text[a:b] for a, b in _head().marks(text, offs, probs)] == ["112 points", "Friday"]


def test_no_marks_when_nothing_or_most_of_the_sentence_is_marked() -> None:
    text = "It opened in 2021 after a long wait."
    offs = _offsets(text)
    assert _head().marks(text, offs, np.zeros(len(offs))) == []
    assert _head(max_share=0.5).marks(text, offs, np.ones(len(offs))) == []  # most of it: the whole sentence
    assert _head(max_share=1.0).marks(text, offs, np.ones(len(offs))) == []  # all of it: the whole sentence
    nearly = np.array([text[a:b] not in ("It", "wait.") for a, b in offs], dtype=float)
    assert _head(max_share=1.0).marks(text, offs, nearly) == []  # 80 % of the sentence reads as the sentence
    first = np.array([a < 12 for a, _ in offs], dtype=float)
    assert [text[a:b] for a, b in _head(max_share=1.0).marks(text, offs, first)] == ["It opened in"]


def test_features_and_probabilities_have_one_row_per_token() -> None:
    states, cls_state = np.ones((5, 4), dtype=np.float32), np.zeros(4, dtype=np.float32)
    x = span_features(states, cls_state, 0.2, 0.7)
    assert x.shape == (5, 12) and x[0, 8:11].tolist() == pytest.approx([0.2, 0.7, 0.2])
    assert x[:, -1].tolist() == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    head = SpanHead(np.r_[np.ones(4), np.zeros(8)].astype(np.float32), -2.0, 0.5, 0.5)
    assert head.token_probs(states, cls_state, 0.2, 0.7) == pytest.approx([0.8808] * 5, abs=1e-4)


def test_load_reads_the_file_beside_the_model(tmp_path: Path) -> None:
    assert SpanHead.load(tmp_path) is None
    (tmp_path / FILE).write_text(json.dumps({"weights": [0.5] * 12, "bias": -1, "threshold": 0.3, "max_share": 0.4}))
    head = SpanHead.load(tmp_path)
    assert head is not None and head.weights.shape == (12,) and (head.threshold, head.max_share) == (0.3, 0.4)


class MarkingChecker(KeywordChecker):
    """The keyword fake with a span head: marks the word after "in" of every hypothesis."""

    span_head = object()

    def score_and_mark(self, premises: Sequence[str], hypotheses: Sequence[str]):
        marks = []
        for h in hypotheses:
            words = h.rstrip(".").split(" ")
            if "in" in words:
                w = words[words.index("in") + 1]
                a = h.index(w, h.index(" in ") + 1)
                marks.append([(a, a + len(w))])
            else:
                marks.append([])
        return self.score_pairs(premises, hypotheses), marks


def _linter(**cfg) -> Linter:
    return Linter(Config(**cfg), checker=MarkingChecker(), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False))


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_findings_narrow_to_the_marked_words_at_exact_offsets(newline: str) -> None:
    lt = _linter(select=["FL100", "FL200"])
    draft = f"# Notes{newline}{newline}🎉 The pool UNSUP opened in Zürich.{newline}The team CONTRA met in 東京 daily."
    res = lt.check(draft, [ContextDoc("c.md", "The pool opened. The team met daily.")])
    f1, f2 = res.findings
    assert (f1.code, draft[f1.start:f1.end]) == ("FL200", "Zürich")
    assert (f2.code, draft[f2.start:f2.end]) == ("FL100", "東京")
    for f, s in zip((f1, f2), res.sentences):
        assert draft[f.data["sentence"][0]:f.data["sentence"][1]] == s.text  # fixes still get the sentence
        assert f.data["marks"] == [[f.start, f.end]]


def test_unmarked_sentences_keep_the_whole_sentence() -> None:
    lt = _linter(select=["FL200"])
    res = lt.check("The pool UNSUP opened.", [ContextDoc("c.md", "The pool opened.")])
    (f,) = res.findings
    assert (f.start, f.end) == (0, len("The pool UNSUP opened."))


def test_marks_index_the_sentence_when_a_query_frames_the_hypothesis() -> None:
    lt = _linter(select=["FL200"])
    ctx = [ContextDoc("c.md", "The pool opened.")]
    res = lt.check("UNSUP it opened in Rome.", ctx, query="When did the pool open?")
    (f,) = res.findings
    assert res.text[f.start:f.end] == "Rome"


@pytest.mark.slow
def test_bundled_checker_marks_a_wrong_figure_of_a_long_sentence() -> None:
    """The real graph's second output feeds the shipped head; scoring with marks changes no probability."""
    from faithlint.models.checkers.onnx_checker import STATES

    lt = Linter(Config())
    checker = lt.checker
    if getattr(checker, "span_head", None) is None:
        pytest.skip(f"the bundled graph has no {STATES} output or no {FILE}")
    # (the stage-6 head also marked "41" of "DeRozan scored 41 points in the win over the Magic."; stage 7's
    # gives it 0.12, below its 0.2 threshold, and FL400 marks it instead: README, "Stage 7")
    premise = "The project cost $12.5 million and was funded by a city bond that voters approved in 2021."
    hyp = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
    # stage 8: the main (RAGTruth) head marks this confident contradiction whole, so the value head marks it; over
    # stage 8's states it also marks "city" (0.2 threshold, chosen for stage 7's states; MODEL_CARD.md)
    probs, marks = checker.score_and_mark([premise], [hyp])
    assert np.allclose(probs, checker.score_pairs([premise], [hyp]))
    marked = [hyp[a:b] for a, b in marks[0]]
    assert marked[0] == "$25" and "million" not in marked and len(marked) <= 2  # the wrong figure, not the sentence
    res = lt.check(hyp, [ContextDoc("c.txt", premise)], markdown=False)
    (f,) = [f for f in res.findings if f.code in ("FL100", "FL200")]
    assert hyp[f.start:].startswith("$25") and f.end < len(hyp) - 10 and f.data["sentence"] == [0, len(hyp)]


def test_uncertain_sentences_are_not_narrowed() -> None:
    """FL300 (info) means the checker is unsure; the head's threshold was chosen for flagged sentences."""
    lt = _linter(select=["FL300"])
    res = lt.check("The pool WEAK opened in Rome.", [ContextDoc("c.md", "The pool opened.")])
    (f,) = res.findings
    assert f.code == "FL300" and (f.start, f.end) == (0, len("The pool WEAK opened in Rome."))
