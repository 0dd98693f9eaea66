"""Config: discovery, defaults, one-line error messages, overrides and the lenient LSP path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from faithlint.config import Config, find_config, load_config, merge_overrides, validate_settings
from faithlint.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- discovery ------------------------------------------------------------------------------------

def test_defaults_when_nothing_found(tmp_path: Path) -> None:
    config, source = load_config(start=tmp_path)
    assert source is None
    assert config == Config()
    assert config.max_length == 192 and config.top_p == 0.9 and config.select == ["FL"]
    assert config.markdown_extensions == [".md", ".markdown", ".mdx"]


def test_faithlint_toml_found_walking_up(tmp_path: Path) -> None:
    cfg = write(tmp_path / "faithlint.toml", "top_k = 5\nselection = 'topk'\n[rules.FL300]\nthreshold = 0.4\n")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    config, source = load_config(start=deep)
    assert source == cfg.resolve()
    assert config.top_k == 5 and config.selection == "topk"
    assert config.threshold_for("FL300", 0.5) == 0.4
    assert config.threshold_for("FL100", 0.5) == 0.5
    assert config.severity_for("FL300", "warning") == "warning"


def test_start_may_be_a_file(tmp_path: Path) -> None:
    cfg = write(tmp_path / "faithlint.toml", "top_k = 2\n")
    draft = write(tmp_path / "docs" / "answer.md", "hi")
    assert load_config(start=draft)[1] == cfg.resolve()


def test_faithlint_toml_wins_over_pyproject_in_same_folder(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.faithlint]\ntop_k = 7\n")
    cfg = write(tmp_path / "faithlint.toml", "top_k = 4\n")
    config, source = load_config(start=tmp_path)
    assert source == cfg.resolve() and config.top_k == 4


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", "[tool.faithlint]\ntop_k = 7\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n[tool.ruff]\nline-length = 99\n")
    config, source = load_config(start=tmp_path / "pkg")
    assert source == outer.resolve() and config.top_k == 7


def test_nearer_pyproject_beats_farther_faithlint_toml(tmp_path: Path) -> None:
    write(tmp_path / "faithlint.toml", "top_k = 4\n")
    near = write(tmp_path / "pkg" / "pyproject.toml", "[tool.faithlint]\ntop_k = 9\n")
    assert find_config(tmp_path / "pkg") == near.resolve()


def test_pyproject_pairs_and_rules(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", """
[tool.faithlint]
fail_on = "error"
[tool.faithlint.rules.FL200]
severity = "info"
[[tool.faithlint.pair]]
draft = "answers/*.md"
context = "sources/{stem}/*"
""")
    config, _ = load_config(start=tmp_path)
    assert config.fail_on == "error"
    assert config.severity_for("FL200", "warning") == "info"
    assert config.pair[0].context == ["sources/{stem}/*"]


def test_kebab_case_keys_are_accepted(tmp_path: Path) -> None:
    cfg = write(tmp_path / "faithlint.toml", "top-p = 0.5\nmax-file-size = 10\n[[pair]]\ndraft = 'a'\ncontext = ['b']\n"
                                             "query-file = 'q.txt'\n")
    config, _ = load_config(cfg)
    assert config.top_p == 0.5 and config.max_file_size == 10 and config.pair[0].query_file == "q.txt"


def test_explicit_path(tmp_path: Path) -> None:
    cfg = write(tmp_path / "custom.toml", "device = 'cpu'\n")
    config, source = load_config(cfg)
    assert config.device == "cpu" and source == cfg.resolve()


# --- error messages -------------------------------------------------------------------------------

def test_bad_toml_names_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "top_k = 3\n\nmax_length = \n")
    message = error_of(cfg)
    assert message.startswith("faithlint.toml: line 3: invalid TOML: ")


def test_bad_toml_at_end_of_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "top_k = 3\nselect = [\"FL\",\n")
    assert error_of(cfg).startswith("faithlint.toml: line 2: invalid TOML: ")


def test_unknown_key_in_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.faithlint]\nfoo = 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(start=tmp_path)
    assert str(info.value) == "pyproject.toml: unknown key 'foo' in [tool.faithlint]"


def test_unknown_key_in_faithlint_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "foo = 1\n")
    assert error_of(cfg) == "faithlint.toml: unknown key 'foo'"
    cfg = write(tmp_path / "faithlint.toml", "[rules.FL300]\nlevel = 'error'\n")
    assert error_of(cfg) == "faithlint.toml: unknown key 'level' in [rules.FL300]"


def test_bad_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "[rules.FL300]\nthreshold = 1.5\n")
    assert error_of(cfg).startswith("faithlint.toml: rules.FL300.threshold: Input should be less than or equal to 1")
    cfg = write(tmp_path / "faithlint.toml", "device = 'gpu'\n")
    assert error_of(cfg).startswith("faithlint.toml: device: Input should be 'auto', 'cpu' or 'cuda'")
    cfg = write(tmp_path / "faithlint.toml", "max_length = 32\n")
    assert "max_length: Input should be greater than or equal to 64" in error_of(cfg)
    cfg = write(tmp_path / "faithlint.toml", "max_length = 64\noverlap = 64\n")
    assert error_of(cfg) == "faithlint.toml: overlap: must be smaller than max_length (64)"


def test_bad_value_in_pyproject_names_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.faithlint]\ntop_p = 0\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: tool.faithlint.top_p: Input should be greater than 0"):
        load_config(start=tmp_path)


def test_unknown_rule_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "[rules.FL999]\nthreshold = 0.3\n")
    assert error_of(cfg) == ("faithlint.toml: rules.FL999: unknown rule code 'FL999' "
                             "(known: FL100, FL110, FL200, FL210, FL300, FL400, FL410, FL001, FL002)")
    cfg = write(tmp_path / "faithlint.toml", "select = ['XY1']\n")
    assert "select: item 0: 'XY1' is not a rule code or prefix" in error_of(cfg)


def test_several_problems_still_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "foo = 1\nbar = 2\ntop_k = 0\n")
    assert error_of(cfg).endswith("(and 2 more problems)")


def test_pair_rule_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path / "faithlint.toml", "[[pair]]\ndraft = 'a/*.md'\ncontext = ['src/{foo}/*']\n")
    assert error_of(cfg).startswith("faithlint.toml: pair[0].context: unknown placeholder '{foo}'")
    cfg = write(tmp_path / "faithlint.toml", "[[pair]]\ndraft = 'a/*.md'\n")
    assert error_of(cfg).startswith("faithlint.toml: pair[0].context: Field required")
    cfg = write(tmp_path / "faithlint.toml", "[[pair]]\ndraft = 'a'\ncontext = 'b'\nquery = 'q'\nquery_file = 'f'\n")
    assert error_of(cfg) == "faithlint.toml: pair[0]: set either query or query_file, not both"


def test_missing_explicit_file_and_pyproject_without_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert error_of(tmp_path / "nope.toml") == "nope.toml: no such file"
    cfg = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert error_of(cfg) == "pyproject.toml: no [tool.faithlint] table"


# --- rule selection -------------------------------------------------------------------------------

def test_rule_enabled_prefix_logic() -> None:
    config = Config(select=["FL"], ignore=["FL3"])
    assert config.rule_enabled("FL100") and config.rule_enabled("FL400")
    assert not config.rule_enabled("FL300")
    only_one = Config(select=["FL1"])
    assert only_one.rule_enabled("FL100")
    assert not any(only_one.rule_enabled(code) for code in ("FL200", "FL300", "FL400"))
    # The more specific entry wins; on a tie ignore wins.
    assert Config(select=["FL300"], ignore=["FL3"]).rule_enabled("FL300")
    assert not Config(select=["FL3"], ignore=["FL3"]).rule_enabled("FL300")
    assert Config(select=["ALL"]).rule_enabled("FL200")
    assert not Config(select=[]).rule_enabled("FL100")


# --- overrides ------------------------------------------------------------------------------------

def test_merge_overrides() -> None:
    base = Config(top_k=5, rules={"FL300": {"threshold": 0.4}})
    merged = merge_overrides(base, {"top_p": 0.5, "model": None, "rules": {"FL300": {"severity": "error"}}}, "cli")
    assert merged.top_p == 0.5 and merged.top_k == 5 and merged.model is None
    assert merged.threshold_for("FL300", 0.9) == 0.4 and merged.severity_for("FL300", "info") == "error"
    assert base.top_p == 0.9  # not mutated


def test_merge_overrides_error_names_source() -> None:
    with pytest.raises(ConfigError) as info:
        merge_overrides(Config(), {"top_p": 1.5}, "--top-p")
    assert str(info.value) == "--top-p: top_p: Input should be less than or equal to 1 (got 1.5)"
    with pytest.raises(ConfigError, match=r"^initializationOptions: unknown key 'bogus'$"):
        merge_overrides(Config(), {"bogus": 1}, "initializationOptions")


def test_validate_settings_falls_back_per_key() -> None:
    config, messages = validate_settings(
        {"topP": 2, "topK": 6, "device": "gpu", "foo": 1, "rules": {"FL999": {}, "FL300": {"threshold": 2,
                                                                                         "severity": "error"}}},
        "initializationOptions")
    assert config.top_k == 6  # good keys (camelCase too) still apply
    assert config.top_p == 0.9 and config.device == "auto"
    assert config.severity_for("FL300", "warning") == "error" and config.threshold_for("FL300", 0.5) == 0.5
    assert len(messages) == 5
    assert all(m.startswith("initializationOptions: ") and "\n" not in m for m in messages)
    assert any("unknown key 'foo'" in m for m in messages)
    assert any("rules.FL999: unknown rule code" in m for m in messages)


def test_validate_settings_odd_inputs() -> None:
    assert validate_settings(None, "x") == (Config(), [])
    config, messages = validate_settings([1, 2], "x")
    assert config == Config() and len(messages) == 1
    base = Config(top_k=8)
    config, messages = validate_settings({"pair": [{"draft": "a"}]}, "x", base=base)
    assert config.top_k == 8 and config.pair == [] and len(messages) == 1


# --- sections -------------------------------------------------------------------------------------

NESTED = """
[models]
batch_size = 4

[retrieval]
top-p = 0.8
topK = 5

[claims]
unit = "both"

[rules]
select = ["FL1", "FL2"]
fail_on = "error"

[rules.FL200]
threshold = 0.2

[[pair]]
draft = "*.md"
context = "src/{stem}.md"
"""
FLAT = """
batch_size = 4
top-p = 0.8
topK = 5
unit = "both"
select = ["FL1", "FL2"]
fail_on = "error"

[rules.FL200]
threshold = 0.2

[[pair]]
draft = "*.md"
context = "src/{stem}.md"
"""


def test_sections_and_flat_keys_are_the_same_settings(tmp_path: Path) -> None:
    nested, _ = load_config(write(tmp_path / "n" / "faithlint.toml", NESTED))
    flat, _ = load_config(write(tmp_path / "f" / "faithlint.toml", FLAT))
    table = re.sub(r"^\[(\[?)", r"[\1tool.faithlint.", NESTED, flags=re.MULTILINE)  # [tool.faithlint.models] ...
    pyproject, _ = load_config(write(tmp_path / "p" / "pyproject.toml", table))
    assert nested == flat == pyproject
    assert (nested.batch_size, nested.top_p, nested.top_k, nested.unit, nested.select, nested.fail_on) == (
        4, 0.8, 5, "both", ["FL1", "FL2"], "error")
    assert nested.rules["FL200"].threshold == 0.2 and nested.pair[0].context == ["src/{stem}.md"]
    mixed = write(tmp_path / "m" / "faithlint.toml", 'top_p = 0.8\n[claims]\nunit = "claim"\n')
    assert load_config(mixed)[0].model_dump() == Config(top_p=0.8, unit="claim").model_dump()
    assert Config(retrieval={"top_p": 0.8}, rules={"select": ["FL1"]}) == Config(top_p=0.8, select=["FL1"])
    # the command line and the editor's settings: flat, as before, or in sections
    assert merge_overrides(nested, {"top_p": 0.5}, "--top-p").top_p == 0.5
    assert validate_settings({"retrieval": {"topP": 0.5}, "topK": 2}, "initializationOptions")[0].top_k == 2


def test_section_errors_name_the_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cases = {
        "[retrieval]\ntop_p = 7\n": "faithlint.toml: retrieval.top_p: Input should be less than or equal to 1 (got 7)",
        "[retrieval]\nfoo = 1\n": "faithlint.toml: unknown key 'foo' in [retrieval]",
        "[models]\ntop_p = 0.5\n": "faithlint.toml: unknown key 'top_p' in [models] (top_p belongs in [retrieval])",
        "top_p = 0.5\n[retrieval]\ntop_p = 0.6\n": "faithlint.toml: top_p: set twice, at the top level and in "
                                                   "[retrieval]",
        "[rules]\nselect = [\"QT\"]\n": "faithlint.toml: rules.select: item 0: 'QT' is not a rule code or prefix",
        "[rules.QT100]\nseverity = \"error\"\n": "faithlint.toml: rules.QT100: unknown rule code 'QT100'",
    }
    for text, message in cases.items():
        assert error_of(write(tmp_path / "faithlint.toml", text)).startswith(message), text
    write(tmp_path / "pyproject.toml", "[tool.faithlint.retrieval]\ntop_k = 0\n")
    assert error_of(tmp_path / "pyproject.toml").startswith(
        "pyproject.toml: tool.faithlint.retrieval.top_k: Input should be greater than or equal to 1 (got 0)")
    with pytest.raises(ConfigError, match=r"^--x: retrieval\.top_p: Input should be less than or equal to 1"):
        merge_overrides(Config(), {"retrieval": {"top_p": 3}}, "--x")
    _, messages = validate_settings({"retrieval": {"topP": 5, "bogus": 1}}, "initializationOptions")
    assert messages == ["initializationOptions: retrieval.top_p: Input should be less than or equal to 1 (got 5) "
                        "(ignored)", "initializationOptions: unknown key 'bogus' in [retrieval] (ignored)"]


def test_every_setting_has_one_section() -> None:
    from faithlint.config import SECTION_OF, SECTIONS

    keys = [k for keys in SECTIONS.values() for k in keys]
    assert sorted(keys) == sorted(set(Config.model_fields) - {"rules", "pair"}) and len(keys) == len(SECTION_OF)
    assert not set(SECTIONS) & (set(Config.model_fields) - {"rules"})  # a section is never also a setting's name
