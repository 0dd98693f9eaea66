"""Structured context (JSON, YAML, CSV) written out as plain English sentences, with offsets back to the file.

NLI checkers read prose: ``{"name": "Luigi's", "rating": 4.5, "opens": "11:00", "days": ["Tue", "Wed"]}``
becomes "Luigi's: its rating is 4.5. It opens at 11:00. Its days are Tue and Wed." A record's
``name``/``title``/``id`` field is its subject (else the key path); nested objects become sentences about
the nested entity; every record of a list gets its own paragraph (blank-line separated, so no sentence
crosses records); scalar lists are joined with commas and "and". Each piece of the text records the
character range of the JSON value (YAML node, CSV cell) it was written from, in a
:class:`~faithlint.types.SourceMap`, so evidence shown to users points into the real file.

Exported records (business listings, product feeds) hold values in forms an NLI checker cannot read; a few
are written as people write them: weekday-keyed hours ("Tue": "11:0-22:0" -> "On Tuesday it is open from 11 AM
to 10 PM."), yes/no attributes ("It does not accept credit cards."), Python literals inside strings ("u'free'",
"{'lot': True}"), US state codes ("Maine (ME)"), star ratings and counts ("It has 58 reviews.").
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from faithlint.errors import InputError, first_line
from faithlint.record_phrases import (
    HOUR_KEYS,
    NAME_KEYS,
    US_STATES,
    VERB_KEYS,
    WEEKDAYS,
    attribute_words,
    bool_phrase,
    counted,
    day_name,
    is_prose,
    key_words,
    plural,
    singular,
    time_range,
    weekday,
)
from faithlint.types import ContextDoc, SourceMap

STRUCTURED_EXTENSIONS: tuple[str, ...] = (".json", ".yaml", ".yml", ".csv", ".tsv")
# a record's paragraph grows to about one evidence piece (evidence.PIECE_TOKENS, ~4 characters a token), then
# goes on in a new paragraph that names its subject again: a piece ranked alone still says whom it is about
PARAGRAPH_CHARS = 180

Src = tuple[int, int]


@dataclass
class Node:
    """A parsed value with its source range: ``kind`` is ``map`` (``items``: (key, key range, node)),
    ``list`` (``items``: nodes) or ``scalar`` (``value`` and its display ``text``)."""

    kind: str
    start: int
    end: int
    value: Any = None
    text: str = ""
    items: list[Any] = field(default_factory=list)

    @property
    def src(self) -> Src:
        return (self.start, self.end)


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _json_node(s: str, i: int) -> tuple[Node, int]:
    i = _WS.match(s, i).end()  # type: ignore[union-attr]
    c = s[i]
    if c == "{":
        node = Node("map", i, i)
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        members: dict[str, tuple[str, Src, Node]] = {}
        while s[i] != "}":
            key_start = i
            key, kend = json.decoder.scanstring(s, i + 1)  # type: ignore[attr-defined]
            colon = _WS.match(s, kend).end()  # type: ignore[union-attr]
            child, i = _json_node(s, colon + 1)
            members.pop(key, None)  # the last duplicate wins, as in json.loads
            members[key] = (key, (key_start, kend), child)
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if s[i] == ",":
                i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        node.items, node.end = list(members.values()), i + 1
        return node, i + 1
    if c == "[":
        node = Node("list", i, i)
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        while s[i] != "]":
            child, i = _json_node(s, i)
            node.items.append(child)
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if s[i] == ",":
                i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        node.end = i + 1
        return node, i + 1
    value, end = _DECODER.raw_decode(s, i)
    text = s[i:end] if isinstance(value, (int, float)) and not isinstance(value, bool) else _display(value)
    return Node("scalar", i, end, value, text), end


def parse_json(text: str, source: str) -> Node:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    return _json_node(text, 0)[0]


def _yaml_scalar(node: Any) -> Any:
    tag, raw = node.tag.rsplit(":", 1)[-1], node.value
    try:
        if tag == "int":
            return int(raw.replace("_", ""), 0) if not raw.lstrip("+-").startswith("0") or raw == "0" else int(raw)
        if tag == "float":
            return float(raw.replace("_", ""))
    except ValueError:
        return raw
    if tag == "bool":
        return raw.lower() in ("true", "yes", "on", "y")
    if tag == "null":
        return None
    return raw


def _yaml_node(node: Any) -> Node:
    start, end = node.start_mark.index, node.end_mark.index
    kind = type(node).__name__
    if kind == "MappingNode":
        members: dict[str, tuple[str, Src, Node]] = {}
        for k, v in node.value:
            key = str(k.value) if type(k).__name__ == "ScalarNode" else "key"
            if key == "<<":
                continue
            members.pop(key, None)
            members[key] = (key, (k.start_mark.index, k.end_mark.index), _yaml_node(v))
        return Node("map", start, end, items=list(members.values()))
    if kind == "SequenceNode":
        return Node("list", start, end, items=[_yaml_node(v) for v in node.value])
    value = _yaml_scalar(node)
    text = node.value if isinstance(value, (int, float)) and not isinstance(value, bool) else _display(value)
    return Node("scalar", start, end, value, text)


def parse_yaml(text: str, source: str) -> Node:
    import yaml

    try:
        docs = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or first_line(exc)
        raise InputError(f"{source}: invalid YAML{where}: {problem}") from None
    if not docs:
        return Node("list", 0, len(text))
    if len(docs) == 1:
        return _yaml_node(docs[0])
    return Node("list", 0, len(text), items=[_yaml_node(d) for d in docs])


def _csv_rows(text: str, delim: str, source: str) -> list[list[tuple[str, int, int]]]:
    """Rows of (cell, start, end); RFC 4180 quoting ("" inside quotes, newlines inside quoted cells)."""
    plain = re.compile(f"[^{re.escape(delim)}\r\n]*")
    rows: list[list[tuple[str, int, int]]] = []
    i, n = 0, len(text)
    while i < n:
        row: list[tuple[str, int, int]] = []
        while True:
            if i < n and text[i] == '"':
                j, buf = i + 1, []
                while True:
                    k = text.find('"', j)
                    if k < 0:
                        line = text.count("\n", 0, i) + 1
                        raise InputError(f"{source}: invalid CSV at line {line}: a quoted field is never closed")
                    buf.append(text[j:k])
                    if text.startswith('""', k):
                        buf.append('"')
                        j = k + 2
                        continue
                    break
                row.append(("".join(buf), i, k + 1))
                i = k + 1
                m = plain.match(text, i)
                if m.group(0).strip():  # type: ignore[union-attr]
                    line = text.count("\n", 0, i) + 1
                    raise InputError(f"{source}: invalid CSV at line {line}: text after a closing quote")
                i = m.end()  # type: ignore[union-attr]
            else:
                m = plain.match(text, i)
                row.append((text[i:m.end()], i, m.end()))  # type: ignore[union-attr]
                i = m.end()  # type: ignore[union-attr]
            if i < n and text[i] == delim:
                i += 1
                continue
            i += 2 if text.startswith("\r\n", i) else 1
            break
        if any(cell.strip() for cell, _, _ in row):
            rows.append(row)
    return rows


def parse_csv(text: str, source: str, delim: str = ",") -> Node:
    first = text.split("\n", 1)[0]
    if delim == "," and "," not in first and ";" in first:
        delim = ";"
    rows = _csv_rows(text, delim, source)
    if len(rows) < 2:
        raise InputError(f"{source}: CSV needs a header row and at least one data row")
    header = [(cell.strip() or f"column {c + 1}", (a, b)) for c, (cell, a, b) in enumerate(rows[0])]
    records = []
    for row in rows[1:]:
        items = []
        for (key, key_src), (cell, a, b) in zip(header, row):
            if cell.strip():
                items.append((key, key_src, Node("scalar", a, b, cell, _display(cell))))
        records.append(Node("map", row[0][1], row[-1][2], items=items))
    return Node("list", rows[1][0][1], rows[-1][-1][2], "row", items=records)


def _display(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def _python_literal(node: Node) -> Node:
    """A string holding a Python literal, as some exports write values (``"u'free'"``, ``"True"``,
    ``"{'garage': False, 'lot': True}"``), as the value it holds; every part keeps the string's range."""
    if node.kind != "scalar" or not isinstance(node.value, str):
        return node
    raw = node.value.strip()
    if raw in ("True", "False", "None") or (raw[:1] in "{'\"" or raw[:2] in ("u'", 'u"')) and raw[-1:] in "}'\"":
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return node
    elif raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        return node
    if isinstance(value, dict):
        if not value or not all(isinstance(v, (str, int, float, bool)) or v is None for v in value.values()):
            return node
        return Node("map", node.start, node.end, items=[
            (str(k), node.src, Node("scalar", node.start, node.end, v, _display(v))) for k, v in value.items()])
    if isinstance(value, (str, bool)) or value is None:
        return Node("scalar", node.start, node.end, value, _display(value))
    return node


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


class Verbaliser:
    """Writes a :class:`Node` tree as paragraphs of sentences into a text with a source map."""

    def __init__(self) -> None:
        self.w = _Writer()

    def run(self, root: Node) -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
        self._top(root)
        return self.w.text(), tuple(self.w.segs)

    def _new_paragraph(self) -> None:
        self.w.paragraph_break = True

    def _top(self, node: Node, noun: str = "item") -> None:
        if node.kind == "list" and isinstance(node.value, str):
            noun = node.value  # "row" for CSV
        if node.kind == "map":
            self._record(node, None, noun, 0)
        elif node.kind == "list":
            for i, item in enumerate(node.items):
                self._top(item, noun) if item.kind != "map" else self._record(item, None, noun, i + 1)
        elif node.value is not None and node.text:
            self._new_paragraph()
            self.w.put(node.text, node.src)

    @staticmethod
    def _name(node: Node) -> tuple[str, Node] | None:
        by_key = {k.lower(): (k, child) for k, _, child in node.items}
        for key in NAME_KEYS:
            hit = by_key.get(key)
            if hit and hit[1].kind == "scalar" and hit[1].text:
                return hit[0], hit[1]
        return None

    def _subject(self, node: Node, parent: _Subject | None, noun: str, index: int) -> tuple[_Subject, str | None]:
        named = self._name(node)
        if named is not None:
            key, child = named
            text = child.text
            if isinstance(child.value, (int, float)) and not isinstance(child.value, bool):
                text = f"{singular(noun).capitalize()} {child.text}"
            return _Subject(text, child.src), key
        if index:
            base = f"{singular(key_words(noun)).capitalize()} {index}"
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
            self._record(child, subj, child_noun, i)

    def _members(self, node: Node, subject: _Subject, skip: str | None, first: list[bool],
                 deferred: list[tuple[Node, _Subject, str, int]]) -> None:
        # after the record's own sentences, each in a paragraph of its own: (map, subject, its name key, and for
        # weekday-keyed maps the key and its range)
        nested: list[tuple[Node, _Subject, str | None, tuple[str, Src] | None]] = []
        for key, key_src, child in node.items:
            if key == skip:
                continue
            words = attribute_words(key)
            child = _python_literal(child)
            if child.kind == "map" and child.items and _weekday_map(child):
                nested.append((child, subject, None, (key, key_src)))  # opening hours: a paragraph of their own
                continue
            if child.kind == "map" and child.items and self._flags(subject, first, key, key_src, child):
                continue
            if child.kind == "map" and child.items:
                named = self._name(child)
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
                    names = [self._name(r) for r in records]
                    if all(names):
                        pieces: Pieces = [(" are " if len(records) > 1 else " is ", key_src)]
                        pieces += _joined([n[1] for n in names if n], child.src)
                        self._sentence(subject, first, pieces, words, key_src, "Its")
                    else:
                        self._sentence(subject, first, [(f" has {len(records)} {words}", child.src)], "",
                                       key_src, "It")
                    owner = subject if subject.text else _Subject("", None)
                    deferred += [(r, owner, key, i + 1) for i, r in enumerate(records)]
                continue
            self._scalar_sentence(subject, first, key, words, key_src, child)
        for child, inner, inner_skip, weekdays in nested:
            self._new_paragraph()
            if weekdays is not None:
                self._weekdays(inner, [True], *weekdays, child)
            else:
                self._members(child, inner, inner_skip, [True], deferred)

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
        for run in runs:
            days = [d for d, _, _ in run]
            when = f"On {days[0]}" if len(days) == 1 else f"On {days[0]} and {days[1]}" if len(days) == 2 \
                else f"From {days[0]} to {days[-1]}"
            value = run[0][2]
            text = value.text
            span = time_range(text) if hours else None
            if value.value is None or text == "":
                pieces: Pieces = [(f" {words} are not given", value.src)]
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

    def _flags(self, subject: _Subject, first: list[bool], key: str, key_src: Src, child: Node) -> bool:
        """A map of yes/no flags ("parking": {"lot": true, "street": false}) as one sentence about ``subject``;
        False for any other map."""
        flags = [(k, c) for k, _, c in child.items if isinstance(c.value, bool)]  # only scalars hold a bool
        if flags and len(flags) == len(child.items):
            words = attribute_words(key)
            yes = [Node("scalar", c.start, c.end, True, key_words(k)) for k, c in flags if c.value]
            no = [Node("scalar", c.start, c.end, False, key_words(k)) for k, c in flags if not c.value]
            verb = "include" if plural(words) else "includes"
            pieces = [(f" {verb} ", key_src), *_joined(yes, child.src)] if yes else []
            if no:
                pieces += [(" and does not include " if yes else f" {'do' if plural(words) else 'does'} not include ",
                            key_src), *_joined(no, child.src, "or")]
            self._sentence(subject, first, pieces, words, key_src, "Its")
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
        flag = low.startswith(("is_", "has_", "can_"))
        if flag and value in (0, 1) and not isinstance(value, (bool, float)):
            value = bool(value)  # is_open: 1
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if value is None or text == "":
            self._sentence(subject, first, [(" are not given" if plural(words) else " is not given", child.src)],
                           words, key_src, "Its")
        elif isinstance(value, bool) and flag:
            verb, rest = low.split("_", 1)
            neg = {"is": "is not", "has": "does not have", "can": "cannot"}[verb]
            self._sentence(subject, first, [(f" {verb if value else neg} {key_words(rest)}", child.src)], "",
                           key_src, "It")
        elif isinstance(value, str) and text.lower() in ("yes", "no", "none") and \
                (phrase := bool_phrase(key, text.lower() == "yes"))[0]:  # WiFi: u'no'
            self._sentence(subject, first, [(phrase[1], child.src)], "", key_src, phrase[0])
        elif isinstance(value, bool):
            lead, rest = bool_phrase(key, value)
            if lead:
                self._sentence(subject, first, [(rest, child.src)], "", key_src, lead)
            else:
                self._sentence(subject, first, [(": " + text, child.src)], words, key_src, "Its")
        elif low in VERB_KEYS:
            self._sentence(subject, first, [(f" {VERB_KEYS[low]} ", key_src), (text, child.src)], "", key_src, "It")
        elif (noun := counted(words, value)) is not None:  # "review_count": 58 -> "It has 58 reviews."
            self._sentence(subject, first, [(" has ", key_src), (text, child.src), (f" {noun}", key_src)], "",
                           key_src, "It")
        elif number and words.lower().endswith("stars"):
            self._sentence(subject, first, [(" is rated ", key_src), (text, child.src), (" stars", key_src)], "",
                           key_src, "It")
        elif isinstance(value, str) and low in ("state", "state_code") and text.upper() in US_STATES:
            self._sentence(subject, first, [(" is ", key_src), (f"{US_STATES[text.upper()]} ({text})", child.src)],
                           words, key_src, "Its")
        elif isinstance(value, str) and (span := time_range(text)) is not None:
            self._sentence(subject, first, [(" are " if plural(words) else " is ", key_src), (span, child.src)],
                           words, key_src, "Its")
        elif isinstance(value, str) and is_prose(text):
            self._sentence(subject, first, [(": ", key_src), (text, child.src)], words, key_src, "Its")
        else:
            verb = " are " if plural(words) and not number else " is "
            self._sentence(subject, first, [(verb, key_src), (day_name(text), child.src)], words, key_src, "Its")

    def _list_sentence(self, subject: _Subject, first: list[bool], key: str, words: str, key_src: Src,
                       child: Node, scalars: list[Node]) -> None:
        low = key.lower()
        if not scalars:
            self._sentence(subject, first, [(f" has no {words}", child.src)], "", key_src, "It")
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


def verbalise(root: Node) -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
    """Plain-English text for ``root`` and its segments (see :class:`~faithlint.types.SourceMap`)."""
    return Verbaliser().run(root)


def parse_structured(text: str, source: str, suffix: str) -> Node:
    suffix = suffix.lower()
    if suffix == ".json":
        return parse_json(text, source)
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text, source)
    if suffix in (".csv", ".tsv"):
        return parse_csv(text, source, "\t" if suffix == ".tsv" else ",")
    raise ValueError(f"not a structured format: {suffix}")


def structured_doc(source: str, text: str, suffix: str) -> ContextDoc:
    """A context document whose ``text`` verbalises the structured ``text`` (offsets into ``text``)."""
    out, segs = verbalise(parse_structured(text, source, suffix))
    return ContextDoc(source=source, text=out, offsets=SourceMap(text, segs))


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
