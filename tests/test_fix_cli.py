"""``faithlint fix`` on the command line: ``--method fod`` wiring, ``--pairs`` batches, writing safely, Ctrl-C.

Fakes first (the linter of tests/test_rac.py, fake SentenceCorrectors), then the real models (slow).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_rac import CTX, DRAFT, fake_linter

from faithlint.cli import app as cli
from faithlint.fixes.correctors.base import Corrections
from faithlint.fixes.edits import Edit, Fix, apply_edits

NOTE = "FOD: \u201cThe hall has 40 rooms.\u201d: no candidate passed \u03c42 = 0.85 (best 0.61)"


class FakeFOD:
    """A SentenceCorrector like FOD's: up to three alternatives for the $25 million sentence, best first, all
    overlapping; ``during`` runs inside ``correct`` (the user editing the file, a Ctrl-C...)."""

    id = "faithlint.fod"
    title = "Regenerate faithfully (FOD)"

    def __init__(self, notes: Sequence[str] = (NOTE,), during: Any = None) -> None:
        self.notes = list(notes)
        self.during = during
        self.calls: list[dict[str, Any]] = []

    def correct(self, text: str, context: Sequence[Any], *, query: str | None = None, markdown: bool = True,
                within: tuple[int, int] | None = None, cancel: threading.Event | None = None,
                progress: Any = None) -> Corrections:
        self.calls.append({"text": text, "query": query, "markdown": markdown, "cancel": cancel})
        if progress is not None:
            progress("FOD: sentence 1 of 1", 50)
        if self.during is not None:
            self.during(len(self.calls))
        out = Corrections(notes=list(self.notes))
        bad = "The project cost $25 million."
        if bad in text:
            a = text.index(bad)
            for new, score in ((("The project cost $12.5 million.", 0.97),
                                              ("The project cost 12.5 million dollars.", 0.93),
                                              ("The project was costly.", 0.88))):
                out.fixes.append(Fix(self.id, "FL100", f"Regenerate faithfully (FOD, {score:.2f}): {new}",
                                     (Edit(a, a + len(bad), new),), False, score))
        return out


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("faithlint.pipeline.linter.Linter", fake_linter)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "answer.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "answer.context.md").write_text(CTX[0].text + "\n", encoding="utf-8")
    return tmp_path


def use(monkeypatch: pytest.MonkeyPatch, corrector: Any) -> list[str]:
    """Route ``corrector_for`` to ``corrector``; the methods it was asked for are returned."""
    asked: list[str] = []

    def corrector_for(method: str, linter: Any) -> Any:
        asked.append(method)
        return corrector

    monkeypatch.setattr("faithlint.fixes.correctors.run.corrector_for", corrector_for)
    return asked


def one_error_line(err: str, *needles: str) -> None:
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith("usage:")]
    assert len(lines) == 1, err
    assert lines[0].startswith("faithlint: error:") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


# ---------------------------------------------------------------------------------------------- --method fod
def test_fod_goes_through_the_protocol_and_its_best_candidate_is_the_diff(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]):
    fod = FakeFOD()
    asked = use(monkeypatch, fod)
    code = cli.main(["fix", "answer.md", "--method", "fod"])
    out, err = capsys.readouterr()
    assert asked == ["fod"] and len(fod.calls) == 1
    assert fod.calls[0]["markdown"] is True and isinstance(fod.calls[0]["cancel"], threading.Event)
    assert "-The project cost $25 million.\n+The project cost $12.5 million.\n" in out  # the best of three
    assert "12.5 million dollars" not in out and "costly" not in out
    assert f"faithlint: answer.md: {NOTE}\n" in err  # each note, named by its draft
    assert "1 fix proposed (not written: --write writes them)" in err
    assert code == 1
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT


def test_fod_write_writes_the_best_candidate(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]):
    use(monkeypatch, FakeFOD(notes=()))
    code = cli.main(["fix", "answer.md", "--method", "fod", "--write"])
    err = capsys.readouterr().err
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT.replace("$25 million", "$12.5 million")
    assert "faithlint: answer.md: wrote: Regenerate faithfully (FOD, 0.97): The project cost $12.5 million." in err
    assert code == 0  # the written draft re-checks clean


def test_fod_never_loses_an_edit_made_while_it_ran(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]):
    edited = DRAFT + "A line the user added.\n"
    use(monkeypatch, FakeFOD(notes=(), during=lambda n: (ws / "answer.md").write_text(edited, encoding="utf-8")))
    code = cli.main(["fix", "answer.md", "--method", "fod", "--write"])
    err = capsys.readouterr().err
    assert code == 2
    one_error_line(err, "answer.md: the file changed while the correction ran; not written")
    assert (ws / "answer.md").read_text(encoding="utf-8") == edited  # the user's edit is still there


def test_an_edit_to_one_draft_does_not_stop_the_others_being_written(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]):
    (ws / "other.md").write_text(DRAFT, encoding="utf-8")
    (ws / "other.context.md").write_text(CTX[0].text + "\n", encoding="utf-8")
    edited = DRAFT + "Edited.\n"
    use(monkeypatch, FakeFOD(notes=(), during=lambda n: n == 2 and (ws / "answer.md").write_text(edited)))
    code = cli.main(["fix", "answer.md", "other.md", "--method", "fod", "--write"])
    err = capsys.readouterr().err
    assert code == 2
    assert (ws / "answer.md").read_text(encoding="utf-8") == edited
    assert (ws / "other.md").read_text(encoding="utf-8") == DRAFT.replace("$25 million", "$12.5 million")
    assert "faithlint: error: answer.md: the file changed while the correction ran" in err
    assert "faithlint: other.md: wrote:" in err


def test_ctrl_c_during_a_correction_leaves_every_draft_untouched(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]):
    (ws / "other.md").write_text(DRAFT, encoding="utf-8")
    (ws / "other.context.md").write_text(CTX[0].text + "\n", encoding="utf-8")

    def interrupt(n: int) -> None:
        if n == 2:  # the first draft is corrected already
            raise KeyboardInterrupt

    fod = FakeFOD(during=interrupt)
    use(monkeypatch, fod)
    code = cli.main(["fix", "answer.md", "other.md", "--method", "fod", "--write"])
    out, err = capsys.readouterr()
    assert code == 130
    assert err.endswith("faithlint: interrupted\n") and "Traceback" not in err
    assert [x for x in err.splitlines() if NOTE not in x] == ["faithlint: interrupted"]
    assert out == ""
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT
    assert (ws / "other.md").read_text(encoding="utf-8") == DRAFT
    assert fod.calls[1]["cancel"].is_set()  # a corrector working in other threads is told to stop


def test_the_diff_goes_to_an_output_file_but_never_over_an_input(ws: Path, capsys: pytest.CaptureFixture[str]):
    assert cli.main(["fix", "answer.md", "-o", "changes.diff"]) == 1
    assert capsys.readouterr().out == ""
    assert "+The project cost $12.5 million.\n" in (ws / "changes.diff").read_text(encoding="utf-8")
    for target in ("answer.md", "answer.context.md"):
        assert cli.main(["fix", "answer.md", "-o", target]) == 2
        one_error_line(capsys.readouterr().err, target, "output file is an input")
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT


def test_fod_that_cannot_be_imported_is_a_one_line_error(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]):
    monkeypatch.setitem(sys.modules, "faithlint.fixes.correctors.fod", None)  # import fails
    assert cli.main(["fix", "answer.md", "--method", "fod"]) == 2
    one_error_line(capsys.readouterr().err, "--method fod is not available")
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT


def test_a_corrector_that_crashes_is_one_line_naming_the_draft(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]):
    def boom(n: int) -> None:
        raise RuntimeError("CUDA out of memory")

    use(monkeypatch, FakeFOD(during=boom))
    assert cli.main(["fix", "answer.md", "--method", "fod", "--write"]) == 2
    one_error_line(capsys.readouterr().err, "answer.md: the correction failed", "CUDA out of memory")
    assert (ws / "answer.md").read_text(encoding="utf-8") == DRAFT


def test_a_corrector_error_names_the_draft(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]):
    from faithlint.errors import ModelError

    def timeout(n: int) -> None:
        raise ModelError("LLM endpoint http://localhost:8000/v1: no answer within 120 s (llm_timeout)")

    use(monkeypatch, FakeFOD(during=timeout))
    assert cli.main(["fix", "answer.md", "--method", "fod"]) == 2
    one_error_line(capsys.readouterr().err, "faithlint: error: answer.md: LLM endpoint", "(llm_timeout)")


# ---------------------------------------------------------------------------------------------- --pairs
PAIRS = [
    {"id": "a", "text": "The hall has 40 rooms. The project cost $25 million.", "context": [CTX[0].text],
     "query": "What did it cost?"},
    {"id": 2, "text": "The hall has 40 rooms.", "context_files": ["ctx.txt"]},
]


def write_pairs(ws: Path, rows: Sequence[Any] = PAIRS, name: str = "pairs.jsonl") -> Path:
    (ws / "ctx.txt").write_text(CTX[0].text + "\n", encoding="utf-8")
    p = ws / name
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize("method", ["rac", "values"])
def test_pairs_writes_one_corrected_line_per_input_to_stdout(ws: Path, capsys: pytest.CaptureFixture[str],
                                                             method: str):
    pairs = write_pairs(ws)
    before = pairs.read_bytes()
    code = cli.main(["fix", "--pairs", "pairs.jsonl", "--method", method])
    out, err = capsys.readouterr()
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r["id"] for r in rows] == ["a", "2"]
    a, b = rows
    assert a["original"] == PAIRS[0]["text"]
    assert a["text"] == PAIRS[0]["text"].replace("$25 million", "$12.5 million")
    assert len(a["fixes"]) == 1
    fix = a["fixes"][0]
    assert set(fix) >= {"title", "code", "corrector", "edits"}
    assert "$25 million" in fix["title"] and "$12.5 million" in fix["title"]
    if method == "rac":
        assert fix["corrector"] == "faithlint.rac"
    start = a["original"].index("$25 million")
    assert fix["edits"] == [{"start": start, "end": start + len("$25 million"), "new_text": "$12.5 million"}]
    assert apply_edits(a["original"], [Edit(**e) for e in fix["edits"]]) == a["text"]
    assert b == {"id": "2", "text": PAIRS[1]["text"], "original": PAIRS[1]["text"], "fixes": [],
                 "notes": b["notes"]}
    assert isinstance(a["notes"], list) and isinstance(b["notes"], list)
    assert code == 1  # fixes were proposed (nothing is written to any draft)
    assert "1 fix proposed in 1 of 2 pair(s)" in err
    assert pairs.read_bytes() == before


def test_pairs_to_an_output_file_with_fod(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]):
    pairs = write_pairs(ws)
    before = pairs.read_bytes()
    fod = FakeFOD()
    use(monkeypatch, fod)
    code = cli.main(["fix", "--pairs", "pairs.jsonl", "--method", "fod", "-o", "out.jsonl"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    rows = [json.loads(x) for x in (ws / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows[0]["text"] == PAIRS[0]["text"].replace("$25 million", "$12.5 million")  # the best of three
    assert [f["corrector"] for f in rows[0]["fixes"]] == ["faithlint.fod"]
    assert rows[0]["notes"] == [NOTE] and rows[1]["notes"] == [NOTE]
    assert "faithlint: pairs.jsonl: line 1 (id 'a'): " + NOTE in err
    assert "wrote out.jsonl" in err
    assert fod.calls[0]["query"] == "What did it cost?" and fod.calls[0]["markdown"] is False
    assert pairs.read_bytes() == before
    assert sorted(p.name for p in ws.iterdir()) == ["answer.context.md", "answer.md", "ctx.txt", "out.jsonl",
                                                   "pairs.jsonl"]  # no temporary file left


def test_pairs_with_nothing_to_fix_exits_0(ws: Path, capsys: pytest.CaptureFixture[str]):
    write_pairs(ws, [PAIRS[1]])
    assert cli.main(["fix", "--pairs", "pairs.jsonl"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["fixes"] == [] and "nothing to fix in 1 pair(s)" in err


def test_ctrl_c_in_a_pairs_batch_leaves_the_output_file_as_it_was(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]):
    write_pairs(ws)
    (ws / "out.jsonl").write_text("previous run\n", encoding="utf-8")

    def interrupt(n: int) -> None:
        if n == 2:
            raise KeyboardInterrupt

    use(monkeypatch, FakeFOD(notes=(), during=interrupt))
    assert cli.main(["fix", "--pairs", "pairs.jsonl", "--method", "fod", "-o", "out.jsonl"]) == 130
    assert capsys.readouterr().err == "faithlint: interrupted\n"
    assert (ws / "out.jsonl").read_text(encoding="utf-8") == "previous run\n"
    assert sorted(p.name for p in ws.iterdir()) == ["answer.context.md", "answer.md", "ctx.txt", "out.jsonl",
                                                   "pairs.jsonl"]


BAD = [
    ("bad JSON", [PAIRS[0], "{oops"], [], ("pairs.jsonl", "line 2", "invalid JSON")),
    ("missing id", [{"text": "x", "context": ["y"]}], [], ("pairs.jsonl", "line 1", "needs 'id'")),
    ("missing text", [{"id": "a", "context": ["y"]}], [], ("pairs.jsonl", "line 1", "'text'")),
    ("missing context file", [{"id": "a", "text": "x", "context_files": ["missing.txt"]}], [], ("missing.txt",)),
    ("no context", [{"id": "a", "text": "The hall has 40 rooms."}], [], ("line 1", "'a'", "no context")),
    ("output is the pairs file", [PAIRS[0]], ["-o", "pairs.jsonl"], ("pairs.jsonl", "output file is an input")),
    ("output is a context file", PAIRS, ["-o", "ctx.txt"], ("ctx.txt", "output file is an input")),
    ("with --write", PAIRS, ["--write"], ("--write", "--pairs")),
    ("with PATHS", PAIRS, ["answer.md"], ("PATHS", "--pairs")),
    ("empty", ["", "  "], [], ("pairs.jsonl", "no pairs")),
]


@pytest.mark.parametrize("rows,extra,needles", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_pairs_input_is_one_line_and_changes_nothing(ws: Path, capsys: pytest.CaptureFixture[str],
                                                         rows: list[Any], extra: list[str], needles: tuple[str, ...]):
    write_pairs(ws, rows)
    before = {p.name: p.read_bytes() for p in ws.iterdir()}
    assert cli.main(["fix", "--pairs", "pairs.jsonl", *extra]) == 2
    out, err = capsys.readouterr()
    one_error_line(err, *needles)
    assert out == ""
    assert {p.name: p.read_bytes() for p in ws.iterdir()} == before


def test_no_drafts_and_no_pairs_is_a_usage_error(ws: Path, capsys: pytest.CaptureFixture[str]):
    assert cli.main(["fix"]) == 2
    one_error_line(capsys.readouterr().err, "no drafts given", "--pairs")


def test_pairs_with_write_is_refused_by_the_real_command_line(tmp_path: Path):
    write_pairs(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "faithlint", "fix", "--pairs", "pairs.jsonl", "--write"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == ""
    one_error_line(proc.stderr, "--write")


# ---------------------------------------------------------------------------------------------- real models
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"


def example_pairs(tmp_path: Path) -> Path:
    for f in EXAMPLE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    body = (EXAMPLE / "answer.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    planted = next(x for x in body.splitlines() if "$25 million" in x)
    rows = [{"id": "planted", "text": planted, "context_files": ["answer.context.md"],
             "query": "What changed at the Riverside Public Library?"},
            {"id": "faithful", "text": "The library is closed on Sundays.", "context_files": ["answer.context.md"]}]
    return write_pairs(tmp_path, rows)


@pytest.mark.slow
def test_fix_pairs_corrects_the_planted_amount_with_the_real_models(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]):
    pairs = example_pairs(tmp_path)
    before = pairs.read_bytes()
    monkeypatch.chdir(tmp_path)
    code = cli.main(["fix", "--pairs", "pairs.jsonl", "--method", "rac", "-o", "out.jsonl", "--no-progress"])
    capsys.readouterr()
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines())}
    assert code == 1
    planted = rows["planted"]
    assert "$12.5 million" in planted["text"] and "$25 million" not in planted["text"]
    assert planted["text"] == planted["original"].replace("$25 million", "$12.5 million")
    assert any("$12.5 million" in e["new_text"] for f in planted["fixes"] for e in f["edits"])
    assert rows["faithful"]["fixes"] == [] and rows["faithful"]["text"] == rows["faithful"]["original"]
    assert pairs.read_bytes() == before


@pytest.mark.slow
def test_fix_pairs_with_the_real_fod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]):
    try:
        import faithlint.fixes.correctors.fod  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"faithlint.fixes.correctors.fod is not here yet ({exc})")
    pairs = example_pairs(tmp_path)
    before = pairs.read_bytes()
    # the CLI's wiring is under test, not FOD's search: a small one, with time for a busy CPU
    (tmp_path / "faithlint.toml").write_text("fod_beams = 1\nfod_samples = 2\nllm_timeout = 900\n",
                                             encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = cli.main(["fix", "--pairs", "pairs.jsonl", "--method", "fod", "-o", "out.jsonl", "--no-progress"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["planted", "faithful"]
    for r in rows:
        assert set(r) >= {"id", "text", "original", "fixes", "notes"}
        edits = [Edit(**e) for f in r["fixes"] for e in f["edits"]]
        assert apply_edits(r["original"], edits) == r["text"]
    assert rows[1]["fixes"] == []  # a supported sentence is not regenerated
    assert pairs.read_bytes() == before
