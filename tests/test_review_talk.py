"""Review roll-ups: FL200 leaves "Customers praise ..." against a record's reviews to FL300 (info), with the real
models; invented facts beside them, and the same sentences against prose, are still warned about."""

from __future__ import annotations

import json

import pytest

from faithlint.document.review_talk import reports_reviews
from faithlint.types import ContextDoc


@pytest.mark.parametrize("sentence", [
    "Customers praise the friendly staff and the delicious kabobs.",
    "Several reviewers recommend the homemade baklava.",
    "One reviewer noted that the fries were cold.",
    "However, some patrons have expressed disappointment with their meals.",
    "The reviews are mixed, with some customers complaining about slow service.",
    "The food is highly praised for its taste and quality.",
    "Overall, Luna Grill seems to be a solid choice for a quick lunch.",
])
def test_roll_ups_are_recognised(sentence: str) -> None:
    assert reports_reviews(sentence)


@pytest.mark.parametrize("sentence", [
    "The restaurant offers free WiFi and outdoor seating.",
    "Luna Grill is a restaurant in Santa Barbara with a rating of 4 stars.",
    "Several dishes are vegetarian.",
    "The museum reopened in 2024 after a renovation.",
    "The bridge was opened in 1931.",
    "Overall, the project cost $12.5 million.",
])
def test_other_sentences_are_not(sentence: str) -> None:
    assert not reports_reviews(sentence)


RECORD = {"name": "Luna Grill", "city": "Santa Barbara", "stars": 4.0, "review_count": 3,
          "attributes": {"OutdoorSeating": True, "WiFi": "free"},
          "reviews": [{"stars": 5, "text": "The chicken kabob plate was delicious and the staff were friendly."},
                      {"stars": 4, "text": "Good food, fast service. Parking can be hard at lunch."},
                      {"stars": 2, "text": "My order was wrong and the fries were cold."}]}
# (stage 8 calls "Several reviewers recommend the homemade baklava." a contradiction of the reviews, FL100, which
# the roll-up policy leaves alone: it only moves FL200 to FL300)
DRAFT = ("Reviewers often mention the live music on weekends.\n\n"
         "The restaurant also runs a cooking school for children on weekends.\n")
ROLL_UP, INVENTED = DRAFT.split("\n\n")[0], DRAFT.split("\n\n")[1].strip()


def _codes(result, sentence: str) -> list[tuple[str, str]]:
    start = DRAFT.index(sentence)
    return sorted((f.code, f.severity) for f in result.findings if f.start <= start < f.end or start <= f.start
                  < start + len(sentence))


@pytest.mark.slow
def test_a_roll_up_of_a_records_reviews_is_info_and_an_invented_fact_a_warning(tmp_path) -> None:
    import faithlint

    ctx = tmp_path / "luna.json"
    ctx.write_text(json.dumps(RECORD), encoding="utf-8")
    res = faithlint.check(DRAFT, [ctx])
    assert _codes(res, ROLL_UP) == [("FL300", "info")]
    note = next(f for f in res.findings if f.code == "FL300")
    assert "sums up what the reviews say" in note.message and "check_review_rollups" in note.message
    assert ("FL200", "warning") in _codes(res, INVENTED)
    # the same words as prose are judged as always; check_review_rollups warns on the roll-up again
    prose = ContextDoc("luna.md", " ".join(r["text"] for r in RECORD["reviews"]))
    assert ("FL200", "warning") in _codes(faithlint.check(DRAFT, [prose]), ROLL_UP)
    strict = faithlint.check(DRAFT, [ctx], config={"check_review_rollups": True})
    assert ("FL200", "warning") in _codes(strict, ROLL_UP)
