"""FL410: a draft's yes/no claims about a structured record against the record's own values (issue 38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faithlint import api
from faithlint.inputs.structured import context_from_string, structured_doc
from faithlint.rules.fl410_record_attribute import asserted, clauses, mention

RECORD = {
    "name": "Harbor Grill",
    "attributes": {
        "BusinessParking": {"garage": False, "street": False, "validated": False, "lot": True, "valet": True},
        "RestaurantsReservations": True, "OutdoorSeating": False, "WiFi": "no", "RestaurantsTakeOut": True,
        "Ambience": {"romantic": False, "intimate": True, "casual": False},
    },
    "reviews": [{"stars": 4, "text": "Great fish. We sat near the window and the staff were kind."}],
}


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("record") / "harbor.json"
    path.write_text(json.dumps(RECORD, indent=2), encoding="utf-8")
    return path


def fl410(draft: str, context: object) -> list[tuple[str, str]]:
    res = api.check(draft, context, markdown=False)
    return [(draft[f.start:f.end], f.message) for f in res.findings if f.code == "FL410"]


def test_the_verbaliser_keeps_the_records_flags_linked_to_their_values(record_file: Path) -> None:
    source = record_file.read_text(encoding="utf-8")
    doc = structured_doc(str(record_file), source, ".json")
    flags = {f.words: f for f in doc.flags}
    assert {k: f.value for k, f in flags.items()} == {
        "garage parking": False, "street parking": False, "validated parking": False, "lot parking": True,
        "valet parking": True, "reservations": True, "outdoor seating": False, "Wi-Fi": False, "take out": True,
        "romantic": False, "intimate": True}  # "casual" is too loose to judge by
    assert "wifi" in flags["Wi-Fi"].aliases and "parking garage" in flags["garage parking"].aliases
    for f in doc.flags:  # the value in the file, and the verbalised sentence that states it
        assert source[f.source[0]:f.source[1]] in ("true", "false", '"no"')
        assert f.words.split()[0].lower() in doc.text[f.statement[0]:f.statement[1]].lower().replace("wi-fi", "wi-fi")
    assert source[flags["outdoor seating"].source[0]:flags["outdoor seating"].source[1]] == "false"
    # a review's words are the customer's, and a table's rows are many records: no flags
    table = context_from_string("t", json.dumps([{"name": "A", "has_pool": True}, {"name": "B", "has_pool": False}]))
    assert table.flags == ()
    assert context_from_string("p", "It has a pool.").flags == ()


@pytest.mark.parametrize("sentence, said", [
    ("It offers outdoor seating.", True),
    ("It does not offer takeout or outdoor seating.", False),
    ("Outdoor seating is not available.", False),
    ("Outdoor seating isn't offered.", False),
    ("Not only does it have outdoor seating, it has a bar.", True),
    ("It has no Wi-Fi, but it has outdoor seating.", True),  # the negation stays in its clause
    ("While they do not take reservations, they offer outdoor seating.", True),
    ("Garage parking and outdoor seating are not available.", False),  # the subject of a negated predicate
    ("It offers outdoor seating, which is not common here.", True),
    ("Although it has no Wi-Fi, outdoor seating is available.", True),
    ("It does not take reservations and all outdoor seating is covered.", True),
])
def test_polarity_is_read_within_the_clause(sentence: str, said: bool) -> None:
    flag = next(f for f in context_from_string("c", json.dumps(RECORD)).flags if f.words == "outdoor seating")
    found = [(c, mention(c, flag)) for _, c in clauses(sentence)]
    clause, m = next((c, m) for c, m in found if m is not None)
    assert asserted(clause, m) is said


@pytest.mark.slow
def test_contradicted_flags_are_marked_on_their_words(record_file: Path) -> None:
    draft = ("\U0001f355 Harbor Grill takes reservations and offers outdoor seating.\r\n"
             "It does not offer takeout or Wi-Fi, but it has validated parking.\r\n"
             "Valet parking is not available, and the ambience is romantic.\r\n")
    got = fl410(draft, record_file)
    assert [w for w, _ in got] == ["outdoor seating", "takeout", "validated parking", "Valet parking", "romantic"]
    messages = dict(got)
    assert messages["outdoor seating"] == ("\u201coutdoor seating\u201d: contradicted by the record (outdoor seating: "
                                           "no): \u201cIt does not have outdoor seating.\u201d")
    assert "(take out: yes)" in messages["takeout"] and "(validated parking: no)" in messages["validated parking"]
    res = api.check(draft, record_file, markdown=False)
    finding = next(f for f in res.findings if f.code == "FL410")
    assert finding.severity == "warning" and finding.evidence is not None
    assert "does not have outdoor seating" in finding.evidence.text


@pytest.mark.slow
def test_what_fl410_leaves_alone(record_file: Path) -> None:
    faithful = ("Harbor Grill takes reservations and has a parking lot. It has no Wi-Fi. "
                "The data does not mention outdoor seating. "  # about the data, not the place
                "It is located on State Street. "  # no parking talk: "street" is an address
                "There is a lot of parking. "  # "a lot of" is no parking lot
                "It is a casual place.")  # too loose to judge by
    assert fl410(faithful, record_file) == []
    # the reviews name it too: the sentence may repeat a customer, so the record does not overrule it
    with_review = {**RECORD, "reviews": [{"stars": 5, "text": "Lovely outdoor seating by the water."}]}
    assert fl410("Harbor Grill offers outdoor seating.", context_from_string("r", json.dumps(with_review))) == []
    assert fl410("Harbor Grill offers outdoor seating.", context_from_string("r", json.dumps(RECORD)))
    # prose context: no record, no FL410
    assert fl410("Harbor Grill offers outdoor seating.", "Harbor Grill has no outdoor seating.") == []
