"""Bad-input corpus (issue 17): what a hostile user or a sloppy script feeds ``faithlint check``.

Every case asserts the exit code, a one-line message (never a traceback) and that no file in the
workspace changed. Most fail before any model loads, so they are fast; the long-sentence case runs
the real checker once for three drafts.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = "The library reopened on March 4, 2024. The project cost $12.5 million. It is closed on Sundays.\n"
DRAFT = "The library reopened on March 4, 2024. It is closed on Sundays.\n"


def run(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faithlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def snapshot(root: Path) -> dict[str, str]:
    """Digest of every regular file below ``root`` (FIFOs and sockets are never opened)."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        try:
            if p.is_file() and not p.is_symlink():
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            out[str(p.relative_to(root))] = "unreadable"
    return out


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith("usage:")]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("faithlint: error:"), lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / "answer.md").write_text(DRAFT)
    (tmp_path / "answer.context.md").write_text(CONTEXT)
    return tmp_path


def _symlink_loop(ws: Path) -> list[str]:
    (ws / "loop.md").symlink_to(ws / "loop.md")
    return ["check", "loop.md", "--context", "answer.context.md"]


def _unreadable(ws: Path) -> list[str]:
    (ws / "secret.md").write_text("A secret draft sentence here.\n")
    (ws / "secret.md").chmod(0)
    return ["check", "secret.md", "--context", "answer.context.md"]


def _write(name: str, data: bytes | str, *args: str) -> Callable[[Path], list[str]]:
    def make(ws: Path) -> list[str]:
        target = ws / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
        return list(args)
    return make


DEEP_JSON = "[" * 100_000 + "]" * 100_000

# (id, setup(ws) -> argv, needles in the one-line message)
CASES: list[tuple[str, Callable[[Path], list[str]], tuple[str, ...]]] = [
    ("missing path", lambda ws: ["check", "nope.md"], ("nope.md", "no such file")),
    ("binary draft", _write("bin.md", b"abc\x00def", "check", "bin.md", "--context", "answer.context.md"),
     ("bin.md", "binary", "offset 3")),
    ("invalid utf-8", _write("bad.md", b"Hello w\xc3\x28rld.", "check", "bad.md", "--context", "answer.context.md"),
     ("bad.md", "invalid UTF-8", "offset 7")),
    ("utf-16 bom", _write("u16.md", "Hello world here.".encode("utf-16"), "check", "u16.md", "--context",
                          "answer.context.md"), ("u16.md", "UTF-16")),
    ("empty draft", _write("empty.md", " \n\n", "check", "empty.md", "--context", "answer.context.md"),
     ("empty.md", "empty")),
    ("no context", _write("lonely.md", "A draft with no context at all.\n", "check", "lonely.md"),
     ("lonely.md", "no context")),
    ("symlink loop", _symlink_loop, ("loop.md",)),
    ("folder without context files", lambda ws: (ws / "src").mkdir() or ["check", "answer.md", "--context", "src"],
     ("src", "no context files")),
    ("empty folder as draft", lambda ws: (ws / "nothing").mkdir() or ["check", "nothing"], ("nothing", "no drafts")),
    ("size limit", _write("faithlint.toml", "max_file_size = 10\n", "check", "answer.md"),
     ("answer.md", "limit")),
    ("malformed toml", _write("faithlint.toml", "threshold = [\n", "check", "answer.md"), ("faithlint.toml",)),
    ("unknown config key", _write("faithlint.toml", "no_such_key = 1\n", "check", "answer.md"),
     ("faithlint.toml", "no_such_key")),
    ("malformed json context", _write("data.json", "{\"a\": ", "check", "answer.md", "--context", "data.json"),
     ("data.json", "invalid JSON")),
    ("deeply nested json context", _write("deep.json", DEEP_JSON, "check", "answer.md", "--context", "deep.json"),
     ("deep.json",)),
    ("not a model", lambda ws: ["check", "answer.md", "--model", str(ws)], ("config.json",)),
    ("malformed pairs line", _write("p.jsonl", "{\"id\": 1, \"text\": \"x\"}\n{oops\n", "check", "--pairs",
                                    "p.jsonl", "--allow-no-context"), ("p.jsonl", "line 2", "invalid JSON")),
    ("pairs line not an object", _write("p.jsonl", "[1, 2]\n", "check", "--pairs", "p.jsonl"),
     ("p.jsonl", "line 1")),
    ("empty pairs file", _write("p.jsonl", "\n \n", "check", "--pairs", "p.jsonl"), ("p.jsonl", "no pairs")),
    ("output is the draft", lambda ws: ["check", "answer.md", "-o", "answer.md"], ("answer.md", "input")),
    ("output is the context", lambda ws: ["check", "answer.md", "-o", "answer.context.md"],
     ("answer.context.md", "input")),
    ("output is a symlink to the draft", lambda ws: (ws / "report.txt").symlink_to(ws / "answer.md") or
     ["check", "answer.md", "-o", "report.txt"], ("report.txt", "input")),
]


@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(ws: Path, make: Callable[[Path], list[str]]) -> None:
    needles = next(c[2] for c in CASES if c[1] is make)
    argv = make(ws)
    before = snapshot(ws)
    proc = run(*argv, cwd=ws)
    assert_one_line_error(proc, *needles)
    assert snapshot(ws) == before


def test_unreadable_draft(ws: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    argv = _unreadable(ws)
    assert_one_line_error(run(*argv, cwd=ws), "secret.md", "permission denied")


# --- non-regular files (issue 17 #2): a FIFO used to block `check` for good ------------------------------

FIFO_CASES: list[tuple[str, Callable[[Path], list[str]], tuple[str, ...]]] = [
    ("fifo draft", lambda ws: _fifo(ws, "pipe.md") or ["check", "pipe.md", "--context", "answer.context.md"],
     ("pipe.md", "FIFO")),
    ("fifo context file", lambda ws: _fifo(ws, "ctx.md") or ["check", "answer.md", "--context", "ctx.md"],
     ("ctx.md", "FIFO")),
    ("fifo inside a context folder", lambda ws: _fifo(ws, "answer.context/notes.md") or ["check", "answer.md"],
     ("notes.md", "FIFO")),
    ("fifo pairs file", lambda ws: _fifo(ws, "p.jsonl") or ["check", "--pairs", "p.jsonl"], ("p.jsonl", "FIFO")),
    ("fifo config", lambda ws: _fifo(ws, "conf.toml") or ["check", "answer.md", "--config", "conf.toml"],
     ("conf.toml", "FIFO")),
    ("fifo query_file", lambda ws: _fifo_query_file(ws), ("q.txt", "FIFO")),
]


def _fifo_query_file(ws: Path) -> list[str]:
    _fifo(ws, "q.txt")
    (ws / "faithlint.toml").write_text('[[pair]]\ndraft = "solo.md"\ncontext = ["answer.context.md"]\n'
                                       'query_file = "q.txt"\n')
    (ws / "solo.md").write_text(DRAFT)
    return ["check", "solo.md"]


def _fifo(ws: Path, name: str) -> None:
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(ws / name)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("make", [c[1] for c in FIFO_CASES], ids=[c[0] for c in FIFO_CASES])
def test_a_fifo_is_refused_not_waited_on(ws: Path, make: Callable[[Path], list[str]]) -> None:
    needles = next(c[2] for c in FIFO_CASES if c[1] is make)
    argv = make(ws)
    before = snapshot(ws)
    try:
        proc = run(*argv, cwd=ws, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"faithlint {' '.join(argv)} hung on a FIFO")
    assert_one_line_error(proc, *needles)
    assert snapshot(ws) == before


# --- models ----------------------------------------------------------------------------------------------

def test_a_model_with_custom_code_is_refused_and_its_code_never_runs(ws: Path) -> None:
    model = ws / "custom"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "model_type": "faithlint-evil", "architectures": ["EvilForSequenceClassification"],
        "auto_map": {"AutoConfig": "evil.EvilConfig",
                     "AutoModelForSequenceClassification": "evil.EvilForSequenceClassification"}}))
    marker = ws / "pwned"
    (model / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    before = snapshot(ws)
    assert_one_line_error(run("check", "answer.md", "--model", "custom", cwd=ws), "custom")
    assert not marker.exists()
    assert snapshot(ws) == before


def test_an_uncached_hub_model_fails_fast_without_network(ws: Path, tmp_path_factory: pytest.TempPathFactory,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17 #7: 11 retry warnings over 28 s before the error; now one line, at once, no connection tried."""
    import time

    cache = tmp_path_factory.mktemp("hf-cache")
    env = {"HF_HOME": str(cache), "HF_HUB_CACHE": str(cache / "hub"), "HF_HUB_OFFLINE": "0",
           "TRANSFORMERS_OFFLINE": "0", "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": ""}
    monkeypatch.delenv("FAITHLINT_ALLOW_DOWNLOADS", raising=False)
    before = snapshot(ws)
    t0 = time.monotonic()
    proc = run("check", "answer.md", "--model", "no-such-org/no-such-model-xyz", cwd=ws, env=env, timeout=120)
    elapsed = time.monotonic() - t0
    line = assert_one_line_error(proc, "no-such-org/no-such-model-xyz", "not in the Hugging Face cache",
                                 "FAITHLINT_ALLOW_DOWNLOADS")
    assert "retry" not in proc.stderr.lower() and "connection" not in proc.stderr.lower(), line
    assert elapsed < 90, elapsed  # a hang guard only (a loaded 2-core machine takes ~25 s to import and fail)
    assert snapshot(ws) == before


# --- text that is valid but unusual: checked, never a crash (issue 17 #1) -----------------------------------

RUN_ON = " ".join(["the board said that the library which reopened on March 4 2024 after a long delay caused by "
                   "weather and supply problems would serve the residents of the town and"] * 24) + " more."
NO_STOPS = " ".join(["alpha", "library", "march", "town", "board"] * 800)  # 20,000 characters, no punctuation
CONTROL = "The library reopened on March 4, 2024.\n\nThe library is closed on Sundays.\n"


def test_long_sentences_and_odd_text_are_checked_and_json_stays_valid(ws: Path) -> None:
    """A sentence over the checker's 512 tokens raised "Truncation error" (exit 1, no JSON) for the whole draft."""
    assert len(RUN_ON.split()) >= 600 and len(NO_STOPS) >= 20_000 and "." not in NO_STOPS
    drafts = {
        "control.md": CONTROL,
        "runon.md": CONTROL.replace("\n\nThe library is", f"\n\n{RUN_ON}\n\nThe library is"),
        "nostops.md": CONTROL.replace("\n\nThe library is", f"\n\n{NO_STOPS}\n\nThe library is"),
        "bidi.md": "The library \u202ereopened\u202c on March 4, 2024 😀. 图书馆于2024年3月4日重新开放。 مكتبة.\n",
        "crlf.md": CONTROL.replace("\n", "\r\n"),
        "cr.md": CONTROL.replace("\n", "\r"),
    }
    for name, text in drafts.items():
        (ws / name).write_text(text, encoding="utf-8", newline="")
    before = snapshot(ws)
    proc = run("check", *drafts, "--context", "answer.context.md", "--format", "json", "--no-progress", cwd=ws,
               timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    results = {r["path"]: r for r in report["results"]}
    assert set(results) == set(drafts)
    for name, r in results.items():
        text = drafts[name]
        for s in r["sentences"]:
            assert text[s["start"]:s["end"]] == s["text"]
            assert s["label"] in ("entailment", "neutral", "contradiction")
    long_ones = [s for name in ("runon.md", "nostops.md") for s in results[name]["sentences"]
                 if len(s["text"]) > 3000]
    assert len(long_ones) >= 2  # checked, not skipped
    # the rest of the draft is judged exactly as without the long sentence
    control = [(s["text"], s["label"], s["probs"]) for s in results["control.md"]["sentences"]]
    for name in ("runon.md", "nostops.md"):
        rest = [(s["text"], s["label"], s["probs"]) for s in results[name]["sentences"] if len(s["text"]) < 3000]
        assert rest == control, name
    assert snapshot(ws) == before


def test_a_crash_while_checking_is_exit_2_with_one_line(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1 means "findings": a crash must never look like one to CI (it was exit 1 with a traceback)."""
    from faithlint.cli import app as cli
    from faithlint.pipeline.linter import Linter

    def boom(self: object, *args: object, **kwargs: object) -> None:
        raise RuntimeError("Truncation error\nsecond line")

    monkeypatch.setattr(Linter, "check", boom)
    monkeypatch.chdir(ws)
    monkeypatch.delenv("FAITHLINT_DEBUG", raising=False)
    before = snapshot(ws)
    assert cli.main(["check", "answer.md", "--format", "json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("faithlint: error: answer.md: checking failed: RuntimeError: "
                                               "Truncation error second line"), err
    assert snapshot(ws) == before


def test_a_library_error_becomes_one_line_even_without_a_message():
    from faithlint.errors import first_line

    assert first_line(ValueError("\n  the graph is broken  \nat node 12\n...")) == "the graph is broken"
    assert first_line(RuntimeError()) == "RuntimeError"  # splitlines()[0] of an empty message would raise
    assert first_line(OSError(" \n ")) == "OSError"
