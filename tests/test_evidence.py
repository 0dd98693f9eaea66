"""Evidence assembly and the operating point, with small fakes (the e2e tests run the real models)."""

from __future__ import annotations

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.pieces import GAP, Piece, assemble, lexical_overlap, premise_text, terms
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.rules.operating_point import OperatingPoint, sentence_code
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc


def pieces(*sizes: int) -> list[Piece]:
    return [Piece("ctx", 10 * i, 10 * i + 9, f"piece {i}", n, 0, i) for i, n in enumerate(sizes)]


def test_a_context_that_fits_is_used_whole():
    ps = pieces(10, 10, 10)
    assert assemble(ps, np.array([0.1, 0.9, 0.2]), budget=40) == [0, 1, 2]


def test_best_pieces_in_document_order_within_the_budget_with_the_best_ones_predecessor():
    ps = pieces(10, 10, 10, 10, 10, 10)
    scores = np.array([0.0, 0.1, 0.0, 0.2, 0.0, 0.9])
    got = assemble(ps, scores, budget=30)
    assert got == [3, 4, 5]  # 5 is best, 4 its predecessor, then 3 (next best) fills the budget
    assert sum(ps[i].tokens for i in got) <= 30


def test_a_piece_too_large_for_what_is_left_is_skipped_for_smaller_ones():
    ps = pieces(10, 25, 10, 10)
    got = assemble(ps, np.array([0.9, 0.8, 0.1, 0.0]), budget=30, neighbours=0)
    assert got == [0, 2, 3]


def test_when_nothing_fits_the_best_piece_is_still_the_premise():
    assert assemble(pieces(30, 30, 30), np.array([0.1, 0.9, 0.2]), budget=8) == [1]


def test_adjacent_pieces_read_as_text_and_gaps_as_an_ellipsis():
    ps = pieces(5, 5, 5, 5)
    assert premise_text(ps, [0, 1, 3]) == "piece 0 piece 1" + GAP + "piece 3"


def test_numbers_weigh_double_in_lexical_overlap():
    got = lexical_overlap("Revenue rose 12 percent.", [terms("revenue fell"), terms("12 of them")])
    assert got[1] > got[0] > 0


class PremiseRecorder(KeywordChecker):
    """The keyword fake that also records each (premise, hypothesis) pair it was asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def score_pairs(self, premises, hypotheses):
        self.seen.extend(zip(premises, hypotheses))
        return super().score_pairs(premises, hypotheses)


FILLER = " ".join(f"Paragraph {i} describes the weather on day {i} in some detail." for i in range(40))
FUSED_CTX = [ContextDoc("report.txt", "Helen Okafor joined the library in 2019. " + FILLER +
                        " The renovation budget was approved by the council.")]


def test_a_fused_sentence_gets_one_premise_with_both_distant_facts():
    checker = PremiseRecorder()
    lt = Linter(Config(evidence="assembled"), checker=checker, relevance=LexicalRelevance(),
                splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))
    res = lt.check("Helen Okafor, who joined in 2019, saw the council approve the renovation budget.", FUSED_CTX)
    assert len(checker.seen) == 1  # one premise per sentence, not one pair per window
    premise = checker.seen[0][0]
    assert "Helen Okafor joined the library in 2019." in premise
    assert "The renovation budget was approved by the council." in premise
    assert GAP.strip() in premise and len(premise) < len(FUSED_CTX[0].text) / 3
    ev = res.sentences[0].evidence
    assert ev is not None and FUSED_CTX[0].text[ev.start:ev.end] == ev.text
    assert len(res.sentences[0].windows) >= 2  # every piece is kept as evidence (FL400 reads them)


class RecordingRelevance(LexicalRelevance):
    """Lexical cosine standing in for the embedding model; records what it was asked to embed."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def similarity(self, queries, docs):
        self.embedded.extend(docs)
        return super().similarity(queries, docs)


def _premises(cfg: Config, relevance, *texts: str, context=FUSED_CTX) -> list[str]:
    checker = PremiseRecorder()
    lt = Linter(cfg, checker=checker, relevance=relevance, splitter=SentenceSplitter(use_spacy=False),
                values=ValueExtractor(nlp=False))
    lt.check(" ".join(texts), context)
    return [p for p, _ in checker.seen]


def test_a_context_that_fits_whole_is_not_ranked_by_the_embedding_model():
    rel = RecordingRelevance()
    ctx = [ContextDoc("c.txt", "The library reopened in 2024. It cost $12.5 million.")]
    assert _premises(Config(), rel, "In 2024 the library was reopened.", context=ctx) == \
        ["The library reopened in 2024. It cost $12.5 million."]
    assert rel.embedded == []


def test_only_each_units_best_lexical_candidates_are_embedded_and_units_do_not_affect_each_other():
    a = "Helen Okafor, who joined in 2019, saw the council approve the renovation budget."
    b = "The weather on day 7 and day 31 was described in detail."
    rel = RecordingRelevance()
    both = _premises(Config(evidence_candidates=3), rel, a, b)
    assert len(set(rel.embedded)) <= 6  # of 42 pieces: at most 3 per sentence
    assert _premises(Config(evidence_candidates=3), RecordingRelevance(), a) == both[:1]
    assert _premises(Config(evidence_candidates=3), RecordingRelevance(), b) == both[1:]
    everything = RecordingRelevance()
    _premises(Config(evidence_candidates=0), everything, a)
    assert len(set(everything.embedded)) > 6  # 0: every piece is ranked


def test_windows_mode_still_judges_each_window():
    checker = PremiseRecorder()
    lt = Linter(Config(evidence="windows", max_windows=4, top_p=0.99), checker=checker,
                relevance=LexicalRelevance(), splitter=SentenceSplitter(use_spacy=False),
                values=ValueExtractor(nlp=False))
    lt.check("Helen Okafor, who joined in 2019, saw the council approve the renovation budget.", FUSED_CTX)
    assert len(checker.seen) > 1


class WindowKeywordChecker(KeywordChecker):
    """Verdicts from keywords in the *premise*, so windows disagree and the aggregator matters."""

    def score_pairs(self, premises, hypotheses):
        return super().score_pairs(hypotheses, premises)


@pytest.mark.parametrize(("mode", "label"), [("max", "entailment"), ("min", "neutral")])
def test_aggregation_setting_is_used(mode, label):
    filler = " ".join(f"Day {i} was sunny and warm." for i in range(12))
    ctx = [ContextDoc("ctx.txt", "The library reopened in May. " + filler + " Nobody knows UNSUP if it reopened.")]
    lt = Linter(Config(evidence="windows", aggregation=mode, selection="topk", top_k=20, max_windows=20,
                       max_length=64, overlap=0),
                checker=WindowKeywordChecker(), relevance=LexicalRelevance(),
                splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))
    res = lt.check("In May the library reopened.", ctx, markdown=False)
    assert res.sentences[0].label == label


POINT = OperatingPoint({"FL100": 0.6, "FL200": 0.2, "FL300": 0.6})


@pytest.mark.parametrize(("ent", "con", "code"), [
    (0.05, 0.9, "FL100"), (0.3, 0.55, "FL300"), (0.1, 0.5, "FL200"), (0.45, 0.1, "FL300"), (0.8, 0.1, None),
    (0.7, 0.65, None),  # contradiction above threshold but outweighed by entailment
])
def test_sentence_code_follows_the_operating_point(ent, con, code):
    assert sentence_code(ent, con, POINT) == code


def test_operating_point_comes_from_config_with_calibrated_defaults():
    from faithlint.rules.registry import RULES

    default = RULES.operating_point(Config())
    assert default == {code: RULES[code].threshold.default for code in RULES if RULES[code].threshold is not None}
    assert default["FL200"] == 0.35 and default["FL100"] == 0.7 and default["FL400"] == 0.3
    moved = RULES.operating_point(Config(rules={"FL200": {"threshold": 0.9}}))
    assert moved["FL200"] == 0.9 and moved["FL300"] == default["FL300"]
    # a calibrated point (grounding's, the monitor's) sets the sentence rules; the claim rules follow theirs
    calibrated = RULES.operating_point(Config(rules={"FL100": {"threshold": 0.65}}), {"FL100": 0.6, "FL200": 0.5})
    assert [calibrated[c] for c in ("FL100", "FL200", "FL110", "FL210")] == [0.65, 0.5, 0.65, 0.5]
    assert (default["FL110"], default["FL210"]) == (0.7, 0.4)  # without one, their own defaults


def test_numbers_are_terms_by_value():
    assert "#4" in terms("It is rated 4.0 stars.") and "#32000" in terms("It has 32,000 fans.")
    assert "#32000" in terms("It has 32000 fans.")
    assert "#2.5" in terms("It costs 2.50 dollars.") and "#100" in terms("It weighs 100.00 kg.")
    assert "#1.2.3" in terms("Version 1.2.3 shipped.")  # not a decimal: left as written
    assert "#4.5" in terms("It is rated 4.5 stars.") and "#4" not in terms("It is rated 4.5 stars.")


def test_citation_markers_are_no_terms():
    assert terms("It ends after 90 days [1][2, 3].") == terms("It ends after 90 days.")
    assert "#12" in terms("It rose 12% (see [4]).") and "#4" not in terms("It rose 12% (see [4]).")
