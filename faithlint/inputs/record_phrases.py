"""How values of exported records read in English: keys as words, weekday names, opening hours, yes/no
attributes and US state codes (:mod:`faithlint.inputs.structured` writes records with them)."""

from __future__ import annotations

import re


def key_words(key: str) -> str:
    """``priceRange``/``price_range``/``price-range`` -> "price range" (acronyms kept)."""
    key = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key)
    parts = [p for p in re.split(r"[\s_.\-]+", key) if p]
    joined = " ".join(p if p.isupper() and len(p) > 1 else p.lower() for p in parts) or "value"
    return re.sub(r"\bwi fi\b", "Wi-Fi", joined)


def singular(words: str) -> str:
    if words.endswith("ies") and len(words) > 4:
        return words[:-3] + "y"
    if words.endswith(("sses", "shes", "ches", "xes")):
        return words[:-2]
    if words.endswith("s") and not words.endswith("ss") and len(words) > 3:
        return words[:-1]
    return words


def is_prose(text: str) -> bool:
    return bool(re.search(r"[.!?]\s", text)) or len(text.split()) > 12


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAY = {**{d.lower(): d for d in WEEKDAYS}, **{d[:3].lower(): d for d in WEEKDAYS},
            "tues": "Tuesday", "weds": "Wednesday", "thur": "Thursday", "thurs": "Thursday"}
HOUR_KEYS = ("hour", "open", "schedule", "time")
_TIME = r"(\d{1,2})(?::(\d{1,2}))?\s*([ap]\.?m\.?)?"
_TIME_RANGE = re.compile(rf"\s*{_TIME}\s*(?:-|\u2013|\u2014|to)\s*{_TIME}\s*", re.IGNORECASE)
US_STATES: dict[str, str] = dict(zip(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK "
    "OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR".split(),
    ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
     "District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
     "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi",
     "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
     "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
     "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
     "West Virginia", "Wisconsin", "Wyoming", "Puerto Rico"], strict=True))
# first words of yes/no attribute names that are verbs ("accepts credit cards"), with their base form
_BOOL_VERBS = {"accepts": "accept", "allows": "allow", "offers": "offer", "takes": "take", "serves": "serve",
               "provides": "provide", "requires": "require", "caters": "cater", "has": "have", "supports": "support"}
_BOOL_NOUN_ENDINGS = ("ing", "ion", "ions", "ery", "out", "tv", "wifi", "wi-fi", "s")


def clock(hour: str, minute: str | None, meridiem: str | None) -> str:
    """A time of day as English prose writes it: "22:0" -> "10 PM", "7:30" -> "7:30 AM", "0:0" -> "12 AM"."""
    h, m = int(hour), int(minute or 0)
    if meridiem:
        half = meridiem.replace(".", "").upper()
    else:
        half = "AM" if h % 24 < 12 else "PM"
        h = h % 12 or 12
    return f"{h}:{m:02d} {half}" if m else f"{h} {half}"


def clock24(hour: str, minute: str | None, meridiem: str | None) -> str:
    """The same time on a 24-hour clock: "22:0" -> "22:00", "9", "pm" -> "21:00", "0:0" -> "0:00"."""
    h, m = int(hour), int(minute or 0)
    if meridiem:
        h = h % 12 + (12 if meridiem.lower().startswith("p") else 0)
    return f"{h % 24}:{m:02d}"


def time_range(text: str, both_clocks: bool = False) -> str | None:
    """``"11:0-22:0"``/``"9am - 5pm"`` -> ``"from 11 AM to 10 PM"``/``"from 9 AM to 5 PM"``; else None.

    ``both_clocks`` adds the 24-hour times ("from 4:45 PM to 8 PM (16:45-20:00)"): overviews write either, and the
    checker and the grounding stage's number check read the digits as written (RAGTruth's faithful overviews that
    wrote "16:45 to 20:00" or "11:00 AM" were flagged for numbers absent from "4:45 PM", "11 AM")."""
    m = _TIME_RANGE.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)) or not (m.group(5) or m.group(6)):
        return None  # "3-5" is a count range, not hours
    span = f"from {clock(*m.group(1, 2, 3))} to {clock(*m.group(4, 5, 6))}"
    return f"{span} ({clock24(*m.group(1, 2, 3))}-{clock24(*m.group(4, 5, 6))})" if both_clocks else span


def attribute_words(key: str) -> str:
    """An attribute name as words without export prefixes and suffixes ("RestaurantsPriceRange2" -> "price range",
    "review_info" -> "review")."""
    words = re.sub(r"(?<=[a-z])\d+$", "", key_words(key)).strip()
    parts = words.split(" ")
    if len(parts) > 1 and parts[0].lower() in ("restaurants", "business"):
        words = " ".join(parts[1:])
    if len(parts) > 1 and parts[-1].lower() in ("info", "data", "list", "details", "items", "entries"):
        words = words.rsplit(" ", 1)[0]
    return words or key_words(key)


def plural_noun(words: str) -> str:
    """A noun's plural ("review" -> "reviews", "category" -> "categories"; a plural stays as it is)."""
    if plural(words) or words.endswith("s"):
        return words
    if words.endswith("y") and words[-2:-1] not in "aeiou":
        return words[:-1] + "ies"
    return words + ("es" if words.endswith(("x", "ch", "sh")) else "s")


# Yelp-style attributes as overviews state them: attribute words -> (when true, when false)
_BOOL_PHRASES = {
    "take out": ("offers takeout (take-out)", "does not offer takeout (take-out)"),
    "takeout": ("offers takeout (take-out)", "does not offer takeout (take-out)"),
    "reservations": ("takes reservations", "does not take reservations"),
    "delivery": ("offers delivery", "does not offer delivery"),
    "caters": ("offers catering", "does not offer catering"),
    "music": ("has music", "does not have music"),
    "table service": ("has table service", "does not have table service"),
    "happy hour": ("has a happy hour", "does not have a happy hour"),
    "drive thru": ("has a drive-thru", "does not have a drive-thru"),
    "has TV": ("has a TV", "does not have a TV"),
}
# how overviews write a yes/no attribute (its words as attribute_words gives them, lower case), for FL410
_FLAG_ALIASES = {
    "wi-fi": ("wi-fi", "wifi", "wi fi", "wireless internet"),
    "wifi": ("wi-fi", "wifi", "wi fi", "wireless internet"),
    "take out": ("takeout", "take-out", "take out"),
    "takeout": ("takeout", "take-out", "take out"),
    "reservations": ("reservations", "reservation"),
    "outdoor seating": ("outdoor seating", "outdoor dining", "outside seating", "patio seating"),
    "delivery": ("delivery", "delivers"),
    "caters": ("catering", "caters"),
    "good for groups": ("good for groups", "groups", "large parties"),
    "good for kids": ("good for kids", "kid-friendly", "kids", "children"),
    "has tv": ("tvs", "tv", "television"),
    "dogs allowed": ("dogs", "dog-friendly"),
    "wheelchair accessible": ("wheelchair",),
    "bike parking": ("bike parking", "bike racks", "bike rack", "bicycle parking"),
    "drive thru": ("drive-thru", "drive thru", "drive-through"),
    "accepts credit cards": ("credit cards", "credit card"),
}
# ambience words too loose to hold a draft to: "casual" reads as "casual dining" of any place (on RAGTruth's
# training and calibration overviews, 8 of 12 FL410 findings on "casual" were faithful sentences)
_LOOSE_AMBIENCE = ("casual",)


def flag_aliases(words: str, kind: str) -> tuple[str, ...]:
    """How drafts write a yes/no attribute: ``kind`` "parking" for a key of a parking map ("garage" ->
    "garage parking", "parking garage", "garage"), "ambience" for one of an ambience map ("divey" -> "divey",
    "dive"; () for words too loose to judge by), "flag" for any other ("RestaurantsTakeOut" -> "takeout",
    "take-out", "take out")."""
    low = words.lower()
    if kind == "parking":
        return (f"{low} parking", f"parking {low}", low)
    if kind == "ambience":
        return () if low in _LOOSE_AMBIENCE else (low, "dive") if low == "divey" else (low,)
    if low in _FLAG_ALIASES:
        return _FLAG_ALIASES[low]
    forms = {low, low.replace("-", " "), low.replace(" ", "-")}
    return tuple(sorted(forms, key=len, reverse=True))


# first words of a yes/no name that make it no noun ("open late": "Its open late: no")
_NOT_NOUNS = ("open", "closed", "late", "early", "available", "new", "used", "in", "on", "out", "at", "for")
# attribute words that read as an adjective of the subject ("vegan" -> "It is vegan")
_ADJECTIVE_ENDINGS = ("an", "ic", "al", "ous", "ful", "able", "ible", "ive", "free", "ed", "ly", "ary", "ish", "icy",
                     "thy", "ky")


def bool_phrase(key: str, value: bool) -> tuple[str, str]:
    """(lead, rest) of a sentence stating a yes/no attribute: ("It", " accepts credit cards"), ("Dogs", " are
    not allowed"); lead "" when the name reads as no phrase (the caller writes "Its <words>: yes")."""
    words = attribute_words(key)
    low = words.lower()
    if low in _BOOL_PHRASES or words in _BOOL_PHRASES:
        return "It", " " + _BOOL_PHRASES.get(words, _BOOL_PHRASES.get(low, ("", "")))[0 if value else 1]
    first, _, rest = words.partition(" ")  # words keep acronyms ("TV", "Wi-Fi"); ``low`` is for matching
    if first.lower() in _BOOL_VERBS and rest:
        return "It", f" {words}" if value else f" does not {_BOOL_VERBS[first.lower()]} {rest}"
    if low.endswith(" allowed") and " " in low:
        return words[: -len(" allowed")].capitalize(), " are allowed" if value else " are not allowed"
    if low.startswith(("good for ", "by ")) or low.endswith(("accessible", "friendly", " only")):
        return "It", f" is {words}" if value else f" is not {words}"
    if " " not in low and low.endswith(_ADJECTIVE_ENDINGS):
        return "It", f" is {words}" if value else f" is not {words}"
    if low.endswith(_BOOL_NOUN_ENDINGS) or re.fullmatch(r"[a-z][a-z -]*", low) and \
            first.lower() not in _NOT_NOUNS:  # a yes/no column ("pool", "wifi"): has / has not
        return "It", f" has {words}" if value else f" does not have {words}"
    return "", ""


def weekday(text: str) -> str | None:
    """The weekday a key or value names ("Tue", "tues.", "Monday" -> its name), else None."""
    return WEEKDAY.get(text.strip().lower().rstrip("."))


def day_name(text: str) -> str:
    """A weekday's abbreviation as its name ("Tue" -> "Tuesday"); any other text as it is."""
    return (weekday(text) if len(text) <= 6 else None) or text


def plural(words: str) -> bool:
    """Whether a key's words read as a plural noun ("categories", "popular dishes"; not "address", "status")."""
    last = words.rsplit(" ", 1)[-1].lower()
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is", "ics"))


def counted(words: str, value: object) -> str | None:
    """The noun a count key counts, in number with its value ("review count", 58 -> "reviews"), or None."""
    if not isinstance(value, int) or isinstance(value, bool) or not words.lower().endswith(" count"):
        return None
    noun = words[:-6].strip()
    if not noun or value == 1:
        return noun or None
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


# units and currencies that column headers name ("price_usd", "Weight (kg)"): token -> (words, money symbol)
UNITS = {
    "usd": ("US dollars", "$"), "$": ("US dollars", "$"), "dollars": ("US dollars", "$"),
    "eur": ("euros", "\u20ac"), "\u20ac": ("euros", "\u20ac"), "euros": ("euros", "\u20ac"),
    "gbp": ("pounds sterling", "\u00a3"), "\u00a3": ("pounds sterling", "\u00a3"),
    "jpy": ("yen", "\u00a5"), "cad": ("Canadian dollars", "CA$"), "aud": ("Australian dollars", "A$"),
    "chf": ("Swiss francs", "CHF "), "inr": ("rupees", "\u20b9"),
    "kg": ("kilograms", ""), "lb": ("pounds", ""), "lbs": ("pounds", ""), "km": ("kilometres", ""),
    "mi": ("miles", ""), "miles": ("miles", ""), "cm": ("centimetres", ""), "mm": ("millimetres", ""),
    "min": ("minutes", ""), "mins": ("minutes", ""), "minutes": ("minutes", ""), "hrs": ("hours", ""),
    "hours": ("hours", ""), "sec": ("seconds", ""), "pct": ("percent", ""), "percent": ("percent", ""),
    "%": ("percent", ""), "gb": ("GB", ""), "mb": ("MB", ""), "tb": ("TB", ""), "sqft": ("square feet", ""),
    "m2": ("square metres", ""), "sqm": ("square metres", ""), "kwh": ("kWh", ""), "mph": ("miles per hour", ""),
}
_UNIT_IN_BRACKETS = re.compile(r"(.*?)\s*[(\[]\s*([^)\]]+?)\s*[)\]]\s*$")
_NUMBER_TEXT = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d+(?:\.\d+)?")


def header_unit(key: str) -> tuple[str, str, str]:
    """(words, unit words, money symbol) of a column header that names its unit: "price_usd" -> ("price",
    "US dollars", "$"), "Weight (kg)" -> ("weight", "kilograms", ""); ("<words>", "", "") when it names none."""
    m = _UNIT_IN_BRACKETS.fullmatch(key)
    if m is not None and m.group(2).lower() in UNITS:
        return attribute_words(m.group(1)), *UNITS[m.group(2).lower()]
    words = attribute_words(key)
    head, _, last = words.rpartition(" ")
    if head and last.lower() in UNITS:
        return head, *UNITS[last.lower()]
    return words, "", ""


def number_value(value: object) -> float | None:
    """A number, or a string that is one ("1,200", "12.50"), as a float; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


# the parts of a postal address, in the order an address is written: a record's are one sentence
ADDRESS_KEYS = (("address", "street", "street_address", "address1", "address_line_1"), ("city", "town"),
                ("state", "state_code", "province", "region"),
                ("postal_code", "zip", "zip_code", "zipcode", "postcode"), ("country",))
# keys whose comma-separated string is a list ("categories": "Bars, Nightlife")
LIST_KEYS = ("categories", "category", "tags", "cuisines", "cuisine", "types", "amenities", "features", "labels")
NAME_KEYS = ("name", "title", "full_name", "fullname", "display_name", "label", "id")
# keys that read as a verb phrase about the subject ("opens": "11:00" -> "It opens at 11:00.")
VERB_KEYS = {
    "opens": "opens at", "opens_at": "opens at", "opening_time": "opens at",
    "closes": "closes at", "closes_at": "closes at", "closing_time": "closes at",
    "starts": "starts at", "starts_at": "starts at", "ends": "ends at", "ends_at": "ends at",
    "founded": "was founded in", "founded_in": "was founded in", "established": "was established in",
    "born": "was born in", "located_in": "is located in", "based_in": "is based in",
    "serves": "serves", "offers": "offers", "sells": "sells", "employs": "employs", "makes": "makes",
}
