"""What a rule is: one object with its metadata and how it turns a judged unit into findings.

A rule never loads models or reads files: the linter hands it the unit (a sentence today, a claim
next), the checker's verdict with its evidence, and a :class:`RuleContext` with the settings, the
operating point and the shared, cached helpers (evidence quoting, value matching).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from cachetools import LRUCache, cached

from faithlint.document.review_talk import holds_reviews, reports_reviews
from faithlint.rules.common_ground import common_ground
from faithlint.rules.fix import Corrector
from faithlint.rules.operating_point import OperatingPoint, Threshold, claim_code, sentence_code
from faithlint.rules.record_gaps import says_record_lacks
from faithlint.rules.sentence_fixes import SENTENCE_FIXES
from faithlint.types import ContextDoc, Finding, FindingData, SentenceResult

if TYPE_CHECKING:
    from faithlint.config import Config
    from faithlint.document.units import Unit

DOCS_URL = "https://github.com/faithlint/faithlint/blob/main/docs/rules.md"  # anchors: #fl100 ...


@dataclass(frozen=True)
class RuleExample:
    """A context and a draft that trigger the rule (``settings``: what it needs, e.g. ``unit = "claim"``);
    shown by ``faithlint rule CODE`` and docs/rules.md, and checked against the bundled model by the tests."""

    context: str
    draft: str
    settings: dict[str, Any] = field(default_factory=dict)
    context_file: str = ""  # the context is this file's content ("place.json": a record, verbalised)


@dataclass
class Judged:
    """One unit with the checker's verdict on it."""

    unit: Unit
    result: SentenceResult
    quote_fn: Callable[[], str] = field(repr=False, default=lambda: "")
    conflicts: list[Any] | None = field(default=None, repr=False)  # a claim's value conflicts, once computed

    @cached_property
    def quote(self) -> str:
        """The evidence sentence closest in wording to the unit (quoted in messages)."""
        return self.quote_fn() if self.result.evidence else ""

    @property
    def probs(self) -> dict[str, float]:
        return self.result.probs


def flat(texts: Iterable[str]) -> str:
    """Texts joined, casefolded and single-spaced: what :meth:`RuleContext.in_context` searches."""
    return " ".join(" ".join(texts).split()).casefold()


@cached(LRUCache(16), lock=threading.Lock())
def _values_of(text: str) -> frozenset[str]:
    """Normalised non-name values of ``text`` (regex extraction: ~0.5 s for 10,000 words, once per text)."""
    from faithlint.rules.values.extraction import _analyse

    return frozenset(it.value.norm for it in _analyse(text, None).items if it.value.kind != "entity")


_WORDS = re.compile(r"[^\W_]+")


@cached(LRUCache(16), lock=threading.Lock())
def _words_of(text: str) -> frozenset[str]:
    """The casefolded words of ``text``, once per text: a name all of whose words the context has."""
    return frozenset(w.casefold() for w in _WORDS.findall(text))


def _word_char(c: str) -> bool:
    """What ``re``'s ``\\w`` matches (str patterns)."""
    return c.isalnum() or c == "_"


@dataclass
class RuleContext:
    """What rules may use: settings, the operating point (every rule's threshold) and the linter's cached
    helpers."""

    config: Config
    point: OperatingPoint
    mismatches: Callable[[str, list[str]], list[Any]]  # FL400 value matching, cached by the linter
    context: Sequence[ContextDoc] = ()  # the whole context: FL400 names no value that it says word for word

    @cached_property
    def context_values(self) -> frozenset[str]:
        """The normalised values (numbers, amounts, dates, times, quantities) the whole context states in any form
        ("twelve percent" and "12%" are one), for FL400: read by the regex extractor, cached per context text.
        Matching a sentence's values against the whole context the way they are matched against its evidence
        cost ~0.2 s a sentence on a 10,000-word context."""
        return frozenset().union(*(_values_of(doc.text) for doc in self.context))

    @cached_property
    def context_words(self) -> frozenset[str]:
        """The casefolded words of the whole context, for FL400: a name whose every word the context has
        ("Duke Blue Devils" beside "Duke" and "the Blue Devils") is one of its names, put together."""
        return frozenset().union(*(_words_of(doc.text) for doc in self.context))

    def names_in_context(self, name: str) -> bool:
        """Every word of ``name`` is a word of the whole context (case aside)."""
        words = [w.casefold() for w in _WORDS.findall(name)]
        return bool(words) and all(w in self.context_words for w in words)

    @cached_property
    def _context_text(self) -> str:
        """:func:`flat` of the whole context, made on the first :meth:`in_context` (most drafts need none)."""
        return flat(doc.text for doc in self.context)

    def in_context(self, value: str) -> bool:
        """``value`` appears word for word (case and spacing aside) somewhere in the whole context.

        As whole words: "12" is not in "2012", nor "five" in "fivefold" (``\\w`` is ``isalnum()`` or ``_``). A
        substring search, then the two neighbouring characters: a regex over a long context cost ~1 ms a value,
        and an editor's check asks for every value of every sentence (issue 41: long-draft edits)."""
        words = flat([value])
        text = self._context_text
        i = text.find(words) if words else -1
        while i >= 0:
            j = i + len(words)
            if not (i and _word_char(text[i - 1])) and not (j < len(text) and _word_char(text[j])):
                return True
            i = text.find(words, i + 1)
        return False

    def enabled(self, code: str) -> bool:
        return self.config.rule_enabled(code)

    def threshold(self, code: str) -> float:
        """``code``'s threshold at this operating point."""
        return self.point[code]

    def verdict_code(self, judged: Judged) -> str | None:
        """The sentence-level rule (FL100/FL200/FL300) the verdict triggers at the operating point.

        A contradiction needs common ground with the evidence that decided it (``common_ground``); a
        "contradicted" sentence that shares no content word with it is judged by its entailment alone. A roll-up
        of a record's reviews that FL200 would flag is FL300 (:meth:`left_to_info`). A sentence that only says
        what a record leaves out, which the record confirms, triggers none (:mod:`faithlint.rules.record_gaps`).
        """
        code = self._sentence_code(judged)
        if code in ("FL100", "FL200") and self._record_gap(judged):
            return None
        return "FL300" if code == "FL200" and self._review_rollup(judged) else code

    def _record_gap(self, judged: Judged) -> bool:
        return (not self.config.check_boilerplate and judged.unit.kind == "sentence"
                and says_record_lacks(judged.unit.text, self.context))

    def _sentence_code(self, judged: Judged) -> str | None:
        entailment = judged.probs["entailment"]
        code = sentence_code(entailment, judged.probs["contradiction"], self.point)
        if code == "FL100" and not self._common_ground(judged.unit.text, judged):
            code = sentence_code(entailment, 0.0, self.point)
        return code

    def left_to_info(self, judged: Judged) -> bool:
        """Is the sentence an FL200 that FL300 reports instead, being a roll-up of a record's reviews ("Customers
        praise ...") and ``check_review_rollups`` off? See :mod:`faithlint.document.review_talk`."""
        return self._sentence_code(judged) == "FL200" and self._review_rollup(judged)

    @cached_property
    def _holds_reviews(self) -> bool:
        """A structured context (a record verbalised from JSON, YAML or CSV) that speaks of reviews."""
        return any(doc.offsets is not None and holds_reviews(doc.text) for doc in self.context)

    def _review_rollup(self, judged: Judged) -> bool:
        return (not self.config.check_review_rollups and judged.unit.kind == "sentence" and self._holds_reviews
                and reports_reviews(judged.unit.text))

    def claim_code(self, judged: Judged) -> str | None:
        """The claim rule (FL110/FL210) a claim's verdict triggers at the claim operating point.

        An unsupported claim one of whose values conflicts with a value of the same kind in its evidence
        ("$25 million" where the evidence has "$12.5 million") is contradicted: a claim is one fact, so the
        evidence's other value is that fact's. On the calibration rows, responses with an FL110 were
        hallucinated 87 % of the time with this rule, 79 % without it (bench/claims_check.py). A contradicted
        claim needs common ground with its evidence, as a sentence does, unless one of its values conflicts.
        """
        point = self.point
        code = claim_code(judged.probs["entailment"], judged.probs["contradiction"], point)
        if code == "FL210" and self.value_conflicts(judged):
            return "FL110"
        if code == "FL110" and not self.value_conflicts(judged) and not self._common_ground(
                getattr(judged.unit, "claim_words", "") or judged.unit.text, judged):
            return claim_code(judged.probs["entailment"], 0.0, point)
        return code

    @staticmethod
    def _common_ground(text: str, judged: Judged) -> bool:
        r = judged.result
        return common_ground(text, [r.evidence.text] if r.evidence else [w.text for w in r.windows])

    def value_conflicts(self, judged: Judged) -> list[Any]:
        """The claim's values absent from its evidence where the evidence has a value of the same kind."""
        if judged.conflicts is None:
            words = getattr(judged.unit, "claim_words", "")
            windows = [w.text for w in judged.result.windows]
            found = self.mismatches(words, windows) if words and windows else []
            judged.conflicts = [m for m in found if m.context_value is not None]
        return judged.conflicts


class Rule:
    """Base class of every rule. Subclasses set the class attributes and implement :meth:`check`.

    ``scope`` says what a finding of the rule marks: the whole ``"sentence"`` (quick fixes may
    delete or replace it) or a ``"span"`` inside it (a value). ``units`` says which units the rule
    judges: sentences, claims (``unit = "claim"`` or ``"both"``) or both. A rule with a threshold
    declares it (``threshold = Threshold(default=0.5, on="P(entailment)")``) and reads the configured
    or calibrated value as ``ctx.threshold(self.code)``: settings and the operating point list every
    registered rule's (a plain number is taken as the default).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Literal["error", "warning", "info"]] = "warning"
    summary: ClassVar[str] = ""
    threshold: ClassVar[Threshold | None] = None
    scope: ClassVar[Literal["sentence", "span"]] = "sentence"
    units: ClassVar[tuple[str, ...]] = ("sentence",)
    # documentation (``faithlint rule CODE``; docs/rules.md is generated from it by faithlint.rules.docs)
    explanation: ClassVar[str] = ""  # Markdown: when the rule fires, why, and what to do about it
    example: ClassVar[RuleExample | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(cls.__dict__.get("threshold"), (int, float)):  # ``threshold = 0.5``: its default
            cls.threshold = Threshold(float(cls.__dict__["threshold"]))

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}"

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        """The findings this rule reports on one judged unit (none by default)."""
        return ()

    def fixes(self) -> Sequence[Corrector]:
        """The fixes a finding of this rule offers, each built from the finding's data alone (as a ruff rule builds
        its violation's fix), in the editor's menu order: a sentence's finding may be replaced by its evidence or
        deleted. ``faithlint check --fix`` and the editor's code actions both take them from here."""
        return SENTENCE_FIXES if self.scope == "sentence" else ()

    def finding(self, ctx: RuleContext, judged: Judged, message: str, start: int | None = None,
                end: int | None = None, **data: Any) -> Finding:
        """A finding of this rule at the configured severity; the whole unit unless a span is given."""
        r = judged.result
        return Finding(self.code, ctx.config.severity_for(self.code, self.severity), message,
                       r.start if start is None else start, r.end if end is None else end,
                       label=r.label, score=r.score, evidence=r.evidence, data=cast(FindingData, data))

    def sentence_finding(self, ctx: RuleContext, judged: Judged, message: str,
                         head_marks: bool = True) -> list[Finding]:
        """A finding on the unit, with what quick fixes need (its span and the evidence quote).

        The range narrows to the marked words: with the monitor on, those the context did not raise (its token
        marks), else (``head_marks``) those the checker's span head marks (:mod:`faithlint.models.checkers.span_head`,
        whose threshold was chosen for flagged sentences); ``data.sentence`` keeps the whole unit for fixes that
        replace or delete it.
        """
        r = judged.result
        if r.monitor is not None:
            marks = r.monitor.marks
        else:
            marks = r.marks if head_marks else []
        if marks:
            spans = [judged.unit.to_source(a, b) for a, b in marks]
            start, end = min(a for a, _ in spans), max(b for _, b in spans)
            return [self.finding(ctx, judged, message, start, end, sentence=[r.start, r.end],
                                 evidence_quote=judged.quote, marks=[list(s) for s in spans])]
        return [self.finding(ctx, judged, message, sentence=[r.start, r.end], evidence_quote=judged.quote)]

    def __repr__(self) -> str:
        return f"<rule {self.code} {self.name}>"
