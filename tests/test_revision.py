"""Provenance records name the git revision they were made from, or None where there is none."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from faithlint.train.revision import git_revision

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_revision_of_a_checkout_short_full_and_dirty(tmp_path):
    assert git_revision(tmp_path) is None  # not a checkout
    git(tmp_path, "init", "-q")
    assert git_revision(tmp_path) is None  # no commit yet
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "a")
    full = git(tmp_path, "rev-parse", "HEAD")
    assert git_revision(tmp_path) == git(tmp_path, "rev-parse", "--short", "HEAD")
    assert git_revision(tmp_path, short=False, mark_dirty=True) == full
    (tmp_path / "a.txt").write_text("b\n")
    assert git_revision(tmp_path, short=False, mark_dirty=True) == full + "-dirty"
    assert git_revision(tmp_path, short=False) == full  # dirtiness only when asked
