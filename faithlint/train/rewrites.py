"""Rewrites of the values in a sentence: ones that keep its meaning, and ones that change it.

A faithful summary rarely copies its context's figures character for character: it writes "60%" for "60
percent", "March 2024" for "March 4, 2024", "roughly 32,000" for "about 32,000". The checker reads many
such rewrites as contradictions (``bench/paraphrase_probe.py``). These rewrites make probe and training
pairs from context sentences: each meaning-preserving kind has a value-changing twin (the same place, a
different value), so a model taught the first must keep catching the second.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_MONTH = "|".join(MONTHS)
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                10: "ten", 11: "eleven", 12: "twelve", 15: "fifteen", 20: "twenty", 30: "thirty", 40: "forty",
                50: "fifty", 60: "sixty", 100: "a hundred"}
APPROX = ("about", "around", "roughly", "approximately", "nearly", "almost", "some")
SAME_APPROX = {"about": "around", "around": "about", "roughly": "about", "approximately": "about",
               "some": "about"}

PERCENT_WORD = re.compile(r"\b(\d+(?:\.\d+)?) percent\b")
PERCENT_SIGN = re.compile(r"\b(\d+(?:\.\d+)?)%")
FULL_DATE = re.compile(rf"\b(on )?({_MONTH}) (\d{{1,2}}), (\d{{4}})\b")
THOUSANDS = re.compile(r"(?<![\d,.$])(\d{1,3}),000(?![,\d])(?! (?:million|billion))")
MILLIONS = re.compile(r"\$(\d+(?:\.\d+)?) (million|billion)\b")
APPROXIMATE = re.compile(rf"\b({'|'.join(SAME_APPROX)}) (?=\$?\d)", re.IGNORECASE)
COUNT = re.compile(r"(?<![\d,.$\-])\b(\d{1,3})\b(?![,.%\-]?\d)(?! ?(?:%|percent|am|pm|a\.m|p\.m))(?= [a-z])")


def _keep_case(old: str, new: str) -> str:
    return new.capitalize() if old[:1].isupper() else new


def _sub_once(pattern: re.Pattern[str], fn: Callable[[re.Match[str]], str | None], s: str) -> str | None:
    """``s`` with the first match of ``pattern`` that ``fn`` rewrites (None: no such match)."""
    for m in pattern.finditer(s):
        new = fn(m)
        if new is not None and new != m.group(0):
            return s[:m.start()] + new + s[m.end():]
    return None


def _year_sensible(y: int) -> bool:
    return 1000 <= y <= 2100


def paraphrases(s: str) -> list[tuple[str, str]]:
    """(kind, rewrite) for each meaning-preserving value rewrite that applies to ``s`` (the first place each)."""
    out: list[tuple[str, str]] = []

    def add(kind: str, new: str | None) -> None:
        if new is not None:
            out.append((kind, new))

    add("percent_sign", _sub_once(PERCENT_WORD, lambda m: f"{m.group(1)}%", s))
    add("percent_word", _sub_once(PERCENT_SIGN, lambda m: f"{m.group(1)} percent", s))
    add("date_month", _sub_once(FULL_DATE, lambda m: (("in " if m.group(1) else "") + f"{m.group(2)} {m.group(4)}")
                                if _year_sensible(int(m.group(4))) else None, s))
    add("thousands_word", _sub_once(THOUSANDS, lambda m: f"{m.group(1)} thousand", s))
    add("money_words", _sub_once(MILLIONS, lambda m: f"{m.group(1)} {m.group(2)} dollars", s))
    add("approximator", _sub_once(APPROXIMATE, lambda m: _keep_case(m.group(1), SAME_APPROX[m.group(1).lower()])
                                  + " ", s))
    add("number_word", _sub_once(COUNT, lambda m: NUMBER_WORDS.get(int(m.group(1))), s))
    return out


def _other_number(x: str, rng: random.Random) -> str:
    """A different number of the same shape (digits, decimals) as ``x``."""
    if "." in x:
        whole, dec = x.split(".", 1)
        return f"{int(whole) + rng.choice([1, 2, 3])}.{dec}"
    n = int(x)
    return str(n + rng.choice([1, 2, 3]) if n < 10 else n + rng.choice([-1, 1]) * max(1, n // rng.choice([3, 4, 5])))


def value_changes(s: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, rewrite) pairs where one value of ``s`` is changed (a contradiction), of the kinds and in the
    written forms :func:`paraphrases` produces (a count with no number word moves to the next count)."""
    out: list[tuple[str, str]] = []

    def add(kind: str, new: str | None) -> None:
        if new is not None:
            out.append((kind, new))

    add("percent_changed", _sub_once(PERCENT_WORD, lambda m: f"{_other_number(m.group(1), rng)}%", s)
        or _sub_once(PERCENT_SIGN, lambda m: f"{_other_number(m.group(1), rng)} percent", s))

    def month(m: re.Match[str]) -> str | None:
        if not _year_sensible(int(m.group(4))):
            return None
        other = MONTHS[(MONTHS.index(m.group(2)) + rng.choice([1, 2, 3, 9, 10, 11])) % 12]
        return ("in " if m.group(1) else "") + f"{other} {m.group(4)}"

    add("date_changed", _sub_once(FULL_DATE, month, s))
    add("thousands_changed", _sub_once(THOUSANDS, lambda m: f"{_other_number(m.group(1), rng)} thousand", s))
    add("money_changed", _sub_once(MILLIONS, lambda m: f"{_other_number(m.group(1), rng)} {m.group(2)} dollars", s))
    add("number_changed", _sub_once(COUNT, lambda m: NUMBER_WORDS.get(int(_other_number(m.group(1), rng)))
                                    if int(m.group(1)) in NUMBER_WORDS else None, s))
    return out
