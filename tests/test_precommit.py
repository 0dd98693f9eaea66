"""pre-commit integration, for real: temp git repos, ``pre-commit install`` and ``git commit``.

The hook under test is the documented ``repo: local`` + ``language: system`` variant pointing at this
interpreter's faithlint (the isolated ``language: python`` hook would pip-install torch into pre-commit's
cache). Its file filters (``types_or``, ``exclude``) are copied from the published ``.pre-commit-hooks.yaml``
so they are tested too.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pre_commit = pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
RAG_DRAFT = (ROOT / "examples" / "rag-answer" / "answer.md").read_text()
PLANTED = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
CAFE = "A rooftop café run by a local bakery opened on the top floor."

if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def published_hook() -> dict:
    hooks = yaml.safe_load(MANIFEST.read_text())
    return next(h for h in hooks if h["id"] == "faithlint")


def test_manifest_is_valid_and_as_documented() -> None:
    from pre_commit.clientlib import load_manifest

    (hook,) = [h for h in load_manifest(str(MANIFEST)) if h["id"] == "faithlint"]
    assert hook["entry"] == "faithlint check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True
    assert set(hook["types_or"]) == {"markdown", "plain-text"}
    assert hook["require_serial"] is True


def git_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PRE_COMMIT_HOME=str(home / "cache"),
               NO_COLOR="1")
    return env


def sh(*cmd: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def make_repo(tmp_path: Path, entry: str, files: dict[str, str], extra_hook: dict | None = None) -> tuple[Path,
                                                                                                          dict]:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = git_env(tmp_path)
    assert sh("git", "init", "-q", "-b", "main", cwd=repo, env=env).returncode == 0
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    pub = published_hook()
    hook = {"id": "faithlint", "name": "faithlint", "entry": entry, "language": "system",
            "types_or": pub["types_or"], "exclude": pub["exclude"], "pass_filenames": True,
            "require_serial": True, **(extra_hook or {})}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    install = sh(sys.executable, "-m", "pre_commit", "install", cwd=repo, env=env)
    assert install.returncode == 0, install.stdout + install.stderr
    return repo, env


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess:
    assert sh("git", "add", "-A", cwd=repo, env=env).returncode == 0
    return sh("git", "commit", "-q", "-m", message, cwd=repo, env=env)


def head(repo: Path, env: dict[str, str]) -> str | None:
    proc = sh("git", "rev-parse", "--verify", "-q", "HEAD", cwd=repo, env=env)
    return proc.stdout.strip() if proc.returncode == 0 else None


def test_hook_filters_pass_drafts_not_context_files(tmp_path: Path) -> None:
    """Which files the published filters hand to faithlint (a stand-in entry records them; no model)."""
    record = tmp_path / "args.txt"
    entry = (f"{shlex.quote(sys.executable)} -c "
             f"\"import sys; open({str(record)!r}, 'a').write(chr(10).join(sys.argv[1:]) + chr(10))\"")
    repo, env = make_repo(tmp_path, entry, {
        "answers/q.md": "Draft.\n", "answers/q.context.md": "Context.\n", "answers/n.txt": "Draft two.\n",
        "answers/n.context/a.md": "Ctx.\n", "answers/m.sources/b.txt": "Ctx.\n", "answers/data.context.json": "{}\n",
        "code.py": "print(1)\n", "notes.markdown": "Draft three.\n",
    })
    proc = commit(repo, env, "first")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    passed = sorted(x for x in record.read_text().splitlines() if x)
    assert passed == ["answers/n.txt", "answers/q.md", "notes.markdown"]


def _model_config() -> str:
    model = os.environ.get("FAITHLINT_TEST_MODEL")
    if model:
        return f"model = {str(Path(model).resolve())!r}\n"
    if not BUNDLED.exists():
        pytest.skip("no checker model: the bundled model is not installed and FAITHLINT_TEST_MODEL is not set")
    return ""


@pytest.mark.slow
def test_commit_blocked_by_a_planted_wrong_fact_then_allowed(tmp_path: Path) -> None:
    """Real faithlint, real model, real commits. FL400 (a year the context lacks) is rule-based, so this
    works with any checker model; FL100 with the bundled model is the next test."""
    entry = f"{shlex.quote(sys.executable)} -m faithlint check"
    repo, env = make_repo(tmp_path, entry, {
        # only the FL400 rule, on every sentence (threshold 1.0): the verdict does not depend on the model
        "faithlint.toml": 'select = ["FL400"]\nfail_on = "warning"\n' + _model_config()
                          + "[rules.FL400]\nthreshold = 1.0\n",
        "answers/q.context.md": "The Riverside library reopened in 2024 after an 18-month renovation.\n",
        "answers/q.md": "The Riverside library reopened in 2019 after a renovation.\n",
        "README.md": "# A repository of answers\n",  # no context: scoped out with `files:` below
    }, extra_hook={"files": "^answers/"})
    blocked = commit(repo, env, "planted")
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode == 1, out
    assert "answers/q.md:1:" in out and "FL400" in out and "2019" in out, out
    assert "Failed" in out and head(repo, env) is None
    (repo / "answers" / "q.md").write_text("The Riverside library reopened in 2024 after a renovation.\n")
    ok = commit(repo, env, "fixed")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert head(repo, env) is not None
    assert (repo / "answers" / "q.md").read_text().endswith("2024 after a renovation.\n")  # hook never edits


@pytest.mark.slow
@pytest.mark.skipif(not BUNDLED.exists(), reason="the bundled model is not installed yet (contradictions need it)")
def test_commit_blocked_by_the_example_contradiction(tmp_path: Path) -> None:
    example = ROOT / "examples" / "rag-answer"
    planted = RAG_DRAFT
    # the fix: the wrong amount and the café the context never mentions are gone
    fixed = planted.replace(PLANTED + "\n", "").replace(CAFE + "\n", "")
    assert len(fixed) < len(planted) - len(PLANTED) - len(CAFE)
    entry = f"{shlex.quote(sys.executable)} -m faithlint check"
    repo, env = make_repo(tmp_path, entry, {
        "answers/answer.context.md": (example / "answer.context.md").read_text(),
        "answers/answer.md": planted,
    })
    blocked = commit(repo, env, "planted")
    out = blocked.stdout + blocked.stderr
    line = planted.splitlines().index(PLANTED) + 1
    column = PLANTED.index("$25") + 1  # the span head marks the wrong amount
    assert blocked.returncode == 1 and f"answers/answer.md:{line}:{column}: FL100 [error]" in out, out
    assert head(repo, env) is None
    (repo / "answers" / "answer.md").write_text(fixed)
    ok = commit(repo, env, "fixed")
    assert ok.returncode == 0, ok.stdout + ok.stderr


@pytest.mark.slow
def test_a_file_without_context_does_not_hide_the_findings_of_the_others(tmp_path: Path) -> None:
    """The hook on a docs tree without `files:` scoping (issue 39): the README without context is one line of its
    own, the draft's planted wrong year is still reported, and the commit is refused (exit 2)."""
    entry = f"{shlex.quote(sys.executable)} -m faithlint check"
    repo, env = make_repo(tmp_path, entry, {
        "faithlint.toml": 'select = ["FL400"]\n' + _model_config() + "[rules.FL400]\nthreshold = 1.0\n",
        "docs/q.context.md": "The Riverside library reopened in 2024 after an 18-month renovation.\n",
        "docs/q.md": "The Riverside library reopened in 2019 after a renovation.\n",
        "README.md": "# A repository of answers\n",
    })
    blocked = commit(repo, env, "docs")
    out = blocked.stdout + blocked.stderr
    assert "faithlint: error: README.md: no context found" in out, out
    assert "docs/q.md:1:" in out and "FL400" in out and "\u201c2019\u201d" in out, out
    assert "exit code: 2" in out and head(repo, env) is None
