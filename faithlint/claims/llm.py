"""Claim triplets from an LLM (RefChecker's extractor), aligned back onto the draft's words.

An LLM splits a sentence into claims more freely than dependency rules (it reads the whole response, resolves
references, splits lists), but it writes its own strings. A report must underline the draft's words, so every
generated subject/predicate/object is aligned to the sentence by tokens (case- and accent-insensitive, tolerant of
small spelling differences), never searched for as text: the span runs from the first to the last matched token.

Conventions:

* the model sees the draft's sentences numbered "[1] ... [2] ..." (global ids, at most `CHUNK_SENTENCES` per
  prompt) and answers one triplet per line, ``[2] (The project, cost, $25 million)``;
* a part aligns when at least `ALIGN_FRACTION` of its content tokens (all its tokens when it has only function
  words) match a compact run of the sentence's tokens;
* subject and object must align; a predicate the model paraphrased ("is" for an apposition) gets the zero-width
  span at the object's start, like the spaCy extractor's appositions, and `Triplet.text` uses the model's words;
* a subject or object the model resolved from an earlier sentence ("The tower" for "It") keeps its span on the
  sentence's only pronoun, as the spaCy extractor does; only `Triplet.text` uses the resolved words;
* bad model output never breaks a check: what cannot be used is dropped with a one-line note. An endpoint that
  cannot be reached or answers with an HTTP error raises `ModelError`: the user configured a server that is down.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from faithlint.claims.base import Extraction, Span, Triplet
from faithlint.claims.triplets import as_sentence
from faithlint.errors import FaithlintError
from faithlint.models.generation import (  # the backends moved there; re-exported for existing imports
    EndpointGenerator,
    GenerationError,
    Generator,
    HFGenerator,
    _chat_inputs,
    _content,
    _error_detail,
    _one_line,
    _plain_chat,
    _quote,
    make_generator,
)

__all__ = [
    "EndpointGenerator",
    "GenerationError",
    "Generator",
    "HFGenerator",
    "LLMTripletExtractor",
    "_chat_inputs",
    "_content",
    "_error_detail",
    "_one_line",
    "_plain_chat",
    "llm_extractor",
]

# RefChecker's triplet-extraction prompt, adapted to numbered sentences and one tagged triplet per line.
SYSTEM_PROMPT = (
    "Given a text whose sentences are numbered [1], [2], ..., extract a knowledge graph from it: knowledge "
    "triplets (subject, predicate, object).\n"
    "Rules:\n"
    "- Write one triplet per line, starting with the number of its sentence: [n] (subject, predicate, object)\n"
    "- Each triplet is short and atomic: one claim. The subject and the object are short noun phrases (names, "
    "numbers, dates); the predicate is a short verb phrase.\n"
    "- Copy the words of the sentence. Only extract what the text states; do not add knowledge.\n"
    "- Extract every claim of every sentence, and write nothing else."
)
EXAMPLE_TEXT = (
    "[1] The Eiffel Tower, a landmark in Paris, was completed in 1889.\n"
    "[2] It is 330 metres tall and was designed by Gustave Eiffel's company."
)
EXAMPLE_TRIPLETS = (
    "[1] (The Eiffel Tower, is, a landmark in Paris)\n"
    "[1] (The Eiffel Tower, was completed in, 1889)\n"
    "[2] (It, is, 330 metres tall)\n"
    "[2] (It, was designed by, Gustave Eiffel's company)"
)
CHUNK_SENTENCES = 8  # sentences per prompt: a 135M model loses the format on long prompts
CHUNK_CHARS = 1500
ALIGN_FRACTION = 2 / 3  # share of a part's content tokens that must match the sentence
FUZZY_CUTOFF = 0.8  # difflib ratio at which a generated token counts as a sentence token ("costs" ~ "cost")

# CJK ideographs and kana one by one (no spaces between words), other words whole, any other grapheme alone.
_TOKEN = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}\p{M}_]+|(?!\s)\X")
_WORDLIKE = regex.compile(r"[\p{L}\p{N}]")
_LINE = re.compile(r"^\W*?(?:sentence\s*)?\[?\s*(\d+)\s*\]?\s*[:.)-]?\s*(.*)$", re.IGNORECASE)
_QUOTED = re.compile(r"""^\(?\s*["'](.*?)["']\s*,\s*["'](.*?)["']\s*,\s*["'](.*?)["']\s*\)?\W*$""")
_FUNCTION_WORDS = frozenset(
    "a an the of in on at to for by with from as and or but is are was were be been being has have had do does did "
    "will would can could may might shall should must it its he she they him her them his their this that these "
    "those there".split()
)
_AUXILIARIES = frozenset("is are was were be been has have had do does did will would can could".split())
_PRONOUNS = frozenset("he she it they him her them".split())
_DETERMINERS = frozenset("the a an".split())


# ---------------------------------------------------------------------------------------------------- alignment
@dataclass(frozen=True)
class _Tok:
    key: str
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(_key(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _key(token: str) -> str:
    """Comparison form: case-folded, accents stripped ("Café" ~ "cafe"), compatibility forms folded."""
    decomposed = unicodedata.normalize("NFKD", token.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)) or token


def _is_content(key: str) -> bool:
    return key not in _FUNCTION_WORDS and bool(_WORDLIKE.search(key))


def _snap(part: list[str], vocabulary: list[str]) -> list[str]:
    """Replace a generated token missing from the sentence by its closest sentence token, if close enough."""
    known = set(vocabulary)
    out = []
    for key in part:
        if key not in known and len(key) > 3:
            close = difflib.get_close_matches(key, known, n=1, cutoff=FUZZY_CUTOFF)
            key = close[0] if close else key
        out.append(key)
    return out


def _match(sentence: list[_Tok], query: list[str]) -> dict[int, int]:
    """Query token index -> sentence token index, for the matches that lie in one compact run of the sentence."""
    keys = [t.key for t in sentence]
    blocks = [b for b in difflib.SequenceMatcher(None, keys, query, autojunk=False).get_matching_blocks() if b.size]
    reach = 2 * len(query) + 2  # widest run of sentence tokens the query may cover
    kept: list[Any] = []
    for b in sorted(blocks, key=lambda b: -b.size):
        lo = min([b.a] + [k.a for k in kept])
        hi = max([b.a + b.size] + [k.a + k.size for k in kept])
        if hi - lo <= reach:
            kept.append(b)
    return {b.b + i: b.a + i for b in kept for i in range(b.size)}


def _span(sentence: list[_Tok], part: list[str], matched: dict[int, int]) -> Span | None:
    """The span from the first to the last matched content token, when enough matched in a compact run.

    Function words count only where they stand next to the content words: "the" in "the river" must not reach
    back to the sentence's first "The"."""
    content = [i for i, k in enumerate(part) if _is_content(k)] or list(range(len(part)))
    hits = [i for i in content if i in matched]
    if not hits or len(hits) < ALIGN_FRACTION * len(content):
        return None
    lo, hi = min(matched[i] for i in hits), max(matched[i] for i in hits)
    if hi - lo >= 2 * len(part) + 2:
        return None
    for key in reversed(part[: hits[0]]):  # leading "the", "$", "of" ... right before the first content word
        if lo == 0 or sentence[lo - 1].key != key:
            break
        lo -= 1
    for key in part[hits[-1] + 1 :]:
        if hi + 1 == len(sentence) or sentence[hi + 1].key != key:
            break
        hi += 1
    return Span(sentence[lo].start, sentence[hi].end)


def _align(sentence: list[_Tok], parts: Sequence[str]) -> list[Span | None]:
    """Each part's span in the sentence, or None. The parts are first aligned together, so that a word the
    sentence repeats is matched where the neighbouring parts are; a part that fails there is aligned alone
    (a passive or reordered triplet)."""
    if not sentence:
        return [None] * len(parts)
    vocabulary = [t.key for t in sentence]
    keys = [_snap([t.key for t in _tokens(p)], vocabulary) for p in parts]
    joint = _match(sentence, [k for part in keys for k in part])
    out: list[Span | None] = []
    offset = 0
    for part in keys:
        mine = {q - offset: a for q, a in joint.items() if offset <= q < offset + len(part)}
        span = _span(sentence, part, mine) if part else None
        out.append(span or (_span(sentence, part, _match(sentence, part)) if part else None))
        offset += len(part)
    return out


def _pronoun(sentence: list[_Tok]) -> Span | None:
    """The span of the sentence's only personal pronoun, if it has exactly one."""
    found = [t for t in sentence if t.key in _PRONOUNS]
    return Span(found[0].start, found[0].end) if len(found) == 1 else None


# ---------------------------------------------------------------------------------------------------- parsing
def parse_line(line: str) -> list[tuple[int, str, str, str]]:
    """``[2] (The project, cost, $25 million)`` -> [(2, subject, predicate, object)]; [] when it does not parse.

    Small models chain two claims on one subject, ``(The project, cost, $25 million, and employed, 300 workers)``:
    that line gives both triplets."""
    m = _LINE.match(line.strip())
    if not m:
        return []
    body = m.group(2).strip()
    quoted = _QUOTED.match(body)
    if quoted:
        groups = [list(quoted.groups())]
    else:
        body = body.removeprefix("(").rstrip(" .;").removesuffix(")")
        groups = _split_parts(body)
    sid = int(m.group(1))
    out = []
    for parts in groups:
        subj, pred, obj = (p.strip().strip("\"'`*").strip() for p in parts)
        out.append((sid, subj, pred, obj))
    return out


def _split_parts(body: str) -> list[list[str]]:
    """Split on "|" or ";" when that gives three parts, else on ", " (not "1,000").

    Extra parts: a lone auxiliary joins a next part that is no noun phrase ("was, designed by" -> "was designed
    by"), a second "and" predicate starts a second triplet on the same subject, anything else stays in the object
    ("Paris, France")."""
    for sep in ("|", ";"):
        parts = body.split(sep)
        if len(parts) == 3:
            return [parts]
    parts = [p.strip() for p in re.split(r"\s*,\s+|\s*,(?=\D)", body)]
    if len(parts) > 3 and parts[1].lower() in _AUXILIARIES and parts[2].split()[0].lower() not in _DETERMINERS:
        parts = [parts[0], f"{parts[1]} {parts[2]}", *parts[3:]]
    if len(parts) == 5 and parts[3].lower().startswith("and "):
        return [parts[:3], [parts[0], parts[3][4:], parts[4]]]
    if len(parts) < 3:
        return []
    return [parts[:2] + [", ".join(parts[2:])]]


# ---------------------------------------------------------------------------------------------------- extractor
class LLMTripletExtractor:
    """RefChecker-style claim triplets from an LLM, each part aligned to the draft sentence's words."""

    name = "llm"

    def __init__(self, generator: Generator, *, max_new_tokens: int = 64) -> None:
        """`max_new_tokens`: answer budget per sentence; a prompt of n sentences may generate n times this."""
        self.generator = generator
        self.max_new_tokens = max_new_tokens

    def extract_sentences(self, sentences: Sequence[str]) -> Extraction:
        """Each sentence's triplets; the model sees up to `CHUNK_SENTENCES` sentences at once, with global ids."""
        draft = _Draft([s if isinstance(s, str) else "" for s in sentences])
        for ids in _chunks(draft.sentences):
            span = f"sentences {ids[0] + 1}-{ids[-1] + 1}"
            try:
                answer = self.generator.chat(self.messages(draft.sentences, ids), self.max_new_tokens * len(ids))
            except FaithlintError:
                raise
            except Exception as exc:  # a model failing on one prompt must not break the whole check
                draft.note(f"{span}: generation failed: {_one_line(exc)}")
                continue
            if not draft.read(answer, ids):
                draft.note(f"{span}: no triplet line in the answer {_quote(answer)}")
        return Extraction(draft.triplets, list(dict.fromkeys(draft.notes)))  # a looping model repeats itself

    @staticmethod
    def messages(sentences: Sequence[str], ids: Sequence[int]) -> list[dict[str, str]]:
        """The chat: rules, one worked example, then the numbered sentences (ids 1-based, global)."""
        text = "\n".join(f"[{i + 1}] {' '.join(sentences[i].split())}" for i in ids)
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": EXAMPLE_TEXT},
            {"role": "assistant", "content": EXAMPLE_TRIPLETS},
            {"role": "user", "content": text},
        ]


@dataclass
class _Draft:
    """One extraction's sentences, their tokens, and what the answers added so far."""

    sentences: list[str]
    tokens: list[list[_Tok]] = field(init=False)
    triplets: list[list[Triplet]] = field(init=False)
    notes: list[str] = field(default_factory=list)
    seen: set[tuple[int, Span, Span, Span]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.tokens = [_tokens(s) for s in self.sentences]
        self.triplets = [[] for _ in self.sentences]

    def note(self, text: str) -> None:
        self.notes.append(f"llm extractor: {text}")

    def read(self, answer: str, ids: Sequence[int]) -> int:
        """Add the answer's usable triplets for sentences `ids`; returns how many triplets parsed."""
        parsed = 0
        for line in answer.splitlines():
            for sid, subj, pred, obj in parse_line(line):
                parsed += 1
                if sid - 1 not in ids:
                    self.note(f"unknown sentence id {sid} in {_quote(line)}")
                else:
                    self.add(sid - 1, subj, pred, obj)
        return parsed

    def add(self, i: int, subj: str, pred: str, obj: str) -> None:
        triplet, why = _triplet(self.sentences, self.tokens, i, subj, pred, obj)
        if triplet is None:
            self.note(f"sentence {i + 1}: {why}")
            return
        key = (i, triplet.subject, triplet.predicate, triplet.object)
        if key not in self.seen:
            self.seen.add(key)
            self.triplets[i].append(triplet)


def _chunks(sentences: Sequence[str]) -> Iterator[list[int]]:
    """Indices of the non-empty sentences, at most `CHUNK_SENTENCES` (and about `CHUNK_CHARS`) per prompt."""
    chunk: list[int] = []
    size = 0
    for i, s in enumerate(sentences):
        if not s.strip():
            continue
        if chunk and (len(chunk) >= CHUNK_SENTENCES or size + len(s) > CHUNK_CHARS):
            yield chunk
            chunk, size = [], 0
        chunk.append(i)
        size += len(s)
    if chunk:
        yield chunk


def _triplet(sentences: Sequence[str], tokens: list[list[_Tok]], i: int, subj: str, pred: str, obj: str
             ) -> tuple[Triplet | None, str]:
    """The triplet with its parts aligned to sentence `i`, or (None, why it was dropped)."""
    parts = {"subject": subj, "predicate": pred, "object": obj}
    for label, part in parts.items():
        if not _tokens(part):
            return None, _one_line(f"empty {label} in ({subj}, {pred}, {obj})")
    sent = sentences[i]
    spans = dict(zip(parts, _align(tokens[i], list(parts.values()))))
    words = {label: sent[s.start : s.end] for label, s in spans.items() if s is not None}
    for label in ("subject", "object"):
        if spans[label] is None:  # a reference the model resolved: underline the pronoun, say the referent
            spans[label] = _pronoun(tokens[i]) if _mentioned_before(tokens, i, parts[label]) else None
            words[label] = parts[label]
        if spans[label] is None:
            return None, f"could not align {label} {_quote(parts[label])}"
    obj_span, subj_span, pred_span = spans["object"], spans["subject"], spans["predicate"]
    assert obj_span is not None and subj_span is not None  # aligned above, or returned
    if obj_span == subj_span:
        return None, f"subject and object are the same words in {_quote(f'({subj}, {pred}, {obj})')}"
    if pred_span is None:  # paraphrased ("is" for an apposition): zero-width, the model's words
        pred_span, words["predicate"] = Span(obj_span.start, obj_span.start), pred
    obj_words = _lower_determiner(words["object"]) if obj_span.start == 0 else words["object"]
    text = as_sentence([words["subject"], words["predicate"], obj_words])
    return Triplet(subj_span, pred_span, obj_span, text), ""


def _mentioned_before(tokens: list[list[_Tok]], i: int, part: str) -> bool:
    """A resolved reference must name something one of the three sentences before says."""
    return any(_align(tokens[j], [part])[0] is not None for j in range(max(0, i - 3), i))


def _lower_determiner(words: str) -> str:
    """A sentence-initial "The prize" reads "the prize" as an object; "The Times" elsewhere keeps its capital."""
    first, _, rest = words.partition(" ")
    return f"{first.lower()} {rest}" if rest and first.lower() in _DETERMINERS and first.istitle() else words


# ---------------------------------------------------------------------------------------------------- factory
def llm_extractor(model: str | None = None, device: str = "auto", endpoint: str | None = None,
                  endpoint_model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                  max_new_tokens: int = 64) -> LLMTripletExtractor:
    """The endpoint backend when `endpoint` is set, else a local Hugging Face model (default SmolLM2)."""
    generator = make_generator(model, device, endpoint, endpoint_model, api_key_env)
    return LLMTripletExtractor(generator, max_new_tokens=max_new_tokens)
