"""Structured context (JSON, YAML, CSV) written out as plain English sentences, with offsets back to the file.

NLI checkers read prose: ``{"name": "Luigi's", "rating": 4.5, "opens": "11:00", "days": ["Tue", "Wed"]}``
becomes "Luigi's: its rating is 4.5. It opens at 11:00. Its days are Tue and Wed." A record's
``name``/``title``/``id`` field is its subject (else the key path); nested objects become sentences about
the nested entity; every record of a list gets its own paragraph (blank-line separated, so no sentence
crosses records); scalar lists are joined with commas and "and". Each piece of the text records the
character range of the JSON value (YAML node, CSV cell) it was written from, in a
:class:`~faithlint.types.SourceMap`, so evidence shown to users points into the real file.

Exported records (business listings, product feeds, CSV tables) hold values in forms an NLI checker cannot
read; a few are written as people write them: weekday-keyed hours ("Tue": "11:0-22:0" -> "On Tuesday it is open
from 11 AM to 10 PM.", "0:0-0:0" beside other hours and days left out as closed days), yes/no attributes and
columns ("It does not take reservations.", "It has pool."), Python literals inside strings ("u'free'",
"{'lot': True}"), an address as one sentence, US state codes ("Maine (ME)"), star ratings and counts ("It has 58
reviews."), headers that name a unit or currency ("price_usd": 12 -> "Its price is 12 US dollars ($12).").
Facts about a list or table as a whole (counts, ranges, "every"/"not every"/"only", the spread of review stars)
come from :mod:`faithlint.inputs.record_summary`; parsing is :mod:`faithlint.inputs.structured_parse`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from faithlint.inputs.record_phrases import (
    ADDRESS_KEYS,
    HOUR_KEYS,
    LIST_KEYS,
    NAME_KEYS,
    US_STATES,
    VERB_KEYS,
    WEEKDAYS,
    attribute_words,
    bool_phrase,
    counted,
    day_name,
    flag_aliases,
    header_unit,
    is_prose,
    key_words,
    number_value,
    plural,
    plural_noun,
    singular,
    time_range,
    weekday,
)
from faithlint.inputs.record_summary import Labelled, number_word, review_spread, table_facts
from faithlint.inputs.structured_parse import Node, Src, parse_structured, python_literal
from faithlint.types import ContextDoc, RecordFlag, SourceMap

STRUCTURED_EXTENSIONS: tuple[str, ...] = (".json", ".yaml", ".yml", ".csv", ".tsv")
# a record's paragraph grows to about one evidence piece (evidence.PIECE_TOKENS, ~4 characters a token), then
# goes on in a new paragraph that names its subject again: a piece ranked alone still says whom it is about
PARAGRAPH_CHARS = 180


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.segs: list[tuple[int, int, int, int]] = []
        self.paragraph_break = False  # a blank line goes before the next text (never at the start)
        self.paragraph_start = 0

    def put(self, text: str, src: Src | None = None) -> None:
        if not text:
            return
        if self.paragraph_break:
            self.paragraph_break = False
            if self.pos:
                self.parts.append("\n\n")
                self.pos += 2
            self.paragraph_start = self.pos
        if src is not None:
            last = self.segs[-1] if self.segs else None
            if last is not None and last[1] == self.pos and (last[2], last[3]) == src:
                self.segs[-1] = (last[0], self.pos + len(text), *src)
            else:
                self.segs.append((self.pos, self.pos + len(text), *src))
        self.parts.append(text)
        self.pos += len(text)

    def text(self) -> str:
        return "".join(self.parts)


Pieces = list[tuple[str, "Src | None"]]


@dataclass
class _Subject:
    text: str  # "Luigi's", "The address of Luigi's", or "" (no subject: "The rating is ...")
    src: Src | None


# maps whose yes/no keys are the record's own properties ("attributes": {"OutdoorSeating": false}), for FL410
OWN_FLAG_MAPS = ("attributes", "amenities", "features", "facilities", "services")


class Verbaliser:
    """Writes a :class:`Node` tree as paragraphs of sentences into a text with a source map."""

    def __init__(self, source: str = "") -> None:
        self.w = _Writer()
        self.source = source  # the file's name: "hotels.csv" says what a row is
        self.first_column = ""  # a CSV table's first header: its cell names a row that has no name column
        self.review = False  # writing one review of a list of reviews
        self.flags: list[tuple[str, RecordFlag]] = []  # the yes/no attributes written, by subject, for FL410
        self.free_text: list[str] = []  # free-text values (reviews, descriptions): what the record does not state

    def run(self, root: Node) -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
        self._top(root)
        return self.w.text(), tuple(self.w.segs)

    def _flag(self, subject: _Subject, words: str, kind: str, value: bool, start: int, src: Src) -> None:
        """Remember a yes/no attribute of ``subject`` whose sentence was just written from ``start`` (a review's
        are the customer's, not the record's)."""
        aliases = flag_aliases(words, kind)
        if aliases and not self.review:
            shown = f"{words.lower()} parking" if kind == "parking" else words
            self.flags.append((subject.text, RecordFlag(shown, aliases, value, kind, (start, self.w.pos), src)))

    def record_flags(self) -> tuple[RecordFlag, ...]:
        """The yes/no attributes, where the context is one record: a draft's sentence names no row of a table,
        so one row's flags cannot judge it."""
        return tuple(f for _, f in self.flags) if len({s for s, _ in self.flags}) == 1 else ()

    def _new_paragraph(self) -> None:
        self.w.paragraph_break = True

    def _top(self, node: Node, noun: str = "item") -> None:
        if node.kind == "list" and isinstance(node.value, str):
            noun, self.first_column = node.value, node.text  # "row" and the first header for CSV
            if noun == "row":
                noun = _row_noun(node.text, self.source)
        if node.kind == "map":
            self._record(node, None, noun, 0)
        elif node.kind == "list":
            records = [item for item in node.items if item.kind == "map"]
            if records and noun != "document":  # YAML's documents are no table
                n = len(records)
                count = "The list has" if noun != "row" and self.first_column == "" else "The table has" if \
                    noun == "row" else f"The table has {n} rows, one per {noun}: there are {number_word(n)}"
                self._summary(records, None, noun, node.src, count)
            for i, item in enumerate(node.items):
                self._top(item, noun) if item.kind != "map" else self._record(item, None, noun, i + 1)
        elif node.value is not None and node.text:
            self._new_paragraph()
            self.w.put(node.text, node.src)

    @staticmethod
    def _name(node: Node, first_column: str = "") -> tuple[str, Node] | None:
        """The key and value that name a record: ``name``, ``title``, ``id``..., or a CSV row's first cell (text)."""
        by_key = {k.lower(): (k, child) for k, _, child in node.items}
        named = [k for k in by_key if k.endswith(("_name", " name")) and k not in NAME_KEYS]  # "shop_name"
        for key in (*NAME_KEYS[:-1], *named, NAME_KEYS[-1]):  # an "id" names a record only when nothing else does
            hit = by_key.get(key)
            if hit and hit[1].kind == "scalar" and hit[1].text:
                return hit[0], hit[1]
        first = node.items[0] if node.items else None
        if first is not None and first_column and first[0] == first_column and \
                number_value(first[2].value) is None and first[2].text:
            return first[0], first[2]
        return None

    def _summary(self, records: list[Node], owner: _Subject | None, noun: str, src: Src, count: str) -> None:
        """A paragraph of facts about ``records`` as a whole (:mod:`faithlint.inputs.record_summary`)."""
        labelled, skip = [], set()
        for i, r in enumerate(records):
            named = self._name(r, self.first_column)
            if named is not None:
                skip.add(named[0])
                labelled.append(Labelled(r, named[1].text, named[1].src))
            else:
                labelled.append(Labelled(r, f"{singular(key_words(noun)).capitalize()} {i + 1}", r.src))
        words = plural_noun(singular(attribute_words(noun)))
        if singular(words).lower().endswith("review"):
            facts = review_spread(labelled, words, owner.text if owner else "", src)
        else:
            facts = table_facts(labelled, attribute_words(noun), src, skip, count)
        if facts:
            self._new_paragraph()
        for pieces in facts:
            self._sentence(_Subject("", None), [False], pieces, "", src, "")

    def _subject(self, node: Node, parent: _Subject | None, noun: str, index: int) -> tuple[_Subject, str | None]:
        named = self._name(node, self.first_column)
        if named is not None:
            key, child = named
            text = child.text
            if isinstance(child.value, (int, float)) and not isinstance(child.value, bool):
                text = f"{singular(noun).capitalize()} {child.text}"
            return _Subject(text, child.src), key
        if index:
            base = f"{singular(attribute_words(noun)).capitalize()} {index}"
            return _Subject(f"{base} of {parent.text}" if parent and parent.text else base, node.src), None
        return _Subject("", None), None

    def _record(self, node: Node, parent: _Subject | None, noun: str, index: int) -> None:
        """One paragraph for a record; its lists of records follow as paragraphs of their own."""
        self._new_paragraph()
        subject, skip = self._subject(node, parent, noun, index)
        deferred: list[tuple[Node, _Subject, str, int]] = []
        before = self.w.pos
        self._members(node, subject, skip, [True], deferred)
        if self.w.pos == before and skip is not None:  # a record with nothing but its name
            self.w.put(subject.text + ".", subject.src)
        if index and parent is not None and parent.text and skip is not None:
            self.w.put(" ")
            self.w.put(f"It is one of the {key_words(noun)} of {parent.text}.", parent.src)
        for child, subj, child_noun, i in deferred:
            if child.kind == "list":  # facts about a list of records, before its records
                self._summary([x for x in _flat(child) if x.kind == "map"], subj, child_noun, child.src, "")
                continue
            self.review = singular(attribute_words(child_noun)).lower().endswith("review")
            self._record(child, subj, child_noun, i)
            self.review = False

    def _members(self, node: Node, subject: _Subject, skip: str | None, first: list[bool],
                 deferred: list[tuple[Node, _Subject, str, int]]) -> None:
        # after the record's own sentences, each in a paragraph of its own: (map, subject, its name key, and for
        # weekday-keyed maps the key and its range)
        nested: list[tuple[Node, _Subject, str | None, tuple[str, Src] | None]] = []
        named = subject.text and not subject.text.startswith("The ")  # not "The address of Luigi's"
        located = self._location(node, subject, first) if named else set()
        for key, key_src, child in node.items:
            if key == skip or key in located:
                continue
            words = attribute_words(key)
            child = python_literal(child)
            if child.kind == "scalar" and isinstance(child.value, str) and key.lower() in LIST_KEYS and \
                    "," in child.text:  # "categories": "Bars, Nightlife" is a list
                items = [Node("scalar", *child.src, t.strip(), t.strip()) for t in child.text.split(",") if t.strip()]
                self._list_sentence(subject, first, key, words, key_src, child, items)
                continue
            if child.kind == "map" and child.items and _weekday_map(child):
                nested.append((child, subject, None, (key, key_src)))  # opening hours: a paragraph of their own
                continue
            if child.kind == "map" and child.items and self._flags(subject, first, key, key_src, child):
                continue
            if child.kind == "map" and child.items:
                named = self._name(child, self.first_column)
                if named is not None:
                    self._sentence(subject, first, [(f" is {named[1].text}", child.src)], words, key_src, "Its")
                    nested.append((child, _Subject(named[1].text, named[1].src), named[0], None))
                else:
                    owner = subject.text[:1].lower() + subject.text[1:] if subject.text.startswith("The ") \
                        else subject.text
                    nested.append((child, _Subject(f"The {words} of {owner}" if owner else f"The {words}", key_src),
                                   None, None))
                continue
            if child.kind == "list":
                scalars = [x for x in _flat(child) if x.kind == "scalar" and x.value is not None and x.text]
                records = [x for x in _flat(child) if x.kind == "map"]
                if scalars or not records:
                    self._list_sentence(subject, first, key, words, key_src, child, scalars)
                if records:
                    names = [self._name(r, self.first_column) for r in records]
                    if all(names):
                        pieces: Pieces = [(" are " if len(records) > 1 else " is ", key_src)]
                        pieces += _joined([n[1] for n in names if n], child.src)
                        self._sentence(subject, first, pieces, words, key_src, "Its")
                    else:
                        noun = plural_noun(singular(words)) if len(records) > 1 else singular(words)
                        self._sentence(subject, first, [(f" has {len(records)} {noun}", child.src)], "",
                                       key_src, "It")
                    owner = subject if subject.text else _Subject("", None)
                    deferred += [(child, owner, key, 0)] + [(r, owner, key, i + 1) for i, r in enumerate(records)]
                continue
            self._scalar_sentence(subject, first, key, words, key_src, child)
        for child, inner, inner_skip, weekdays in nested:
            self._new_paragraph()
            if weekdays is not None:
                self._weekdays(inner, [True], *weekdays, child)
            else:
                self._members(child, inner, inner_skip, [True], deferred)

    def _location(self, node: Node, subject: _Subject, first: list[bool]) -> set[str]:
        """A record's address, city, state and postal code as one sentence ("It is located at 1201 State St, Santa
        Barbara, California (CA)."), as overviews write them; the keys it used."""
        by_key = {k.lower(): (k, k_src, c) for k, k_src, c in node.items if c.kind == "scalar" and c.text}
        parts = [next((by_key[k] for k in keys if k in by_key), None) for keys in ADDRESS_KEYS]
        if parts[0] is None or parts[1] is None:
            return set()
        pieces: Pieces = [(" is located at ", parts[0][1])]
        for key, key_src, value in (p for p in parts if p is not None):
            text = value.text
            if key.lower() in ADDRESS_KEYS[2] and text.upper() in US_STATES:
                text = f"{US_STATES[text.upper()]} ({text})"
            if len(pieces) > 1:
                pieces.append((" " if key.lower() in ADDRESS_KEYS[3] else ", ", key_src))
            pieces.append((text, value.src))
        self._sentence(subject, first, pieces, "", parts[0][1], "It")
        return {p[0] for p in parts if p is not None}

    def _weekdays(self, subject: _Subject, first: list[bool], key: str, key_src: Src, child: Node) -> None:
        """A weekday-keyed map: "From Tuesday to Thursday it is open from 11:00 to 22:00." (runs of consecutive days
        with the same value share a sentence, as people write opening hours)."""
        hours = any(h in key.lower() for h in HOUR_KEYS)
        words = key_words(key)
        runs: list[list[tuple[str, Src, Node]]] = []
        for day_key, day_src, value in child.items:
            day = weekday(day_key) or day_key  # every key is a weekday (_weekday_map)
            last = runs[-1][-1] if runs else None
            if last is not None and last[2].text == value.text and WEEKDAYS.index(day) == WEEKDAYS.index(last[0]) + 1:
                runs[-1].append((day, day_src, value))
            else:
                runs.append([(day, day_src, value)])
        listed = [d for run in runs for d, _, _ in run]
        around = [v.text for _, _, v in child.items if _all_day(v.text)]
        for run in runs:
            days = [d for d, _, _ in run]
            when = f"On {days[0]}" if len(days) == 1 else f"On {days[0]} and {days[1]}" if len(days) == 2 \
                else f"From {days[0]} to {days[-1]}"
            value = run[0][2]
            text = value.text
            span = time_range(text, both_clocks=True) if hours else None
            if value.value is None or text == "":
                pieces: Pieces = [(f" {words} are not given", value.src)]
            elif hours and _all_day(text) and len(around) < len(child.items):  # "0:0-0:0" beside other hours
                pieces = [(" is closed: its hours are listed as ", key_src), (text, value.src),
                          (", which such exports write for a day without opening hours", key_src)]
            elif hours and _all_day(text):
                pieces = [(" is open around the clock or has no set hours: its hours are listed as ", key_src),
                          (text, value.src)]
            elif span is not None:
                pieces = [(" is open ", key_src), (span, value.src)]
            elif hours and text.lower() in ("closed", "close", "no", "false"):
                pieces = [(" is closed", value.src)]
            elif hours:
                pieces = [(" is open ", key_src), (text, value.src)]
            else:
                pieces = [(f" {words} {'are' if plural(words) else 'is'} ", key_src), (text, value.src)]
            subject_word = "it" if hours and value.value is not None and text != "" else "its"
            self._sentence(subject, first, pieces, "", run[0][1], f"{when} {subject_word}")
        if hours and len(listed) >= 3:
            self._week(subject, first, key_src, child, listed, around)

    def _week(self, subject: _Subject, first: list[bool], key_src: Src, child: Node, listed: list[str],
              around: list[str]) -> None:
        """The week as overviews sum it up: the days a listing leaves out are closed days (such exports list only
        the days it opens), "It is open 6 days a week, from Tuesday to Sunday.", "Its hours vary by day."."""
        missing = [d for d in WEEKDAYS if d not in listed]
        if missing:
            days = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
            self._sentence(subject, first, [(f" is closed on {days}: no hours are listed for "
                                             f"{'that day' if len(missing) == 1 else 'those days'}", child.src)],
                           "", key_src, "It")
        shut = {d for d, v in zip(listed, child.items) if v[2].value is None or not time_range(v[2].text) or
                _all_day(v[2].text)}  # closed, or (every day "0:0-0:0") not known to be open
        open_days = [d for d in WEEKDAYS if d in listed and d not in shut]
        if len(open_days) > 1:  # "It is open six days a week, from Tuesday to Sunday."
            idx = [WEEKDAYS.index(d) for d in open_days]
            days = f"from {open_days[0]} to {open_days[-1]}" if idx == list(range(idx[0], idx[-1] + 1)) else \
                "on " + ", ".join(open_days[:-1]) + " and " + open_days[-1]
            count = ("two", "three", "four", "five", "six", "seven")[len(open_days) - 2]
            self._sentence(subject, first, [(f" is open {count} days a week, {days}", child.src)], "", key_src, "It")
        spans = {v.text for d, _, v in child.items if weekday(d) in open_days}
        if len(spans) > 1:
            self._sentence(subject, first, [(" opening hours vary by day", child.src)], "", key_src, "Its")

    def _flags(self, subject: _Subject, first: list[bool], key: str, key_src: Src, child: Node) -> bool:
        """A map of yes/no flags ("parking": {"lot": true, "street": false}) as one sentence about ``subject``;
        False for any other map."""
        flags = [(k, c) for k, _, c in child.items if isinstance(c.value, bool)]  # only scalars hold a bool
        if flags and len(flags) == len(child.items):
            words = attribute_words(key)
            yes = [Node("scalar", c.start, c.end, True, key_words(k)) for k, c in flags if c.value]
            no = [Node("scalar", c.start, c.end, False, key_words(k)) for k, c in flags if not c.value]
            low = words.lower()
            start = self.w.pos
            if low.endswith("parking"):  # "It has street and lot parking and no garage or valet parking."
                pieces = [(" has ", key_src), *_joined(yes, child.src), (" parking", key_src)] if yes else []
                if no:
                    pieces += [(" and no " if yes else " has no ", key_src), *_joined(no, child.src, "or"),
                               (" parking", key_src)]
                self._sentence(subject, first, pieces, "", key_src, "It")
                for k, c in flags:
                    self._flag(subject, key_words(k), "parking", c.value, start, c.src)
                return True
            if low in ("ambience", "ambiance", "atmosphere", "vibe", "style", "noise"):  # adjectives
                pieces = [(" is ", key_src), *_joined(yes, child.src)] if yes else []
                if no:
                    pieces += [(", not " if yes else " is not ", key_src), *_joined(no, child.src, "or")]
                self._sentence(subject, first, pieces, words, key_src, "Its")
                if low in ("ambience", "ambiance", "atmosphere", "vibe"):
                    for k, c in flags:
                        self._flag(subject, key_words(k), "ambience", c.value, start, c.src)
                return True
            verb = "include" if plural(words) else "includes"
            pieces = [(f" {verb} ", key_src), *_joined(yes, child.src)] if yes else []
            if no:
                pieces += [(" and does not include " if yes else f" {'do' if plural(words) else 'does'} not include ",
                            key_src), *_joined(no, child.src, "or")]
            self._sentence(subject, first, pieces, words, key_src, "Its")
            if low in OWN_FLAG_MAPS:  # the record's own yes/no properties ("GoodForMeal": {"dinner": ...} is not)
                for k, c in flags:
                    self._flag(subject, attribute_words(k), "flag", c.value, start, c.src)
            return True
        return False

    def _sentence(self, subject: _Subject, first: list[bool], pieces: Pieces, words: str, key_src: Src,
                  lead: str) -> None:
        """``[Subject: ]its <words><pieces>.`` (lead "Its"; "The" without a subject) or ``It<pieces>.``."""
        w = self.w
        size = len(words) + sum(len(text) for text, _ in pieces) + len(lead) + 2
        if not first[0] and subject.text and w.pos - w.paragraph_start + size > PARAGRAPH_CHARS:
            w.paragraph_break = first[0] = True  # a new paragraph that says again whom it is about
        if w.pos and not w.paragraph_break:
            w.put(" ")
        if first[0]:
            if subject.text:
                w.put(subject.text + ": ", subject.src)
                lead = lead[:1].lower() + lead[1:]
            first[0] = False
        if not subject.text and lead == "Its":
            lead = "The"
        w.put(f"{lead} {words}" if words else lead, key_src)
        for text, src in pieces:
            w.put(text, src)
        if not pieces[-1][0].rstrip().endswith((".", "!", "?")):
            w.put(".", pieces[-1][1] or key_src)

    def _scalar_sentence(self, subject: _Subject, first: list[bool], key: str, words: str, key_src: Src,
                         child: Node) -> None:
        low = key.lower()
        value, text = child.value, child.text
        if isinstance(value, str) and (n := number_value(text)) is not None:
            value = int(n) if n.is_integer() and "." not in text else n  # a CSV cell holds the number as text
        flag = low.startswith(("is_", "has_", "can_"))
        if flag and value in (0, 1) and not isinstance(value, (bool, float)):
            value = bool(value)  # is_open: 1
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        start = self.w.pos  # where this attribute's sentence begins (a yes/no one is kept for FL410)
        if value is None or text == "":
            self._sentence(subject, first, [(" are not given" if plural(words) else " is not given", child.src)],
                           words, key_src, "Its")
        elif isinstance(value, bool) and flag:
            verb, rest = low.split("_", 1)
            neg = {"is": "is not", "has": "does not have", "can": "cannot"}[verb]
            self._sentence(subject, first, [(f" {verb if value else neg} {key_words(rest)}", child.src)], "",
                           key_src, "It")
            self._flag(subject, key_words(rest), "flag", value, start, child.src)
        elif isinstance(value, str) and words.lower() == "wi-fi":  # "WiFi": "free"; drafts write both spellings
            has = text.lower() not in ("no", "none", "false")
            rest = f" offers {text} Wi-Fi ({text} WiFi)" if has else " does not offer Wi-Fi (no WiFi)"
            self._sentence(subject, first, [(rest, child.src)], "", key_src, "It")
            self._flag(subject, "Wi-Fi", "flag", has, start, child.src)
        elif isinstance(value, str) and text.lower() in ("yes", "no", "none", "y", "n") and \
                (phrase := bool_phrase(key, text.lower() in ("yes", "y")))[0]:  # WiFi: u'no'
            self._sentence(subject, first, [(phrase[1], child.src)], "", key_src, phrase[0])
            self._flag(subject, words, "flag", text.lower() in ("yes", "y"), start, child.src)
        elif isinstance(value, bool):
            lead, rest = bool_phrase(key, value)
            if lead:
                self._sentence(subject, first, [(rest, child.src)], "", key_src, lead)
            else:
                self._sentence(subject, first, [(": " + text, child.src)], words, key_src, "Its")
            self._flag(subject, words, "flag", value, start, child.src)
        elif low in VERB_KEYS:
            self._sentence(subject, first, [(f" {VERB_KEYS[low]} ", key_src), (text, child.src)], "", key_src, "It")
        elif (noun := counted(words, value)) is not None:  # "review_count": 58 -> "It has 58 reviews."
            self._sentence(subject, first, [(" has ", key_src), (text, child.src), (f" {noun}", key_src)], "",
                           key_src, "It")
        elif number and words.lower().endswith("stars"):
            assert isinstance(value, (int, float))  # ``number`` says so
            if self.review:  # one review's stars, and how such a rating reads
                tone = " (a positive review)" if value >= 4 else " (a negative review)" if value <= 2 else \
                    " (a mixed review)"
            else:  # the business's own stars are the average of all its reviews (Yelp's "stars")
                tone = " overall (its average rating)" if "stars" in words.lower() and words.lower() != "stars" or \
                    low.startswith(("business", "overall", "average")) else ""
            if self.review:
                self._sentence(subject, first, [(" gave it ", key_src), (text, child.src), (" stars" + tone, key_src)],
                               "", key_src, "A customer")
            else:
                self._sentence(subject, first, [(" is rated ", key_src), (text, child.src),
                                                (" stars" + tone, key_src)], "", key_src, "It")
        elif number and plural(words) and isinstance(value, int) and not self.review:  # "It has 12 rooms."
            self._sentence(subject, first, [(" has ", key_src), (text, child.src), (f" {words}", key_src)], "",
                           key_src, "It")
        elif self.review and isinstance(value, str) and (is_prose(text) or low.endswith(("text", "comment"))):
            # "review_text": what the customer wrote
            self.free_text.append(text)
            self._sentence(subject, first, [(" wrote: ", key_src), (text, child.src)], "", key_src, "A customer")
        elif number and (unit := header_unit(key))[1]:  # "price_usd": 12 -> "Its price is 12 US dollars ($12)."
            pieces: Pieces = [(" is ", key_src), (text, child.src), (f" {unit[1]}", key_src)]
            if unit[2]:
                pieces += [(" (", key_src), (f"{unit[2]}{text}", child.src), (")", key_src)]
            self._sentence(subject, first, pieces, unit[0], key_src, "Its")
        elif isinstance(value, str) and low in ("state", "state_code") and text.upper() in US_STATES:
            self._sentence(subject, first, [(" is ", key_src), (f"{US_STATES[text.upper()]} ({text})", child.src)],
                           words, key_src, "Its")
        elif isinstance(value, str) and (span := time_range(text, both_clocks=True)) is not None:
            self._sentence(subject, first, [(" are " if plural(words) else " is ", key_src), (span, child.src)],
                           words, key_src, "Its")
        elif isinstance(value, str) and is_prose(text):
            self.free_text.append(text)
            self._sentence(subject, first, [(": ", key_src), (text, child.src)], words, key_src, "Its")
        else:
            verb = " are " if plural(words) and not number else " is "
            self._sentence(subject, first, [(verb, key_src), (day_name(text), child.src)], words, key_src, "Its")

    def _list_sentence(self, subject: _Subject, first: list[bool], key: str, words: str, key_src: Src,
                       child: Node, scalars: list[Node]) -> None:
        low = key.lower()
        if not scalars:
            self._sentence(subject, first, [(f" has no {plural_noun(words)}", child.src)], "", key_src, "It")
        elif low in VERB_KEYS:
            verb_phrase = f" {VERB_KEYS[low].split(' ')[0]} "  # "serves", "opens" (no "at" before a list)
            self._sentence(subject, first, [(verb_phrase, key_src), *_joined(scalars, child.src)], "", key_src, "It")
        else:
            verb = " are " if len(scalars) > 1 or words.endswith("s") else " is "
            self._sentence(subject, first, [(verb, key_src), *_joined(scalars, child.src)], words, key_src, "Its")


def _flat(node: Node) -> list[Node]:
    out: list[Node] = []
    for item in node.items:
        out.extend(_flat(item) if item.kind == "list" else [item])
    return out


def _row_noun(first_header: str, source: str) -> str:
    """What a CSV row is: its key column's header ("dish", "shop_name" -> "shop"), else the file's plural name
    ("hotels.csv" -> "hotel"), else "row"."""
    words = attribute_words(first_header).lower()
    if words.endswith(" name"):
        words = words[:-5]
    if len(words) > 2 and words.isalpha() and words not in NAME_KEYS and words not in ("key", "code", "number"):
        return singular(words)
    stem = re.sub(r"\.[^.]*$", "", re.split(r"[\\/]", source)[-1]).lower()
    return singular(stem) if stem.isalpha() and stem.endswith("s") and len(stem) > 3 else "row"


def _all_day(text: str) -> bool:
    """Whether hours read "0:0-0:0" (from midnight to midnight), which exports write for a day without hours."""
    span = time_range(text)
    return span is not None and span == "from 12 AM to 12 AM"


def _weekday_map(node: Node) -> bool:
    """Whether every key of ``node`` names a weekday ("Mon", "Tuesday") and every value is a scalar."""
    return all(c.kind == "scalar" and weekday(k) is not None for k, _, c in node.items)


def _joined(nodes: list[Node], container: Src, last: str = "and") -> Pieces:
    """``a``, ``a and b``, ``a, b and c``: each item mapped to its own source range, the joints to the list's."""
    out: Pieces = []
    for i, n in enumerate(nodes):
        if i:
            out.append((f" {last} " if i == len(nodes) - 1 else ", ", container))
        out.append((day_name(n.text), n.src))
    return out


def verbalise(root: Node, source: str = "") -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
    """Plain-English text for ``root`` and its segments (see :class:`~faithlint.types.SourceMap`)."""
    return Verbaliser(source).run(root)



def structured_doc(source: str, text: str, suffix: str) -> ContextDoc:
    """A context document whose ``text`` verbalises the structured ``text`` (offsets into ``text``), with the
    record's yes/no attributes (:class:`~faithlint.types.RecordFlag`, for FL410)."""
    writer = Verbaliser(source)
    out, segs = writer.run(parse_structured(text, source, suffix))
    return ContextDoc(source=source, text=out, offsets=SourceMap(text, segs), flags=writer.record_flags(),
                      free_text=tuple(dict.fromkeys(writer.free_text)))


def context_from_string(source: str, text: str) -> ContextDoc:
    """Batch-mode context: a string that parses as a JSON object or array is verbalised; others are prose."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            json.loads(stripped)
        except (json.JSONDecodeError, RecursionError):
            return ContextDoc(source, text)
        return structured_doc(source, text, ".json")
    return ContextDoc(source, text)
