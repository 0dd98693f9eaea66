"""``faithlint watch``: the real watcher (watchdog observer, debounce, pairing, reports) on temp folders.

Most tests inject a cheap fake linter (the check itself does not matter here, only when and how often it
runs); the slow tests at the end run the real CLI with a real model in a subprocess and stop it with SIGINT.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

pytest.importorskip("watchdog")

from faithlint.types import ContextDoc, DraftResult, Finding, SentenceResult  # noqa: E402
from faithlint.watch import Watcher, WatchOptions, atomic_write  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"
DEBOUNCE = 0.5  # generous: the test machine may be busy
RAG_DRAFT = (ROOT / "examples" / "rag-answer" / "answer.md").read_text()  # planted: "$25 million"


class FakeLinter:
    """Counts checks per draft; a line containing CONTRA is an FL100 error, NUM an FL400 warning."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[str]]] = []
        self.lock = threading.Lock()

    def check(self, text: str, context: Sequence[ContextDoc], *, path: str | None = None, id: str | None = None,
              query: str | None = None, markdown: bool = True, extracted: object = None,
              cancelled: Callable[[], bool] | None = None, config: object = None) -> DraftResult:
        with self.lock:
            self.calls.append((str(path), text, [d.text for d in context]))
        res = DraftResult(text=text, path=path, id=id)
        pos = 0
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            if body.strip():
                label = "contradiction" if "CONTRA" in body else "entailment"
                score = 0.05 if label == "contradiction" else 0.95
                res.sentences.append(SentenceResult(pos, pos + len(body), body, label,
                                                    {"entailment": score, "neutral": 0.0,
                                                     "contradiction": 1 - score}, score, 1 if score < .5 else 5,
                                                    None))
                if label == "contradiction":
                    res.findings.append(Finding("FL100", "error", "Contradicted by the context", pos,
                                                pos + len(body), label=label, score=score))
            pos += len(line)
        scores = [s.score for s in res.sentences] or [1.0]
        res.score = {"mean": sum(scores) / len(scores), "min": min(scores), "unsupported_share": 0.0}
        return res

    def count(self, suffix: str) -> int:
        with self.lock:
            return sum(1 for p, _, _ in self.calls if p.endswith(suffix))

    def last(self, suffix: str) -> tuple[str, list[str]]:
        with self.lock:
            hits = [(t, c) for p, t, c in self.calls if p.endswith(suffix)]
        assert hits, f"{suffix} was never checked"
        return hits[-1]


def wait_for(cond: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def settle() -> None:
    """Long enough for any further (unwanted) check of the last burst to have happened."""
    time.sleep(DEBOUNCE * 3 + 0.5)


def report(reports: Path, rel: str) -> dict | None:
    p = reports / f"{rel}.json"
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def report_text(reports: Path, rel: str) -> str | None:
    doc = report(reports, rel)
    if not doc or not doc.get("results"):
        return None
    return "".join(s["text"] for s in doc["results"][0]["sentences"])


class Running:
    def __init__(self, watcher: Watcher, linter: FakeLinter, thread: threading.Thread, root: Path,
                 reports: Path, output: list[str]) -> None:
        self.watcher, self.linter, self.thread, self.root, self.reports = watcher, linter, thread, root, reports
        self.output = output

    def logged(self, needle: str) -> int:
        return sum(needle in line for line in self.output)


def start_watcher(root: Path, reports: Path, **kw: object) -> Running:
    from rich.console import Console

    class Sink:
        def __init__(self) -> None:
            self.lines: list[str] = []
            self._buf = ""

        def write(self, s: str) -> int:
            self._buf += s
            *done, self._buf = self._buf.split("\n")
            self.lines.extend(done)
            return len(s)

        def flush(self) -> None:
            pass

    sink = Sink()
    console = Console(file=sink, force_terminal=False, width=200)  # type: ignore[arg-type]
    linter = FakeLinter()
    opts = WatchOptions(dirs=[root], report_dir=reports, debounce=DEBOUNCE, max_delay=5.0, live=False,
                        **kw)  # type: ignore[arg-type]
    watcher = Watcher(opts, linter_factory=lambda _config: linter, console=console)
    errors: list[BaseException] = []

    def target() -> None:
        try:
            watcher.run()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
            raise

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    assert watcher.ready.wait(30), "watcher did not start"
    assert not errors, errors
    return Running(watcher, linter, thread, root, reports, sink.lines)


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "drafts"
    root.mkdir()
    (root / "a.md").write_text("Alpha is fine.\n")
    (root / "a.context.md").write_text("Alpha context.\n")
    return root


@pytest.fixture()
def running(ws: Path, tmp_path: Path) -> Iterator[Running]:
    r = start_watcher(ws, tmp_path / "reports")
    yield r
    r.watcher.stop()
    r.thread.join(10)
    assert not r.thread.is_alive(), "watcher did not stop"


def write_burst(path: Path, texts: Sequence[str], gap: float = 0.02) -> None:
    for t in texts:
        path.write_text(t)
        time.sleep(gap)


# ------------------------------------------------------------------------------------------ unit-ish


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "r.json"
    atomic_write(target, "one")
    atomic_write(target, "two")
    assert target.read_text() == "two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["r.json"]


def needs_pathspec() -> None:
    pytest.importorskip("pathspec", reason="pathspec is not installed: add it to the 'watch' extra")


def test_is_draft_filters(ws: Path, tmp_path: Path) -> None:
    needs_pathspec()
    (ws / ".gitignore").write_text("ignored/\n*.draft.md\n!keep.draft.md\n")
    w = Watcher(WatchOptions(dirs=[ws], exclude=["old/**"], report_dir=tmp_path / "r", live=False),
                linter_factory=lambda c: FakeLinter())
    yes = ["a.md", "sub/b.txt", "c.markdown", "keep.draft.md"]
    no = ["a.context.md", "a.context/x.md", "x.sources/y.md", ".hidden/z.md", "ignored/q.md", "old/o.md",
          "n.draft.md", "img.png", ".a.md.swp", "a.md~", "4913", "a.md.tmp"]
    for rel in yes:
        assert w.is_draft(ws / rel), rel
    for rel in no:
        assert not w.is_draft(ws / rel), rel
    inc = Watcher(WatchOptions(dirs=[ws], include=["answers/**/*.md"], live=False),
                  linter_factory=lambda c: FakeLinter())
    assert inc.is_draft(ws / "answers" / "x" / "y.md") and not inc.is_draft(ws / "a.md")
    names = Watcher(WatchOptions(dirs=[ws], include=["*.md"], exclude=["README.md"], live=False),
                    linter_factory=lambda c: FakeLinter())
    assert names.is_draft(ws / "deep" / "er" / "x.md") and not names.is_draft(ws / "x.txt")
    assert not names.is_draft(ws / "docs" / "README.md")


def test_once_checks_everything_and_sets_exit_code(ws: Path, tmp_path: Path) -> None:
    (ws / "b.md").write_text("Beta CONTRA.\n")
    (ws / "b.context.md").write_text("Beta context.\n")
    reports = tmp_path / "reports"
    linter = FakeLinter()
    w = Watcher(WatchOptions(dirs=[ws], report_dir=reports, once=True, live=False, sarif=True, html=True),
                linter_factory=lambda c: linter)
    assert w.run() == 1  # an FL100 error and fail_on = warning
    assert linter.count("a.md") == 1 and linter.count("b.md") == 1
    assert report(reports, "a.md")["results"][0]["findings"] == []
    assert report(reports, "b.md")["results"][0]["findings"][0]["code"] == "FL100"
    assert json.loads((reports / "b.md.sarif").read_text())["runs"][0]["results"][0]["ruleId"] == "FL100"
    assert "FL100" in (reports / "b.md.html").read_text()
    assert not list(reports.glob(".*.tmp")), "temp files left behind"
    (ws / "c.md").write_text("Gamma has no context.\n")
    w2 = Watcher(WatchOptions(dirs=[ws], report_dir=reports, once=True, live=False), linter_factory=lambda c: linter)
    assert w2.run() == 2  # a draft that cannot be checked
    assert "no context found" in report(reports, "c.md")["error"]


def test_each_draft_gets_its_nearest_config(ws: Path, tmp_path: Path) -> None:
    """As `check`: a folder's faithlint.toml applies to the drafts below it only (here fail_on decides the exit
    code); one linter per model setting, its config set to the draft's before each check."""
    sub = ws / "sub"
    sub.mkdir()
    (sub / "b.md").write_text("Beta CONTRA.\n")
    (sub / "b.context.md").write_text("Beta context.\n")
    (sub / "faithlint.toml").write_text('fail_on = "never"\nignore = ["FL3"]\n')
    linter = FakeLinter()
    seen: dict[str, list[str]] = {}
    check = linter.check

    def recording(*args: object, **kwargs: object) -> object:
        seen[str(kwargs.get("path"))] = list(kwargs["config"].ignore)  # type: ignore[attr-defined]
        return check(*args, **kwargs)

    linter.check = recording  # type: ignore[method-assign]
    made: list[object] = []
    w = Watcher(WatchOptions(dirs=[ws], once=True, live=False), linter_factory=lambda c: made.append(c) or linter)
    assert w.run() == 0  # b.md's FL100 does not fail under its own fail_on = "never"
    assert len(made) == 1 and {Path(k).name: v for k, v in seen.items()} == {"a.md": [], "b.md": ["FL3"]}
    assert w.drafts[sub / "b.md"].config_path == sub / "faithlint.toml"
    (sub / "faithlint.toml").write_text('fail_on = "error"\n')
    w2 = Watcher(WatchOptions(dirs=[ws], once=True, live=False), linter_factory=lambda c: linter)
    assert w2.run() == 1


def test_a_nested_config_change_rechecks_only_its_drafts(running: Running) -> None:
    sub = running.root / "sub"
    sub.mkdir()
    (sub / "b.md").write_text("Beta.\n")
    (sub / "b.context.md").write_text("Beta context.\n")
    wait_for(lambda: running.linter.count("b.md") == 1, what="the new draft checked")
    (sub / "faithlint.toml").write_text('fail_on = "error"\n')
    wait_for(lambda: running.linter.count("b.md") == 2, what="re-check after its config appeared")
    settle()
    assert running.linter.count("a.md") == 1  # a.md's settings did not change


# ------------------------------------------------------------------------------------------ live watcher


def test_new_draft_gets_a_report(running: Running) -> None:
    assert report_text(running.reports, "a.md") == "Alpha is fine."
    (running.root / "sub").mkdir()
    (running.root / "sub" / "n.context.md").write_text("New context.\n")
    (running.root / "sub" / "n.md").write_text("New draft CONTRA.\n")
    doc = wait_for(lambda: report(running.reports, "sub/n.md"), what="report of the new draft")
    assert doc["results"][0]["findings"][0]["code"] == "FL100"
    settle()
    assert running.linter.count("n.md") == 1


def test_editing_the_draft_checks_once_per_burst(running: Running) -> None:
    draft = running.root / "a.md"
    write_burst(draft, [f"Alpha version {i}.\n" for i in range(8)])
    wait_for(lambda: report_text(running.reports, "a.md") == "Alpha version 7.", what="updated report")
    settle()
    assert running.linter.count("a.md") == 2  # the initial check + one for the whole burst
    assert running.linter.last("a.md")[0] == "Alpha version 7.\n"


def test_editing_the_context_rechecks_once(running: Running) -> None:
    write_burst(running.root / "a.context.md", ["Alpha v1.\n", "Alpha v2.\n", "Alpha v3.\n"])
    wait_for(lambda: running.linter.count("a.md") == 2, what="re-check after the context changed")
    settle()
    assert running.linter.count("a.md") == 2
    assert running.linter.last("a.md")[1] == ["Alpha v3.\n"]


def test_touch_without_change_does_not_recheck(running: Running) -> None:
    draft = running.root / "a.md"
    draft.write_text(draft.read_text())
    os.utime(draft)
    settle()
    assert running.linter.count("a.md") == 1


def test_atomic_save_temp_file_and_rename(running: Running) -> None:
    draft = running.root / "a.md"
    # vim-style: a probe file, a swap file, a backup rename, then the new file; VS Code/JetBrains-style: tmp + rename
    (running.root / "4913").write_text("")
    (running.root / "4913").unlink()
    (running.root / ".a.md.swp").write_bytes(b"\x00swap")
    os.replace(draft, running.root / "a.md~")
    draft.write_text("Alpha saved by vim.\n")
    (running.root / "a.md~").unlink()
    (running.root / ".a.md.swp").unlink()
    wait_for(lambda: report_text(running.reports, "a.md") == "Alpha saved by vim.", what="vim save")
    tmp = running.root / ".a.md.tmp123"
    tmp.write_text("Alpha saved atomically.\n")
    os.replace(tmp, draft)
    wait_for(lambda: report_text(running.reports, "a.md") == "Alpha saved atomically.", what="atomic save")
    settle()
    assert running.linter.count("a.md") == 3
    assert report(running.reports, "a.md") is not None  # never removed in between
    assert running.logged("error") == 0, running.output


def test_burst_of_300_files(running: Running) -> None:
    burst = running.root / "burst"
    burst.mkdir()
    for i in range(300):  # like `git checkout` of a branch with many answers
        (burst / f"d{i:03}.context.md").write_text(f"Context {i}.\n")
        (burst / f"d{i:03}.md").write_text(f"Draft {i}.\n")
    wait_for(lambda: len(list((running.reports / "burst").glob("*.json"))) == 300, timeout=60,
             what="300 reports")
    settle()
    counts = Counter(p for p, _, _ in running.linter.calls)
    assert len([p for p in counts if "burst/" in p]) == 300
    assert max(counts.values()) == 1, [p for p, n in counts.items() if n > 1][:5]
    # a branch switch rewriting every draft: one more check each
    for i in range(300):
        (burst / f"d{i:03}.md").write_text(f"Draft {i}, other branch.\n")
    wait_for(lambda: all((report_text(running.reports, f"burst/d{i:03}.md") or "").endswith("other branch.")
                         for i in (0, 150, 299)), timeout=60, what="rewritten drafts re-checked")
    settle()
    counts = Counter(p for p, _, _ in running.linter.calls if "burst/" in p)
    assert set(counts.values()) == {2}, [p for p, n in counts.items() if n != 2][:5]
    assert running.logged("error") == 0 and running.logged("no context") == 0
    # and everything goes away again
    for p in burst.iterdir():
        p.unlink()
    burst.rmdir()
    wait_for(lambda: not (running.reports / "burst").exists() or not list((running.reports / "burst").glob("*")),
             timeout=30, what="reports of deleted drafts removed")
    assert running.thread.is_alive()


def test_deleting_and_renaming(running: Running) -> None:
    draft = running.root / "a.md"
    draft.unlink()
    wait_for(lambda: not (running.reports / "a.md.json").exists(), what="report removed")
    (running.root / "b.md").write_text("Bravo.\n")
    (running.root / "b.context.md").write_text("Bravo context.\n")
    wait_for(lambda: report(running.reports, "b.md"), what="b report")
    os.rename(running.root / "b.md", running.root / "c.md")
    os.rename(running.root / "b.context.md", running.root / "c.context.md")
    wait_for(lambda: report(running.reports, "c.md") and not (running.reports / "b.md.json").exists(),
             what="rename followed")
    assert running.thread.is_alive()
    assert sorted(p.name for p in running.reports.iterdir()) == ["c.md.json"]


def test_context_folder_disappears_and_comes_back(running: Running) -> None:
    root = running.root
    (root / "f.md").write_text("Foxtrot.\n")
    ctx = root / "f.context"
    ctx.mkdir()
    (ctx / "one.md").write_text("Foxtrot one.\n")
    wait_for(lambda: report_text(running.reports, "f.md") == "Foxtrot.", what="f report")
    for p in ctx.iterdir():
        p.unlink()
    ctx.rmdir()
    wait_for(lambda: (report(running.reports, "f.md") or {}).get("error"), what="error report")
    assert "no context" in report(running.reports, "f.md")["error"]
    ctx.mkdir()
    (ctx / "two.md").write_text("Foxtrot two.\n")
    wait_for(lambda: report_text(running.reports, "f.md") == "Foxtrot.", what="report after the context returned")
    assert running.linter.last("f.md")[1] == ["Foxtrot two.\n"]
    assert running.logged("no context found") == 1


def test_context_outside_the_watched_folder(tmp_path: Path) -> None:
    root = tmp_path / "drafts"
    root.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "facts.md").write_text("Fact one.\n")
    (root / "q.md").write_text("---\ncontext: ../shared\n---\nQuebec.\n")
    r = start_watcher(root, tmp_path / "reports")
    try:
        assert r.linter.last("q.md")[1] == ["Fact one.\n"]
        (shared / "facts.md").write_text("Fact two.\n")
        wait_for(lambda: r.linter.count("q.md") == 2, what="re-check after an outside context edit")
        assert r.linter.last("q.md")[1] == ["Fact two.\n"]
        for p in shared.iterdir():
            p.unlink()
        shared.rmdir()
        wait_for(lambda: (report(r.reports, "q.md") or {}).get("error"), what="error when the folder is gone")
        shared.mkdir()
        (shared / "facts.md").write_text("Fact three.\n")
        wait_for(lambda: r.linter.count("q.md") == 3, what="re-check when the folder is back")
        assert r.linter.last("q.md")[1] == ["Fact three.\n"]
    finally:
        r.watcher.stop()
        r.thread.join(10)


def test_unreadable_binary_and_symlink_loops_reported_once(running: Running) -> None:
    root = running.root
    (root / "bin.md").write_bytes(b"\x00\x01binary")
    (root / "bin.context.md").write_text("ctx\n")
    os.symlink(".", root / "loop")  # a folder symlink loop
    os.symlink("self.md", root / "self.md")  # a file symlink loop
    wait_for(lambda: (report(running.reports, "bin.md") or {}).get("error"), what="binary error report")
    for _ in range(3):  # touching it again with the same bytes must not print the error again
        (root / "bin.md").write_bytes(b"\x00\x01binary")
        time.sleep(0.1)
    (root / "a.md").write_text("Alpha still works.\n")
    wait_for(lambda: report_text(running.reports, "a.md") == "Alpha still works.", what="other drafts still work")
    settle()
    assert running.logged("binary file") == 1, running.output
    assert running.thread.is_alive()
    if os.geteuid() != 0:  # root reads everything
        (root / "locked.md").write_text("Locked.\n")
        (root / "locked.context.md").write_text("ctx\n")
        (root / "locked.md").chmod(0)
        wait_for(lambda: (report(running.reports, "locked.md") or {}).get("error"), what="permission error")
        assert "permission denied" in report(running.reports, "locked.md")["error"]


def test_never_writes_to_drafts_or_context(running: Running) -> None:
    root = running.root
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}
    (root / "x.md").write_text("X-ray CONTRA.\n")
    (root / "x.context.md").write_text("X context.\n")
    wait_for(lambda: report(running.reports, "x.md"), what="x report")
    settle()
    for p, (data, mtime) in before.items():
        assert p.read_bytes() == data and p.stat().st_mtime_ns == mtime, p
    assert not [p for p in root.rglob("*") if p.suffix in (".json", ".sarif", ".html")]


def test_report_dir_inside_the_watched_folder_does_not_loop(ws: Path) -> None:
    r = start_watcher(ws, ws / "reports", html=True, sarif=True)
    try:
        assert report(ws / "reports", "a.md")
        (ws / "a.md").write_text("Alpha changed.\n")
        wait_for(lambda: report_text(ws / "reports", "a.md") == "Alpha changed.", what="updated report")
        settle()
        assert r.linter.count("a.md") == 2
        assert sorted(p.name for p in (ws / "reports").iterdir()) == ["a.md.html", "a.md.json", "a.md.sarif"]
    finally:
        r.watcher.stop()
        r.thread.join(10)


def test_gitignore_is_honoured_and_reloaded(running: Running) -> None:
    needs_pathspec()
    root = running.root
    (root / ".gitignore").write_text("scratch/\n")
    time.sleep(DEBOUNCE * 2)
    (root / "scratch").mkdir()
    (root / "scratch" / "s.md").write_text("Scratch.\n")
    (root / "scratch" / "s.context.md").write_text("ctx\n")
    settle()
    assert running.linter.count("s.md") == 0
    (root / ".gitignore").write_text("")
    wait_for(lambda: report(running.reports, "scratch/s.md"), what="checked once no longer ignored")


def test_config_change_rechecks(running: Running) -> None:
    (running.root / "faithlint.toml").write_text('fail_on = "error"\n')
    wait_for(lambda: running.linter.count("a.md") == 2, what="re-check after the config changed")
    (running.root / "faithlint.toml").write_text("fail_on = 3\n")  # invalid: keep the old settings
    wait_for(lambda: running.logged("config error"), what="config error shown")
    settle()
    assert running.linter.count("a.md") == 2
    assert running.thread.is_alive()


# ------------------------------------------------------------------------------------------ the real CLI


def _cli(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    # a shell starting pytest in the background leaves SIGINT ignored, and children inherit that: undo it
    return subprocess.Popen([sys.executable, "-m", "faithlint", "watch", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _read_until(proc: subprocess.Popen, needle: str, timeout: float) -> str:
    out: list[str] = []
    done = threading.Event()

    def pump() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            out.append(line)
            if needle in line:
                done.set()
                return
        done.set()

    threading.Thread(target=pump, daemon=True).start()
    done.wait(timeout)
    text = "".join(out)
    assert needle in text, text
    return text


def test_cli_sigint_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = _cli("empty", "--no-live", cwd=tmp_path)
    try:
        _read_until(proc, "watching", 60)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, rest
    assert "Traceback" not in rest


def test_cli_usage_errors(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "faithlint", "watch", "nope"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "nope: no such file" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "d").mkdir()
    proc = subprocess.run([sys.executable, "-m", "faithlint", "watch", "d", "--html"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--report-dir" in proc.stderr


def _model_args() -> list[str]:
    model = os.environ.get("FAITHLINT_TEST_MODEL")
    if model:
        return ["--model", model]
    if not BUNDLED.exists():
        pytest.skip("no checker model: the bundled model is not installed and FAITHLINT_TEST_MODEL is not set")
    return []


@pytest.mark.slow
def test_cli_watch_with_a_real_model(tmp_path: Path) -> None:
    """Real model, real CLI: FL400 (a wrong year) is rule-based, so it is reliable with any checker model."""
    root = tmp_path / "answers"
    root.mkdir()
    (root / "q.context.md").write_text("The Riverside library reopened in 2024 after an 18-month renovation.\n")
    draft = root / "q.md"
    draft.write_text("The Riverside library reopened in 2019 after a renovation.\n")
    # FL400 on every sentence (threshold 1.0), so the verdict does not depend on the model
    (tmp_path / "faithlint.toml").write_text("[rules.FL400]\nthreshold = 1.0\n")
    reports = tmp_path / "reports"
    proc = _cli("answers", "--no-live", "--select", "FL400", "--report-dir", "reports", "--html",
                "--debounce", "0.3", *_model_args(), cwd=tmp_path)
    try:
        _read_until(proc, "watching", 300)
        doc = report(reports, "q.md")
        assert doc and [f["code"] for f in doc["results"][0]["findings"]] == ["FL400"], doc
        assert "2019" in (reports / "q.md.html").read_text()
        draft.write_text("The Riverside library reopened in 2024 after a renovation.\n")
        wait_for(lambda: (report(reports, "q.md") or {}).get("results", [{}])[0].get("findings") == [],
                 timeout=120, what="report after fixing the year")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, out
    assert "Traceback" not in out


@pytest.mark.slow
@pytest.mark.skipif(not BUNDLED.exists(), reason="the bundled model is not installed yet (contradictions need it)")
def test_watch_once_flags_the_example_contradiction(tmp_path: Path) -> None:
    (tmp_path / "rag-answer").mkdir()
    (tmp_path / "rag-answer" / "answer.md").write_text(RAG_DRAFT)
    (tmp_path / "rag-answer" / "answer.context.md").write_text(
        (ROOT / "examples" / "rag-answer" / "answer.context.md").read_text())
    proc = subprocess.run([sys.executable, "-m", "faithlint", "watch", "rag-answer", "--once", "--no-live",
                           "--report-dir", "reports"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    res = report(tmp_path / "reports", "answer.md")["results"][0]
    contra = [f for f in res["findings"] if f["code"] == "FL100"]
    # the finding covers the words the span head marks ("$25"); its sentence is the planted one
    assert any("$25" in RAG_DRAFT[f["start"]:f["end"]] and "$25 million" in RAG_DRAFT[slice(*f["data"]["sentence"])]
               for f in contra), res["findings"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_the_context_or_as_gitignore_is_refused_not_waited_on(ws: Path, tmp_path: Path) -> None:
    """Issue 17 #2: opening a FIFO blocks until a writer comes; the watcher hung for good."""
    (ws / "a.context.md").unlink()
    (ws / "a.context").mkdir()
    (ws / "a.context" / "notes.md").write_text("Alpha notes.\n")
    os.mkfifo(ws / "a.context" / "pipe.md")
    os.mkfifo(ws / ".gitignore")
    reports = tmp_path / "reports"
    w = Watcher(WatchOptions(dirs=[ws], report_dir=reports, once=True, live=False),
                linter_factory=lambda c: FakeLinter())
    done: list[int] = []
    t = threading.Thread(target=lambda: done.append(w.run()), daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():  # unblock the hung reader so the test process can exit
        for fifo in (ws / ".gitignore", ws / "a.context" / "pipe.md"):
            with open(fifo, "w"):
                pass
        pytest.fail("the watcher hung on a FIFO")
    assert done == [2]
    error = report(reports, "a.md")["error"]
    assert "pipe.md" in error and "FIFO" in error and "\n" not in error


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_watch_config_is_refused(ws: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "conf.toml")
    proc = subprocess.run([sys.executable, "-m", "faithlint", "watch", str(ws), "--once", "--config",
                           str(tmp_path / "conf.toml")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "FIFO" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
