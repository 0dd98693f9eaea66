"""Claims through the pipeline with fakes: claim units, FL110/FL210, aggregation, de-duplication, offsets."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.claims.aggregate import aggregate, supported_share
from faithlint.claims.base import Extraction, Span, Triplet
from faithlint.claims.units import ClaimUnits
from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

CTX = [ContextDoc("ctx.md", "The library reopened in March. The café opened on the roof. It is closed on Sundays.")]
_CLAUSE = re.compile(r"(\S+) (\S+) ([^,.;]+?)(?= and |[,.;]|$)")


class ClauseExtractor:
    """One triplet per "subject verb rest" clause (clauses split at " and "): predictable spans for tests."""

    name = "clauses"

    def __init__(self, bad: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.bad = bad

    def extract_sentences(self, sentences: Sequence[str]) -> Extraction:
        self.calls.append(list(sentences))
        out = []
        for s in sentences:
            triplets = []
            pos = 0
            for part in s.split(" and "):
                m = None if "NOCLAIM" in part else _CLAUSE.match(part)
                if m:
                    spans = [Span(pos + m.start(i), pos + m.end(i)) for i in (1, 2, 3)]
                    triplets.append(Triplet(*spans, f"{m.group(1)} {m.group(2)} {m.group(3)}."))
                pos += len(part) + len(" and ")
            if self.bad:
                triplets.append(Triplet(Span(0, 1), Span(1, 2), Span(2, len(s) + 5), "out of range."))
            out.append(triplets)
        return Extraction(out, ["clauses: one note"] if self.bad else [])


def linter(extractor: ClauseExtractor | None = None, **cfg) -> tuple[Linter, KeywordChecker, ClauseExtractor]:
    cfg.setdefault("rules", {})
    for code, threshold in (("FL100", 0.5), ("FL110", 0.5), ("FL200", 0.3), ("FL210", 0.3), ("FL300", 0.6)):
        cfg["rules"].setdefault(code, {"threshold": threshold})
    checker = KeywordChecker()
    extractor = extractor or ClauseExtractor()
    lt = Linter(Config(**cfg), checker=checker, relevance=LexicalRelevance(),
                splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False),
                claims=ClaimUnits(extractor))
    return lt, checker, extractor


def found(result) -> list[tuple[str, str]]:
    return [(f.code, result.text[f.start:f.end]) for f in result.findings if f.code != "FL400"]


def test_claim_unit_reports_the_contradicted_claim_on_its_own_words():
    text = "The library CONTRA reopened and the café opened on the roof. It is closed on Sundays.\n"
    lt, checker, _ = linter(unit="claim")
    res = lt.check(text, CTX)
    assert found(res) == [("FL110", "The library CONTRA reopened")]
    first = res.sentences[0]
    assert first.verdict_from == "claims" and [c.label for c in first.claims] == ["contradiction", "entailment"]
    assert first.label == "contradiction"  # strict: the worst claim decides
    claim = first.claims[0]
    assert (claim.subject, claim.predicate, claim.object) == ("The", "library", "CONTRA reopened")
    assert {k: text[a:b] for k, (a, b) in claim.spans.items()} == {
        "subject": "The", "predicate": "library", "object": "CONTRA reopened"}
    f = res.findings[0]
    assert f.severity == "error" and f.data["sentence"] == [first.start, first.end]
    assert f.data["claim"]["text"] == "The library CONTRA reopened."
    assert [text[a:b] for a, b in f.data["marks"]] == ["The", "library", "CONTRA reopened"]
    # unit = claim: a sentence with claims is judged through them only, and claims never take the query's frame
    assert "The library CONTRA reopened and the café opened on the roof." not in checker.hypotheses
    assert res.score["claims"] == 3 and res.score["claims_supported_share"] == pytest.approx(2 / 3)


def test_claims_are_standalone_hypotheses_even_with_a_query():
    lt, checker, _ = linter(unit="claim")
    lt.check("It is closed UNSUP.", CTX, query="When is it closed?")
    assert checker.hypotheses == ["It is closed UNSUP."]


def test_both_units_deduplicate_sentence_and_claim_findings():
    text = ("The library CONTRA reopened and the café opened. "  # FL100 sentence, FL110 claim: the claim replaces it
            "The café UNSUP opened and the roof leaked. "  # FL200 sentence, FL210 claim: the claim replaces it
            "The shop CONTRA closed and the x UNSUP rose.")  # FL100 sentence, FL110 and FL210 claims
    lt, _, _ = linter(unit="both")
    res = lt.check(text, CTX)
    assert found(res) == [("FL110", "The library CONTRA reopened"), ("FL210", "The café UNSUP opened"),
                          ("FL110", "The shop CONTRA closed"), ("FL210", "the x UNSUP rose")]
    assert all(s.verdict_from == "sentence" for s in res.sentences)


def test_a_sentence_contradiction_stays_when_its_claims_are_only_unsupported():
    lt, _, _ = linter(unit="both")
    res = lt.check("The library UNSUP reopened, CONTRA.", CTX)
    assert found(res) == [("FL100", "The library UNSUP reopened, CONTRA."), ("FL210", "The library UNSUP reopened")]


def test_sentence_without_claims_is_judged_as_a_sentence():
    lt, _, _ = linter(unit="claim")
    res = lt.check("It was NOCLAIM UNSUP.", CTX)
    assert res.sentences[0].claims == [] and res.sentences[0].verdict_from == "sentence"
    assert found(res) == [("FL200", "It was NOCLAIM UNSUP.")]


def test_soft_and_major_aggregation_report_fewer_claims_than_strict():
    text = "The café UNSUP opened and the roof was fine and the library was open and the hall was lit."
    for mode, expected in (("strict", [("FL210", "The café UNSUP opened")]), ("soft", []), ("major", [])):
        lt, _, _ = linter(unit="claim", claim_aggregation=mode)
        res = lt.check(text, CTX)
        assert found(res) == expected, mode
        assert res.sentences[0].label == ("neutral" if mode == "strict" else "entailment")


def test_aggregate_modes():
    e, n, c = [0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.05, 0.1, 0.85]
    assert aggregate([e, n, c], "strict")[1] == 2
    assert aggregate([e, n], "strict")[1] == 1
    probs, _ = aggregate([e, e, n], "soft")
    assert probs[0] == pytest.approx((0.9 + 0.9 + 0.1) / 3)
    probs, best = aggregate([e, e, n], "major")
    assert probs[0] == pytest.approx(0.9) and best in (0, 1)
    assert np.argmax(aggregate([e, n], "major")[0]) == 1  # a tie goes to the worse label
    assert supported_share(["entailment", "neutral"]) == 0.5
    with pytest.raises(ValueError):
        aggregate([], "strict")
    with pytest.raises(ValueError):
        aggregate([e], "mean")


def test_sentence_unit_extracts_no_claims():
    lt, _, extractor = linter()
    res = lt.check("The library CONTRA reopened and the café opened.", CTX)
    assert extractor.calls == [] and res.sentences[0].claims is None
    assert [c for c, _ in found(res)] == ["FL100"]
    assert "claims" not in res.sentences[0].to_dict()


def test_claim_offsets_survive_emoji_cjk_and_crlf():
    text = "# 标题 😀\r\n\r\n前文 😀 是 的.\r\nThe café 😀 UNSUP opened and the 图书馆 CONTRA closed.\r\n"
    lt, _, _ = linter(unit="claim")
    res = lt.check(text, CTX)
    assert found(res) == [("FL210", "The café 😀 UNSUP opened"), ("FL110", "the 图书馆 CONTRA closed")]


def test_extractor_notes_and_spans_outside_the_sentence():
    lt, _, _ = linter(ClauseExtractor(bad=True), unit="claim")
    res = lt.check("The library reopened in March.", CTX)
    assert "clauses: one note" in res.notes
    assert [c.text for c in res.sentences[0].claims] == ["The library reopened in March."]


def test_an_edit_re_extracts_the_edited_sentence_and_the_few_after_it():
    sentences = [f"The room {i} opened today." for i in range(8)]
    lt, _, extractor = linter(unit="claim")
    lt.check(" ".join(sentences), CTX)
    sentences[2] = "The room 2 closed today."
    extractor.calls.clear()
    lt.check(" ".join(sentences), CTX)
    assert len(extractor.calls) == 1
    assert extractor.calls[0][0] == sentences[0] and len(extractor.calls[0]) == 6  # 2 before, edited, 3 after


def test_json_of_a_sentence_lists_its_claims():
    lt, _, _ = linter(unit="claim")
    res = lt.check("The café UNSUP opened and the roof was fine.", CTX)
    d = res.sentences[0].to_dict()
    assert d["verdict_from"] == "claims"
    claim = d["claims"][0]
    assert {"subject", "predicate", "object", "spans", "text", "label", "probs", "score", "evidence"} <= set(claim)
    assert claim["spans"]["subject"] == [0, 3] and claim["label"] == "neutral"


def test_claim_findings_obey_suppression_comments_and_select():
    text = "<!-- faithlint-disable-next-line FL110 -->\nThe library CONTRA reopened.\n"
    lt, _, _ = linter(unit="claim")
    assert found(lt.check(text, CTX)) == []
    lt, _, _ = linter(unit="claim", ignore=["FL110"])  # the sentence, judged through its claims, still says so
    assert found(lt.check("The library CONTRA reopened.", CTX)) == [("FL100", "The library CONTRA reopened.")]
    lt, _, _ = linter(unit="claim", ignore=["FL1", "FL3"])
    assert found(lt.check("The library CONTRA reopened.", CTX)) == []


def test_an_unsupported_claim_whose_value_conflicts_with_its_evidence_is_contradicted():
    ctx = [ContextDoc("ctx.md", "The project cost $12.5 million. The hall has 40 rooms.")]
    lt, _, _ = linter(unit="claim")
    text = "The project UNSUP cost $25 million. The hall UNSUP has a roof."
    res = lt.check(text, ctx)
    assert found(res) == [("FL110", "The project UNSUP cost $25 million"), ("FL210", "The hall UNSUP has a roof")]
    assert "the context has \u2018$12.5 million\u2019, not \u2018$25 million\u2019" in res.findings[0].message
