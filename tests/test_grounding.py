"""Grounding: the checker's verdict weighed with the words and numbers the context lacks."""

from __future__ import annotations

import json

import pytest
from fakes import KeywordChecker

from faithlint.config import CONTEXT_KINDS, Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.errors import ConfigError, ModelError
from faithlint.evidence.grounding import (
    FEATURES,
    FILE,
    NUMBERS_CAP,
    GroundingModel,
    context_terms,
    features,
    rescored,
)
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.inputs.structured import context_from_string
from faithlint.monitor.monitor import rescored as monitor_rescored
from faithlint.pipeline.linter import Linter, load_checker
from faithlint.report.records import result_to_dict
from faithlint.rules.operating_point import context_kind
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

CONTEXT = "The library reopened in March 2024 after an 18-month renovation. It has 120,000 books."
TERMS = context_terms([CONTEXT])


def test_features_count_what_the_context_lacks():
    kept = features("The library reopened in March 2024.", 0.9, TERMS)
    assert kept["content_absent"] == 0.0 and kept["numbers_absent"] == 0.0
    assert kept["entailment_logit"] > 2.0
    novel = features("The library opened in June 2031 with 7 galleries.", 0.9, TERMS)
    assert novel["content_absent"] == pytest.approx(5 / 6)  # of library, opened, june, 2031, 7, galleries
    assert novel["numbers_absent"] == 2.0
    many = features("It has 1, 2, 3, 4 and 5 rooms.", 0.5, TERMS)
    assert many["numbers_absent"] == NUMBERS_CAP
    assert features("", 0.5, TERMS)["content_absent"] == 0.0
    assert set(kept) == set(FEATURES)


def test_context_terms_spans_every_document():
    terms = context_terms(["Alpha beta 12.", "Gamma 7.5"])
    assert {"alpha", "beta", "gamma"} <= terms and {"#12", "#7.5"} == {t for t in terms if t.startswith("#")}


def model(**kw) -> GroundingModel:
    args = {"coefficients": {"entailment_logit": -0.7, "content_absent": 1.5, "numbers_absent": 1.7},
            "intercept": -0.5, "thresholds": {"FL200": 0.4}}
    args.update(kw)
    return GroundingModel(**args)


def test_score_falls_with_what_the_context_lacks_and_rises_with_entailment():
    m = model()
    base = {"entailment_logit": 0.0, "content_absent": 0.0, "numbers_absent": 0.0}
    assert m.score({**base, "content_absent": 0.8}) < m.score(base)
    assert m.score({**base, "numbers_absent": 1.0}) < m.score(base)
    assert m.score({**base, "entailment_logit": 3.0}) > m.score(base)
    verdict = m.judge("The museum opened in 2031.", {"entailment": 0.9, "neutral": 0.05, "contradiction": 0.05},
                      TERMS)
    assert verdict.checker["entailment"] == 0.9 and 0.0 < verdict.p < 0.9
    assert "2031" not in verdict.summary() and "number(s) absent" in verdict.summary()


def test_rescored_keeps_the_checkers_contradiction_under_what_the_score_leaves():
    assert rescored(0.3, 0.9) == {"entailment": 0.3, "neutral": 0.0, "contradiction": pytest.approx(0.7)}
    assert rescored(0.8, 0.1) == {"entailment": 0.8, "neutral": pytest.approx(0.1), "contradiction": 0.1}
    assert monitor_rescored is rescored


def test_save_and_load_round_trip(tmp_path):
    m = model(meta={"trained": "2026-11-26"})
    m.save(tmp_path / FILE)
    back = GroundingModel.load(tmp_path)
    assert back == m and back.meta["trained"] == "2026-11-26"
    assert GroundingModel.load(tmp_path / "nowhere") is None


@pytest.mark.parametrize("text, says", [
    ("{not json", "not a grounding model"),
    (json.dumps({"features": ["entailment_logit", "colour"], "coefficients": [1, 2], "intercept": 0}), "colour"),
    (json.dumps({"features": ["entailment_logit"], "coefficients": [1, 2], "intercept": 0}), "coefficients"),
    (json.dumps({"features": ["entailment_logit"], "coefficients": [1]}), "intercept"),
])
def test_a_broken_file_is_a_one_line_model_error_naming_it(tmp_path, text, says):
    (tmp_path / FILE).write_text(text)
    with pytest.raises(ModelError) as err:
        GroundingModel.load(tmp_path)
    msg = str(err.value)
    assert str(tmp_path / FILE) in msg and says in msg and "\n" not in msg


def test_the_bundled_model_is_calibrated_and_weighs_each_signal_the_right_way():
    checker = load_checker(None, "cpu", 192, 8)
    m = checker.grounding
    assert isinstance(m, GroundingModel)
    assert set(m.thresholds) == {"FL100", "FL200", "FL300", "FL400"}
    assert m.coefficients["entailment_logit"] < 0 < m.coefficients["content_absent"]
    assert m.coefficients["numbers_absent"] > 0
    # never a development file or part: training-side files, or RAGTruth's calibration part (stage 8)
    assert m.meta["inputs"] and all(name.endswith("_train") or name == "ragtruth_dev:calib"
                                    for name in m.meta["inputs"])


class Grounded(KeywordChecker):
    """A keyword checker carrying a grounding model, as load_checker attaches one to a real checker."""

    def __init__(self, grounding: GroundingModel | None) -> None:
        super().__init__()
        self.grounding = grounding


def linter(checker, **cfg) -> Linter:
    return Linter(Config(ignore=["FL400"], **cfg), checker=checker, relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))


DRAFT = "The library reopened in March 2024. The museum opened in June 2031 with 7 galleries.\n"


def test_the_linter_scores_sentences_by_grounding_and_takes_its_operating_point():
    m = model(thresholds={"FL200": 0.45, "FL300": 0.6})
    res = linter(Grounded(m)).check(DRAFT, [ContextDoc("ctx.md", CONTEXT)], markdown=False)
    kept, novel = res.sentences
    assert kept.grounding is not None and novel.grounding is not None
    assert novel.grounding.checker == pytest.approx(kept.grounding.checker)  # the fake gives both the same
    assert novel.score < 0.45 <= kept.score  # the context lacks the museum, June, 2031, 7 and the galleries
    assert novel.probs["entailment"] == novel.score and sum(novel.probs.values()) == pytest.approx(1.0)
    assert [(f.code, f.start) for f in res.findings] == [("FL200", novel.start)]
    assert result_to_dict(res)["sentences"][1]["grounding"]["checker"]["entailment"] == pytest.approx(
        novel.grounding.checker["entailment"], abs=1e-4)


def test_configured_thresholds_win_over_the_models_and_off_restores_the_checkers_verdict():
    m = model(thresholds={"FL200": 0.45})
    ctx = [ContextDoc("ctx.md", CONTEXT)]
    strict = linter(Grounded(m), rules={"FL200": {"threshold": 0.01}}).check(DRAFT, ctx, markdown=False)
    assert not [f for f in strict.findings if f.code == "FL200"]
    off = linter(Grounded(m), grounding="off").check(DRAFT, ctx, markdown=False)
    assert all(s.grounding is None for s in off.sentences)
    assert off.sentences[0].score == off.sentences[1].score  # the keyword checker's own verdict on both
    plain = linter(Grounded(None)).check(DRAFT, ctx, markdown=False)
    assert [s.score for s in plain.sentences] == [s.score for s in off.sentences]


@pytest.mark.parametrize(("context", "query", "kind"), [
    ([context_from_string("rows#context[0]", '{"name": "Luna Grill", "stars": 4.5}')], "What is it?", "records"),
    ([ContextDoc("ctx.md", CONTEXT)], "how to fold a quilt", "question"),
    ([ContextDoc("ctx.md", CONTEXT)], "When did the library reopen?", "question"),
    ([ContextDoc("ctx.md", CONTEXT)], "Summarize the following news.", "prose"),
    ([ContextDoc("ctx.md", CONTEXT)], "Please write an objective overview of the text.", "prose"),
    ([ContextDoc("ctx.md", CONTEXT)], None, "prose"),
    ([ContextDoc("ctx.md", CONTEXT)], "  ", "prose"),
])
def test_the_kind_of_context_comes_from_what_the_linter_is_given(context, query, kind):
    assert context_kind(context, query) == kind


def kinds(**thresholds: dict[str, float]) -> dict:
    return {"operating_point": {"kinds": {k: {"thresholds": v} for k, v in thresholds.items()}}}


def fl200(res) -> list[int]:
    return [f.start for f in res.findings if f.code == "FL200"]


def test_the_models_point_for_the_kind_of_context_and_the_settings_over_it():
    m = model(thresholds={"FL200": 0.45}, meta=kinds(question={"FL200": 0.01}))
    ctx = [ContextDoc("ctx.md", CONTEXT)]
    asked = linter(Grounded(m)).check(DRAFT, ctx, query="What opened?", markdown=False)
    told = linter(Grounded(m)).check(DRAFT, ctx, query="Summarize the following text.", markdown=False)
    assert [s.score for s in asked.sentences] == [s.score for s in told.sentences]
    novel = told.sentences[1]
    assert fl200(asked) == [] and fl200(told) == [novel.start]  # prose keeps the model's shared 0.45
    # a threshold in the settings wins over the model's for every kind, one for a kind over both
    assert fl200(linter(Grounded(m), rules={"FL200": {"threshold": 0.45}}).check(
        DRAFT, ctx, query="What opened?", markdown=False)) == [novel.start]
    both = {"FL200": {"threshold": 0.01, "by_context": {"question": 0.45}}}
    assert fl200(linter(Grounded(m), rules=both).check(DRAFT, ctx, query="What opened?", markdown=False)) == [
        novel.start]
    assert fl200(linter(Grounded(m), rules=both).check(DRAFT, ctx, markdown=False)) == []
    assert Linter(Config(), checker=Grounded(m)).operating_point("question")["FL200"] == 0.01
    assert Linter(Config(), checker=Grounded(m)).operating_point("prose")["FL200"] == 0.45


def test_thresholds_by_kind_are_validated():
    assert Config(rules={"FL200": {"by_context": {"records": 0.1}}}).threshold_for("FL200", 0.5, "records") == 0.1
    with pytest.raises(ValueError, match="by_context"):
        Config(rules={"FL200": {"by_context": {"tables": 0.1}}})
    with pytest.raises(ValueError, match="by_context"):
        Config(rules={"FL200": {"by_context": {"records": 1.5}}})
    from faithlint.config import merge_overrides

    with pytest.raises(ConfigError, match=r"^test: rules\.FL200\.by_context\.tables: ") as err:
        merge_overrides(Config(), {"rules": {"FL200": {"by_context": {"tables": 0.1}}}}, "test")
    assert "\n" not in str(err.value)
    broken = model(meta=kinds(question=[0.1]))
    with pytest.raises(ModelError, match=r"grounding\.json: operating_point\.kinds: "):
        Linter(Config(), checker=Grounded(broken)).operating_point("question")


def test_the_bundled_point_is_chosen_per_kind_of_context_on_the_calibration_part():
    m = load_checker(None, "cpu", 192, 8).grounding
    assert m is not None
    point = m.meta["operating_point"]
    assert set(point["kinds"]) == set(CONTEXT_KINDS) and "calib" in point["chosen_on"]
    for kind, got in point["kinds"].items():
        assert set(got["thresholds"]) == {"FL200", "FL400"}
        lt = Linter(Config(), checker=Grounded(m))
        assert {c: lt.operating_point(kind)[c] for c in got["thresholds"]} == got["thresholds"]
        assert lt.operating_point(kind)["FL100"] == m.thresholds["FL100"]


def test_grounding_setting_is_validated():
    assert Config(grounding=False).grounding == "off" and Config(grounding=True).grounding == "on"
    with pytest.raises(ValueError, match="grounding"):
        Config(grounding="sometimes")


def test_the_grounding_flag_reaches_the_settings():
    import argparse

    from faithlint.cli.options import cli_overrides, shared_options

    parser = argparse.ArgumentParser(parents=[shared_options(context_help="", fail_on_help="")])
    assert cli_overrides(parser.parse_args(["--grounding", "off"]))["grounding"] == "off"
    assert "grounding" not in cli_overrides(parser.parse_args([]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--grounding", "maybe"])
