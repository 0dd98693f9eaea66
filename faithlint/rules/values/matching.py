"""Matching: whether a draft value has an equivalent in the evidence, and which evidence value it replaced."""

from __future__ import annotations

import re
from decimal import Decimal

from .extraction import _initials
from .model import Value, _Analysis, _Item
from .normalise import _convert, _group, _last_place
from .vocab import _ACRONYM_RE, _DEMONYM_SUFFIXES, _DEMONYMS, _INITIALS_SKIP, _STOPWORDS, _WIDE_WINDOW, _WINDOW


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
    if item.days:  # a weekday (or range of them): every day must be covered by the evidence's days and dates
        return item.days <= frozenset().union(*(ev.weekdays for ev in evidence))
    for ev in evidence:
        for e in ev.items:
            if _item_matches(item, e, ev):
                return True
        if kind == "number" and item.amount in ev.numbers:
            return True
        if kind == "ordinal" and item.amount in ev.ordinals:  # also inside names ("the 50th Academy Awards")
            return True
        if kind == "date" and item.ymd and item.ymd[1] is None and item.ymd[0] is not None:
            if Decimal(item.ymd[0]) in ev.numbers:  # a year matches 2021 anywhere as a number
                return True
    return False


def _item_matches(item: _Item, e: _Item, ev: _Analysis) -> bool:
    kind, ek = item.value.kind, e.value.kind
    if kind == "time":
        return ek == "time" and bool(item.times & e.times)
    if kind == "date":
        return _date_matches(item, e, ev)
    if kind == "ordinal" and ek == "date" and item.amount is not None:  # "on the 4th" ~ "March 4, 2024"
        return any(d == item.amount for _, _, d in _date_keys(e))
    if e.amount is None:
        return False
    if kind == "number":
        if ek in ("number", "percent", "money", "quantity"):
            return _amount_matches(item, e.amount)
        return ek == "date" and bool(e.ymd) and e.ymd[0] is not None and _amount_matches(item, Decimal(e.ymd[0]))
    if ek == "number" and e.standalone:
        # a record's bare value carries its unit in the key: "rating: 4.5" ~ "4.5 stars", "price: 25" ~ "$25",
        # "rank: 3" ~ "third", "share: 0.45" ~ "45%"
        if _amount_matches(item, e.amount):
            return True
        return kind == "percent" and 0 < abs(e.amount) < 1 and _amount_matches(item, e.amount * 100)
    if kind == "ordinal":
        return ek == "ordinal" and _amount_matches(item, e.amount)
    if kind == "percent":
        return ek == "percent" and _amount_matches(item, e.amount)
    if kind == "money":
        return ek == "money" and e.unit == item.unit and _amount_matches(item, e.amount)
    if kind == "quantity" and ek == "quantity":
        if _units_match(item.unit, e.unit):
            return _amount_matches(item, e.amount)
        converted = _convert(e.amount, e.unit, item.unit)  # 5,000 m ~ 5 km, 1.5 hours ~ 90 minutes
        return converted is not None and _amount_matches(item, converted)
    return False


def _date_keys(it: _Item) -> set[tuple[int | None, int | None, int | None]]:
    return {it.ymd, *it.alt_ymd} if it.ymd else set()


def _date_matches(d: _Item, e: _Item, ev: _Analysis) -> bool:
    if e.value.kind == "number" and d.ymd and d.ymd[0] is not None and d.ymd[1] is None:
        return e.amount == Decimal(d.ymd[0])
    if e.value.kind != "date":
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


def _contains_phrase(hay: tuple[str, ...], needle: tuple[str, ...], middle: bool = False,
                     demonym: bool = False) -> bool:
    """Contiguous (case-folded) phrase search; single-letter initials in the haystack may be skipped, and with
    ``middle`` one other word too ("Peyton Manning" in "Peyton Williams Manning"); with ``demonym`` a people's
    name matches its place ("West African" ~ "West Africa"; not the other way: "Italian" does not say "Italy")."""
    if not needle:
        return False

    def eq(a: str, b: str) -> bool:
        return a == b or (demonym and _demonym_of(a, b))

    n0 = needle[0]
    for i, tok in enumerate(hay):
        if tok != n0 and not (demonym and eq(n0, tok)):
            continue
        k, j, skipped = i + 1, 1, False
        while j < len(needle) and k < len(hay):
            if eq(needle[j], hay[k]):
                j += 1
                k += 1
            elif len(hay[k]) == 1 and len(needle[j]) > 1:
                k += 1
            elif middle and not skipped and hay[k] not in _INITIALS_SKIP:
                skipped = True
                k += 1
            else:
                break
        if j == len(needle):
            return True
    return False


def _demonym_of(word: str, place: str) -> bool:
    """"african" ~ "africa", "chinese" ~ "china", "british" ~ "britain", "french" ~ "france" (a short list)."""
    if len(word) < 4 or len(place) < 4 or word == place:
        return False
    if _DEMONYMS.get(word.removesuffix("s")) == place or _DEMONYMS.get(word) == place:
        return True
    for suffix in _DEMONYM_SUFFIXES:
        stem = word[:-len(suffix)]
        if word.endswith(suffix) and len(stem) >= 4 and place.startswith(stem) and len(place) - len(stem) <= 3:
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
    middle = len(toks) >= 2 and item.value.label in ("PERSON", "")
    demonym = item.value.label == "NORP"
    for ev in evidence:
        # covers exact, "Obama" in "Barack Obama", possessives, case, hyphenation ("Coca-Cola" ~ "Coca Cola")
        if _contains_phrase(ev.norm_tokens, toks, middle, demonym):
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


def _pick_context(item: _Item, draft: _Analysis, evidence: list[_Analysis]) -> tuple[Value | None, bool]:
    """The evidence value of the same kind the draft most plausibly garbled (shared neighbours, then position),
    and whether it is the one the draft meant (:attr:`Mismatch.aligned`): it shares a neighbouring word with the
    draft's value, no other value of the evidence shares as many, and the sentence does not state it already
    (the context's "Indiana Pacers" is no fix for the arena of "defeated the Indiana Pacers at ... Arena")."""
    kind = item.value.kind
    cands = [(i, ev, e) for i, ev in enumerate(evidence) for e in ev.items if e.value.kind == kind]
    if not cands:
        return None, False
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
    scored = [(score(c), c) for c in unique]
    (top, *_), best = min(scored, key=lambda sc: sc[0])
    rivals = any(s[0] <= top and c[2].value.norm != best[2].value.norm for s, c in scored)
    stated = any(d.value.norm == best[2].value.norm for d in draft.items)
    return best[2].value, top < 0 and not rivals and not stated


# ------------------------------------------------------------------------------------------------- counts
_CLAUSE_END_RE = re.compile(r"[.,;:!?()\[\]\n]")
_KEY_END_RE = re.compile(r"[.,;!?()\[\]\n]")  # a record's key ("vm_count: 4") names what its value counts


def _stem(w: str) -> str:
    w = w.lower()
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _counted(an: _Analysis, v: Value, before: int, after: int) -> set[str]:
    """Stemmed content words next to a value within its clause ("4 nodes", "vm_count: 4"): what it counts."""
    text = an.text
    out: list[str] = []
    left = [w for w, s, e in an.words if e <= v.start and not _KEY_END_RE.search(text[e:v.start])]
    right = [w for w, s, e in an.words if s >= v.end and not _CLAUSE_END_RE.search(text[v.end:s])]
    for w in left[-before:] + right[:after]:
        out += [p for p in w.split("_") if p]
    return {_stem(w) for w in out if w not in _STOPWORDS and not w.isdigit()}


def _same_count(item: _Item, draft: _Analysis, evidence: list[_Analysis]) -> tuple[Value | None, bool]:
    """The evidence number that counts what a small spelled-out count counts ("one VM" ~ "VMs: 4"), if any:
    only then is "one" vs "4" a mismatch of the same quantity rather than two unrelated numbers. And whether it is
    the only such number (:attr:`Mismatch.aligned`): a box score counts rebounds for every player."""
    mine = _counted(draft, item.value, 0, 2)
    if not mine:
        return None, False
    found = [e.value for ev in evidence for e in ev.items
             if e.value.kind in ("number", "quantity") and e.amount is not None and mine & _counted(ev, e.value, 3, 2)]
    if not found:
        return None, False
    return found[0], len({v.norm for v in found}) == 1
