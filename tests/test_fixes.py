"""Fixes in the core: correctors, safe fixes, ``faithlint check --fix`` / ``--diff`` (fake checker, real CLI code).

The end-to-end run of ``--fix`` on the shipped example with the real model is in test_e2e.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))

from fake_models import make_linter  # noqa: E402

from faithlint.cli import app as cli  # noqa: E402
from faithlint.config import Config  # noqa: E402
from faithlint.errors import InputError  # noqa: E402
from faithlint.fixes.edits import (  # noqa: E402
    Applicability,
    CorrectorRegistry,
    Edit,
    FixTarget,
    Proposal,
    applicable_fixes,
    apply_edits,
    builtin_correctors,
    fix_text,
    unified_diff,
    write_fixed,
)

CONTEXT = "The library reopened on March 4, 2024. The project cost $12.5 million. It is closed on Sundays.\n"
# CRLF, an emoji and CJK before the value: offsets are code points of the text as read
DRAFT = ("# 😀 Library\r\n\r\n中文 The library reopened on March 4, 2024. The project cost $15 million.\r\n"
         "It has a xunsup cafe.\r\n")


@pytest.fixture()
def fake_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """``faithlint check`` with the keyword checker instead of the model (everything else is the real CLI)."""
    import faithlint.pipeline.linter

    monkeypatch.setattr(faithlint.pipeline.linter, "Linter", lambda config: make_linter(config))


@pytest.fixture()
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "draft.md").write_bytes(b"\xef\xbb\xbf" + DRAFT.encode())  # a BOM, which --fix must keep
    (tmp_path / "draft.context.md").write_text(CONTEXT)
    # FL400 on every sentence: the keyword checker finds the "$15 million" sentence entailed
    (tmp_path / "faithlint.toml").write_text('relevance = "lexical"\n[rules.FL400]\nthreshold = 1.0\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _result(text: str = DRAFT) -> object:
    from faithlint.inputs.context import load_context

    ctx = [d for d in load_context([Path("draft.context.md")], 10**6)]
    return make_linter(Config(relevance="lexical", rules={"FL400": {"threshold": 1.0}})).check(text, ctx,
                                                                                               path="draft.md")


def test_no_fix_is_safe_and_the_value_swap_is_unsafe(ws: Path) -> None:
    res = _result()
    assert {f.code for f in res.findings} == {"FL200", "FL400"}
    assert applicable_fixes(res) == []
    fixes = applicable_fixes(res, Applicability.UNSAFE)
    assert [(f.corrector, f.code, f.applicability, f.safe, f.unsafe) for f in fixes] == [
        ("faithlint.replaceValue", "FL400", Applicability.UNSAFE, False, True)]
    assert fix_text(DRAFT, fixes) == DRAFT.replace("$15 million", "$12.5 million")
    # the other correctors still offer their (display-only) fixes for the editor
    unsafe = {c.id for c in builtin_correctors()} - {"faithlint.replaceValue"}
    assert unsafe == {"faithlint.replaceWithEvidence", "faithlint.deleteSentence", "faithlint.disableLine",
                      "faithlint.disableFile"}


def test_safe_fixes_use_the_correctors_given(ws: Path) -> None:
    class Upper:
        id = "test.upper"

        def propose(self, target: FixTarget) -> list[Proposal]:
            return [Proposal("Shout", applicability=Applicability.SAFE)] if target.code == "FL200" else []

        def edits(self, target: FixTarget, args: dict) -> list[Edit]:
            a, b = target.span("sentence") or (0, 0)
            return [Edit(a, b, target.text[a:b].upper())]

    fixes = applicable_fixes(_result(), correctors=CorrectorRegistry([Upper()]))
    assert [f.corrector for f in fixes] == ["test.upper"]
    assert fix_text(DRAFT, fixes).endswith("IT HAS A XUNSUP CAFE.\r\n")


class _Shout:
    """A plugin rule's own fix: it reads the key its rule put in the finding's data."""

    id = "test.shout"

    def propose(self, target: FixTarget) -> list[Proposal]:
        return [Proposal("Shout it", applicability=Applicability.SAFE)]  # for its rule's findings only

    def edits(self, target: FixTarget, args: dict) -> list[Edit]:
        a, b = target.span("start_end") or (0, 0)
        return [Edit(a, b, str(target.data.get("shout")))]


def test_a_rule_builds_its_own_fix_for_the_cli_and_the_editor(ws: Path) -> None:
    import json
    import re

    from faithlint.fixes.edits import finding_data, fixes_for
    from faithlint.inputs.context import load_context
    from faithlint.rules import RULES, Rule

    class Quiet(Rule):
        code = "QT900"
        name = "quiet-word"
        summary = "A word that should be shouted."
        scope = "span"

        def check(self, judged, ctx):  # type: ignore[no-untyped-def]
            for m in re.finditer("xunsup", judged.unit.text):
                a, b = judged.unit.to_source(m.start(), m.end())
                yield self.finding(ctx, judged, "say it louder", a, b, shout=m.group(0).upper())

        def fixes(self) -> tuple[_Shout]:
            return (_Shout(),)

    RULES.register(Quiet())
    try:
        config = Config(relevance="lexical", select=["FL", "QT"], rules={"FL400": {"threshold": 1.0}})
        res = make_linter(config).check(DRAFT, list(load_context([Path("draft.context.md")], 10**6)), path="draft.md")
        by_code = {f.code: f for f in res.findings}
        assert set(by_code) == {"FL200", "FL400", "QT900"}
        quiet = by_code["QT900"]
        # only the finding's rule offers it (and a span rule's finding gets no sentence fixes)
        assert [x.corrector for x in fixes_for(quiet, DRAFT)] == ["test.shout", "faithlint.disableLine",
                                                                  "faithlint.disableFile"]
        assert "test.shout" not in [x.corrector for x in fixes_for(by_code["FL200"], DRAFT)]
        assert [x.corrector for x in fixes_for(by_code["FL400"], DRAFT)][0] == "faithlint.replaceValue"
        # the editor's way: from the diagnostic's data as the client sends it back (JSON), nothing else
        target = FixTarget(DRAFT, json.loads(json.dumps(finding_data(quiet, DRAFT))))
        shout = builtin_correctors().get("test.shout")
        assert shout is not None and [p.title for p in shout.propose(target)] == ["Shout it"]
        assert apply_edits(DRAFT, shout.edits(target, {})) == DRAFT.replace("xunsup", "XUNSUP")
        # --fix: the rule's safe fix is applied, FL400's unsafe value swap only with --unsafe-fixes
        assert fix_text(DRAFT, applicable_fixes(res)) == DRAFT.replace("xunsup", "XUNSUP")
        assert fix_text(DRAFT, applicable_fixes(res, Applicability.UNSAFE)) == DRAFT.replace(
            "xunsup", "XUNSUP").replace("$15 million", "$12.5 million")
    finally:
        RULES.unregister("QT900")
    assert "test.shout" not in {c.id for c in builtin_correctors()}


def test_applicability_orders_as_ruff() -> None:
    safe, unsafe, display = Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY
    assert [a.applies_at(safe) for a in (safe, unsafe, display)] == [True, False, False]  # --fix
    assert [a.applies_at(unsafe) for a in (safe, unsafe, display)] == [True, True, False]  # --fix --unsafe-fixes


def test_check_fix_writes_the_value_and_reports_what_remains(ws: Path, fake_cli: None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = (ws / "draft.md").read_bytes()
    assert cli.main(["check", "draft.md", "--fix"]) == 1  # the value swap is unsafe: --fix alone keeps it out
    assert (ws / "draft.md").read_bytes() == before
    assert "no safe fixes to apply; 1 unsafe fix not applied (--unsafe-fixes)" in capsys.readouterr().err
    code = cli.main(["check", "draft.md", "--fix", "--unsafe-fixes", "--format", "json"])
    assert code == 1  # the FL200 is still there
    raw = (ws / "draft.md").read_bytes()
    assert raw == b"\xef\xbb\xbf" + DRAFT.replace("$15 million", "$12.5 million").encode()
    import json

    captured = capsys.readouterr()
    report = json.loads(captured.out)["results"][0]
    assert [f["code"] for f in report["findings"]] == ["FL200"]
    # the report describes the fixed text: its offsets index the file as it now is
    fixed = DRAFT.replace("$15 million", "$12.5 million")
    f = report["findings"][0]
    assert fixed[f["start"]:f["end"]] == "It has a xunsup cafe."
    assert "applied 1 fix in 1 draft" in captured.err
    # nothing left to fix: a second run changes nothing
    assert cli.main(["check", "draft.md", "--fix", "--unsafe-fixes"]) == 1
    assert (ws / "draft.md").read_bytes() == raw
    assert "no fixes to apply" in capsys.readouterr().err


def test_check_diff_prints_the_fix_and_changes_nothing(ws: Path, fake_cli: None,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    before = (ws / "draft.md").read_bytes()
    assert cli.main(["check", "draft.md", "--diff"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "1 unsafe fix not shown (--unsafe-fixes)" in out.err
    code = cli.main(["check", "draft.md", "--diff", "--unsafe-fixes"])
    out = capsys.readouterr()
    assert code == 1 and (ws / "draft.md").read_bytes() == before
    assert out.out.startswith("--- a/draft.md\n+++ b/draft.md\n@@")
    assert "-中文 The library reopened on March 4, 2024. The project cost $15 million.\r\n" in out.out
    assert "+中文 The library reopened on March 4, 2024. The project cost $12.5 million.\r\n" in out.out
    assert "xunsup" not in out.out.replace(" It has a xunsup cafe.", "")  # context lines only
    assert "not applied: --fix --unsafe-fixes applies them" in out.err
    assert cli.main(["check", "draft.md"]) == 1 and (ws / "draft.md").read_bytes() == before


@pytest.mark.parametrize("argv,needle", [
    (["check", "draft.md", "--fix", "--diff"], "not allowed with"),
    (["check", "--pairs", "p.jsonl", "--fix"], "--fix works on draft files"),
    (["check", "--pairs", "p.jsonl", "--diff"], "--diff works on draft files"),
    (["check", "draft.md", "--unsafe-fixes"], "--unsafe-fixes goes with --fix or --diff"),
])
def test_fix_usage_errors_are_one_line(ws: Path, argv: list[str], needle: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (ws / "p.jsonl").write_text('{"id": 1, "text": "x", "context": "y"}\n')
    before = (ws / "draft.md").read_bytes()
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("faithlint: error:") and needle in err[-1], err
    assert (ws / "draft.md").read_bytes() == before


def test_write_fixed_refuses_a_draft_that_changed_and_writes_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"A.\r\nB $1.\r\n")
    os.chmod(real, 0o600)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(InputError, match="changed while it was being checked"):
        write_fixed(link, "A.\nB $1.\n", "A.\nB $2.\n")
    assert real.read_bytes() == b"A.\r\nB $1.\r\n"
    write_fixed(link, "A.\r\nB $1.\r\n", "A.\r\nB $2.\r\n")
    assert link.is_symlink() and real.read_bytes() == b"A.\r\nB $2.\r\n"
    assert oct(real.stat().st_mode & 0o777) == oct(0o600)
    assert [p.name for p in tmp_path.iterdir() if p.name not in ("real.md", "link.md")] == []


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff("a\nb $1", "a\nb $2", "d.md")
    assert diff.splitlines()[-4:] == ["-b $1", "\\ No newline at end of file", "+b $2",
                                      "\\ No newline at end of file"]
    assert unified_diff("same\n", "same\n", "d.md") == ""
