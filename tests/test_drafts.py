"""The one preparation path (faithlint.inputs.drafts.prepare) that check, watch and the language server share."""

from __future__ import annotations

from pathlib import Path

import pytest

from faithlint.config import Config
from faithlint.errors import FaithlintError
from faithlint.inputs.drafts import prepare, prepare_draft


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / "a.md").write_text("---\ncontext: [good.md, bad.txt]\nquery: Why?\n---\nThe sky is blue.\n")
    (tmp_path / "good.md").write_text("The sky is blue on clear days.\n")
    (tmp_path / "bad.txt").write_bytes(b"abc\x00def")
    return tmp_path


def test_an_unusable_context_file_is_a_problem_next_to_the_usable_ones(ws: Path) -> None:
    prep = prepare(ws / "a.md", Config(), None)
    assert prep.draft is not None and [d.source for d in prep.draft.context] == [str(ws / "good.md")]
    assert [(p.severity, p.code) for p in prep.problems] == [("error", "context")]
    assert "bad.txt" in prep.problems[0].message and "binary" in prep.problems[0].message
    assert prep.pairing is not None and prep.pairing.query == "Why?" and prep.pairing.how == "front-matter"
    # the command line refuses the draft with that same one-line message
    with pytest.raises(FaithlintError) as err:
        prepare_draft(ws / "a.md", Config(), None)
    assert str(err.value) == prep.problems[0].message


def test_editor_text_and_file_are_prepared_alike(ws: Path) -> None:
    (ws / "bad.txt").unlink()
    (ws / "a.md").write_text("---\ncontext: [good.md]\n---\nOn disk.\n")
    unsaved = "---\ncontext: [good.md]\n---\nIn the editor.\n"
    disk = prepare_draft(ws / "a.md", Config(), None)
    editor = prepare(ws / "a.md", Config(), None, text=unsaved).draft
    assert editor is not None and editor.text == unsaved and disk.text.endswith("On disk.\n")
    assert editor.pairing == disk.pairing and editor.context == disk.context and editor.markdown and disk.markdown


def test_problems_instead_of_exceptions(ws: Path) -> None:
    (ws / "lonely.md").write_text("A claim.\n")
    (ws / "empty.md").write_text("  \n")
    lonely = prepare(ws / "lonely.md", Config(), None)
    assert lonely.draft is None and [p.code for p in lonely.problems] == ["no-context"]
    assert "lonely.context.md" in lonely.problems[0].message
    assert prepare(ws / "lonely.md", Config(), None, allow_no_context=True).draft is not None
    assert [p.code for p in prepare(ws / "empty.md", Config(), None).problems] == ["empty"]
    assert [p.code for p in prepare(ws / "missing.md", Config(), None).problems] == ["read"]
    unsaved = prepare(None, Config(), None, text="x")
    assert unsaved.draft is None and unsaved.problems[0].severity == "info"
    big = prepare(ws / "lonely.md", Config(max_file_size=10), None, text="x" * 11)
    assert [p.code for p in big.problems] == ["too-large"]
