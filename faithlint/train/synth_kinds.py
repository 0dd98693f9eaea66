"""The kinds of synthetic data issue 11 asks for, beside :mod:`faithlint.train.synth`'s entailed/intrinsic/extrinsic.

- ``paraphrase`` (entailment): clauses reordered, active voice made passive, a synonym from a small
  built-in list, or a number written another way ("12.5 million" <-> "12,500,000", "5%" <-> "5 percent");
- ``fusion`` (entailment): two sentences of the premise fused into one with "and", "while" or a relative
  clause ("Acme, which employs 200 people, was founded in 1990.");
- ``data_to_text``: statements written from JSON/YAML/CSV records (the premise is their verbalisation,
  :mod:`faithlint.inputs.structured`): entailed, with one value swapped for another record's (contradiction), or
  with an attribute the record does not have added (neutral);
- ``mixed`` (neutral): a supported clause joined to an unsupported one.

Every function takes the spaCy sentence (or a record) and the premise window and returns an
:class:`~faithlint.train.synth.Example` or ``None`` when the sentence does not lend itself to the edit.
Hallucinated examples mark the unsupported or changed span of the hypothesis in ``changed``;
entailed ones leave it empty, as the rest of ``synth`` does. Kinds are named ``family:method``.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from faithlint.inputs.record_phrases import VERB_KEYS, key_words
from faithlint.inputs.structured import Node, Verbaliser, verbalise
from faithlint.train.example import Example

SYNONYMS: dict[str, tuple[str, set[str]]] = {  # word -> (synonym, parts of speech where it is one)
    "big": ("large", {"ADJ"}), "large": ("big", {"ADJ"}), "huge": ("enormous", {"ADJ"}),
    "quick": ("fast", {"ADJ"}), "fast": ("quick", {"ADJ"}), "quickly": ("rapidly", {"ADV"}),
    "rapidly": ("quickly", {"ADV"}), "begin": ("start", {"VERB"}), "began": ("started", {"VERB"}),
    "start": ("begin", {"VERB"}), "started": ("began", {"VERB"}), "bought": ("purchased", {"VERB"}),
    "purchased": ("bought", {"VERB"}), "buy": ("purchase", {"VERB"}), "finished": ("completed", {"VERB"}),
    "completed": ("finished", {"VERB"}), "said": ("stated", {"VERB"}), "stated": ("said", {"VERB"}),
    "help": ("assist", {"VERB"}), "helped": ("assisted", {"VERB"}), "showed": ("demonstrated", {"VERB"}),
    "company": ("firm", {"NOUN"}), "firm": ("company", {"NOUN"}), "film": ("movie", {"NOUN"}),
    "movie": ("film", {"NOUN"}), "shop": ("store", {"NOUN"}), "store": ("shop", {"NOUN"}),
    "car": ("automobile", {"NOUN"}), "doctor": ("physician", {"NOUN"}), "children": ("kids", {"NOUN"}),
    "kids": ("children", {"NOUN"}), "about": ("approximately", {"ADV", "ADP"}),
    "approximately": ("about", {"ADV"}), "roughly": ("about", {"ADV"}), "almost": ("nearly", {"ADV"}),
    "nearly": ("almost", {"ADV"}), "also": ("additionally", {"ADV"}), "often": ("frequently", {"ADV"}),
    "frequently": ("often", {"ADV"}), "enough": ("sufficient", {"ADJ"}), "difficult": ("hard", {"ADJ"}),
    "main": ("principal", {"ADJ"}), "whole": ("entire", {"ADJ"}), "entire": ("whole", {"ADJ"}),
}
PARTICIPLES = {  # irregular past tense -> past participle (regular verbs: the same form)
    "wrote": "written", "took": "taken", "gave": "given", "ate": "eaten", "saw": "seen", "chose": "chosen",
    "began": "begun", "drove": "driven", "broke": "broken", "spoke": "spoken", "stole": "stolen",
    "knew": "known", "grew": "grown", "threw": "thrown", "drew": "drawn", "ran": "run", "beat": "beaten",
    "hid": "hidden", "rode": "ridden", "forgot": "forgotten", "froze": "frozen", "shook": "shaken",
    "wore": "worn", "tore": "torn", "flew": "flown", "did": "done", "sang": "sung", "swam": "swum",
    "rang": "rung", "drank": "drunk", "fell": "fallen", "forgave": "forgiven", "undertook": "undertaken",
    "overtook": "overtaken", "became": "become", "came": "come", "went": "gone", "made": "made", "won": "won",
}
NOT_PASSIVE = {"cost", "had", "lacked", "weighed", "resembled", "meant", "became", "totalled", "totaled", "fit",
               "suited", "got", "let", "took", "lasted", "measured", "equalled", "equaled", "numbered", "reached"}
OBJECT_CASE = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "it": "it", "you": "you",
               "who": "whom"}
SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
FRONTABLE = {"in", "on", "at", "during", "after", "before", "since", "following", "until"}
LEADING = re.compile(r"^(In|On|At|During|After|Before|Since|Following|Until|Last|This|Earlier|Later)\b"
                     r"([^,]{2,60}),\s+(.+?)\s*([.!?])?$", re.S)
CONNECTORS = (", and ", ", but ", "; moreover, ", ", and in addition ")
PLACE_KEYS = {"city", "town", "country", "location", "region", "state", "neighbourhood", "neighborhood", "district"}
ADDED_ATTRIBUTES = ("offers free parking", "has outdoor seating", "was renovated in 2019",
                    "has 120 employees", "is family-owned", "won an award in 2021", "accepts reservations",
                    "has a rating of 4.8")


Ex = Example


def _text(sent: Any) -> str:
    return sent.text.strip()


def _lower_start(span: Any) -> str:
    """The span's text with its first letter lowered, unless it starts with a name or "I"."""
    text = span.text.strip()
    first = span[0]
    if first.pos_ == "PROPN" or first.ent_type_ or first.text == "I" or first.text[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _stem(text: str) -> str:
    return text.rstrip(" .!?;:")


# --- paraphrase -----------------------------------------------------------------------------------

def _plain(sent: Any) -> bool:
    """One line of prose (not a Markdown heading glued to the sentence after it)."""
    return "\n" not in sent.text.strip() and not sent.text.lstrip().startswith(("#", "|", "-", "*"))


def paraphrase(sent: Any, win: Any, rng: random.Random) -> Any:
    if not _plain(sent):
        return None
    methods = ["reorder", "voice", "synonym", "number"]
    rng.shuffle(methods)
    for m in methods:
        new = {"reorder": _reorder, "voice": _passive, "synonym": _synonym, "number": _number_format}[m](sent, rng)
        if new and new != _text(sent) and len(new.split()) >= 4:
            return Ex(win.text, new, "entailment", f"paraphrase:{m}")
    return None


def _reorder(sent: Any, rng: random.Random) -> str | None:
    text = _text(sent)
    m = LEADING.match(text)
    if m and len(m.group(3).split()) >= 3:  # "In 2019, the board approved it." -> "The board approved it in 2019."
        lead = m.group(1)
        lead = lead if sent[0].ent_type_ in ("DATE", "TIME") and lead not in ("In", "On", "At") else lead.lower()
        return f"{_upper(m.group(3))} {lead}{m.group(2)}{m.group(4) or '.'}"
    root = sent.root
    toks = [t for t in sent if not t.is_punct]
    if not toks:
        return None
    for t in root.children:
        if t.dep_ != "prep" or t.lower_ not in FRONTABLE or t.i <= root.i:
            continue
        sub = list(t.subtree)
        if sub[-1].i != toks[-1].i or len(sub) > 8 or sub[-1].i - sub[0].i + 1 != len(sub):
            continue
        a, b = sub[0].idx - sent.start_char, sub[-1].idx + len(sub[-1].text) - sent.start_char
        rest = (sent.text[:a].rstrip(" ,") + sent.text[b:]).strip()
        head = rest if sent[0].pos_ == "PROPN" or sent[0].ent_type_ or sent[0].text == "I" else \
            rest[:1].lower() + rest[1:]
        return f"{_upper(sent.text[a:b])}, {head}"
    return None


def _passive(sent: Any, rng: random.Random) -> str | None:
    """``The board approved the plan in 2019.`` -> ``The plan was approved by the board in 2019.``"""
    root = sent.root
    if (root.tag_ != "VBD" or root.lower_ in NOT_PASSIVE
            or any(c.dep_ in ("aux", "auxpass", "neg", "prt", "dative", "conj") for c in root.children)):
        return None
    subj = [c for c in root.children if c.dep_ == "nsubj"]
    obj = [c for c in root.children if c.dep_ == "dobj"]
    if len(subj) != 1 or len(obj) != 1:
        return None
    s_sub, o_sub = list(subj[0].subtree), list(obj[0].subtree)
    if (s_sub[0].i != sent.start or s_sub[-1].i != root.i - 1 or o_sub[0].i != root.i + 1
            or o_sub[-1].i - o_sub[0].i + 1 != len(o_sub) or obj[0].pos_ == "PRON"):
        return None
    lower: str = root.lower_
    participle = PARTICIPLES.get(lower, lower)
    if not participle.endswith(("ed", "en", "wn", "un", "ne", "t", "d")) and root.lower_ not in PARTICIPLES:
        return None
    be = "were" if obj[0].tag_ in ("NNS", "NNPS") else "was"
    rel = sent.start_char
    obj_text = sent.text[o_sub[0].idx - rel:o_sub[-1].idx + len(o_sub[-1].text) - rel]
    subj_text = sent.text[:s_sub[-1].idx + len(s_sub[-1].text) - rel]
    if subj[0].pos_ == "PRON":
        subj_text = OBJECT_CASE.get(subj_text.lower(), "")
        if not subj_text:
            return None
    elif not (s_sub[0].pos_ == "PROPN" or s_sub[0].ent_type_):
        subj_text = subj_text[:1].lower() + subj_text[1:]
    tail = sent.text[o_sub[-1].idx + len(o_sub[-1].text) - rel:].rstrip()
    return f"{_upper(obj_text)} {be} {participle} by {subj_text}{tail}"


def _synonym(sent: Any, rng: random.Random) -> str | None:
    cands = [t for t in sent if t.lower_ in SYNONYMS and not t.ent_type_ and t.pos_ in SYNONYMS[t.lower_][1]]
    if not cands:
        return None
    t = rng.choice(cands)
    new = SYNONYMS[t.lower_][0]
    if t.text[0].isupper():
        new = _upper(new)
    a = t.idx - sent.start_char
    return (sent.text[:a] + new + sent.text[a + len(t.text):]).strip()


_SCALED = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?) (thousand|million|billion|trillion)\b")
_GROUPED = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){2,})(?![\w,]|\.\d)")
_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(%| percent\b| per cent\b)")


def number_variants(text: str) -> list[tuple[int, int, str]]:
    """(start, end, equivalent) for each number in ``text`` that can be written another way."""
    out = []
    for m in _SCALED.finditer(text):
        try:
            value = Decimal(m.group(1)) * (Decimal(10) ** SCALES[m.group(2)])
        except InvalidOperation:
            continue
        if value == value.to_integral_value():
            out.append((m.start(), m.end(), f"{int(value):,}"))
    for m in _GROUPED.finditer(text):
        value = Decimal(m.group(1).replace(",", ""))
        for word, exp in sorted(SCALES.items(), key=lambda kv: -kv[1]):
            scaled = value / (Decimal(10) ** exp)
            if scaled >= 1 and scaled == scaled.quantize(Decimal("0.01")):
                out.append((m.start(), m.end(), f"{scaled.normalize():f} {word}"))
                break
    for m in _PERCENT.finditer(text):
        out.append((m.start(), m.end(), m.group(1) + (" percent" if m.group(2) == "%" else "%")))
    return sorted(out)


def _number_format(sent: Any, rng: random.Random) -> str | None:
    text = _text(sent)
    variants = number_variants(text)
    if not variants:
        return None
    a, b, new = rng.choice(variants)
    return text[:a] + new + text[b:]


# --- fusion ---------------------------------------------------------------------------------------

def fusion(sent: Any, win: Any, doc: Any, rng: random.Random) -> Any:
    later = [s for s in doc.sents if s.start_char >= sent.end_char and s.end_char <= win.end
             and len(s.text.split()) >= 4 and len(s.text) < 400 and _plain(s)]
    if not later or not _plain(sent):
        return None
    other = later[0] if rng.random() < 0.6 else rng.choice(later)
    methods = ["relative", "and", "while"]
    rng.shuffle(methods)
    for m in methods:
        if m == "relative":
            new = _relative(sent, other) or _relative(other, sent)
        else:
            new = f"{_stem(_text(sent))}, {m} {_stem(_lower_start(other))}."
        if new:
            return Ex(win.text, new, "entailment", f"fusion:{m}")
    return None


def _relative(first: Any, second: Any) -> str | None:
    """``second``'s subject named in ``first`` gets ``second``'s predicate as a relative clause."""
    root = second.root
    subj = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    if len(subj) != 1 or subj[0].pos_ == "PRON" or root.pos_ not in ("VERB", "AUX"):
        return None
    sub = list(subj[0].subtree)
    if sub[0].i != second.start or sub[-1].i >= root.i or sub[-1].i - sub[0].i + 1 != len(sub):
        return None
    name = second.text[:sub[-1].idx + len(sub[-1].text) - second.start_char]
    body = _stem(second.text[sub[-1].idx + len(sub[-1].text) - second.start_char:].strip())
    text = _text(first)
    m = re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", text.lower())
    if m is None or len(body.split()) < 2:
        return None
    rel = "who" if subj[0].ent_type_ == "PERSON" else "which"
    if not text[m.end():].strip(" .!?"):
        return f"{text[:m.end()]}, {rel} {body}."
    if text[m.end():m.end() + 1] in ",;:":
        return None
    return f"{text[:m.end()]}, {rel} {body},{text[m.end():]}"


# --- mixed: a supported clause and an unsupported one ----------------------------------------------

def clause(sent: Any) -> str:
    """A sentence as the second clause of another: first letter lowered unless it starts with a name."""
    return _lower_start(sent)


def mixed(sent: Any, win: Any, windows: list[Any], sents: list[Any], pool: list[str], rng: random.Random) -> Any:
    """``pool``: sentences of other documents as :func:`clause` writes them."""
    if not _plain(sent):
        return None
    base = _stem(_text(sent))
    far = [s for s in sents if (s.end_char <= win.start or s.start_char >= win.end) and _plain(s)]
    home = sent.doc.text.lower()
    picks = rng.sample(pool, min(50, len(pool)))  # a sample: the pool can hold thousands of sentences
    sources = [("far_sentence", [_stem(_lower_start(s)) for s in far]),
               ("other_document", [_stem(p) for p in picks if p.lower() not in home])]
    rng.shuffle(sources)
    premise_words = set(re.findall(r"\w+", win.text.lower()))
    for name, cands in sources:
        cands = [c for c in cands if 4 <= len(c.split()) <= 30 and _novel(c, premise_words)]
        if not cands:
            continue
        extra = rng.choice(cands)
        connector = rng.choice(CONNECTORS)
        if rng.random() < 0.25:  # the unsupported clause first: "<unsupported>, and <supported>."
            first = _upper(extra)
            hyp = f"{first}, and {_stem(_lower_start(sent))}."
            return Ex(win.text, hyp, "neutral", f"mixed:{name}", changed=[0, len(first)])
        hyp = f"{base}{connector}{extra}."
        start = len(base) + len(connector)
        return Ex(win.text, hyp, "neutral", f"mixed:{name}", changed=[start, len(hyp) - 1])
    return None


def _novel(clause: str, premise_words: set[str]) -> bool:
    """Most of the clause's content words are absent from the premise (so it cannot be supported)."""
    words = [w for w in re.findall(r"\w+", clause.lower()) if len(w) > 3]
    return bool(words) and sum(w in premise_words for w in words) / len(words) < 0.5


# --- data-to-text -----------------------------------------------------------------------------------

def records(root: Node) -> list[tuple[Node, list[Node]]]:
    """(record, the records of its list) for every named record that has attributes to state."""
    out: list[tuple[Node, list[Node]]] = []

    def walk(node: Node, group: list[Node]) -> None:
        if node.kind == "map":
            if Verbaliser._name(node) is not None and _attributes(node):
                out.append((node, group))
            for _, _, child in node.items:
                walk(child, [child])
        elif node.kind == "list":
            maps = [x for x in node.items if x.kind == "map"]
            for x in node.items:
                walk(x, maps)

    walk(root, [root])
    return out


def _attributes(node: Node) -> list[tuple[str, Node]]:
    named = Verbaliser._name(node)
    skip = named[0] if named else None
    out = []
    for key, _, child in node.items:
        if key == skip or key.lower().startswith(("is_", "has_", "can_")):
            continue
        if child.kind == "scalar" and child.text and not isinstance(child.value, bool) and len(child.text) <= 60:
            out.append((key, child))
        elif child.kind == "list" and 0 < len(child.items) <= 5 and all(
                x.kind == "scalar" and x.text and len(x.text) <= 30 for x in child.items):
            out.append((key, child))
    return out


def _value(node: Node) -> str:
    if node.kind == "list":
        texts = [x.text for x in node.items]
        return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
    return node.text


def _predicate(key: str, value: str, node: Node) -> tuple[str, int]:
    """A predicate about the record stating ``key`` = ``value``, and where the value starts in it."""
    low, words = key.lower(), key_words(key)
    if low in VERB_KEYS:
        lead = VERB_KEYS[low] if node.kind == "scalar" else VERB_KEYS[low].split(" ")[0]
        return f"{lead} {value}", len(lead) + 1
    if node.kind == "list":
        lead = "lists "
        return f"{lead}{value} as its {words}", len(lead)
    if low in PLACE_KEYS:
        lead = "is located in "
        return f"{lead}{value}", len(lead)
    if isinstance(node.value, str) and not re.fullmatch(r"[\d.,:%$€£ -]+", value):
        lead = "has "
        return f"{lead}{value} as its {words}", len(lead)
    lead = f"has a {words} of "
    return f"{lead}{value}", len(lead)


def _statement(subject: str, preds: list[tuple[str, int]]) -> tuple[str, list[int]]:
    """``Subject p1, p2 and p3.`` and the start of each predicate's value in it."""
    text, starts = subject, []
    for i, (pred, at) in enumerate(preds):
        text += " " if i == 0 else (" and " if i == len(preds) - 1 else ", ")
        starts.append(len(text) + at)
        text += pred
    return text + ".", starts


def data_to_text(record: Node, group: list[Node], rng: random.Random, want: str | None = None) -> Any:
    """One statement about ``record`` against the verbalisation of it and up to two other records."""
    named = Verbaliser._name(record)
    attrs = _attributes(record)
    if named is None or not attrs:
        return None
    subject = named[1].text
    others = [r for r in group if r is not record]
    shown = [record, *rng.sample(others, min(2, len(others)))]
    shown.sort(key=lambda r: r.start)
    premise = "\n\n".join(verbalise(r)[0] for r in shown)
    chosen = rng.sample(attrs, min(len(attrs), rng.choice([1, 2, 2, 3])))
    preds = [_predicate(k, _value(v), v) for k, v in chosen]
    kind = want or rng.choice(["entailed", "value_swap", "added_attribute"])
    if kind == "value_swap":
        swaps = []
        for i, (key, node) in enumerate(chosen):
            if node.kind != "scalar":
                continue
            mine = {v.text.lower() for _, v in attrs}
            alts = sorted({_value(c) for r in others for k, _, c in r.items
                           if k == key and c.kind == "scalar" and c.text and c.text.lower() not in mine})
            alts = alts or [x for x in [_perturb(node, rng)] if x and x.lower() not in mine]
            if alts:
                swaps.append((i, rng.choice(alts)))
        if not swaps:
            return None
        i, new = rng.choice(swaps)
        key, node = chosen[i]
        preds[i] = _predicate(key, new, node)
        hyp, starts = _statement(subject, preds)
        return Ex(premise, hyp, "contradiction", "data_to_text:value_swap", changed=[starts[i], starts[i] + len(new)])
    if kind == "added_attribute":
        have = {k.lower() for k, _, _ in record.items}
        extra = [_predicate(k, _value(v), v)[0] for r in others for k, v in _attributes(r) if k.lower() not in have]
        extra = sorted(set(extra)) or [a for a in ADDED_ATTRIBUTES if a.split()[-1] not in premise]
        if not extra:
            return None
        added = rng.choice(extra)
        hyp, _ = _statement(subject, [*preds, (added, 0)])
        start = len(hyp) - 1 - len(added)
        return Ex(premise, hyp, "neutral", "data_to_text:added_attribute", changed=[start, len(hyp) - 1])
    hyp, _ = _statement(subject, preds)
    return Ex(premise, hyp, "entailment", "data_to_text:entailed")


def _perturb(node: Node, rng: random.Random) -> str | None:
    """Another value of the same form for a number or a time ("4.5" -> "3.5", "11:00" -> "13:00")."""
    text = node.text
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if m:
        return f"{(int(m.group(1)) + rng.choice([1, 2, 3, 5])) % 24:02d}:{m.group(2)}"
    m = re.fullmatch(r"-?\d+(\.\d+)?", text)
    if m:
        decimals = len(m.group(1)) - 1 if m.group(1) else 0
        step = rng.choice([1, 2, 3]) * (10 ** -decimals if decimals else max(1, abs(int(float(text))) // 4))
        new = float(text) + rng.choice([-1, 1]) * step
        if new < 0:
            new = float(text) + step
        return f"{new:.{decimals}f}"
    return None
