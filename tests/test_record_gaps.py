"""Sentences that say what a record leaves out, settled by the record (faithlint/rules/record_gaps.py, issue 38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faithlint import api
from faithlint.inputs.structured import context_from_string, structured_doc
from faithlint.rules.record_gaps import says_record_lacks

RECORD = {"name": "Harbor Grill", "city": "Goleta", "hours": {"Monday": "11:0-21:0", "Tuesday": "11:0-21:0"},
          "attributes": {"OutdoorSeating": True, "WiFi": "free", "Music": None, "RestaurantsReservations": None},
          "reviews": [{"stars": 4, "text": "Great fish and live music on Fridays; we booked a table by phone."}]}


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gaps") / "harbor.json"
    path.write_text(json.dumps(RECORD, indent=2), encoding="utf-8")
    return path


def sentence_codes(draft: str, context: Path, **config: object) -> set[str]:
    res = api.check(draft, context, markdown=False, config=config or None)
    return {f.code for f in res.findings if f.code in ("FL100", "FL200")}


@pytest.mark.parametrize("draft", ["Reservations are not mentioned in the data.",
                                   "The data does not provide information about parking, music or reservations."])
def test_a_gap_the_record_confirms_is_not_flagged_and_check_boilerplate_checks_it_again(record_file: Path,
                                                                                         draft: str) -> None:
    assert sentence_codes(draft, record_file) == set()
    assert sentence_codes(draft, record_file, check_boilerplate=True) == {"FL200"}  # what the checker says alone


def test_a_gap_the_record_fills_or_a_sentence_that_claims_more_is_judged_as_usual(record_file: Path) -> None:
    assert sentence_codes("The opening hours are not specified.", record_file) == {"FL200"}
    assert sentence_codes("They have outdoor seating, but there is no mention of a children's menu.",
                          record_file) == {"FL200"}


def test_what_counts_as_the_records_own_statements(record_file: Path) -> None:
    doc = structured_doc(str(record_file), record_file.read_text(encoding="utf-8"), ".json")
    assert doc.free_text == (RECORD["reviews"][0]["text"],)  # type: ignore[index]
    # music is named by a review, not by the record (its Music is null): the record does not state it
    assert says_record_lacks("The structured data does not specify whether there is music.", [doc])
    assert not says_record_lacks("Wi-Fi availability is not mentioned in the data.", [doc])  # "free Wi-Fi"
    assert not says_record_lacks("Harbor Grill's hours are not given in the data.", [doc])
    # "In terms of amenities," says nothing by itself; the business's name is no gap
    assert says_record_lacks("In terms of amenities, the data does not mention reservations.", [doc])
    # a prose document beside the record may name what the record lacks
    notes = context_from_string("notes.md", "Tables can be reserved by phone.")
    assert says_record_lacks("Reservations are not mentioned in the data.", [doc])
    assert not says_record_lacks("Reservations are not mentioned in the data.", [doc, notes])
    # prose is no record, and a sentence without a gap is none
    assert not says_record_lacks("Reservations are not mentioned.", [context_from_string("notes", "It has a bar.")])
    assert not says_record_lacks("It takes reservations.", [doc])
