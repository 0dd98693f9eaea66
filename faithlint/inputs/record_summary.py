"""Facts about a list of records as a whole, the way overviews state them: how many records there are, the
range of each numeric field with its cheapest/most expensive (smallest/largest) record, values every record
shares ("Every row accepts credit cards."), and the spread of review ratings ("2 of the 3 reviews are
positive"). A checker judges "all", "every", "none", "most" and "cheapest" statements against these sentences.

Every piece of a sentence keeps the range it summarises: a count the whole list, a minimum or maximum its own
cell (and the record's name its name), the words of a field the field's key (a CSV header cell), and a shared
value the first record's value (the others are equal to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from faithlint.inputs.record_phrases import (
    attribute_words,
    bool_phrase,
    header_unit,
    number_value,
    plural,
    plural_noun,
    singular,
)
from faithlint.inputs.structured_parse import Node, Src

Pieces = list[tuple[str, "Src | None"]]
POSITIVE, NEGATIVE = 4.0, 2.0  # review stars: 4 or more reads as positive, 2 or fewer as negative
_IDENTIFIERS = ("id", "code", "key", "number", "no", "zip", "postal code", "phone", "url", "email", "date")
_YES, _NO = ("yes", "true", "y"), ("no", "false", "n")
_SUPERLATIVES = (  # words of a field -> (lowest, highest)
    (("price", "cost", "fee", "rate", "fare"), ("cheapest", "most expensive")),
    (("size", "area", "capacity", "seats", "population", "length", "weight", "height", "count"), ("smallest",
                                                                                                    "largest")),
    (("rating", "stars", "score"), ("lowest rated", "highest rated")),
)


@dataclass(frozen=True)
class Labelled:
    """A record with how the text names it ("Luigi's", "Row 2") and that name's range."""

    node: Node
    label: str
    label_src: Src


def number_word(n: int) -> str:
    """A count as overviews write it: "three" up to twelve, digits above."""
    words = "zero one two three four five six seven eight nine ten eleven twelve".split()
    return words[n] if 0 <= n < len(words) else str(n)


def flag(node: Node) -> bool | None:
    """The yes/no a value states (true, "yes", "N"), else None."""
    if isinstance(node.value, bool):
        return node.value
    text = node.text.strip().lower()
    return True if text in _YES else False if text in _NO else None


def _plural_verb(rest: str) -> str:
    """" accepts credit cards" -> " accept credit cards" (the verb of a statement about several records)."""
    first, _, tail = rest.strip().partition(" ")
    base = {"has": "have", "is": "are", "does": "do"}.get(first) or (first[:-1] if first.endswith("s") else first)
    return f" {base} {tail}".rstrip()


def _fields(records: Sequence[Labelled], skip: set[str]) -> dict[str, list[tuple[Labelled, Src, Node]]]:
    """Each scalar field (in first-seen order) with the records that give it a value: (record, key range, value)."""
    out: dict[str, list[tuple[Labelled, Src, Node]]] = {}
    for r in records:
        for key, key_src, child in r.node.items:
            if key not in skip and child.kind == "scalar" and child.value is not None and child.text:
                out.setdefault(key, []).append((r, key_src, child))
    return out


def _share(pos: int, n: int, nouns: str, neg: int, middle: int) -> str:
    """"2 of the 3 reviews are positive (4 stars or more) and 1 is negative (2 stars or fewer)"."""
    parts = [f"{k} {'is' if k == 1 else 'are'} {what}" for k, what in (
        (pos, "positive (4 stars or more)"), (neg, "negative (2 stars or fewer)"), (middle, "in between (3 stars)"))
        if k]
    parts[0] = parts[0].replace(f"{pos} ", f"{pos} of the {n} {nouns} ", 1) if pos else \
        f"{parts[0].split(' ', 1)[0]} of the {n} {nouns} {parts[0].split(' ', 1)[1]}"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _amount(cell: Node, symbol: str, unit: str, key_src: Src) -> Pieces:
    """"12 US dollars ($12)" (a currency the header names), "3 kilograms" (a unit) or "3"."""
    out: Pieces = [(cell.text.strip(), cell.src)]
    out += [(f" {unit}", key_src)] if unit else []
    return out + [(" (", key_src), (f"{symbol}{cell.text.strip()}", cell.src), (")", key_src)] if symbol else out


def review_spread(records: Sequence[Labelled], noun: str, owner: str, list_src: Src) -> list[Pieces]:
    """"The reviews are rated from 1.0 to 5.0 stars: 2 of the 3 reviews are positive (4 stars or more) and 1 is
    negative (2 stars or fewer). The reviews are mixed: ..." for a list of reviews with star ratings."""
    for key, cells in _fields(records, set()).items():
        words = attribute_words(key).lower()
        stars = [(number_value(c.value), c) for _, _, c in cells]
        if not words.endswith(("stars", "rating")) or any(v is None for v, _ in stars) or len(stars) < 2:
            continue
        lo = min(stars, key=lambda s: s[0])  # type: ignore[arg-type,return-value]
        hi = max(stars, key=lambda s: s[0])  # type: ignore[arg-type,return-value]
        pos = sum(v >= POSITIVE for v, _ in stars)  # type: ignore[operator]
        neg = sum(v <= NEGATIVE for v, _ in stars)  # type: ignore[operator]
        n, nouns = len(records), noun
        whose = f"The {nouns} of {owner}" if owner else f"The {nouns}"
        out: list[Pieces] = [[(f"{whose} are rated from ", list_src), (lo[1].text, lo[1].src), (" to ", list_src),
                              (hi[1].text, hi[1].src), (f" stars: {_share(pos, n, nouns, neg, n - pos - neg)}",
                                                        list_src)]]
        if pos and neg:
            out.append([(f"{whose} are mixed: some reviewers praise it and others criticise it", list_src)])
        elif pos == n:
            out.append([(f"{whose} are all positive: every reviewer praises it", list_src)])
        elif neg == n:
            out.append([(f"{whose} are all negative: every reviewer criticises it", list_src)])
        return out
    return []


def table_facts(records: Sequence[Labelled], noun: str, list_src: Src, skip: set[str], count: str) -> list[Pieces]:
    """Sentences about ``records`` as a whole (``noun`` is what one record is: "row", "item", "dish"); ``count``
    ("The table has", "There are"), when given, leads a sentence saying how many there are."""
    n = len(records)
    one, many = singular(noun), plural_noun(singular(noun))
    out: list[Pieces] = []
    if count and n > 1:  # "The table has 3 rows, one per shop: there are three shops."
        out.append([(f"{count} {many}" if count.endswith(number_word(n)) else f"{count} {n} {many}", list_src)])
    if n < 2:
        return out
    for key, cells in _fields(records, skip).items():
        key_src = cells[0][1]
        words, unit, symbol = header_unit(key)
        if words.lower() in _IDENTIFIERS or words.lower().endswith((" id", " code", " number")):
            continue  # an identifier has no range and no "every"
        values = [number_value(c.value) for _, _, c in cells]
        if len(cells) >= 2 and all(v is not None for v in values) and flag(cells[0][2]) is None:
            lo_i = min(range(len(cells)), key=lambda i: values[i])  # type: ignore[arg-type,return-value]
            hi_i = max(range(len(cells)), key=lambda i: values[i])  # type: ignore[arg-type,return-value]
            if values[lo_i] == values[hi_i]:
                continue  # equal everywhere: said below
            lo, hi = cells[lo_i], cells[hi_i]
            low_word, high_word = next((sup for keys, sup in _SUPERLATIVES if any(k in words.lower() for k in keys)),
                                       ("lowest", "highest"))
            out.append([(f"The {plural_noun(words)} range from ", key_src), *_amount(lo[2], symbol, unit, key_src),
                        (" to ", list_src), *_amount(hi[2], symbol, unit, key_src)])
            if (low_word, high_word) == ("lowest", "highest"):  # "Hill Top has the fewest rooms and ..."
                few, most = ("fewest", "most") if plural(words) else ("lowest", "highest")
                out.append([(lo[0].label, lo[0].label_src), (f" has the {few} {words} and ", key_src),
                            (hi[0].label, hi[0].label_src), (f" has the {most} {words}", key_src)])
            else:  # "Hill Top is the cheapest and Old Mill is the most expensive."
                out.append([(lo[0].label, lo[0].label_src), (f" is the {low_word} and ", key_src),
                            (hi[0].label, hi[0].label_src), (f" is the {high_word}", key_src)])
            continue
        flags = [flag(c) for _, _, c in cells]
        if all(f is not None for f in flags) and len(cells) == n:
            lead, rest = bool_phrase(key, True)
            if lead != "It":
                continue
            yes = sum(bool(f) for f in flags)
            odd = [c[0] for c, f in zip(cells, flags) if f == (yes == 1)]  # the one record unlike the others
            if yes == n:
                out.append([(f"Every {one}", list_src), (rest, key_src)])
            elif yes == 0:
                out.append([(f"No {one}", list_src), (rest, key_src)])
            else:  # "Not every hotel has pool: 2 of the 3 hotels have pool." (never "every ... except")
                out.append([(f"Not every {one}", list_src), (rest, key_src),
                            (f": {yes} of the {n} {many}{_plural_verb(rest) if yes > 1 else rest}", list_src)])
                if n > 2 and yes == 1:
                    out.append([("Only ", list_src), (odd[0].label, odd[0].label_src), (rest, key_src)])
                elif n > 2 and yes == n - 1:
                    out.append([(odd[0].label, odd[0].label_src), (f" is the only {one} that", list_src),
                                (bool_phrase(key, False)[1], key_src)])
            continue
        texts = {c.text.strip().lower() for _, _, c in cells}
        if len(cells) == n and len(texts) == 1:
            verb = "are" if plural(words) else "is"
            out.append([(f"The {words} of every {one} {verb} ", key_src), (cells[0][2].text.strip(), cells[0][2].src)])
    return out
