"""``faithlint check`` per draft (issue 39): each draft's own config, a draft that cannot be checked reported on
its own line while the others are checked, and which drafts a folder holds (``check ..``, a root inside a
hidden folder, ``.gitignore``). Real runs of the CLI with the bundled models on the example RAG answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rag-answer"
DRAFT = (EXAMPLE / "answer.md").read_text(encoding="utf-8")
CONTEXT = (EXAMPLE / "answer.context.md").read_text(encoding="utf-8")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                                        os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "faithlint", "check", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)


def answer(folder: Path, name: str = "x", context: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(DRAFT, encoding="utf-8")
    if context:
        (folder / f"{name}.context.md").write_text(CONTEXT, encoding="utf-8")
    return folder / f"{name}.md"


def reported(proc: subprocess.CompletedProcess) -> dict[str, list[str]]:
    """Draft path -> its finding codes, from ``--format json``."""
    return {r["path"]: [f["code"] for f in r["findings"]] for r in json.loads(proc.stdout)["results"]}


def test_each_draft_is_checked_with_its_nearest_config(tmp_path: Path) -> None:
    answer(tmp_path / "a")
    answer(tmp_path / "b")
    (tmp_path / "a" / "faithlint.toml").write_text('ignore = ["FL"]\n')
    for order in (["a/x.md", "b/x.md"], ["b/x.md", "a/x.md"]):
        proc = run(*order, "--format", "json", cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        got = reported(proc)
        assert got["a/x.md"] == [], (order, got)
        assert {"FL100", "FL200", "FL400"} <= set(got["b/x.md"]), (order, got)
    # --config FILE is every draft's config; flags go on top of each draft's own
    assert run("a/x.md", "b/x.md", "--config", "a/faithlint.toml", cwd=tmp_path).returncode == 0
    proc = run("a/x.md", "b/x.md", "--fail-on", "never", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0 and reported(proc)["a/x.md"] == [] and reported(proc)["b/x.md"], proc.stdout


def test_a_draft_without_context_does_not_stop_the_others(tmp_path: Path) -> None:
    """The pre-commit hook on a docs tree: one context-less file is one line, the rest are still checked."""
    docs = tmp_path / "docs"
    answer(docs, "answer")
    (docs / "README.md").write_text("# Notes\n\nThis folder holds answers.\n")
    proc = run("docs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("faithlint: error: docs/README.md: no context found"), err
    assert "docs/answer.md:7:18: FL100 [error] \u201c$25" in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stderr
    proc = run("docs", "--format", "json", cwd=tmp_path)  # the report keeps its format; the error is on stderr
    assert proc.returncode == 2 and list(reported(proc)) == ["docs/answer.md"], proc.stdout
    assert "docs/README.md: no context found" in proc.stderr
    proc = run("docs", "--allow-no-context", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1 and sorted(reported(proc)) == ["docs/README.md", "docs/answer.md"], proc.stderr


def test_folders_up_and_hidden_above_the_root_are_searched_and_gitignore_is_honoured(tmp_path: Path) -> None:
    proj = tmp_path / ".cache" / "proj"  # the root given lies inside a hidden folder
    (proj / ".git").mkdir(parents=True)
    answer(proj, "kept")
    answer(proj / "build", "generated")
    answer(proj, "skip")
    answer(proj / ".drafts", "hidden")
    answer(proj / "sub" / "deep", "nested")
    (proj / ".gitignore").write_text("build/\nskip.md\n")
    (proj / "sub" / ".gitignore").write_text("deep/\n")
    cwd = proj / "sub"
    proc = run("..", "../skip.md", "--format", "json", cwd=cwd)  # a file named is checked even if ignored
    assert proc.returncode == 1, proc.stderr
    assert sorted(reported(proc)) == ["../kept.md", "../skip.md"], proc.stdout
    proc = run(".", "--format", "json", cwd=proj)
    assert sorted(reported(proc)) == ["kept.md"], proc.stdout + proc.stderr


def test_find_drafts_follows_gits_rules_below_the_folder_given(tmp_path: Path, monkeypatch) -> None:
    """Negation, nested files and .git/info/exclude, as git; hidden names and context skipped below the root."""
    from faithlint.inputs.discovery import find_drafts

    root = tmp_path / ".work" / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("private.md\n")
    (root / ".gitignore").write_text("*.txt\n!keep.txt\nout/\n")
    (root / "docs").mkdir()
    (root / "docs" / ".gitignore").write_text("draft-*.md\n")
    for name in ("a.md", "private.md", "notes.txt", "keep.txt", "out/x.md", "docs/b.md", "docs/draft-1.md",
                 "a.context.md", "a.sources/s.md", ".hidden/h.md", "docs/.h.md", "img.png"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    monkeypatch.chdir(root / "docs")
    assert find_drafts([Path("..")]) == [Path("../a.md"), Path("../docs/b.md"), Path("../keep.txt")]
    assert find_drafts([Path(".")]) == [Path("b.md")]
    # named files are drafts whatever .gitignore or their name says; the same draft twice is checked once
    assert find_drafts([Path("draft-1.md"), Path(".h.md"), Path("b.md"), Path("../docs/b.md")]) == \
        [Path("draft-1.md"), Path(".h.md"), Path("b.md")]
    assert find_drafts([Path("..")], gitignore=False) == [
        Path(p) for p in ("../a.md", "../docs/b.md", "../docs/draft-1.md", "../keep.txt", "../notes.txt",
                          "../out/x.md", "../private.md")]
