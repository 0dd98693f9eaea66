"""Normalisation: values parsed into comparable forms (amounts at written precision, units, dates, times)."""

from __future__ import annotations

import datetime
import re
import unicodedata
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from .model import Value, _Item
from .vocab import (
    _ATTACHED_MAG_RE,
    _CASED_UNITS,
    _CURRENCY_PREFIX_RE,
    _CURRENCY_SUFFIX_RE,
    _CURRENCY_WORDS,
    _DECADE_SUFFIX_RE,
    _DOLLAR_ADJ,
    _HEDGE_RE,
    _MAGNITUDES,
    _NORM_WORD_RE,
    _NUMBER_WORDS,
    _ORDINAL_SUFFIX_RE,
    _PERCENT_RE,
    _POSSESSIVE_RE,
    _PREFIX_CURRENCY,
    _SCALES,
    _SPACED_MAG_RE,
    _SPACED_MONEY_MAG_RE,
    _STOPWORDS,
    _TEENS,
    _TENS,
    _UNIT_SYMBOL_RE,
    _UNIT_WORD_RE,
    _UNIT_WORDS,
    _UNITS,
    _YEAR_PREV,
)


# ------------------------------------------------------------------------------------------------- helpers
def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[,\s\u00a0\u202f\u2009]", "", text))
    except InvalidOperation:
        return None


def _fmt(d: Decimal) -> str:
    """Canonical decimal string: 3.0 -> '3', 2.5E+6 -> '2500000'."""
    d = d.normalize()
    s = format(d, "f")
    return s if "." not in s else s.rstrip("0").rstrip(".")


def _last_place(d: Decimal) -> Decimal:
    """Place value of the least significant non-zero digit (3000 -> 1000, 2.5 -> 0.1)."""
    if d == 0:
        return Decimal(1)
    exp = d.normalize().as_tuple().exponent
    return Decimal(1).scaleb(int(exp))


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _norm_tokens(s: str) -> list[str]:
    s = _POSSESSIVE_RE.sub("", _strip_accents(s).lower().replace("&", " and "))
    return _NORM_WORD_RE.findall(s)


def _entity_tokens(s: str) -> tuple[str, ...]:
    toks = _norm_tokens(s)
    while toks and toks[0] == "the":
        toks = toks[1:]
    return tuple(toks)


def _word_before(text: str, pos: int) -> str:
    m = re.search(r"([A-Za-z]+)[^\w]*$", text[max(0, pos - 30):pos])
    return m.group(1).lower() if m else ""


def _word_after(text: str, pos: int) -> str:
    m = re.match(r"[\s\-]*([A-Za-z]+)", text[pos:pos + 30])
    return m.group(1).lower() if m else ""


def _hedge(text: str, start: int) -> str:
    m = _HEDGE_RE.search(text[max(0, start - 24):start])
    if not m:
        return ""
    if m.group("approx") or m.group("tilde"):
        word = (m.group("approx") or "").lower()
        return "lt" if word in ("almost", "nearly") else "approx"
    return "gt" if m.group("gt") else "lt"


def _at_sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'“‘([{*_#>-")
    return not before or before[-1] in ".!?\n:;" or before.endswith("\n")


def _valid_date(y: int | None, m: int | None, d: int | None) -> bool:
    if m is not None and not 1 <= m <= 12:
        return False
    if d is not None and not 1 <= d <= 31:
        return False
    if y is not None and m is not None and d is not None:
        try:
            datetime.date(y, m, d)
        except ValueError:
            return False
    return True


def _date_norm(y: int | None, m: int | None, d: int | None) -> str:
    parts = [f"{y:04d}" if y is not None else "-"]
    if m is not None:
        parts.append(f"{m:02d}")
    if d is not None:
        parts.append(f"{d:02d}")
    return "-".join(parts) if y is not None else "-" + "-".join(parts)


def _ordinal_norm(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _group(label: str) -> str:
    return "PLACE" if label in ("GPE", "LOC") else label


def _time_keys(m: re.Match[str], pattern: int) -> set[str]:
    if pattern == 3:
        w = m["word"].lower()
        return {"00:00"} if w == "midnight" else {"12:00"}
    h = int(m["h"])
    mi = int(m["mi"]) if pattern == 0 else 0
    if h > 24 or mi > 59:
        return set()
    ap = (m.groupdict().get("ap") or "").lower().replace(".", "")
    if ap:
        if not 1 <= h <= 12:
            return set()
        h = h % 12 + (12 if ap == "pm" else 0)
        return {f"{h:02d}:{mi:02d}"}
    if pattern == 0 and (h == 0 or h > 12):
        return {f"{h % 24:02d}:{mi:02d}"}
    if h == 0 or h > 12:
        return set()
    return {f"{h % 12:02d}:{mi:02d}", f"{h % 12 + 12:02d}:{mi:02d}"}


def _classify(text: str, s: int, e: int, amount: Decimal, quantum: Decimal, digits: bool,
              plain4: bool) -> tuple[str, int, int, Decimal, Decimal, str, Any] | None:
    """Decide what an amount written at text[s:e] is from the words around it.

    Returns (kind, start, end, amount, quantum, unit, extra) or None when it should not be a value.
    """
    unit = ""
    currency = ""
    m = _CURRENCY_PREFIX_RE.search(text[max(0, s - 6):s])
    if m:
        sym = m.group("sym") or m.group("bare") or m.group("code")
        currency = _PREFIX_CURRENCY.get(sym, sym)
        if currency == "RMB":
            currency = "CNY"
        s = s - (len(text[max(0, s - 6):s]) - m.start())
    rest = text[e:]
    mag = None
    factor = Decimal(1)
    if digits:
        mag = _ATTACHED_MAG_RE.match(rest)
        if mag is None:
            mag = _SPACED_MAG_RE.match(rest)
        if mag is None and currency:
            mag = _SPACED_MONEY_MAG_RE.match(rest)
        if mag is not None:
            factor = Decimal(_MAGNITUDES[mag["mag"].lower()])
            amount, quantum = amount * factor, quantum * factor
            e += mag.end()
            rest = text[e:]
            plain4 = False
        elif _ORDINAL_SUFFIX_RE.match(rest) and not currency:
            return ("ordinal", s, e + 2, amount, Decimal(1), "", None)
        elif plain4 and amount % 10 == 0 and (decade := _DECADE_SUFFIX_RE.match(rest)):
            return ("date", s, e + decade.end(), amount, Decimal(1), "", "decade")
    cm = _CURRENCY_SUFFIX_RE.match(rest)
    if cm and not currency:
        word = (cm["cur"] or "").lower()
        if cm["code"]:
            currency = "CNY" if cm["code"] == "RMB" else cm["code"]
        else:
            base = re.sub(r"s$", "", word) if not word.startswith("pounds") else word
            currency = _CURRENCY_WORDS.get(base, "USD")
            if base == "dollar" and cm["adj"]:
                currency = _DOLLAR_ADJ.get(re.sub(r"\s+", " ", cm["adj"].lower()), "USD")
            if base == "cent":
                amount, quantum = amount / 100, quantum / 100
        e += cm.end()
        return ("money", s, e, amount, quantum, currency, factor)
    if currency:
        return ("money", s, e, amount, quantum, currency, factor)
    pm = _PERCENT_RE.match(rest)
    if pm:
        return ("percent", s, e + pm.end(), amount, quantum, "", factor)
    um = _UNIT_SYMBOL_RE.match(rest)
    if um:
        return ("quantity", s, e + um.end(), amount, quantum, um["sym"], factor)
    um = _UNIT_WORD_RE.match(rest)
    word = um.group().strip(" -") if um else ""
    # "three m" is too ambiguous; "6 FT" (free throws) and "5G" are not feet and grams
    if um and (digits or len(word) > 2) and not (word.isupper() and word.lower() in _CASED_UNITS):
        idx = next(i for i, v in enumerate(um.groups()) if v is not None)
        return ("quantity", s, e + um.end(), amount, quantum, _UNIT_WORDS[idx][1], factor)
    if digits and re.match(r"[A-Za-z\u00c0-\u024f]", rest):
        return None  # 3D, 4G, 5G: part of a token, not a number
    if plain4 and 1000 <= amount <= 2100:
        prev = _word_before(text, s)
        nxt = re.match(r" ([a-z]+)\b", rest)
        if prev in _YEAR_PREV or not nxt or nxt.group(1) in _STOPWORDS:
            return ("date", s, e, amount, Decimal(1), "", "year")
    return ("number", s, e, amount, quantum, unit, factor)


def _numeric_item(text: str, kind: str, s: int, e: int, amount: Decimal, quantum: Decimal, unit: str,
                  extra: Any) -> _Item:
    hedge = _hedge(text, s)
    vtext = text[s:e]
    if kind == "date":
        y = int(amount)
        if extra == "decade":
            return _Item(Value("date", vtext, s, e, f"{y}s"), decade=y)
        return _Item(Value("date", vtext, s, e, f"{y:04d}"), amount=amount, ymd=(y, None, None))
    if kind == "ordinal":
        return _Item(Value("ordinal", vtext, s, e, _ordinal_norm(int(amount))), amount=amount)
    norm = _fmt(amount)
    if kind == "percent":
        norm += "%"
    elif kind == "money":
        norm = f"{unit} {norm}"
    elif kind == "quantity":
        norm = f"{norm} {unit}"
    scale = extra if isinstance(extra, Decimal) else Decimal(1)
    return _Item(Value(kind, vtext, s, e, norm), amount=amount, quantum=quantum, hedge=hedge, unit=unit,
                 scale=scale)


def _retyped(it: _Item, kind: str, unit: str, scale: Decimal) -> _Item:
    """The other end of a range takes its partner's kind, unit and magnitude ("10-12 km", "$2-3 million")."""
    factor = scale / it.scale
    amount = it.amount * factor if it.amount is not None else None
    norm = _fmt(amount) if amount is not None else it.value.norm
    norm = {"percent": f"{norm}%", "money": f"{unit} {norm}", "quantity": f"{norm} {unit}"}.get(kind, norm)
    v = it.value
    return replace(it, value=Value(kind, v.text, v.start, v.end, norm, v.label), amount=amount,
                   quantum=it.quantum * factor, unit=unit, scale=scale, count=False)


# ------------------------------------------------------------------------------------------------ unit sizes
# Unit -> (dimension, size in the dimension's base unit); conversions between systems are inexact, which the
# draft's written precision absorbs (5 km ~ 3.1 miles).
_UNIT_SIZES: dict[str, tuple[str, Decimal]] = {
    **{u: ("length", Decimal(f)) for u, f in (("km", "1000"), ("m", "1"), ("cm", "0.01"), ("mm", "0.001"),
                                                ("mi", "1609.344"), ("ft", "0.3048"), ("in", "0.0254"),
                                                ("yd", "0.9144"))},
    **{u: ("mass", Decimal(f)) for u, f in (("kg", "1000"), ("g", "1"), ("mg", "0.001"), ("t", "1000000"),
                                              ("lb", "453.59237"))},
    **{u: ("volume", Decimal(f)) for u, f in (("l", "1"), ("ml", "0.001"), ("gal", "3.785411784"))},
    **{u: ("area", Decimal(f)) for u, f in (("km2", "1000000"), ("m2", "1"), ("ft2", "0.09290304"),
                                              ("mi2", "2589988.110336"), ("acre", "4046.8564224"), ("ha", "10000"))},
    **{u: ("duration", Decimal(f)) for u, f in (("ms", "0.001"), ("s", "1"), ("min", "60"), ("h", "3600"),
                                                  ("day", "86400"), ("week", "604800"))},
    **{u: ("calendar", Decimal(f)) for u, f in (("month", "1"), ("year", "12"), ("decade", "120"),
                                                  ("century", "1200"))},
    **{u: ("speed", Decimal(f)) for u, f in (("mph", "0.44704"), ("km/h", "0.277777777777777778"),
                                               ("kn", "0.514444444444444444"))},
    **{u: ("power", Decimal(10) ** p) for u, p in (("W", 0), ("kW", 3), ("MW", 6), ("GW", 9), ("TW", 12))},
    **{u: ("energy", Decimal(10) ** p) for u, p in (("kWh", 3), ("MWh", 6), ("GWh", 9), ("TWh", 12))},
    **{u: ("data", Decimal(10) ** p) for u, p in (("KB", 3), ("MB", 6), ("GB", 9), ("TB", 12), ("PB", 15))},
    **{u: ("rate", Decimal(10) ** p) for u, p in (("Mbps", 6), ("Gbps", 9))},
    **{u: ("frequency", Decimal(10) ** p) for u, p in (("Hz", 0), ("kHz", 3), ("MHz", 6), ("GHz", 9))},
}


def _convert(amount: Decimal, unit: str, to: str) -> Decimal | None:
    """``amount`` in ``unit`` expressed in ``to``; None when they measure different things."""
    if unit == to:
        return amount
    if {unit, to} == {"degC", "degF"}:
        return amount * 9 / 5 + 32 if to == "degF" else (amount - 32) * 5 / 9
    a, b = _UNIT_SIZES.get(unit), _UNIT_SIZES.get(to)
    if a is None or b is None or a[0] != b[0]:
        return None
    return amount * a[1] / b[1]



def _word_type(w: str) -> str | None:
    if w in _UNITS:
        return "unit"
    if w in _TEENS:
        return "teen"
    if w in _TENS:
        return "tens"
    if w == "hundred":
        return "hundred"
    if w == "dozen":
        return "dozen"
    if w in _SCALES:
        return "scale"
    return None


def _word_follows(prev: str, cur: str) -> bool:
    allowed = {
        "a": {"hundred", "scale", "dozen"},
        "unit": {"hundred", "scale", "dozen"},
        "teen": {"hundred", "scale"},
        "tens": {"unit", "hundred", "scale"},
        "hundred": {"unit", "teen", "tens", "scale"},
        "scale": {"unit", "teen", "tens"},
        "dozen": set(),
    }
    return cur in allowed.get(prev, set())


def _parse_words(toks: list[str]) -> int:
    total, current = 0, 0
    for t in toks:
        if t in ("a", "an", "and"):
            continue
        v = _NUMBER_WORDS[t]
        if t == "hundred":
            current = max(current, 1) * 100
        elif t == "dozen":
            current = max(current, 1) * 12
        elif t in _SCALES:
            total += max(current, 1) * v
            current = 0
        else:
            current += v
    return total + current


