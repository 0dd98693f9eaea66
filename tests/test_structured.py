"""Structured context: JSON/YAML/CSV records verbalised into sentences, with offsets back into the file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from faithlint.errors import InputError
from faithlint.inputs.context import evidence_in_source, load_context, source_texts
from faithlint.inputs.record_phrases import counted
from faithlint.inputs.structured import PARAGRAPH_CHARS, bool_phrase, context_from_string, structured_doc, time_range
from faithlint.types import ContextDoc, DraftResult, Evidence, Finding, SentenceResult, SourceMap

LIMIT = 2_000_000
RESTAURANTS = [
    {"name": "Luigi's", "rating": 4.5, "opens": "11:00", "days": ["Tue", "Wed"],
     "address": {"street": "Via Roma 5", "city": "Turin"}, "chef": {"name": "Mario", "age": 52},
     "dishes": [{"name": "Margherita", "price": 9}, {"name": "Carbonara", "price": 12.5}]},
    {"name": "Chez Anne", "rating": 3, "is_open": False, "tags": [], "notes": None,
     "reviews": [{"stars": 5, "text": "Lovely"}, {"stars": 2}]},
]


def sentences(text: str) -> list[tuple[int, int]]:
    """Character ranges of the sentences of a verbalisation (they end with '.' before a space or a break)."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S.*?[.!?](?=\s|$)", text, re.S)]


def json_doc(obj: object, tmp_path: Path, name: str = "data.json") -> tuple[ContextDoc, str]:
    raw = json.dumps(obj, indent=2, ensure_ascii=False)
    (tmp_path / name).write_text(raw, encoding="utf-8")
    return load_context([tmp_path / name], LIMIT)[0], raw


# --- verbalisation --------------------------------------------------------------------------------

def test_the_example_from_the_issue() -> None:
    raw = '{"name": "Luigi\'s", "rating": 4.5, "opens": "11:00", "days": ["Tue", "Wed"]}'
    doc = structured_doc("r.json", raw, ".json")
    assert doc.text == "Luigi's: its rating is 4.5. It opens at 11:00. Its days are Tuesday and Wednesday."
    assert doc.source_text == raw


def test_nested_records_and_lists_of_records(tmp_path: Path) -> None:
    doc, _ = json_doc(RESTAURANTS, tmp_path)
    paragraphs = doc.text.split("\n\n")
    assert paragraphs == [
        # facts about the whole list first (faithlint.inputs.record_summary), then each record
        "The list has 2 items. The ratings range from 3 to 4.5. Chez Anne is the lowest rated and Luigi's is the "
        "highest rated.",
        "Luigi's: its rating is 4.5. It opens at 11:00. Its days are Tuesday and Wednesday. Its chef is Mario. "
        "Its dishes are Margherita and Carbonara.",
        "The address of Luigi's: its street is Via Roma 5. Its city is Turin.",  # nested records: own paragraphs
        "Mario: its age is 52.",
        "The prices range from 9 to 12.5. Margherita is the cheapest and Carbonara is the most expensive.",
        "Margherita: its price is 9. It is one of the dishes of Luigi's.",
        "Carbonara: its price is 12.5. It is one of the dishes of Luigi's.",
        "Chez Anne: its rating is 3. It is not open. It has no tags. Its notes are not given. It has 2 reviews.",
        "The reviews of Chez Anne are rated from 2 to 5 stars: 1 of the 2 reviews is positive (4 stars or more) and "
        "1 is negative (2 stars or fewer). The reviews of Chez Anne are mixed: some reviewers praise it and others "
        "criticise it.",
        "Review 1 of Chez Anne: a customer gave it 5 stars (a positive review). A customer wrote: Lovely.",
        "Review 2 of Chez Anne: a customer gave it 2 stars (a negative review).",
    ]


def test_subjects_without_a_name_use_the_key_path() -> None:
    doc = structured_doc("x.json", '{"revenue": 12500000, "hq": {"city": "Oslo", "geo": {"lat": 59.9}}}', ".json")
    assert doc.text == "The revenue is 12500000.\n\nThe hq: its city is Oslo.\n\nThe geo of the hq: its lat is 59.9."
    records = structured_doc("x.json", '[{"id": 7, "city": "Paris"}, {"city": "Rome"}]', ".json")
    assert records.text == "The list has 2 items.\n\nItem 7: its city is Paris.\n\nItem 2: its city is Rome."


def test_scalar_lists_verbs_booleans_and_prose() -> None:
    doc = structured_doc("x.json", json.dumps({
        "title": "Q3 report", "authors": ["Ann", "Bo", "Cy"], "serves": ["pizza", "pasta"], "has_parking": True,
        "vegan": False, "summary": "Sales rose. Costs fell.", "grid": [[1, 2], [3]]}), ".json")
    assert doc.text == ("Q3 report: its authors are Ann, Bo and Cy. It serves pizza and pasta. It has parking. "
                        "It is not vegan. Its summary: Sales rose. Costs fell. Its grid are 1, 2 and 3.")


def test_top_level_scalars_and_empty_documents() -> None:
    assert structured_doc("x.json", '"just prose."', ".json").text == "just prose."
    assert structured_doc("x.json", '["one", 2]', ".json").text == "one\n\n2"
    assert structured_doc("x.json", "[]", ".json").text == ""
    assert structured_doc("x.json", '[{}, {"name": "Solo"}]', ".json").text == "The list has 2 items.\n\nSolo."


def test_sentences_never_cross_records(tmp_path: Path) -> None:
    doc, raw = json_doc(RESTAURANTS, tmp_path)
    record_ranges = [(m.start(), m.end()) for m in _top_level_objects(raw)]
    facts = len(doc.text.split("\n\n")[0])  # the facts about the whole list map across its records
    for a, b in sentences(doc.text):
        assert "\n" not in doc.text[a:b]
        if a < facts:
            continue
        lo, hi = doc.to_source(a, b)
        assert any(ra <= lo and hi <= rb for ra, rb in record_ranges), doc.text[a:b]


def _top_level_objects(raw: str) -> list[re.Match[str]]:
    """The two records of RESTAURANTS as printed with indent=2 (they start at two-space indentation)."""
    return list(re.finditer(r"(?ms)^  \{.*?^  \}", raw))


def test_yaml_reads_like_json() -> None:
    raw = ("name: Luigi's\nrating: 4.5\nopens: '11:00'\ndays:\n  - Tue\n  - Wed\nopen_late: no\n"
           "address:\n  city: Turin\n")
    doc = structured_doc("r.yaml", raw, ".yaml")
    assert doc.text == ("Luigi's: its rating is 4.5. It opens at 11:00. Its days are Tuesday and Wednesday. "
                        "Its open late: no.\n\nThe address of Luigi's: its city is Turin.")
    i = doc.text.index("4.5")
    assert raw[slice(*doc.to_source(i, i + 3))] == "4.5"
    i = doc.text.index("11:00")
    assert raw[slice(*doc.to_source(i, i + 5))] == "'11:00'"
    multi = structured_doc("r.yml", "name: A\n---\nname: B\nsize: 2\n", ".yml")
    assert multi.text == "A.\n\nB: its size is 2."


def test_csv_rows_become_paragraphs_with_cell_offsets() -> None:
    raw = 'name,rating,city\r\nLuigi\'s,4.5,"Turin, Italy"\r\n"Bob ""B""",3,\r\n\r\n,2,Rome\r\n'
    doc = structured_doc("r.csv", raw, ".csv")
    assert doc.text == ("The table has 3 rows. The ratings range from 2 to 4.5. Row 3 is the lowest rated and Luigi's "
                        "is the highest rated.\n\nLuigi's: its rating is 4.5. Its city is Turin, Italy.\n\n"
                        "Bob \"B\": its rating is 3.\n\nRow 3: its rating is 2. Its city is Rome.")
    i = doc.text.index("Turin, Italy")
    assert raw[slice(*doc.to_source(i, i + len("Turin, Italy")))] == '"Turin, Italy"'
    i = doc.text.index('Bob "B"')
    assert raw[slice(*doc.to_source(i, i + 7))] == '"Bob ""B"""'
    tsv = structured_doc("r.tsv", "a\tb\n1\t2\n", ".tsv")
    assert tsv.text == "Row 1: its a is 1. Its b is 2."  # a number names no row
    semi = structured_doc("r.csv", "city;size\nOslo;3\n", ".csv")
    assert semi.text == "Oslo: its size is 3."  # the first column names the row


BUSINESS = {  # the shape of exported business listings (Yelp's): Python literals inside strings, "11:0" hours
    "name": "Studio Nine", "city": "Madison", "state": "WI", "business_stars": 4.5, "review_count": 23,
    "is_open": 1, "categories": "Hair Salons, Beauty & Spas",
    "attributes": {"ByAppointmentOnly": "True", "BusinessAcceptsCreditCards": "False", "WiFi": "u'no'",
                   "OutdoorSeating": "True", "GoodForKids": "False", "DogsAllowed": "True", "NoiseLevel": "u'quiet'",
                   "RestaurantsPriceRange2": "2", "Ambience": "{'romantic': False, 'casual': True}",
                   "BusinessParking": "{'garage': False, 'street': True, 'lot': True}"},
    "hours": {"Tue": "10:0-19:0", "Wed": "10:0-19:0", "Thu": "10:0-19:0", "Fri": "9:30-17:0", "Sat": "Closed"},
}


def test_business_listings_read_as_people_write_them() -> None:
    raw = json.dumps(BUSINESS, indent=2)
    doc = structured_doc("b.json", raw, ".json")
    assert doc.text.split("\n\n") == [
        "Studio Nine: its city is Madison. Its state is Wisconsin (WI). It is rated 4.5 stars overall (its average "
        "rating). It has 23 reviews. It is open.",
        # a long record goes on in a new paragraph that names its subject again (PARAGRAPH_CHARS): an evidence
        # piece ranked alone still says whom it is about
        "Studio Nine: its categories are Hair Salons and Beauty & Spas.",
        "The attributes of Studio Nine: it is by appointment only. It does not accept credit cards. "
        "It does not offer Wi-Fi (no WiFi). It has outdoor seating. It is not good for kids.",
        "The attributes of Studio Nine: dogs are allowed. Its noise level is quiet. Its price range is 2. "
        "Its ambience is casual, not romantic.",
        "The attributes of Studio Nine: it has street and lot parking and no garage parking.",
        "Studio Nine: from Tuesday to Thursday it is open from 10 AM to 7 PM (10:00-19:00). "
        "On Friday it is open from 9:30 AM to 5 PM (9:30-17:00). On Saturday it is closed.",
        # the week as overviews sum it up: days an export leaves out are closed days
        "Studio Nine: it is closed on Monday and Sunday: no hours are listed for those days. It is open four days a "
        "week, from Tuesday to Friday. Its opening hours vary by day.",
    ]
    def source_of(words: str) -> str:
        i = doc.text.index(words)
        return raw[slice(*doc.to_source(i, i + len(words)))]
    assert source_of("Tuesday") == '"Tue"'  # the weekday names the key they were written from
    assert source_of("from 10 AM to 7 PM") == '"10:0-19:0"'
    assert source_of("Wisconsin (WI)") == '"WI"'
    assert source_of("lot") == '"{\'garage\': False, \'street\': True, \'lot\': True}"'  # the string it was read from
    assert source_of("4.5") == "4.5"
    assert source_of("23") == "23" and source_of("reviews") == '"review_count"'  # a count: the key names the noun
    assert all(len(p) <= PARAGRAPH_CHARS for p in doc.text.split("\n\n"))
    again = doc.text.index("The attributes of Studio Nine: dogs")  # the repeated subject maps to its key
    assert raw[slice(*doc.to_source(again, again + len("The attributes of Studio Nine")))] == '"attributes"'


@pytest.mark.parametrize(("text", "expected"), [
    ("11:0-22:0", "from 11 AM to 10 PM"), ("7:30 - 17:30", "from 7:30 AM to 5:30 PM"), ("9am-5pm", "from 9 AM to 5 PM"),
    ("0:0-0:0", "from 12 AM to 12 AM"), ("12:00 to 13:15", "from 12 PM to 1:15 PM"), ("3-5", None), ("closed", None),
])
def test_time_ranges(text: str, expected: str | None) -> None:
    assert time_range(text) == expected


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("BusinessAcceptsCreditCards", True, ("It", " accepts credit cards")),
    ("accepts_cards", False, ("It", " does not accept cards")),
    ("RestaurantsTakeOut", True, ("It", " offers takeout (take-out)")),
    ("RestaurantsReservations", False, ("It", " does not take reservations")),
    ("delivery", False, ("It", " does not offer delivery")),
    ("bike_parking", False, ("It", " does not have bike parking")),
    ("WheelchairAccessible", False, ("It", " is not wheelchair accessible")),
    ("DogsAllowed", False, ("Dogs", " are not allowed")),
    ("vegan", True, ("It", " is vegan")),  # an adjective
    ("Dry Cleaning", False, ("It", " does not have dry cleaning")),  # a yes/no column: has / has not
    ("Score 2.0", True, ("", "")),  # no phrase reads right: "Its score 2.0: yes"
])
def test_yes_no_attributes(key: str, value: bool, expected: tuple[str, str]) -> None:
    assert bool_phrase(key, value) == expected


def test_hours_not_given_for_a_day() -> None:
    doc = structured_doc("x.json", json.dumps({"name": "X", "hours": {"Mon": None, "Tue": "closed"}}), ".json")
    assert doc.text == "X: on Monday its hours are not given. On Tuesday it is closed."


def test_strings_that_are_not_python_literals_stay_strings() -> None:
    doc = structured_doc("x.json", json.dumps({"name": "A", "motto": "{not a dict}", "quote": "'tis so",
                                               "state": "XX", "hours": "9-5"}), ".json")
    assert doc.text == "A: its motto is {not a dict}. Its quote is 'tis so. Its state is XX. Its hours are 9-5."


# --- offset map -----------------------------------------------------------------------------------

def test_every_value_maps_to_its_own_json_token(tmp_path: Path) -> None:
    doc, raw = json_doc(RESTAURANTS, tmp_path)
    checked = 0
    for seg_start, seg_end, src_start, src_end in doc.offsets.segments:  # type: ignore[union-attr]
        piece = doc.text[seg_start:seg_end].rstrip(".: ")
        value = json.loads(raw[src_start:src_end])  # every source range is one whole JSON value or key
        if isinstance(value, (int, float, str)) and not isinstance(value, bool) and piece == str(value):
            checked += 1
    assert checked >= 15


def test_every_sentence_maps_inside_the_member_it_came_from(tmp_path: Path) -> None:
    doc, raw = json_doc({"rating": 4.5, "days": ["Tue", "Wed"], "opens": "11:00", "chef": {"name": "Mario"}},
                        tmp_path)
    for a, b in sentences(doc.text):
        lo, hi = doc.to_source(a, b)
        member = json.loads("{" + raw[lo:hi] + "}")  # the range is exactly one "key": value member
        assert len(member) == 1
        key = next(iter(member))
        assert json.loads(raw)[key] == member[key]


def test_evidence_ranges_round_trip_through_windows(tmp_path: Path) -> None:
    from faithlint.document.sentences import Span
    from faithlint.evidence.windows import build_windows

    doc, raw = json_doc(RESTAURANTS, tmp_path)
    spans = [Span(a, b) for a, b in sentences(doc.text)]
    windows = build_windows(doc.source, doc.text, spans, [len(doc.text[s.start:s.end].split()) for s in spans],
                            40, 8)
    assert len(windows) > 1
    for w in windows:
        lo, hi = doc.to_source(w.start, w.end)
        assert 0 <= lo < hi <= len(raw)
        for a, b in sentences(doc.text[w.start:w.end]):  # each sentence of the window lies inside its range
            s_lo, s_hi = doc.to_source(w.start + a, w.start + b)
            assert lo <= s_lo and s_hi <= hi


def test_source_map_gaps_points_and_identity() -> None:
    smap = SourceMap("0123456789", ((0, 4, 2, 3), (5, 9, 6, 9)))
    assert smap.to_source(0, 9) == (2, 9)
    assert smap.to_source(4, 5) == (3, 3)  # a gap collapses after the segment before it
    assert smap.to_source(6, 6) == (6, 6)  # an empty range is a point
    assert smap.to_source(9, 12) == (9, 9)
    assert SourceMap("", ()).to_source(0, 3) == (0, 0)
    plain = ContextDoc("a.md", "Some text.")
    assert plain.to_source(2, 7) == (2, 7) and plain.source_text == "Some text."


# --- loading, errors, batch strings -----------------------------------------------------------------

@pytest.mark.parametrize(("name", "content", "expected"), [
    ("bad.json", '{\n  "a": 1,\n  "b": }\n', "invalid JSON at line 3, column 8"),
    ("bad.yaml", "a: [1, 2\nb: 3\n", "invalid YAML at line"),
    ("bad.yml", "a: b: c\n", "invalid YAML at line 1"),
    ("bad.csv", 'name,city\n"Luigi,Turin\n', "invalid CSV at line 2: a quoted field is never closed"),
    ("header.csv", "name,city\n", "CSV needs a header row and at least one data row"),
])
def test_malformed_structured_context_is_one_line_naming_the_file(tmp_path: Path, name: str, content: str,
                                                                 expected: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_context([path], LIMIT)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ") and expected in message


def test_folders_pick_up_yaml_and_csv(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: A\n")
    (tmp_path / "b.csv").write_text("name\nB\n")
    (tmp_path / "c.txt").write_text("C.")
    assert [d.text for d in load_context([tmp_path], LIMIT)] == ["A.", "B.", "C."]


def test_batch_context_strings_that_are_json_are_verbalised() -> None:
    raw = '  {"name": "Luigi\'s", "rating": 4.5}\n'
    doc = context_from_string("q1#context[0]", raw)
    assert doc.text == "Luigi's: its rating is 4.5."
    i = doc.text.index("4.5")
    assert raw[slice(*doc.to_source(i, i + 3))] == "4.5"
    for prose in ("The rating is 4.5.", "[not json", "{broken: 1}", "[1, 2] and more"):
        doc = context_from_string("q1#context[0]", prose)
        assert doc.text == prose and doc.offsets is None


def test_batch_mode_reads_json_context_strings(tmp_path: Path) -> None:
    from faithlint.batch.rows import read_items

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "a", "text": "It is rated 4.5.",
                                 "context": ['{"name": "Luigi\'s", "rating": 4.5}', "Plain words."]}) + "\n")
    item = next(read_items(pairs, LIMIT))
    assert [d.text for d in item["context"]] == ["Luigi's: its rating is 4.5.", "Plain words."]


# --- evidence shown to users points into the file ---------------------------------------------------

def _result_with_evidence(doc: ContextDoc, start: int, end: int) -> DraftResult:
    ev = Evidence(doc.source, start, end, doc.text[start:end])
    sent = SentenceResult(0, 10, "It is 4.5.", "entailment", {"entailment": 1.0}, 1.0, 5, ev, [ev])
    finding = Finding("FL200", "warning", "m", 0, 10, evidence=ev)
    return DraftResult(text="It is 4.5.", path="d.md", sentences=[sent], findings=[finding])


def test_evidence_in_source_moves_ranges_and_leaves_the_result_alone(tmp_path: Path) -> None:
    doc, raw = json_doc({"name": "Luigi's", "rating": 4.5}, tmp_path)
    a = doc.text.index("its rating")
    result = _result_with_evidence(doc, a, len(doc.text))
    mapped = evidence_in_source(result, [doc])
    for ev in (mapped.sentences[0].evidence, mapped.sentences[0].windows[0], mapped.findings[0].evidence):
        assert ev is not None and raw[ev.start:ev.end] == '"rating": 4.5'
        assert ev.text == "its rating is 4.5."
    assert result.findings[0].evidence.start == a  # type: ignore[union-attr]
    plain = ContextDoc("b.md", "Prose.")
    assert evidence_in_source(result, [plain]) is result
    assert source_texts([doc, plain]) == {doc.source: raw, "b.md": "Prose."}


def test_sarif_and_html_show_the_files_line(tmp_path: Path) -> None:
    from faithlint.report import render

    doc, raw = json_doc({"name": "Luigi's", "rating": 4.5}, tmp_path)
    a = doc.text.index("its rating")
    mapped = evidence_in_source(_result_with_evidence(doc, a, len(doc.text)), [doc])
    sarif = json.loads(render([mapped], "sarif", contexts=source_texts([doc])))
    region = sarif["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endLine"]) == (3, 3, 3)
    assert f"{doc.source}:3" in render([mapped], "html", contexts=source_texts([doc]))


def test_language_server_evidence_location_points_into_the_json(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from pygls.workspace import PositionCodec

    from faithlint.server.checking import Outcome, Snapshot
    from faithlint.server.diagnostics import ContextIndexes, evidence_location

    doc, raw = json_doc({"name": "Luigi's", "rating": 4.5}, tmp_path)
    snap = Snapshot("file:///d.md", tmp_path / "d.md", "x", 1, "markdown")
    out = Outcome(snapshot=snap, context_files={doc.source: tmp_path / "data.json"},
                  context_texts={doc.source: doc.text}, context_docs={doc.source: doc})
    a = doc.text.index("its rating")
    loc = evidence_location(out, doc.source, a, len(doc.text), PositionCodec(), ContextIndexes())
    assert loc is not None
    assert (loc.range.start.line, loc.range.start.character, loc.range.end.line) == (2, 2, 2)


@pytest.mark.parametrize(("words", "value", "expected"), [
    ("review count", 58, "reviews"), ("review count", 1, "review"), ("city count", 3, "cities"),
    ("box count", 2, "boxes"), ("day count", 2, "days"), ("count", 4, None), ("review count", 4.5, None),
    ("review count", True, None), ("review total", 3, None),
])
def test_count_keys_name_what_they_count(words: str, value: object, expected: str | None) -> None:
    assert counted(words, value) == expected


def test_every_weekday_abbreviation_the_value_rules_know_names_a_day() -> None:
    from faithlint.inputs.record_phrases import weekday
    from faithlint.rules.values.vocab import _WEEKDAY_ABBRS

    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    for abbr, index in _WEEKDAY_ABBRS.items():  # a record keyed "Weds" is an opening-hours map like "Wed"
        assert weekday(abbr.capitalize() + ".") == days[index], abbr
