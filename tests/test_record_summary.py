"""Records read as people write them (CSV key columns, units and currencies, yes/no columns, opening hours,
addresses, reviews) and facts about a whole table, each piece mapped to the JSON value or CSV cell it came from."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from faithlint.inputs.structured import structured_doc
from faithlint.types import ContextDoc

HOTELS = ("name,price_usd,rooms,pool,breakfast_included,city\n"
          "Sea View Inn,120,12,yes,yes,Brighton\n"
          "Hill Top Lodge,\"1,095\",8,no,yes,Brighton\n"
          "Harbour Rooms,80,6,no,yes,Brighton\n")


def source_of(doc: ContextDoc, words: str, nth: int = 0) -> str:
    """The file text that ``words`` (its ``nth`` occurrence in the verbalisation) was written from."""
    i = -1
    for _ in range(nth + 1):
        i = doc.text.index(words, i + 1)
    lo, hi = doc.to_source(i, i + len(words))
    return doc.source_text[lo:hi]


def test_csv_rows_name_their_key_column_units_currencies_and_yes_no() -> None:
    doc = structured_doc("hotels.csv", HOTELS, ".csv")
    rows = doc.text.split("\n\n")[1:]
    assert rows == [
        "Sea View Inn: its price is 120 US dollars ($120). It has 12 rooms. It has pool. It has breakfast included. "
        "Its city is Brighton.",
        "Hill Top Lodge: its price is 1,095 US dollars ($1,095). It has 8 rooms. It does not have pool. "
        "It has breakfast included. Its city is Brighton.",
        "Harbour Rooms: its price is 80 US dollars ($80). It has 6 rooms. It does not have pool. "
        "It has breakfast included. Its city is Brighton.",
    ]
    assert source_of(doc, "Sea View Inn") == "Sea View Inn"  # the key column is the subject
    assert source_of(doc, "120") == "120" and source_of(doc, "$120") == "120"  # both forms: the cell
    assert source_of(doc, " US dollars") == "price_usd"  # the unit: the header that names it
    assert source_of(doc, "$1,095", 1) == '"1,095"'  # a quoted cell maps with its quotes
    row = doc.text.index("Sea View Inn: its price")
    i = doc.text.index("It has pool.", row) + 2  # " has pool" states the cell, "It" the header
    assert doc.source_text[slice(*doc.to_source(i, i + 9))] == "yes"
    assert doc.source_text[slice(*doc.to_source(i - 2, i))] == "pool"
    assert source_of(doc, " does not have pool") == "no"


def test_facts_about_the_whole_table_link_to_what_they_summarise() -> None:
    doc = structured_doc("hotels.csv", HOTELS, ".csv")
    assert doc.text.split("\n\n")[0] == (
        "The table has 3 rows, one per hotel: there are three hotels. The prices range from 80 US dollars ($80) to "
        "1,095 US dollars ($1,095). "
        "Harbour Rooms is the cheapest and Hill Top Lodge is the most expensive. The rooms range from 6 to 12. "
        "Harbour Rooms has the fewest rooms and Sea View Inn has the most rooms. Not every hotel has pool: 1 of the 3 "
        "hotels has pool. Only Sea View Inn has pool. "
        "Every hotel has breakfast included. The city of every hotel is Brighton.")
    table = HOTELS[HOTELS.index("Sea View"):].rstrip("\n")
    assert source_of(doc, "The table has 3 rows") == table  # a count: the whole table
    assert source_of(doc, "Every hotel") == table  # "every": the whole table; the words: the header
    assert source_of(doc, " has breakfast included", 0) == "breakfast_included"
    assert source_of(doc, "$80") == "80" and source_of(doc, "$1,095") == '"1,095"'  # a range: its two cells
    assert source_of(doc, " US dollars") == "price_usd"  # its unit: the header
    assert source_of(doc, "Harbour Rooms") == "Harbour Rooms"  # the cheapest: its name cell
    assert source_of(doc, " is the cheapest and ") == "price_usd"
    assert source_of(doc, "Brighton") == "Brighton"  # a shared value: the first row's cell
    offset = HOTELS.index("Brighton")
    i = doc.text.index("Brighton")
    assert doc.to_source(i, i + len("Brighton")) == (offset, offset + len("Brighton"))


def test_the_key_column_a_name_column_before_an_id_and_a_numbered_row() -> None:
    shops = structured_doc("shops.csv", "id,shop_name,delivery\nS1,Green Grocer,yes\nS2,Corner Deli,no\n", ".csv")
    assert shops.text.split("\n\n")[1:] == ["Green Grocer: its id is S1. It offers delivery.",
                                            "Corner Deli: its id is S2. It does not offer delivery."]
    assert shops.text.startswith("The table has 2 rows, one per shop: there are two shops.")
    numbered = structured_doc("t.csv", "code,size_kg\n7,3\n8,4.5\n", ".csv")
    assert numbered.text.split("\n\n") == [
        "The table has 2 rows. The sizes range from 3 kilograms to 4.5 kilograms. Row 1 is the smallest and Row 2 "
        "is the largest.",  # an identifier ("code") has no range
        "Row 1: its code is 7. Its size is 3 kilograms.",
        "Row 2: its code is 8. Its size is 4.5 kilograms."]


BUSINESS = {"name": "Benchmark Eatery", "address": "1201 State St", "city": "Santa Barbara", "state": "CA",
            "categories": "Bars, Seafood, Nightlife", "business_stars": 4.0,
            "hours": {"Monday": "0:0-0:0", "Tuesday": "11:30-20:0", "Wednesday": "11:30-20:0",
                      "Thursday": "11:30-20:0", "Friday": "11:30-16:0", "Saturday": "11:30-16:0"},
            "attributes": {"RestaurantsTakeOut": True, "RestaurantsReservations": False, "WiFi": "free",
                           "BusinessParking": {"garage": True, "street": False},
                           "Ambience": {"classy": True, "casual": True, "divey": False}},
            "review_info": [{"review_stars": 5.0, "review_text": "Great chowder. Friendly staff."},
                            {"review_stars": 1.0, "review_text": "Bland food and slow service."},
                            {"review_stars": 4.0, "review_text": "Nice patio."}]}


def test_a_business_listing_as_overviews_state_it() -> None:
    raw = json.dumps(BUSINESS, indent=2)
    doc = structured_doc("b.json", raw, ".json")
    assert doc.text.split("\n\n") == [
        "Benchmark Eatery: it is located at 1201 State St, Santa Barbara, California (CA). Its categories are Bars, "
        "Seafood and Nightlife.",
        "Benchmark Eatery: it is rated 4.0 stars overall (its average rating). It has 3 reviews.",
        # "0:0-0:0" beside other hours is a closed day; a day the export leaves out is one too
        "Benchmark Eatery: on Monday it is closed: its hours are listed as 0:0-0:0, which such exports write for a "
        "day without opening hours.",
        "Benchmark Eatery: from Tuesday to Thursday it is open from 11:30 AM to 8 PM (11:30-20:00). On Friday and "
        "Saturday it is open from 11:30 AM to 4 PM (11:30-16:00).",
        "Benchmark Eatery: it is closed on Sunday: no hours are listed for that day. It is open five days a week, from "
        "Tuesday to Saturday. Its opening hours vary by day.",
        "The attributes of Benchmark Eatery: it offers takeout (take-out). It does not take reservations. It offers "
        "free Wi-Fi (free WiFi). It has garage parking and no street parking.",
        "The attributes of Benchmark Eatery: its ambience is classy and casual, not divey.",
        "The reviews of Benchmark Eatery are rated from 1.0 to 5.0 stars: 2 of the 3 reviews are positive (4 stars "
        "or more) and 1 is negative (2 stars or fewer). The reviews of Benchmark Eatery are mixed: some reviewers "
        "praise it and others criticise it.",
        "Review 1 of Benchmark Eatery: a customer gave it 5.0 stars (a positive review). A customer wrote: Great "
        "chowder. Friendly staff.",
        "Review 2 of Benchmark Eatery: a customer gave it 1.0 stars (a negative review). A customer wrote: Bland "
        "food and slow service.",
        "Review 3 of Benchmark Eatery: a customer gave it 4.0 stars (a positive review). A customer wrote: Nice "
        "patio.",
    ]
    assert source_of(doc, "1201 State St") == '"1201 State St"'  # the address sentence: each part its value
    assert source_of(doc, "Santa Barbara") == '"Santa Barbara"'
    assert source_of(doc, "California (CA)") == '"CA"'
    assert source_of(doc, " is located at ") == '"address"'
    assert source_of(doc, "Seafood") == '"Bars, Seafood, Nightlife"'  # a list in a string: the string
    assert source_of(doc, "0:0-0:0") == '"0:0-0:0"'
    hours = json.dumps(BUSINESS["hours"], indent=2).replace("\n", "\n  ")
    assert source_of(doc, " is closed on Sunday: no hours are listed for that day") == hours  # the hours map
    assert source_of(doc, "1.0") == "1.0" and source_of(doc, "5.0") == "5.0"  # the spread: its lowest and highest stars
    reviews = raw[raw.index("[\n"):raw.rindex("]") + 1]
    assert source_of(doc, " stars: 2 of the 3 reviews") == reviews  # counts: the whole list
    i = doc.text.index("4.0 stars overall")
    assert raw[slice(*doc.to_source(i, i + 3))] == "4.0"  # the business's own stars
    assert source_of(doc, " stars overall (its average rating)") == '"business_stars"'
    assert source_of(doc, "Bland food and slow service.") == '"Bland food and slow service."'  # what a customer wrote


def test_hours_all_midnight_to_midnight_are_not_read_as_closed() -> None:
    days = {d: "0:0-0:0" for d in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")}
    doc = structured_doc("x.json", json.dumps({"name": "Q", "hours": days}), ".json")
    assert doc.text == ("Q: from Monday to Sunday it is open around the clock or has no set hours: its hours are "
                        "listed as 0:0-0:0.")


def test_lists_of_records_inside_a_record_get_their_own_facts() -> None:
    raw = json.dumps({"name": "Luigi's", "dishes": [{"name": "Margherita", "price": 9, "vegan": False},
                                                     {"name": "Carbonara", "price": 12.5, "vegan": False},
                                                     {"name": "Marinara", "price": 8, "vegan": True}]})
    doc = structured_doc("x.json", raw, ".json")
    assert doc.text.split("\n\n")[1] == ("The prices range from 8 to 12.5. Marinara is the cheapest and Carbonara "
                                         "is the most expensive. Not every dish is vegan: 1 of the 3 dishes is "
                                         "vegan. Only Marinara is vegan.")
    assert source_of(doc, "12.5", 0) == "12.5" and source_of(doc, "Marinara") == '"Marinara"'


def test_odd_records_read_plainly() -> None:
    assert structured_doc("x.json", json.dumps({"name": "X", "review_info": []}), ".json").text == \
        "X: it has no reviews."
    doc = structured_doc("x.json", json.dumps({"name": "X", "review_info": [{"review_stars": "n/a"},
                                                                             {"review_stars": None}]}), ".json")
    assert "rated from" not in doc.text  # stars that are no numbers have no spread
    flags = structured_doc("f.csv", "name,open\nA,yes\nB,yes\n", ".csv")
    assert flags.text.split("\n\n")[1] == "A: its open is yes."  # no phrase reads right: the value as it is


def test_every_piece_of_a_table_maps_to_a_cell_a_header_or_the_whole_table() -> None:
    doc = structured_doc("hotels.csv", HOTELS, ".csv")
    lines = HOTELS.splitlines(keepends=True)
    cells, pos = set(), 0
    for line in lines:  # the cells of this table (its one quoted cell is written with its quotes)
        for m in re.finditer(r'"[^"]*"|[^,\n]+', line):
            cells.add((pos + m.start(), pos + m.end()))
        pos += len(line)
    table = (HOTELS.index("Sea View"), len(HOTELS.rstrip("\n")))
    assert doc.offsets is not None
    for start, end, lo, hi in doc.offsets.segments:
        assert (lo, hi) in cells or (lo, hi) == table, (doc.text[start:end], HOTELS[lo:hi])


def test_the_readme_and_docs_show_the_csv_example_as_it_is_printed() -> None:
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-m", "faithlint", "check", "examples/hotels/overview.md"], cwd=root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and "FL400" in proc.stdout, proc.stderr  # the wrong count is caught
    for doc in ("README.md", "docs/context.md"):
        text = (root / doc).read_text(encoding="utf-8")
        assert f"$ faithlint check examples/hotels/overview.md\n{proc.stdout}```" in text, \
            f"{doc}'s CSV example is out of date; paste this output:\n" + proc.stdout
