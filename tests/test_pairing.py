"""Pairing a draft with its context: the four conventions, their precedence and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from faithlint.config import Config, load_config
from faithlint.errors import ConfigError, InputError
from faithlint.inputs.pairing import context_candidates, is_context_file, match_glob, resolve_pairing


def touch(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """answers/q1.md with a pair rule, a sibling file and front-matter-able sources."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faithlint.toml").write_text(
        '[[pair]]\ndraft = "answers/*.md"\ncontext = ["sources/{stem}/*"]\nquery_file = "queries/{stem}.txt"\n')
    touch(tmp_path / "answers" / "q1.md")
    touch(tmp_path / "sources" / "q1" / "a.txt")
    touch(tmp_path / "sources" / "q1" / "b.md")
    touch(tmp_path / "queries" / "q1.txt", "  What happened?\n")
    touch(tmp_path / "answers" / "notes.md")
    return tmp_path


def pair(draft: Path, front_matter: dict | None = None, **kwargs):  # type: ignore[no-untyped-def]
    config, config_path = load_config(start=draft.parent)
    return resolve_pairing(draft, front_matter, config, config_path, **kwargs)


def test_config_rule_with_stem_and_query_file(project: Path) -> None:
    result = pair(project / "answers" / "q1.md")
    assert result.how == "config"
    assert [p.name for p in result.context] == ["a.txt", "b.md"]
    assert result.query == "What happened?"


def test_sibling_beats_config(project: Path) -> None:
    touch(project / "answers" / "q1.context.md")
    (project / "answers" / "q1.sources").mkdir()
    result = pair(project / "answers" / "q1.md")
    assert result.how == "sibling"
    assert [p.name for p in result.context] == ["q1.context.md", "q1.sources"]
    assert result.query == "What happened?"  # the query still comes from the matching rule


def test_front_matter_beats_sibling(project: Path) -> None:
    touch(project / "answers" / "q1.context.txt")
    touch(project / "answers" / "ref" / "r1.md")
    touch(project / "answers" / "ref" / "r2.md")
    result = pair(project / "answers" / "q1.md", {"context": ["ref/*.md", "q1.context.txt"], "query": "Why?"})
    assert result.how == "front-matter"
    assert [p.name for p in result.context] == ["r1.md", "r2.md", "q1.context.txt"]
    assert result.query == "Why?"
    single = pair(project / "answers" / "q1.md", {"context": "ref"})
    assert single.context == [project / "answers" / "ref"]


def test_cli_beats_everything(project: Path) -> None:
    touch(project / "answers" / "q1.context.json", "{}")
    result = pair(project / "answers" / "q1.md", {"context": "q1.context.json", "query": "fm"},
                  cli_context=[Path("other.txt")], cli_query="cli?")
    assert result.how == "cli" and result.context == [Path("other.txt")] and result.query == "cli?"
    # Without a CLI query the front matter query is next, then the rule's query_file.
    assert pair(project / "answers" / "q1.md", {"query": "fm"}, cli_context=[Path("o.txt")]).query == "fm"
    assert pair(project / "answers" / "q1.md", None, cli_context=[Path("o.txt")]).query == "What happened?"
    # An empty CLI list does not count: the sibling created above applies.
    assert pair(project / "answers" / "q1.md", None, cli_context=[]).how == "sibling"


def test_none_when_nothing_applies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    draft = touch(tmp_path / "draft.md")
    result = resolve_pairing(draft, None, Config(), None)
    assert result.how == "none" and result.context == [] and result.query is None


def test_rule_not_matching_draft(project: Path) -> None:
    other = touch(project / "elsewhere" / "q1.md")
    assert pair(other).how == "none"


def test_rule_glob_matching_nothing(project: Path) -> None:
    with pytest.raises(InputError) as info:
        pair(project / "answers" / "notes.md")
    assert str(info.value) == "pair rule 1 in faithlint.toml: context glob 'sources/notes/*' matched no files"


def test_rule_plain_path_missing_and_query_inline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faithlint.toml").write_text(
        '[[pair]]\ndraft = "**/*.txt"\ncontext = "ctx/{parent}-{name}"\nquery = "Q"\n')
    draft = touch(tmp_path / "deep" / "er" / "d.txt")
    with pytest.raises(InputError, match=r"pair rule 1 in faithlint.toml: context path 'ctx/er-d.txt' does not exist"):
        pair(draft)
    touch(tmp_path / "ctx" / "er-d.txt")
    result = pair(draft)
    assert result.how == "config" and result.query == "Q" and [p.name for p in result.context] == ["er-d.txt"]


def test_rule_missing_query_file(project: Path) -> None:
    (project / "queries" / "q1.txt").unlink()
    with pytest.raises(InputError, match=r"^pair rule 1 in faithlint.toml: query_file .*q1.txt: no such file$"):
        pair(project / "answers" / "q1.md")


def test_first_matching_rule_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faithlint.toml").write_text('[[pair]]\ndraft = "a/special.md"\ncontext = "s/*"\n'
                                            '[[pair]]\ndraft = "a/*.md"\ncontext = "g/*"\n')
    touch(tmp_path / "s" / "1.md")
    touch(tmp_path / "g" / "2.md")
    assert [p.name for p in pair(touch(tmp_path / "a" / "special.md")).context] == ["1.md"]
    assert [p.name for p in pair(touch(tmp_path / "a" / "plain.md")).context] == ["2.md"]


def test_front_matter_errors(project: Path) -> None:
    draft = project / "answers" / "q1.md"
    with pytest.raises(ConfigError, match=r"answers/q1.md: front matter 'context' must be a path or a list"):
        pair(draft, {"context": 3})
    with pytest.raises(ConfigError, match=r"front matter 'context\[1\]' must be a non-empty path"):
        pair(draft, {"context": ["a", {"x": 1}]})
    with pytest.raises(ConfigError, match="front matter 'query' must be a string"):
        pair(draft, {"query": ["a"]})
    with pytest.raises(ConfigError, match="front matter 'context' is empty"):
        pair(draft, {"context": []})


def test_front_matter_missing_paths(project: Path) -> None:
    draft = project / "answers" / "q1.md"
    with pytest.raises(InputError, match=r"front matter context 'gone.md' not found"):
        pair(draft, {"context": "gone.md"})
    with pytest.raises(InputError, match=r"front matter context glob 'gone/\*.md' matched no files"):
        pair(draft, {"context": ["gone/*.md"]})


def test_context_files_are_not_drafts() -> None:
    assert is_context_file(Path("answer.context.md"))
    assert is_context_file(Path("docs/answer.context.json"))
    assert is_context_file(Path("docs/answer.sources/a.md"))
    assert is_context_file(Path("docs/answer.context/deep/a.md"))
    assert not is_context_file(Path("answer.md"))
    assert not is_context_file(Path("context.md"))
    assert not is_context_file(Path("contexts/answer.md"))


def test_context_candidates() -> None:
    names = [p.as_posix() for p in context_candidates(Path("docs/answer.md"))]
    assert names == ["docs/answer.context.md", "docs/answer.context.txt", "docs/answer.context.json",
                     "docs/answer.context.yaml", "docs/answer.context.yml", "docs/answer.context.csv",
                     "docs/answer.context.tsv", "docs/answer.context", "docs/answer.sources"]


@pytest.mark.parametrize("suffix", [".context.yaml", ".context.csv"])
def test_structured_sibling_pairs_and_is_verbalised(tmp_path: Path, suffix: str) -> None:
    """answer.context.yaml / .csv next to a draft pair with it, and their records are read as sentences."""
    from faithlint.inputs.context import load_context

    yaml, csv = "name: Riverside Library\nrating: 4.5\n", "name,rating\nRiverside Library,4.5\n"
    body = yaml if suffix.endswith("yaml") else csv
    touch(tmp_path / f"answer{suffix}", body)
    touch(tmp_path / "answer.md", "It has a rating of 4.5.\n")
    result = pair(tmp_path / "answer.md")
    assert result.how == "sibling" and [p.name for p in result.context] == [f"answer{suffix}"]
    docs = load_context(result.context, 10**6)
    assert "4.5" in docs[0].text and "rating" in docs[0].text.lower()


@pytest.mark.parametrize(("path", "pattern", "expected"), [
    ("answers/a.md", "answers/*.md", True),
    ("answers/sub/a.md", "answers/*.md", False),
    ("answers/sub/a.md", "answers/**/*.md", True),
    ("answers/a.md", "answers/**/*.md", True),
    ("a.md", "**/*.md", True),
    ("x/y/z.txt", "x/**", True),
    ("x/y/z.txt", "./x/**", True),
    ("a1.md", "a?.md", True),
    ("ab.md", "a[!b].md", False),
    ("ac.md", "a[a-c].md", True),
    ("a.md", "*.txt", False),
])
def test_match_glob(path: str, pattern: str, expected: bool) -> None:
    assert match_glob(path, pattern) is expected
