"""One rule registry: a new rule is one file plus registration, and every reader of rules sees it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from fakes import KeywordChecker

import faithlint.rules.registry as registry
from faithlint.config import Config, merge_overrides
from faithlint.document.sentences import SentenceSplitter
from faithlint.errors import ConfigError
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.report import render
from faithlint.rules import RULES, Rule
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rules" / "exact_quotes.py"
CTX = [ContextDoc("ctx.md", "The mayor said the bridge \u201cwill reopen in May after repairs\u201d. "
                            "Repairs cost $2 million.")]


@pytest.fixture
def example_rule():
    spec = importlib.util.spec_from_file_location("exact_quotes_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # registers QT100
    try:
        yield RULES["QT100"]
    finally:
        RULES.unregister("QT100")


def linter(config: Config) -> Linter:
    return Linter(config, checker=KeywordChecker(), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))


def test_the_documented_example_rule_is_one_file_registered_and_used(example_rule):
    assert list(RULES)[-1] == "QT100" and example_rule.name == "inexact-quote"
    config = merge_overrides(Config(), {"select": ["FL", "QT"], "rules": {"QT100": {"severity": "error"}}}, "test")
    text = ("The mayor said the bridge \u201cwill reopen in June after repairs\u201d.\n\n"
            "She said it \u201cwill reopen in May after repairs\u201d.\n")
    res = linter(config).check(text, CTX)
    qt = [f for f in res.findings if f.code == "QT100"]
    assert [(res.text[f.start:f.end], f.severity) for f in qt] == [("will reopen in June after repairs", "error")]
    assert not [f for f in linter(Config()).check(text, CTX).findings if f.code == "QT100"]  # not selected: off
    sarif = json.loads(render([res], "sarif"))
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules[-1]["id"] == "QT100" and rules[-1]["helpUri"].endswith("#qt100")
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8").strip() in doc  # the page shows the file exactly as tested


def test_config_knows_only_registered_codes():
    with pytest.raises(ConfigError, match=r"rules\.QT100: unknown rule code 'QT100' \(known: FL100, FL110, "
                                          r"FL200, FL210, FL300, FL400, FL001, FL002\)"):
        merge_overrides(Config(), {"rules": {"QT100": {}}}, "faithlint.toml")
    with pytest.raises(ConfigError, match="'QT' is not a rule code or prefix"):
        merge_overrides(Config(), {"select": ["QT"]}, "faithlint.toml")


def test_registration_refuses_clashes_and_bad_codes():
    class Again(Rule):
        code = "FL200"
        name = "again"

    class Lower(Rule):
        code = "fl999"
        name = "lower"

    with pytest.raises(ValueError, match="FL200 is already registered"):
        RULES.register(Again())
    with pytest.raises(ValueError, match="must be 1-4 capital letters"):
        RULES.register(Lower())
    with pytest.raises(TypeError):
        RULES.register(object())  # type: ignore[arg-type]
    assert RULES["FL200"].name == "unsupported"


class _EntryPoint:
    def __init__(self, name: str, value: str, load) -> None:
        self.name, self.value, self.load = name, value, load


def test_entry_point_plugins_register_and_broken_ones_are_named(monkeypatch):
    class Plugin(Rule):
        code = "PL100"
        name = "plugin"

    def broken():
        raise ImportError("No module named 'missing'")

    fresh = registry.RuleRegistry()
    monkeypatch.setattr(registry, "entry_points", lambda group: [_EntryPoint("pl", "pkg.rule:Plugin", lambda: Plugin)])
    assert list(fresh)[-1] == "PL100" and list(fresh)[:6] == ["FL100", "FL110", "FL200", "FL210", "FL300", "FL400"]
    bad = registry.RuleRegistry()
    monkeypatch.setattr(registry, "entry_points", lambda group: [_EntryPoint("bad", "pkg.bad:RULE", broken)])
    with pytest.raises(ConfigError, match=r"^rule plugin 'bad' \(pkg\.bad:RULE\): ImportError: No module named"):
        len(bad)
