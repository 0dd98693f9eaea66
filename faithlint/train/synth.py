"""Synthetic faithful and hallucinated sentences made from real context passages.

In the style of FactCC and "On a scale from 1 to 5": a window of a document is
the premise; hypotheses are entailed (verbatim, details dropped, two sentences
fused), intrinsic hallucinations (an entity, number or date swapped for another
of the same type *from the same document*, negation, antonym, role swap) or
extrinsic ones (a clause from another document, an unverifiable detail, a
far-away sentence of the same document, the right sentence against the wrong
window). Each example records the changed character span so a token-level
head can learn to mark it. With ``kinds`` (``faithlint synth --kinds``) it also
makes paraphrases, fusions, data-to-text statements from JSON/YAML/CSV records
and mixed supported/unsupported answers (:mod:`faithlint.train.synth_kinds`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from faithlint.document.sentences import Span
from faithlint.evidence.windows import build_windows
from faithlint.train.example import Example

SWAPPABLE = {"PERSON", "ORG", "GPE", "LOC", "NORP", "DATE", "TIME", "CARDINAL", "MONEY",
             "PERCENT", "QUANTITY", "ORDINAL", "EVENT", "FAC", "PRODUCT", "WORK_OF_ART"}
ANTONYMS = {
    "increase": "decrease", "increased": "decreased", "rise": "fall", "rose": "fell",
    "higher": "lower", "more": "less", "before": "after", "won": "lost", "win": "lose",
    "gain": "loss", "gained": "lost", "up": "down", "first": "last", "largest": "smallest",
    "accepted": "rejected", "agreed": "refused", "strong": "weak", "positive": "negative",
    "open": "closed", "early": "late", "earlier": "later", "approved": "denied", "best": "worst",
    "able": "unable", "likely": "unlikely", "always": "never", "high": "low", "many": "few",
    "expensive": "cheap", "younger": "older", "new": "old", "easy": "hard", "above": "below",
    "supports": "opposes", "support": "oppose", "buy": "sell", "bought": "sold", "start": "end",
    "started": "ended", "include": "exclude", "includes": "excludes", "like": "dislike",
    "liked": "disliked", "happy": "unhappy", "success": "failure", "successful": "unsuccessful",
}
ANTONYMS.update({v: k for k, v in list(ANTONYMS.items())})
DETAILS = [
    "according to a report published in {date}", "for the first time in its history",
    "after a vote of the board", "despite strong objections from {org}", "in {gpe}",
    "with the help of {person}", "at a cost of {money}", "in an effort to cut costs",
    "following a review by {org}", "as part of a {money} deal", "on {date}",
    "which was later confirmed by {person}", "to widespread criticism",
]
FALLBACK = {"date": "2019", "org": "the government", "gpe": "Canada", "person": "a spokesman",
            "money": "$2 million"}
AUX = {"is", "was", "are", "were", "has", "have", "had", "can", "will", "would", "could",
       "should", "does", "did", "do", "may", "might", "must"}
LABELS = ("entailment", "neutral", "contradiction")
# kinds of examples ``faithlint synth --kinds`` can make (faithlint.train.synth_kinds has the last four)
KINDS = ("entailed", "intrinsic", "extrinsic", "paraphrase", "fusion", "data_to_text", "mixed")


def _num_variant(text: str, rng: random.Random) -> tuple[str, int, int] | None:
    m = list(re.finditer(r"\d+(?:[.,]\d+)*", text))
    if not m:
        return None
    t = rng.choice(m)
    raw = t.group(0)
    digits = raw.replace(",", "")
    try:
        val = float(digits)
    except ValueError:
        return None
    if 1900 <= val <= 2100 and "." not in digits:
        new = str(int(val) + rng.choice([-3, -2, -1, 1, 2, 5]))
    elif "." in digits:
        new = f"{val * rng.choice([0.5, 1.5, 2, 3]) + rng.choice([0.1, 0.3]):.{len(digits.split('.')[1])}f}"
    else:
        iv = int(val)
        new = str(rng.choice([iv + rng.randint(1, 9), iv * 2 + 1, max(0, iv - rng.randint(1, 5)) or iv + 3,
                              iv * 10]))
        if "," in raw and len(new) > 3:
            new = f"{int(new):,}"
    if new == raw:
        return None
    return text[:t.start()] + new + text[t.end():], t.start(), t.start() + len(new)


def _replace(text: str, start: int, end: int, new: str) -> tuple[str, list[int]]:
    return text[:start] + new + text[end:], [start, start + len(new)]


class Synthesizer:
    """Turns spaCy-parsed documents into labelled (window, sentence) pairs."""

    def __init__(self, count_tokens, max_length: int = 192, overlap: int = 32,
                 seed: int = 13, token_offsets=None, paired: float = 0.0,
                 budgets: Sequence[int] | None = None, kinds: Sequence[str] | None = None) -> None:
        self.count_tokens = count_tokens
        self.max_length = max_length
        # Minimal pairs: with this probability a hallucinated hypothesis comes with its
        # untouched original against the same window, so that "long window, near-copy"
        # alone never predicts contradiction (the model must find the changed span).
        self.paired = paired
        # Window budgets to draw from per document; default: one budget for a typical sentence.
        self.budgets = list(budgets) if budgets else [max(48, max_length - 3 - 48)]
        self.overlap = overlap
        self.rng = random.Random(seed)
        self.token_offsets = token_offsets
        # Which kinds to make (see KINDS); None: v0.1's mix of entailed/intrinsic/extrinsic, unchanged.
        if kinds is not None and (not kinds or set(kinds) - set(KINDS)):
            raise ValueError(f"unknown kinds {sorted(set(kinds) - set(KINDS))}; expected some of {', '.join(KINDS)}")
        self.kinds = None if kinds is None else [k for k in KINDS if k in kinds]
        self.pool: list[str] = []  # sentences of other documents, for extrinsic clauses
        self.clauses: list[str] = []  # the same, first letter lowered unless a name (synth_kinds.mixed)
        self.ent_pool: dict[str, list[str]] = {}

    def remember(self, doc: Any) -> None:
        for s in doc.sents:
            t = s.text.strip()
            if 6 <= len(t.split()) <= 30:
                self.pool.append(t)
                if self.kinds is not None and "mixed" in self.kinds:
                    from faithlint.train.synth_kinds import clause

                    self.clauses.append(clause(s))
        for e in doc.ents:
            self.ent_pool.setdefault(e.label_, []).append(e.text)
        if len(self.pool) > 20000:
            self.pool = self.pool[-10000:]
        if len(self.clauses) > 20000:
            self.clauses = self.clauses[-10000:]

    def examples(self, doc: Any, doc_id: str, per_doc: int = 8) -> list[Example]:
        rng = self.rng
        sents = [s for s in doc.sents if len(s.text.split()) >= 5 and len(s.text) < 600]
        if len(sents) < 2:
            return []
        text = doc.text
        spans = [Span(s.start_char, s.end_char) for s in doc.sents]
        counts = self.count_tokens([text[s.start:s.end] for s in spans])
        ents_by_type: dict[str, set[str]] = {}
        for e in doc.ents:
            if e.label_ in SWAPPABLE:
                ents_by_type.setdefault(e.label_, set()).add(e.text)
        budget = rng.choice(self.budgets)
        windows = build_windows(doc_id, text, spans, counts, budget, self.overlap, self.token_offsets)
        if not windows:
            return []
        out: list[Example] = []
        for _ in range(per_doc):
            sent = rng.choice(sents)
            home = [w for w in windows if w.start <= sent.start_char and sent.end_char <= w.end]
            if not home:
                continue
            win = rng.choice(home)
            r = rng.random()
            ex: Example | None
            if self.kinds is not None:
                ex = self._chosen_kind(sent, win, doc, windows, sents, ents_by_type)
            elif r < 0.38:
                ex = self._entailed(sent, win, doc)
            elif r < 0.72:
                ex = self._intrinsic(sent, win, ents_by_type)
            else:
                ex = self._extrinsic(sent, win, windows, sents)
            if ex is not None and ex.hypothesis.strip():
                ex.doc_id = doc_id
                out.append(ex)
                if ex.label != "entailment" and self.paired and rng.random() < self.paired:
                    out.append(Example(win.text, sent.text.strip(), "entailment", "minimal_pair", doc_id))
        return out

    def _chosen_kind(self, sent, win, doc, windows, sents, ents_by_type) -> Example | None:
        """One example of a kind drawn from ``self.kinds`` (another kind when the sentence does not suit it)."""
        from faithlint.train import synth_kinds as sk

        rng = self.rng
        prose = [k for k in self.kinds or () if k != "data_to_text"]
        for kind in rng.sample(prose, len(prose))[:3]:
            if kind == "entailed":
                ex = self._entailed(sent, win, doc)
            elif kind == "intrinsic":
                ex = self._intrinsic(sent, win, ents_by_type)
            elif kind == "extrinsic":
                ex = self._extrinsic(sent, win, windows, sents)
            elif kind == "paraphrase":
                ex = sk.paraphrase(sent, win, rng)
            elif kind == "fusion":
                ex = sk.fusion(sent, win, doc, rng)
            else:
                ex = sk.mixed(sent, win, windows, sents, self.clauses, rng)
            if ex is not None:
                return ex
        return None

    def record_examples(self, root: Any, doc_id: str, per_doc: int = 8) -> list[Example]:
        """``data_to_text`` examples from a parsed JSON/YAML/CSV document (:mod:`faithlint.inputs.structured`)."""
        from faithlint.train import synth_kinds as sk

        if self.kinds is None or "data_to_text" not in self.kinds:
            return []
        found = sk.records(root)
        out: list[Example] = []
        for _ in range(per_doc if found else 0):
            record, group = self.rng.choice(found)
            ex = sk.data_to_text(record, group, self.rng)
            if ex is not None:
                ex.doc_id = doc_id
                out.append(ex)
        return out

    # entailed: not just verbatim copies, so word overlap is no shortcut
    def _entailed(self, sent, win, doc) -> Example | None:
        rng = self.rng
        r = rng.random()
        hyp = sent.text.strip()
        kind = "verbatim"
        if r < 0.45:
            dropped = self._drop_detail(sent)
            if dropped:
                hyp, kind = dropped, "drop_detail"
        elif r < 0.7:
            nxt = [s for s in doc.sents if s.start_char >= sent.end_char and s.end_char <= win.end]
            if nxt and len(nxt[0].text.split()) >= 4:
                second = nxt[0].text.strip()
                hyp = hyp.rstrip(".!? ") + ", and " + _lower_first(second)
                kind = "fusion"
        elif r < 0.8:
            parts = re.split(r",\s+(?:and|but)\s+", hyp, maxsplit=1)
            if len(parts) == 2 and len(parts[1].split()) >= 4:
                hyp = _upper_first(parts[1].rstrip(".")) + "."
                kind = "split"
        return Example(win.text, hyp, "entailment", kind)

    def _drop_detail(self, sent) -> str | None:
        cands = [t for t in sent if t.dep_ in {"prep", "advcl", "appos", "relcl", "amod", "advmod",
                                               "npadvmod", "acl"} and t.head != t]
        self.rng.shuffle(cands)
        for tok in cands:
            sub = list(tok.subtree)
            a, b = sub[0].idx, sub[-1].idx + len(sub[-1].text)
            if sub[-1].i - sub[0].i + 1 != len(sub):
                continue
            s0 = sent.start_char
            text = sent.text
            rel_a, rel_b = a - s0, b - s0
            if rel_a <= 0 or (rel_b - rel_a) > 0.6 * len(text):
                continue
            new = (text[:rel_a].rstrip(" ,") + " " + text[rel_b:].lstrip(" ,")).strip()
            new = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", new))
            if len(new.split()) >= 4 and new != text:
                return new
        return None

    def _intrinsic(self, sent, win, ents_by_type) -> Example | None:
        rng = self.rng
        text = sent.text
        s0 = sent.start_char
        methods = ["entity", "entity", "number", "negation", "antonym", "roles"]
        rng.shuffle(methods)
        for m in methods:
            if m == "entity":
                ents = [e for e in sent.ents if e.label_ in SWAPPABLE]
                rng.shuffle(ents)
                for e in ents:
                    others = [o for o in ents_by_type.get(e.label_, ()) if o.lower() != e.text.lower()
                              and o.lower() not in e.text.lower() and e.text.lower() not in o.lower()
                              and o not in win.text]
                    if not others:
                        others = [o for o in ents_by_type.get(e.label_, ()) if o.lower() != e.text.lower()
                                  and o.lower() not in text.lower()]
                    if others:
                        new, ch = _replace(text, e.start_char - s0, e.end_char - s0, rng.choice(sorted(others)))
                        return Example(win.text, new.strip(), "contradiction", "swap_" + e.label_.lower(), changed=ch)
            elif m == "number":
                v = _num_variant(text, rng)
                if v:
                    return Example(win.text, v[0].strip(), "contradiction", "swap_number", changed=[v[1], v[2]])
            elif m == "negation":
                for t in sent:
                    if t.lower_ in {"not", "n't", "never"}:
                        a, b = t.idx - s0, t.idx - s0 + len(t.text)
                        new = text[:a].rstrip() + ("" if t.text == "n't" else " ") + text[b:].lstrip()
                        return Example(win.text, new.strip(), "contradiction", "negation", changed=[max(0, a - 1), a])
                for t in sent:
                    if t.lower_ in AUX and t.dep_ in {"aux", "auxpass", "ROOT", "cop"}:
                        a = t.idx - s0 + len(t.text)
                        new, ch = _replace(text, a, a, " not")
                        return Example(win.text, new.strip(), "contradiction", "negation", changed=ch)
            elif m == "antonym":
                for t in sent:
                    if t.lower_ in ANTONYMS and not t.ent_type_ and t.pos_ != "PROPN":
                        ant = ANTONYMS[t.lower_]
                        if t.text[0].isupper():
                            ant = ant.capitalize()
                        a = t.idx - s0
                        new, ch = _replace(text, a, a + len(t.text), ant)
                        return Example(win.text, new.strip(), "contradiction", "antonym", changed=ch)
            elif m == "roles":
                people = [e for e in sent.ents if e.label_ in {"PERSON", "ORG", "GPE"}]
                if len(people) >= 2 and people[0].text != people[1].text:
                    x, y = people[0], people[1]
                    new = (text[:x.start_char - s0] + y.text + text[x.end_char - s0:y.start_char - s0]
                           + x.text + text[y.end_char - s0:])
                    return Example(win.text, new.strip(), "contradiction", "role_swap",
                                   changed=[x.start_char - s0, y.end_char - s0])
        return None

    def _extrinsic(self, sent, win, windows, sents) -> Example | None:
        rng = self.rng
        base = sent.text.strip()
        r = rng.random()
        if r < 0.3 and self.pool:
            other = rng.choice(self.pool)
            joined = base.rstrip(".!? ") + ", and " + _lower_first(other.rstrip(".!? ")) + "."
            return Example(win.text, joined, "neutral", "foreign_clause",
                           changed=[len(base.rstrip(".!? ")) + 6, len(joined) - 1])
        if r < 0.55:
            tmpl = rng.choice(DETAILS)
            fill = {k: self._pool_entity(k) for k in FALLBACK}
            detail = tmpl.format(**fill)
            stem = base.rstrip(".!? ")
            new = stem + " " + detail + "."
            return Example(win.text, new, "neutral", "added_detail", changed=[len(stem) + 1, len(new) - 1])
        if r < 0.8:
            far = [w for w in windows if w.end <= win.start or w.start >= win.end]
            if far:
                return Example(rng.choice(far).text, base, "neutral", "wrong_window")
        far_sents = [s for s in sents if s.end_char <= win.start or s.start_char >= win.end]
        if far_sents:
            return Example(win.text, rng.choice(far_sents).text.strip(), "neutral", "far_sentence")
        return None

    def _pool_entity(self, key: str) -> str:
        label = {"date": "DATE", "org": "ORG", "gpe": "GPE", "person": "PERSON", "money": "MONEY"}[key]
        pool = self.ent_pool.get(label)
        return self.rng.choice(pool) if pool else FALLBACK[key]


def _lower_first(s: str) -> str:
    if len(s) > 1 and s[0].isupper() and not s[1].isupper() and s.split()[0] not in {"I"}:
        return s[0].lower() + s[1:]
    return s


def _upper_first(s: str) -> str:
    return s[:1].upper() + s[1:]


def make_examples(texts: Sequence[tuple[str, str]], nlp: Any, synth: Synthesizer,
                  per_doc: int = 8, structured: Sequence[tuple[str, Any]] = ()) -> list[Example]:
    """Parse (doc_id, text) pairs and return their synthetic examples; ``structured`` holds (doc_id,
    parsed JSON/YAML/CSV root) pairs for ``data_to_text`` examples (their text can be in ``texts`` too)."""
    out: list[Example] = []
    docs = list(nlp.pipe((t for _, t in texts), batch_size=16))
    for d in docs:  # fill the cross-document pools first
        synth.remember(d)
    for (doc_id, _), d in zip(texts, docs):
        out.extend(synth.examples(d, doc_id, per_doc))
    for doc_id, root in structured:
        out.extend(synth.record_examples(root, doc_id, per_doc))
    return out
