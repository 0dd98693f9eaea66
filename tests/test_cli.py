"""CLI usage and bad-input handling: one-line errors, exit 2, no traceback, drafts untouched.

These paths fail before any model loads, so they are fast.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from faithlint.models.checkers.tokens import base_model_dir


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faithlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def assert_user_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    err = proc.stderr.strip().splitlines()
    assert err and err[-1].startswith("faithlint: error:"), proc.stderr
    for n in needles:
        assert n in err[-1], (n, err[-1])


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / "answer.md").write_text("The sky is blue.\n")
    (tmp_path / "answer.context.md").write_text("The sky is blue on clear days.\n")
    return tmp_path


def test_missing_path(ws):
    assert_user_error(run("check", "nope.md", cwd=ws), "nope.md", "no such file")


def test_binary_draft(ws):
    (ws / "bin.md").write_bytes(b"abc\x00def")
    assert_user_error(run("check", "bin.md", cwd=ws), "bin.md", "binary")


def test_invalid_utf8_names_byte_offset(ws):
    (ws / "bad.md").write_bytes(b"Hello w\xc3\x28rld.")
    assert_user_error(run("check", "bad.md", cwd=ws), "bad.md", "invalid UTF-8", "7")


def test_invalid_utf8_context(ws):
    (ws / "answer.context.md").write_bytes(b"ok \xff")
    assert_user_error(run("check", "answer.md", cwd=ws), "answer.context.md", "invalid UTF-8")


def test_empty_draft(ws):
    (ws / "empty.md").write_text("  \n\n")
    assert_user_error(run("check", "empty.md", "--context", "answer.context.md", cwd=ws), "empty.md", "empty")


def test_no_context_is_an_error_unless_allowed(ws):
    (ws / "lonely.md").write_text("An orphan sentence.\n")
    assert_user_error(run("check", "lonely.md", cwd=ws), "lonely.md", "no context")
    ok = run("check", "lonely.md", "--allow-no-context", cwd=ws)
    assert ok.returncode == 0, ok.stderr


def test_file_over_size_limit(ws):
    (ws / "faithlint.toml").write_text("max_file_size = 10\n")
    assert_user_error(run("check", "answer.md", cwd=ws), "answer.md", "limit")


def test_malformed_config_names_file_and_key(ws):
    (ws / "faithlint.toml").write_text("[rules.FL300]\nthreshold = 3\n")
    assert_user_error(run("check", "answer.md", cwd=ws), "faithlint.toml", "rules.FL300.threshold")
    (ws / "faithlint.toml").write_text("top_p = = 1\n")
    assert_user_error(run("check", "answer.md", cwd=ws), "faithlint.toml", "TOML")
    (ws / "faithlint.toml").write_text("colour = 'red'\n")
    assert_user_error(run("check", "answer.md", cwd=ws), "faithlint.toml", "colour")


def test_model_that_is_not_an_nli_classifier(ws):
    # all-MiniLM-L6-v2 is a sentence encoder (BertModel), not a classifier
    assert_user_error(run("check", "answer.md", "--model", str(base_model_dir()), cwd=ws), "not a sequence classifier")
    (ws / "notamodel").mkdir()
    assert_user_error(run("check", "answer.md", "--model", "notamodel", cwd=ws), "notamodel")


def test_bad_pairs_file(ws):
    (ws / "pairs.jsonl").write_text(json.dumps({"id": "a", "text": "x", "context": ["y"]}) + "\n{oops\n")
    assert_user_error(run("check", "--pairs", "pairs.jsonl", cwd=ws), "pairs.jsonl", "line 2", "invalid JSON")
    (ws / "pairs.jsonl").write_text(json.dumps({"id": "a", "context": ["y"]}) + "\n")
    assert_user_error(run("check", "--pairs", "pairs.jsonl", cwd=ws), "line 1", "text")
    (ws / "pairs.jsonl").write_text(json.dumps({"id": "a", "text": "x", "context_files": ["missing.txt"]}) + "\n")
    assert_user_error(run("check", "--pairs", "pairs.jsonl", cwd=ws), "missing.txt")


def test_usage_errors_exit_2(ws):
    assert_user_error(run("check", "answer.md", "--format", "xml", cwd=ws), "--format")
    assert_user_error(run("check", cwd=ws), "no drafts")
    proc = run(cwd=ws)
    assert proc.returncode == 2


def test_bad_front_matter_context(ws):
    (ws / "fm.md").write_text("---\ncontext: 3\n---\nA sentence.\n")
    assert_user_error(run("check", "fm.md", cwd=ws), "fm.md", "context")
    (ws / "fm.md").write_text("---\ncontext: [gone.md]\n---\nA sentence.\n")
    assert_user_error(run("check", "fm.md", cwd=ws), "gone.md")


def test_check_never_modifies_the_draft(ws):
    before = (ws / "answer.md").read_bytes()
    run("check", "answer.md", "--model", "notamodel", cwd=ws)
    run("check", "answer.md", "--allow-no-context", "--context", "answer.context.md", cwd=ws)
    assert (ws / "answer.md").read_bytes() == before
