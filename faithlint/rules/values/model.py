"""Values and the internal records FL400 compares: a found value, its parsed form, a text's analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Value:
    """A value found in a text; ``label`` is the spaCy entity label ("" when unknown or not an entity)."""

    kind: str
    text: str
    start: int
    end: int
    norm: str
    label: str = field(default="", compare=False)


@dataclass(frozen=True)
class Mismatch:
    """A draft value with no equivalent in the evidence, plus the evidence value most likely meant instead.

    ``aligned``: the context value stands where the draft's does -- a neighbouring word in common ("cost $15
    million" / "cost $12.5 million") or the same thing counted -- so one can be put for the other. Otherwise it
    is only the evidence's value of the same kind nearest in position, which says nothing about the right one
    (the context's "Kubernetes" for the draft's "CTO")."""

    value: Value
    context_value: Value | None
    aligned: bool = False


# -------------------------------------------------------------------------------------------- internal model
@dataclass(frozen=True)
class _Item:
    """A value plus what comparing it needs; ``amount``/``quantum`` are Decimals (written precision)."""

    value: Value
    amount: Decimal | None = None
    quantum: Decimal = Decimal(1)
    hedge: str = ""  # "approx" | "gt" | "lt" | ""
    unit: str = ""  # quantity unit, money currency
    ymd: tuple[int | None, int | None, int | None] | None = None
    alt_ymd: tuple[tuple[int | None, int | None, int | None], ...] = ()  # other readings of 3/4/2021
    weekday: int | None = None  # the first day of ``days``
    days: frozenset[int] = frozenset()  # weekdays named: one, or a range ("Mon-Fri")
    decade: int | None = None
    times: frozenset[str] = frozenset()
    tokens: tuple[str, ...] = ()
    generic: bool = False  # too generic to flag ("first")
    scale: Decimal = Decimal(1)  # the magnitude word applied ("million" -> 10**6)
    standalone: bool = False  # a bare value of a record ("rating: 4.5", "| 12 |"): its unit is in the key
    count: bool = False  # a small spelled-out count ("one", "three"): flagged only against the same noun's count


@dataclass(frozen=True)
class _Analysis:
    text: str
    items: tuple[_Item, ...]
    words: tuple[tuple[str, int, int], ...]  # lower-cased word tokens with offsets (context windows)
    norm_tokens: tuple[str, ...]  # normalised tokens of the whole text (phrase search)
    numbers: frozenset[Decimal]  # every digit amount in the text, claimed or not
    years: frozenset[int]
    ordinals: frozenset[Decimal]  # every "3rd"/"third" in the text, also inside names ("50th Academy Awards")
    weekdays: frozenset[int]  # weekdays the text covers: named, in ranges, "daily", or as the day of a full date
    acronyms: frozenset[str]
    initials: frozenset[str]


class _Claims:
    """Character claims so that each stretch of text yields at most one value."""

    def __init__(self, n: int) -> None:
        self._used = bytearray(n)

    def free(self, start: int, end: int) -> bool:
        return not any(self._used[start:end])

    def take(self, start: int, end: int) -> None:
        self._used[start:end] = b"\x01" * (end - start)

