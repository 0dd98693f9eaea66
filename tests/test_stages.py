"""Each pipeline stage is a protocol the Linter uses as given: one fake per stage proves it."""

from __future__ import annotations

import numpy as np
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.models.checkers.base import Checker
from faithlint.pipeline.linter import Linter
from faithlint.pipeline.stages import (
    Aggregator,
    EvidenceRequest,
    EvidenceSelector,
    RuleLike,
    Selection,
    Unit,
    UnitExtractor,
)
from faithlint.rules import Rule
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc, Evidence, Finding

CTX = [ContextDoc("ctx.md", "The library reopened in March. It is closed on Sundays. The director is Helen Okafor.")]
TEXT = "The library reopened in March. It is open CONTRA on Sundays.\n"


def make(select=("FL",), **stages) -> Linter:
    cfg = Config(rules={"FL100": {"threshold": 0.5}, "FL200": {"threshold": 0.3}, "FL300": {"threshold": 0.6}},
                 ignore=["FL400"], select=list(select))
    stages.setdefault("checker", KeywordChecker())
    return Linter(cfg, relevance=LexicalRelevance(), splitter=SentenceSplitter(use_spacy=False),
                  values=ValueExtractor(nlp=False), **stages)


class BlockExtractor:
    """Whole blocks as units: no sentence splitting."""

    def __init__(self) -> None:
        self.calls = 0

    def units(self, extracted, config, query=None):
        self.calls += 1
        return [Unit(b, 0, len(b.text), *b.to_source(0, len(b.text)), kind="block") for b in extracted.blocks]


def test_the_unit_extractor_decides_what_is_judged():
    ex = BlockExtractor()
    assert isinstance(ex, UnitExtractor)
    lt = make(extractor=ex)
    res = lt.check(TEXT, CTX)
    assert ex.calls == 1
    assert [s.text for s in res.sentences] == [TEXT.strip()]  # one unit: the paragraph, not two sentences
    assert [(f.code, res.text[f.start:f.end]) for f in res.findings] == [("FL100", TEXT.strip())]


class FixedSelector:
    """Every unit judged against the context's last sentence, as two premises."""

    def __init__(self) -> None:
        self.requests: list[EvidenceRequest] = []

    def select(self, request):
        self.requests.append(request)
        doc = request.context[0]
        start = doc.text.index("The director")
        ev = Evidence(doc.source, start, len(doc.text), doc.text[start:], 1.0)
        return [Selection([], [], []) if skip else Selection([ev, ev], [ev.text, ev.text], [0.5, 0.5])
                for skip in request.skip]


def test_the_evidence_selector_decides_the_premises():
    sel = FixedSelector()
    assert isinstance(sel, EvidenceSelector)
    checker = KeywordChecker()
    lt = make(selector=sel, checker=checker)
    lt.config = lt.config.model_copy(update={"verbatim": False})
    res = lt.check(TEXT, CTX)
    assert len(sel.requests) == 1 and list(sel.requests[0].texts) == [s.text for s in res.sentences]
    assert checker.pairs == 4  # two sentences x the two premises the selector chose
    assert all(s.evidence is not None and s.evidence.text.startswith("The director") for s in res.sentences)


class LastPremise:
    """Always the last premise's verdict: recognisably different from max/weighted/min."""

    name = "last"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, probs, weights):
        self.seen.append(len(probs))
        return probs[-1], len(probs) - 1


class SplitVerdicts(KeywordChecker):
    """The first premise entails, every later one contradicts."""

    def score_pairs(self, premises, hypotheses):
        rows = [[0.9, 0.05, 0.05] if i % 2 == 0 else [0.05, 0.05, 0.9] for i in range(len(premises))]
        return np.array(rows, dtype=np.float32).reshape(-1, 3)


def test_the_aggregator_decides_between_premises():
    agg = LastPremise()
    assert isinstance(agg, Aggregator)
    lt = make(aggregator=agg, selector=FixedSelector(), checker=SplitVerdicts())
    lt.config = lt.config.model_copy(update={"verbatim": False})
    res = lt.check(TEXT, CTX)
    assert agg.seen == [2, 2]
    assert [s.label for s in res.sentences] == ["contradiction", "contradiction"]  # "max" would say entailment
    lt_max = make(selector=FixedSelector(), checker=SplitVerdicts())
    lt_max.config = lt.config
    assert [s.label for s in lt_max.check(TEXT, CTX).sentences] == ["entailment", "entailment"]


def test_the_checker_scores_every_pair_and_is_cached():
    checker = KeywordChecker()
    lt = make(checker=checker)
    lt.config = lt.config.model_copy(update={"verbatim": False})
    first = lt.check(TEXT, CTX)
    assert checker.calls == 1 and checker.hypotheses == [s.text for s in first.sentences]
    lt.check(TEXT, CTX)
    assert checker.calls == 1  # the verdict cache answered


class Shouting(Rule):
    code = "TS100"
    name = "shouting"
    severity = "info"
    summary = "A word in capitals."
    scope = "span"

    def check(self, judged, ctx):
        import re

        for m in re.finditer(r"\b[A-Z]{4,}\b", judged.unit.text):
            a, b = judged.unit.to_source(m.start(), m.end())
            yield self.finding(ctx, judged, f"\u2018{m.group(0)}\u2019 is shouted", a, b)


def test_the_rules_given_are_the_rules_that_run():
    rule = Shouting()
    assert isinstance(rule, RuleLike)
    res = make(rules=[rule], select=["ALL"]).check(TEXT, CTX)
    assert [(f.code, f.severity, res.text[f.start:f.end]) for f in res.findings] == [("TS100", "info", "CONTRA")]
    assert all(isinstance(f, Finding) for f in res.findings)
    assert make(rules=[rule]).check(TEXT, CTX).findings == []  # select/ignore still decide: FL selects FL only
    assert make().check(TEXT, CTX).findings[0].code == "FL100"  # the registered rules by default


class BareShouting:
    """A rule that is no :class:`Rule` and names no ``units``: it judges sentences."""

    code = "TS101"
    name = "bare-shouting"

    def check(self, judged, ctx):
        if "CONTRA" in judged.unit.text:
            r = judged.result
            yield Finding(self.code, "info", "shouted", r.start, r.end)


def test_a_given_rule_without_units_judges_sentences():
    lt = make(rules=[BareShouting()], select=["ALL"])
    assert [r.units for r in lt.rules] == [("sentence",)] and lt.rules[0].code == "TS101"
    res = lt.check(TEXT, CTX)
    assert [(f.code, res.text[f.start:f.end]) for f in res.findings] == [("TS101", "It is open CONTRA on Sundays.")]


def test_a_given_checker_without_the_optional_members_gets_their_defaults_once():
    checker = KeywordChecker()
    assert not any(hasattr(checker, m) for m in ("span_head", "grounding", "score_and_mark"))
    lt = make(checker=checker)
    adapted = lt.checker
    assert isinstance(adapted, Checker) and adapted.wrapped is checker and adapted is lt.checker
    assert (adapted.name, adapted.model_max, adapted.span_head, adapted.grounding) == ("keyword-fake", 512, None, None)
    assert adapted.calls == 0  # the checker's own attributes read through
    res = lt.check(TEXT, CTX)
    assert [s.label for s in res.sentences] == ["entailment", "contradiction"] and checker.calls == 1


def test_check_takes_its_config_and_leaves_the_linters_own():
    lt = make()
    own = lt.config
    fl200 = own.model_copy(update={"select": ["FL200"]})
    got = lt.check(TEXT, CTX, config=fl200)
    assert lt.config is own  # nothing swapped in
    assert got.findings == []  # the contradiction is FL100, which this config does not select
    assert [f.code for f in lt.check(TEXT, CTX).findings] == ["FL100"]
    with lt.using(fl200) as cfg:
        assert cfg is fl200 and lt.config is fl200
    assert lt.config is own


def test_a_config_choosing_other_models_reloads_them_and_a_given_model_is_kept(monkeypatch):
    from faithlint.pipeline import registry

    loaded = []

    def fake_load(**settings):
        loaded.append(settings["max_length"])
        return KeywordChecker()

    monkeypatch.setattr(registry, "load_checker", fake_load)
    lt = Linter(Config(max_length=192), relevance=LexicalRelevance(), splitter=SentenceSplitter(use_spacy=False))
    first = lt.checker
    assert lt.checker is first and loaded == [192]
    with lt.using(Config(max_length=192, select=["FL200"])):  # the same models: no reload
        assert lt.checker is first
    with lt.using(Config(max_length=256)):
        assert lt.checker is not first and loaded == [192, 256]
    given = KeywordChecker()
    kept = make(checker=given)
    with kept.using(Config(max_length=256)):
        assert kept.checker.wrapped is given
