"""Extraction: numbers, dates, times, amounts and named entities found in a text, with exact offsets."""

from __future__ import annotations

import datetime
import re
from dataclasses import replace
from decimal import Decimal
from typing import Any

from faithlint.evidence.pieces import CITATION, without_citations

from .model import Value, _Analysis, _Claims, _Item
from .normalise import (
    _at_sentence_start,
    _classify,
    _date_norm,
    _dec,
    _entity_tokens,
    _fmt,
    _last_place,
    _norm_tokens,
    _numeric_item,
    _ordinal_norm,
    _parse_words,
    _retyped,
    _time_keys,
    _valid_date,
    _word_after,
    _word_before,
    _word_follows,
    _word_type,
)
from .vocab import (
    _ACRONYM_RE,
    _CURRENCY_CODES,
    _DATE_PATTERNS,
    _DAY_PREV,
    _DAYS_COVER_RE,
    _DECADE_RE,
    _DIGITS_RE,
    _INITIALS_SKIP,
    _MONTH_ONLY_PREV,
    _MONTH_ONLY_RE,
    _MONTHS,
    _NAME_CONNECTORS,
    _NAME_TOKEN_RE,
    _NUMBER_WORDS,
    _ONE_NEXT,
    _ONE_PREV,
    _ORDINAL_ANY_RE,
    _ORDINAL_WORDS,
    _SCALES,
    _SECOND_PREV,
    _SENTENCE_OPENERS,
    _TIME_PATTERNS,
    _WEEKDAY_ABBR_RE,
    _WEEKDAY_ABBRS,
    _WEEKDAY_RANGE_GAP_RE,
    _WEEKDAY_RE,
    _WEEKDAYS,
    _WORD_RE,
    _WORD_SPAN_RE,
    ENTITY_LABELS,
)

# a list item's number: at the start of a sentence ("4. Determine the scale"), or after a sentence's end (or a
# citation's parenthesis) where an inline list runs on ("... to your iPhone. 6.", "... (Passage 2) 5.") — on
# RAGTruth's calibration answers 10 of 11 FL400 findings that nothing else flagged were such numbers
_ENUMERATOR = re.compile(r"(?:^|(?<=[.!?)])\s)\s*\(?\d{1,2}[.)](?=\s|$)")
# the number of a retrieved passage the answer cites ("(Passage 2)", "passages 1 and 3", "Document 4"): the prompt's
# numbering ("passage 2:" in RAGTruth's contexts), no value of the world; nor does a context's "passage 1:" state the
# number 1 for a draft's "one" (it had matched "how long one must keep records")
_SOURCE_NUMBER = re.compile(r"\b(?:passages?|documents?|docs?|sources?|snippets?|excerpts?|search\s+results?)\s+"
                            r"#?\d{1,2}(?:\s*(?:,|and|&|or|-|\u2013|to)\s*#?\d{1,2})*\b", re.IGNORECASE)
_NUMBERED_ABBREVIATION = re.compile(
    r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|No|Nos|Vol|Fig|pp?|ch|Ch)\.\s$")


def enumerators(text: str) -> list[tuple[int, int]]:
    """Where ``text`` numbers list items; not a number after an abbreviation that takes one ("Jan. 5.", "No. 3.")."""
    return [(m.start(), m.end()) for m in _ENUMERATOR.finditer(text)
            if not _NUMBERED_ABBREVIATION.search(text[max(0, m.start() - 6):m.start() + 1])]


# ------------------------------------------------------------------------------------------------ extraction
def _analyse(text: str, doc: Any | None) -> _Analysis:
    claims = _Claims(len(text))
    for m in CITATION.finditer(text):  # "[1]" cites a source: no value of the sentence
        claims.take(m.start(), m.end())
    for start, end in enumerators(text):  # "4." numbers a list item: no value either
        claims.take(start, end)
    sources = [(m.start(), m.end()) for m in _SOURCE_NUMBER.finditer(text)]
    for start, end in sources:  # "(Passage 2)" numbers a source
        claims.take(start, end)
    items: list[_Item] = _weekdays(text, claims)  # before NER, which takes "Fri" or "Tue" for names
    names = _regex_names(text)
    if doc is not None:
        items += _spacy_entities(text, doc, claims)
        for s, e in names:  # the small model misses many names: add capitalised sequences it did not cover
            if e - s > 0 and claims.free(s, e) and " " in text[s:e].strip():
                items.append(_entity_item(text, s, e, ""))
                claims.take(s, e)
    else:
        for s, e in names:
            if claims.free(s, e):
                items.append(_entity_item(text, s, e, ""))
                claims.take(s, e)
    items += _dates_and_times(text, claims)
    items += _digit_numbers(text, claims)
    items += _word_numbers(text, claims)
    items += _word_ordinals(text, claims)
    items = [_age(text, it) for it in items]
    items.sort(key=lambda it: (it.value.start, it.value.end))
    items = _link_ranges(text, [_mark_standalone(text, it) for it in items])
    for m in _DAYS_COVER_RE.finditer(text):  # "7 days a week" is every weekday, not a 7-day duration
        inside = [it for it in items if m.start() <= it.value.start and it.value.end <= m.end()]
        if m["all"] and inside and all(it.value.kind in ("number", "quantity") for it in inside):
            items = [it for it in items if it not in inside]
            v = Value("date", m.group(), m.start(), m.end(), "monday-sunday")
            items = sorted([*items, _Item(v, weekday=0, days=frozenset(range(7)))], key=lambda it: it.value.start)

    numbers = set()
    plain = without_citations(text)
    for start, end in sources:  # blanked, as citations are: offsets still hold
        plain = plain[:start] + " " * (end - start) + plain[end:]
    for m in _DIGITS_RE.finditer(plain):
        d = _dec(m.group("num"))
        if d is not None:
            numbers.add(d)
    years = {it.ymd[0] for it in items if it.ymd and it.ymd[0] is not None}
    acronyms = {m.group().replace(".", "").lower() for m in _ACRONYM_RE.finditer(text)}
    initials: set[str] = set()
    for it in items:
        if it.value.kind == "entity" and len(it.tokens) > 1:
            initials |= _initials(it.value.text)
    for s, e in names:
        initials |= _initials(text[s:e])
    ordinals = {Decimal(m[1]) for m in _ORDINAL_ANY_RE.finditer(text)}
    ordinals |= {Decimal(_ORDINAL_WORDS[w]) for w in re.findall(r"[a-z]+", text.lower()) if w in _ORDINAL_WORDS}
    return _Analysis(
        ordinals=frozenset(ordinals), weekdays=frozenset(_covered_weekdays(text, items)),
        text=text, items=tuple(items),
        words=tuple((m.group().lower(), m.start(), m.end()) for m in _WORD_SPAN_RE.finditer(text)),
        norm_tokens=tuple(_norm_tokens(text)), numbers=frozenset(numbers), years=frozenset(years),
        acronyms=frozenset(acronyms), initials=frozenset(initials),
    )


_OLD_RE = re.compile(r"[- ]old\b")


def _age(text: str, it: _Item) -> _Item:
    """"a 37-year-old man" states the age 37: the number, as news writes it elsewhere ("Jordan, 37, said")."""
    v = it.value
    if v.kind != "quantity" or it.unit != "year" or it.amount is None or not (m := _OLD_RE.match(text, v.end)):
        return it
    return replace(it, value=Value("number", text[v.start:m.end()], v.start, m.end(), _fmt(it.amount)), unit="")


def _initials(name: str) -> set[str]:
    """Acronyms a name could be abbreviated to, for every suffix of it ("U.S. Securities and Exchange ..." -> SEC)."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", name)]
    out = set()
    for i in range(len(words)):
        tail = words[i:]
        if len(tail) < 2 or tail[0].lower() in _INITIALS_SKIP:
            continue
        out.add("".join(w[0] for w in tail).lower())
        out.add("".join(w[0] for w in tail if w.lower() not in _INITIALS_SKIP).lower())
    return out


def _trim_entity(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop a leading 'the', a trailing possessive and surrounding punctuation from an entity span."""
    while s < e and not text[s].isalnum():
        s += 1
    m = re.match(r"the\s+", text[s:e], re.IGNORECASE)
    if m and m.end() < e - s:
        s += m.end()
    m = re.search(r"['’]s?$", text[s:e])
    if m:
        e = s + m.start()
    while e > s and not text[e - 1].isalnum() and not (text[e - 1] == "." and re.search(r"\b[A-Z]\.$", text[s:e])):
        e -= 1
    return s, e


def _entity_item(text: str, s: int, e: int, label: str) -> _Item:
    toks = _entity_tokens(text[s:e])
    return _Item(Value("entity", text[s:e], s, e, " ".join(toks), label), tokens=toks)


def _spacy_entities(text: str, doc: Any, claims: _Claims) -> list[_Item]:
    out = []
    for ent in doc.ents:
        if ent.label_ not in ENTITY_LABELS:
            continue
        s, e = _trim_entity(text, ent.start_char, ent.end_char)
        if e <= s or not any(c.isalpha() for c in text[s:e]) or not claims.free(s, e):
            continue
        if not any(c.isupper() or c.isdigit() for c in text[s:e]):
            continue  # the small pipeline tags common nouns ("café") as names now and then
        if text[s:e] in _CURRENCY_CODES:
            continue  # "20 EUR", "CHF 50": the code belongs to the amount (money, matched below), not a name
        item = _entity_item(text, s, e, ent.label_)
        if not item.tokens:
            continue
        out.append(item)
        claims.take(s, e)
    return out


def _regex_names(text: str) -> list[tuple[int, int]]:
    """Capitalised multi-word names: the fallback for NER.

    Lone capitalised words and lone acronyms are left out: without NER they are too often ordinary words,
    emphasis or markers. At a sentence start an opener word ("The", "In", "A") is dropped from the run.
    """
    spans: list[tuple[int, int]] = []
    seq: list[tuple[int, int, str]] = []  # (start, end, word) of the current run

    def flush() -> None:
        while seq and seq[-1][2].lower() in _NAME_CONNECTORS:
            seq.pop()
        run = list(seq)
        seq.clear()
        if run and _at_sentence_start(text, run[0][0]):
            if run[0][2].lower() in _SENTENCE_OPENERS or len(run[0][2].rstrip(".")) == 1:
                run = run[1:]
                while run and run[0][2].lower() in _NAME_CONNECTORS:
                    run = run[1:]
        capitals = [w for w in run if w[2][0].isupper()]
        if len(capitals) >= 2:
            spans.append(_trim_entity(text, run[0][0], run[-1][1]))

    last_end = -1
    for m in _NAME_TOKEN_RE.finditer(text):
        word, s, e = m.group(), m.start(), m.end()
        if word.endswith(".") and not re.fullmatch(r"(?:[^\W\d_]\.)+", word):
            word, e = word[:-1], e - 1
        lower = word.lower()
        is_cap = word[0].isupper() and lower.rstrip(".") not in _MONTHS and lower not in _WEEKDAYS and lower != "i"
        is_cap = is_cap and lower not in _NUMBER_WORDS and lower not in _ORDINAL_WORDS
        gap = text[last_end:s] if last_end >= 0 else ""
        joined = seq and gap in (" ", "\u00a0") and (is_cap or lower in _NAME_CONNECTORS)
        if not joined:
            flush()
            if not is_cap:
                last_end = -1
                continue
        seq.append((s, e, word))
        last_end = e
        if re.search(r"['’]s$", word):  # a possessive ends the name
            flush()
            last_end = -1
    flush()
    return spans


def _dates_and_times(text: str, claims: _Claims) -> list[_Item]:
    cands: list[tuple[int, int, _Item]] = []
    for kind, rx in _DATE_PATTERNS:
        for m in rx.finditer(text):
            options: list[tuple[int | None, int | None, int | None]] = []
            if kind == "ymd":
                options = [(int(m["y"]), int(m["m"]), int(m["d"]))]
            elif kind in ("mdy", "dmy"):
                y = int(m["y"]) if m["y"] else None
                options = [(y, _MONTHS[m["mon"].lower()], int(m["d"]))]
            elif kind == "my":
                options = [(int(m["y"]), _MONTHS[m["mon"].lower()], None)]
            elif kind == "num":
                y = int(m["y"])
                y = y if y >= 100 else (2000 + y if y < 50 else 1900 + y)
                a, b = int(m["a"]), int(m["b"])
                options = [(y, a, b), (y, b, a)]
            elif kind == "dot":
                options = [(int(m["y"]), int(m["m"]), int(m["d"]))]
            options = [o for o in options if _valid_date(*o)]
            if not options:
                continue
            y, mo, d = options[0]
            s, e = m.start(), m.end()
            cands.append((s, e, _Item(Value("date", text[s:e], s, e, _date_norm(y, mo, d)), ymd=(y, mo, d),
                                      alt_ymd=tuple(options[1:]))))
    for m in _MONTH_ONLY_RE.finditer(text):
        prev = _word_before(text, m.start())
        if prev in _MONTH_ONLY_PREV:
            mo = _MONTHS[m["mon"].lower()]
            value = Value("date", m.group(), m.start(), m.end(), _date_norm(None, mo, None))
            cands.append((m.start(), m.end(), _Item(value, ymd=(None, mo, None))))
    for m in _DECADE_RE.finditer(text):
        dd = int(m["dd"])
        dec = 1900 + dd * 10 if dd >= 3 else 2000 + dd * 10
        cands.append((m.start(), m.end(), _Item(Value("date", m.group(), m.start(), m.end(), f"{dec}s"),
                                                decade=dec)))
    for i, rx in enumerate(_TIME_PATTERNS):
        for m in rx.finditer(text):
            keys = _time_keys(m, i)
            if not keys:
                continue
            cands.append((m.start(), m.end(), _Item(Value("time", m.group(), m.start(), m.end(), min(keys)),
                                                    times=frozenset(keys))))
    cands.sort(key=lambda c: (-(c[1] - c[0]), c[0]))  # longest first, then leftmost
    out: list[_Item] = []
    for s, e, item in cands:
        if claims.free(s, e):
            claims.take(s, e)
            out.append(item)
    return out



def _digit_numbers(text: str, claims: _Claims) -> list[_Item]:
    out = []
    for m in _DIGITS_RE.finditer(text):
        s, e = m.start(), m.end()
        num = m.group("num")
        nxt = text[e:e + 2]
        if len(nxt) == 2 and nxt[0] in ".,/:" and nxt[1].isdigit():
            continue  # version numbers, IP addresses, ratios, fractions
        if text[s - 1:s] == "/" or (s > 0 and text[s - 1].isdigit()):
            continue
        if re.fullmatch(r"\d\d", num) and re.search(r"(?<!\d)\d{4}[-–]$", text[max(0, s - 6):s]):
            continue  # the tail of a year range (2020-21)
        amount = _dec(num)
        if amount is None:
            continue
        if m.group("sign"):
            amount = -amount
        decimals = len(num.split(".")[1]) if "." in num else 0
        quantum = Decimal(1).scaleb(-decimals)
        plain4 = bool(re.fullmatch(r"\d{4}", num)) and not m.group("sign")
        item = _claim_numeric(text, claims, _classify(text, s, e, amount, quantum, True, plain4))
        if item is not None:
            out.append(item)
    return out


def _claim_numeric(text: str, claims: _Claims, res: tuple | None) -> _Item | None:
    """The item for a classified number, claiming its span, unless unclassified or the span is taken."""
    if res is None:
        return None
    kind, s, e, amount, quantum, unit, extra = res
    if not claims.free(s, e):
        return None
    claims.take(s, e)
    return _numeric_item(text, kind, s, e, amount, quantum, unit, extra)


def _word_numbers(text: str, claims: _Claims) -> list[_Item]:
    """Spelled-out numbers ("three", "twenty-five thousand", "a dozen") parsed to amounts."""
    words = [(m.group(), m.start(), m.end()) for m in _WORD_RE.finditer(text)]
    out = []
    i = 0
    while i < len(words):
        w, s, _ = words[i]
        lw = w.lower()
        a_prefix = (lw in ("a", "an") and i + 1 < len(words) and text[words[i][2]:words[i + 1][1]] == " "
                    and words[i + 1][0].lower() in ("hundred", "dozen", *_SCALES))
        if lw not in _NUMBER_WORDS and not a_prefix:
            i += 1
            continue
        if lw in ("hundred", "dozen", *_SCALES) and not a_prefix:
            i += 1
            continue
        seq = [words[i]]
        j = i + 1
        prev_type = "a" if a_prefix else _word_type(lw)
        assert prev_type is not None  # every number word has a type
        while j < len(words):
            gap = text[seq[-1][2]:words[j][1]]
            wj = words[j][0].lower()
            if gap not in (" ", "-"):
                break
            if wj == "and" and prev_type in ("hundred", "scale") and j + 1 < len(words) \
                    and text[words[j][2]:words[j + 1][1]] == " " and _word_type(words[j + 1][0].lower()) in (
                        "unit", "teen", "tens"):
                seq.append(words[j])
                j += 1
                continue
            t = _word_type(wj)
            if t is None or not _word_follows(prev_type, t):
                break
            seq.append(words[j])
            prev_type = t
            j += 1
        s, e = seq[0][1], seq[-1][2]
        i = j
        if not claims.free(s, e):
            continue
        toks = [x[0].lower() for x in seq]
        if toks == ["one"] and _generic_one(text, s, e):
            continue
        amount = Decimal(_parse_words(toks))
        res = _classify(text, s, e, amount, _last_place(amount) if len(toks) > 1 else Decimal(1), False, False)
        item = _claim_numeric(text, claims, res)
        if item is None:
            continue
        assert res is not None  # an item comes from a classified number
        if res[0] == "number" and len(toks) == 1 and res[3] <= 10:  # kind, amount as classified
            item = replace(item, count=True)
        out.append(item)
    return out


def _generic_one(text: str, s: int, e: int) -> bool:
    """'one of the', 'no one', 'one another', "one's", 'a new one.': a pronoun, not a count."""
    if re.match(r"['’]s\b", text[e:e + 2]) or text[e:e + 1] == "-":
        return True
    if re.match(r"\s*(?:[.,;:!?)]|$)", text[e:]):  # "a new one." / "the red one,"
        before = re.findall(r"[A-Za-z]+", text[max(0, s - 40):s])[-3:]
        if any(w.lower() in ("a", "an", "the", "this", "that", "which", "another", "each", "every") for w in before):
            return True
    return _word_before(text, s) in _ONE_PREV or _word_after(text, e) in _ONE_NEXT


def _word_ordinals(text: str, claims: _Claims) -> list[_Item]:
    out = []
    for m in re.finditer(r"\b(?P<w>[A-Za-z]+)\b", text):
        lw = m["w"].lower()
        if lw not in _ORDINAL_WORDS or not claims.free(m.start(), m.end()):
            continue
        if lw == "second" and _word_before(text, m.start()) in _SECOND_PREV:
            continue
        n = _ORDINAL_WORDS[lw]
        claims.take(m.start(), m.end())
        out.append(_Item(Value("ordinal", m.group(), m.start(), m.end(), _ordinal_norm(n)), amount=Decimal(n),
                         generic=lw == "first"))
    return out




# ---------------------------------------------------------------------------------------------- weekdays
def _weekdays(text: str, claims: _Claims) -> list[_Item]:
    """Weekdays, abbreviated ones where a day fits, and ranges of them ("Mon-Fri", "Monday to Friday")."""
    found: list[tuple[int, int, int]] = []  # (start, end, day)
    for m in _WEEKDAY_RE.finditer(text):
        found.append((m.start(), m.end(), _WEEKDAYS[m["w"].lower()]))
    for m in _WEEKDAY_ABBR_RE.finditer(text):
        if m["w"][0].isupper() and _day_fits(text, m.start(), m.end("w")):
            found.append((m.start(), m.end(), _WEEKDAY_ABBRS[m["w"].lower()]))
    found.sort()
    out: list[_Item] = []
    i = 0
    while i < len(found):
        s, e, day = found[i]
        days = [day]
        if i + 1 < len(found) and _WEEKDAY_RANGE_GAP_RE.fullmatch(text[e:found[i + 1][0]]):
            last = found[i + 1][2]
            e = found[i + 1][1]
            days = [(day + k) % 7 for k in range((last - day) % 7 + 1)]
            i += 1
        i += 1
        if not claims.free(s, e):
            continue
        claims.take(s, e)
        norm = f"{_DAY_NAMES[days[0]]}-{_DAY_NAMES[days[-1]]}" if len(days) > 1 else _DAY_NAMES[day]
        out.append(_Item(Value("date", text[s:e], s, e, norm), weekday=days[0], days=frozenset(days)))
    return out


_DAY_NAMES = {v: k for k, v in _WEEKDAYS.items()}
_DAY_NEXT_RE = re.compile(r"\.?\s*(?:[,:;\-–—/|)\]&]|\d)|\s*(?:\n|$)")


def _day_fits(text: str, s: int, e: int) -> bool:
    """"on Tue", "Tue 11:00", "Mon-Fri", "Sat, 4 May": a day; "The Sun reported", "Mon Valley": not."""
    if _word_before(text, s) in _DAY_PREV and not re.search(r"[.!?]\s*$", text[max(0, s - 3):s]):
        return True
    return bool(_DAY_NEXT_RE.match(text, e)) or bool(re.match(r"\.?\s+(?:and|or)\s+(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)",
                                                             text[e:e + 12]))


def _covered_weekdays(text: str, items: list[_Item]) -> set[int]:
    """Every weekday ``text`` speaks of: named or in a range, "daily"/"weekdays"/"weekends", or a full date's day."""
    days: set[int] = set()
    for it in items:
        days |= it.days
        for y, mo, d in ([it.ymd, *it.alt_ymd] if it.ymd else []):
            if y and mo and d:
                days.add(datetime.date(y, mo, d).weekday())
    for m in _DAYS_COVER_RE.finditer(text):
        days |= set(range(7)) if m["all"] else set(range(5)) if m["wk"] else {5, 6}
    return days


# ------------------------------------------------------------------------------------------ record values
_STANDALONE_BEFORE_RE = re.compile(r"(?:^|[:=|\[({,\n])[ \t\"'“]*$")
_STANDALONE_AFTER_RE = re.compile(r"[ \t\"'”]*(?:$|[\n,;|\])}]|\.(?:\s|$))")


def _mark_standalone(text: str, it: _Item) -> _Item:
    """A bare number that is a record's value ("rating: 4.5", "| 12 |", "a,12,b"): its unit is in the key."""
    if it.value.kind != "number" or not _STANDALONE_AFTER_RE.match(text, it.value.end):
        return it
    if not _STANDALONE_BEFORE_RE.search(text[max(0, it.value.start - 8):it.value.start]):
        return it
    return replace(it, standalone=True)


# -------------------------------------------------------------------------------------------------- ranges
_RANGE_GAP_RE = re.compile(r"\s*(-|–|—|to|and|or)\s*", re.IGNORECASE)
_NUMERIC = ("number", "money", "percent", "quantity")


def _link_ranges(text: str, items: list[_Item]) -> list[_Item]:
    """Share unit, currency and magnitude across a range: "10-12 km" is 10 km to 12 km, "$2-3 million" is
    $2 million to $3 million, "10 to 12%" is 10% to 12%."""
    out = list(items)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.value.kind not in _NUMERIC or b.value.kind not in _NUMERIC or a.amount is None or b.amount is None:
            continue
        gap = _RANGE_GAP_RE.fullmatch(text[a.value.end:b.value.start])
        if not gap or (gap[1].lower() == "and" and _word_before(text, a.value.start) != "between"):
            continue  # "17 points and 10 rebounds" is no range; "between 10 and 12 km" is
        kind_a, unit_a, kind_b, unit_b = a.value.kind, a.unit, b.value.kind, b.unit
        if kind_a == "number" and kind_b != "number":
            kind_a, unit_a = kind_b, unit_b
        elif kind_b == "number" and kind_a != "number":
            kind_b, unit_b = kind_a, unit_a
        scale_a, scale_b = a.scale, b.scale
        if scale_a == 1 and scale_b > 1 and a.amount * scale_b <= b.amount:
            scale_a = scale_b
        elif scale_b == 1 and scale_a > 1 and b.amount * scale_a >= a.amount:
            scale_b = scale_a
        if (kind_a, unit_a, scale_a) != (a.value.kind, a.unit, a.scale):
            out[i] = _retyped(a, kind_a, unit_a, scale_a)
        if (kind_b, unit_b, scale_b) != (b.value.kind, b.unit, b.scale):
            out[i + 1] = _retyped(b, kind_b, unit_b, scale_b)
    return out
