"""One rule registry: a new rule is one file plus registration, and every reader of rules sees it."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import KeywordChecker

import faithlint.config as config_module
import faithlint.rules.registry as registry
from faithlint.config import Config, merge_overrides, validate_settings
from faithlint.document.sentences import SentenceSplitter
from faithlint.errors import ConfigError
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.report import render
from faithlint.rules import RULES, Rule, Threshold, docs
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
                                          r"FL200, FL210, FL300, FL400, FL410, FL001, FL002\)"):
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


class _Doubted(Rule):
    """A threshold rule as a plugin writes it: nothing but the class (no settings, no operating point to edit)."""

    code = "TH100"
    name = "doubted"
    summary = "P(entailment) below the threshold."
    threshold = Threshold(default=0.5, on="P(entailment)")

    def check(self, judged, ctx):
        if judged.probs["entailment"] < ctx.threshold(self.code):
            return [self.finding(ctx, judged, f"doubted (below {ctx.threshold(self.code):g})")]
        return []


@pytest.fixture
def doubted():
    rule = RULES.register(_Doubted())
    try:
        yield rule
    finally:
        RULES.unregister("TH100")


def test_a_new_threshold_rule_is_only_its_class(doubted):
    text = "The bridge WEAK reopened.\n\nRepairs cost $2 million.\n"
    assert RULES.operating_point(Config())["TH100"] == 0.5  # its default, beside the built-ins' unchanged ones
    on = merge_overrides(Config(), {"select": ["FL", "TH"]}, "test")
    found = [f for f in linter(on).check(text, CTX).findings if f.code == "TH100"]
    assert [(f.start, f.message) for f in found] == [(0, "\u201cThe bridge WEAK reopened.\u201d: doubted (below 0.5)")]
    lowered = merge_overrides(on, {"rules": {"TH100": {"threshold": 0.4}}}, "faithlint.toml")  # WEAK: 0.45
    assert RULES.operating_point(lowered)["TH100"] == 0.4
    assert not [f for f in linter(lowered).check(text, CTX).findings if f.code == "TH100"]
    with pytest.raises(ConfigError, match=r"^faithlint.toml: rules.TH100.threshold: Input should be less than or"):
        merge_overrides(on, {"rules": {"TH100": {"threshold": 2}}}, "faithlint.toml")
    doc = json.loads(render([linter(on).check(text, CTX)], "sarif"))["runs"][0]["tool"]["driver"]["rules"][-1]
    assert doc["id"] == "TH100"


def test_a_plain_number_is_the_thresholds_default():
    class Legacy(Rule):
        code = "TH200"
        name = "legacy"
        threshold = 0.25

    assert Legacy.threshold == Threshold(0.25) and Rule.threshold is None


def test_the_built_in_thresholds_and_their_calibrated_point():
    assert {c: r.threshold for c, r in RULES.items() if r.threshold is not None} == {
        "FL100": Threshold(0.7, "P(contradiction)"), "FL110": Threshold(0.7, "P(contradiction)", "FL100"),
        "FL200": Threshold(0.35, "the faithfulness score"), "FL210": Threshold(0.4, "P(entailment)", "FL200"),
        "FL300": Threshold(0.5, "the faithfulness score"), "FL400": Threshold(0.3, "the faithfulness score")}
    grounded = docs.grounded_thresholds()  # the bundled checker's grounding.json, as the linter reads it
    point = RULES.operating_point(Config(), grounded)
    assert {c: point[c] for c in grounded} == grounded
    assert (point["FL110"], point["FL210"]) == (grounded["FL100"], grounded["FL200"])


def test_settings_validate_codes_against_the_registry_they_are_given():
    assert config_module.known_rules() is RULES  # the registry installs itself on import
    given = [*config_module.BUILTIN_RULES, "QT100"]
    assert Config.model_validate({"rules": {"QT100": {}}, "select": ["QT"]}, context={"rules": given}).select == ["QT"]
    with pytest.raises(ConfigError, match=r"^test: rules\.QT100: unknown rule code 'QT100' \(known: FL100, FL110, "):
        merge_overrides(Config(), {"rules": {"QT100": {}}}, "test")
    assert merge_overrides(Config(), {"rules": {"QT100": {}}}, "test", rules=given).rules["QT100"].severity is None
    _, messages = validate_settings({"rules": {"QT100": {}}}, "workspace/configuration")
    assert messages == ["workspace/configuration: rules.QT100: unknown rule code 'QT100' (known: "
                        + ", ".join(RULES) + ") (ignored)"]
    # the fallback before any registry is in use: the built-in rules, which the registry loads first
    assert [importlib.import_module(m).RULE.code for m in registry.BUILTIN] == list(config_module.BUILTIN_RULES)


def test_the_settings_alone_know_the_built_in_rules_and_faithlint_config_the_registry():
    code = ("import sys; from faithlint.config import Config, merge_overrides\n"
            "assert Config(rules={'FL300': {'threshold': 0.4}}, select=['FL1']).select == ['FL1']\n"
            "try:\n    merge_overrides(Config(), {'rules': {'QT100': {}}}, 'x')\n"
            "except Exception as exc:\n    print(exc)\n"
            "assert 'faithlint.rules' not in sys.modules, 'the settings imported the rules'\n"
            "import faithlint; faithlint.Config  # the package's Config: the registry is in use\n"
            "from faithlint.config import known_rules\n"
            "assert known_rules() is sys.modules['faithlint.rules.registry'].RULES\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == ("x: rules.QT100: unknown rule code 'QT100' (known: FL100, FL110, FL200, FL210, FL300, FL400, "
                   "FL410, FL001, FL002)\n")
