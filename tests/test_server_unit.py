"""Language server units without a client or models: scheduler, settings, positions, diagnostics, code actions."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))

from fake_models import make_linter  # noqa: E402

from faithlint.config import Config  # noqa: E402
from faithlint.fixes.edits import (  # noqa: E402
    CorrectorRegistry,
    Edit,
    FixTarget,
    Proposal,
    apply_edits,
    builtin_correctors,
)
from faithlint.fixes.suppressions import front_matter_end  # noqa: E402
from faithlint.rules.sentence_fixes import sentence_deletion  # noqa: E402
from faithlint.server.app import DocState  # noqa: E402
from faithlint.server.checking import Outcome, Scheduler, Snapshot, check_snapshot  # noqa: E402
from faithlint.server.diagnostics import build_diagnostics, finding_data  # noqa: E402
from faithlint.server.settings import Settings  # noqa: E402
from faithlint.server.text import DocumentIndex  # noqa: E402
from faithlint.types import Evidence, SentenceResult  # noqa: E402

# ---------------------------------------------------------------------------------------------- scheduler


class Recorder:
    def __init__(self, hold: float = 0.0) -> None:
        self.hold = hold
        self.ran: list[tuple[str, object]] = []
        self.delivered: list[tuple[str, object, bool]] = []
        self.started = threading.Event()
        self.done = threading.Event()

    def run(self, job):  # type: ignore[no-untyped-def]
        self.ran.append((job.uri, job.payload))
        self.started.set()
        t0 = time.monotonic()
        while time.monotonic() - t0 < self.hold:
            if job.cancelled():
                return "cancelled"
            time.sleep(0.005)
        return f"result:{job.payload}"

    def deliver(self, job, outcome):  # type: ignore[no-untyped-def]
        self.delivered.append((job.uri, outcome, job.cancelled()))
        self.done.set()


def _wait(pred, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_debounce_coalesces_rapid_edits_into_one_check_of_the_latest_text() -> None:
    rec = Recorder()
    s = Scheduler(rec.run, rec.deliver)
    s.start()
    try:
        for i in range(5):
            s.schedule("a", i, f"v{i}", delay=0.15)
            time.sleep(0.02)
        assert rec.ran == []  # still inside the debounce window
        _wait(lambda: rec.delivered)
        time.sleep(0.2)
        assert rec.ran == [("a", "v4")]
        assert rec.delivered == [("a", "result:v4", False)]
    finally:
        s.stop()


def test_debounce_is_per_document() -> None:
    rec = Recorder()
    s = Scheduler(rec.run, rec.deliver)
    s.start()
    try:
        s.schedule("slow", 1, "s", delay=0.3)
        s.schedule("fast", 1, "f", delay=0.0)
        _wait(lambda: len(rec.delivered) == 2)
        assert [u for u, _ in rec.ran] == ["fast", "slow"]
    finally:
        s.stop()


def test_new_edit_cancels_the_in_flight_check_and_its_result_is_marked_stale() -> None:
    rec = Recorder(hold=2.0)
    s = Scheduler(rec.run, rec.deliver)
    s.start()
    try:
        s.schedule("a", 1, "v1", delay=0)
        assert rec.started.wait(2)
        t0 = time.monotonic()
        s.schedule("a", 2, "v2", delay=0)
        _wait(lambda: len(rec.delivered) >= 1)
        assert time.monotonic() - t0 < 1.0  # the old check stopped at its next poll, not after 2 s
        assert rec.delivered[0] == ("a", "cancelled", True)  # caller drops it
        assert s.cancelled_runs == 1
        rec.hold = 0
        _wait(lambda: len(rec.delivered) == 2)
        assert rec.delivered[1] == ("a", "result:v2", False)
    finally:
        s.stop()


def test_tasks_run_before_pending_checks_and_errors_do_not_kill_the_worker() -> None:
    rec = Recorder()
    order: list[str] = []
    s = Scheduler(lambda job: order.append(job.uri) or 1 / 0, rec.deliver)
    s.schedule("a", 1, None, delay=0)
    s.submit(lambda: order.append("load"))
    s.start()
    try:
        _wait(lambda: rec.delivered)
        assert order == ["load", "a"]
        assert isinstance(rec.delivered[0][1], ZeroDivisionError)
        s.schedule("b", 1, None, delay=0)
        _wait(lambda: len(rec.delivered) == 2)
    finally:
        s.stop()


def test_cancel_forgets_pending_work() -> None:
    rec = Recorder()
    s = Scheduler(rec.run, rec.deliver)
    s.start()
    try:
        s.schedule("a", 1, "x", delay=0.1)
        s.cancel("a")
        time.sleep(0.25)
        assert rec.ran == [] and not s.busy("a")
    finally:
        s.stop()


def test_idle_work_waits_for_a_pause_yields_to_checks_and_ends_on_close(monkeypatch) -> None:
    """Idle steps (the context warm-up) run only after IDLE_AFTER_S without a check request, one at a time; a
    check requested meanwhile runs before the next step; a failing step ends that work only; closing the
    document drops it."""
    from faithlint.server import checking

    monkeypatch.setattr(checking, "IDLE_AFTER_S", 0.3)
    rec = Recorder()
    log: list[str] = []

    def work(name: str, n: int):  # type: ignore[no-untyped-def]
        for i in range(n):
            log.append(f"{name}{i}")
            time.sleep(0.03)
            yield i

    s = Scheduler(rec.run, rec.deliver)
    s.start()
    try:
        s.schedule("a", 1, "v1", delay=0)
        _wait(lambda: rec.delivered)
        s.set_idle("a", lambda: work("w", 1000), key="ctx")
        time.sleep(0.2)
        assert log == []  # a check was requested less than IDLE_AFTER_S ago
        _wait(lambda: len(log) >= 3, timeout=2)
        s.schedule("a", 2, "v2", delay=0)
        _wait(lambda: len(rec.delivered) == 2)
        n = len(log)
        assert rec.ran[-1] == ("a", "v2") and n < 1000  # the check did not wait for the idle work to end
        time.sleep(0.2)
        assert len(log) <= n + 1  # paused again after the check (at most the step that was running)

        def broken():  # type: ignore[no-untyped-def]
            yield 0
            raise RuntimeError("boom")

        s.set_idle("b", broken)
        s.set_idle("a", lambda: work("x", 5), key="ctx")  # the same context again: "a" goes on, nothing restarts
        _wait(lambda: len(log) > n + 3, timeout=3)  # "a" goes on; "b" failed and is gone
        assert not any(e.startswith("x") for e in log)
        s.cancel("a")
        time.sleep(0.1)
        done = len(log)
        time.sleep(0.2)
        assert len(log) == done and not s._idle  # closed: no more steps
        s.schedule("c", 1, "x", delay=0)
        _wait(lambda: len(rec.delivered) == 3)  # the worker survived
        s.set_idle("a", lambda: work("y", 1), key="ctx")  # reopened: its key was forgotten on close
        _wait(lambda: "y0" in log, timeout=3)
    finally:
        s.stop()


# ---------------------------------------------------------------------------------------------- settings


def test_settings_precedence_toml_then_init_options_then_workspace_configuration(tmp_path: Path) -> None:
    (tmp_path / "faithlint.toml").write_text("top_k = 5\nmax_windows = 7\nselection = 'topk'\n")
    s = Settings()
    draft = tmp_path / "a.md"
    r = s.resolve(draft)
    assert (r.config.top_k, r.config.max_windows, r.config.selection) == (5, 7, "topk")
    assert r.config_path == (tmp_path / "faithlint.toml").resolve()
    s.set_init_options({"topK": 4, "maxWindows": 6})
    s.set_client({"faithlint": {"top-k": 3}})
    r = s.resolve(draft)
    assert (r.config.top_k, r.config.max_windows, r.config.selection) == (3, 6, "topk")
    assert r.messages == []


def test_invalid_settings_fall_back_with_one_message_per_key(tmp_path: Path) -> None:
    s = Settings()
    s.set_init_options({"topP": 5, "debounce": "soon", "colour": "red", "topK": 2})
    r = s.resolve(tmp_path / "a.md")
    assert r.config.top_p == Config().top_p and r.config.top_k == 2
    assert any("initializationOptions" in m and "top_p" in m and "(ignored)" in m for m in r.messages)
    assert any("colour" in m for m in r.messages)
    opts, msgs = s.server_options()
    assert opts.debounce_ms == 300
    assert len(msgs) == 1 and "debounce" in msgs[0] and "'soon'" in msgs[0]
    s.set_client({"debounce": 0})
    assert s.server_options()[0].debounce_ms == 0


def test_broken_faithlint_toml_uses_defaults_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "faithlint.toml").write_text("top_k = [\n")
    r = Settings().resolve(tmp_path / "a.md")
    assert r.config == Config()
    assert len(r.messages) == 1 and "faithlint.toml" in r.messages[0] and "default" in r.messages[0]


def test_settings_that_are_not_objects_are_reported(tmp_path: Path) -> None:
    s = Settings()
    s.set_client(["not", "a", "dict"])
    r = s.resolve(tmp_path / "a.md")
    assert r.config == Config() and "workspace/configuration" in r.messages[0]


def test_monitor_settings_are_accepted_in_every_key_spelling(tmp_path: Path) -> None:
    s = Settings()
    s.set_init_options({"monitor": "on", "monitorAggregator": "mlp", "monitorMaxContext": 512,
                        "surrogate": "some/lm", "monitor-model": str(tmp_path)})
    r = s.resolve(tmp_path / "a.md")
    assert r.messages == []
    c = r.config
    assert (c.monitor, c.monitor_aggregator, c.monitor_max_context, c.surrogate, c.monitor_model) == (
        "on", "mlp", 512, "some/lm", str(tmp_path))
    s.set_client({"faithlint": {"monitor": False, "monitor_aggregator": "svm"}})  # a bool is on/off; a typo falls back
    r = s.resolve(tmp_path / "a.md")
    assert (r.config.monitor, r.config.monitor_aggregator) == ("off", "mlp")
    assert len(r.messages) == 1 and "monitor_aggregator" in r.messages[0] and "(ignored)" in r.messages[0]


# ---------------------------------------------------------------------------------------------- positions


@pytest.mark.parametrize("text,offset,expected", [
    ("a😀b", 2, (0, 3)),  # the emoji is two UTF-16 units
    ("😀😀\nx", 4, (1, 1)),
    ("中文字\n中", 4, (1, 0)),  # CJK: BMP, one unit each
    ("中文字", 2, (0, 2)),
    ("ab\r\ncd", 4, (1, 0)),  # CRLF is one break
    ("ab\r\ncd", 2, (0, 2)),
    ("ab\rcd", 3, (1, 0)),  # a lone CR breaks a line in LSP
    ("ab\u2028cd", 4, (0, 4)),  # U+2028 does not (str.splitlines would say it does)
    ("ab\x0ccd", 4, (0, 4)),
])
def test_utf16_positions(text: str, offset: int, expected: tuple[int, int]) -> None:
    idx = DocumentIndex(text)
    pos = idx.position(offset)
    assert (pos.line, pos.character) == expected
    assert idx.offset(pos) == offset


def test_positions_follow_the_negotiated_encoding() -> None:
    text = "é😀x"
    assert DocumentIndex(text, PositionCodec(types.PositionEncodingKind.Utf8)).position(2).character == 6
    assert DocumentIndex(text, PositionCodec(types.PositionEncodingKind.Utf32)).position(2).character == 2
    assert DocumentIndex(text).position(2).character == 3


def test_offset_inside_a_surrogate_pair_or_past_the_line_clamps() -> None:
    idx = DocumentIndex("a😀b\nc")
    assert idx.offset(types.Position(line=0, character=2)) == 1  # between the halves: start of the emoji
    assert idx.offset(types.Position(line=0, character=99)) == 3
    assert idx.offset(types.Position(line=9, character=0)) == len("a😀b\nc")


# ---------------------------------------------------------------------------------------------- diagnostics

CONTEXT = "The library reopened on March 4, 2024. The project cost $12.5 million. It is closed on Sundays.\n"


def _outcome(tmp_path: Path, text: str, context: str = CONTEXT, name: str = "draft.md") -> tuple[DocState, Outcome]:
    draft = tmp_path / name
    draft.write_bytes(text.encode())
    (tmp_path / (draft.stem + ".context.md")).write_text(context)
    # FL400 on every sentence: the fake checker finds value-only changes entailed (its keywords decide)
    config = Config(relevance="lexical", rules={"FL400": {"threshold": 1.0}})
    snap = Snapshot(uri=draft.as_uri(), path=draft, text=text, version=3, language_id="markdown")
    out = check_snapshot(make_linter(config), config, None, snap, lambda: False)
    state = DocState(uri=snap.uri, path=draft, language_id="markdown", outcome=out)
    return state, out


def test_a_check_takes_the_drafts_settings_and_leaves_the_linters_own(tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    text = "The library reopened on March 4, 2024. It has a xunsup cafe.\n"
    draft.write_text(text)
    (tmp_path / "draft.context.md").write_text(CONTEXT)
    linter = make_linter(Config(relevance="lexical"))
    own = linter.config
    snap = Snapshot(uri=draft.as_uri(), path=draft, text=text, version=1, language_id="markdown")
    quiet = Config(relevance="lexical", ignore=["FL200", "FL300"])
    out = check_snapshot(linter, quiet, None, snap, lambda: False)
    assert out.result is not None and out.result.findings == [] and linter.config is own
    out = check_snapshot(linter, own, None, snap, lambda: False)
    assert out.result is not None and "FL200" in [f.code for f in out.result.findings]


def test_diagnostics_have_utf16_ranges_codes_links_and_action_data(tmp_path: Path) -> None:
    text = ("# 😀 Title\r\n\r\n中文 😀 The library reopened on March 4, 2024. It has a xunsup cafe. "
            "It cost $15 million.\r\n")
    state, out = _outcome(tmp_path, text)
    diags = build_diagnostics(state, PositionCodec())
    by_code = {d.code: d for d in diags}
    assert set(by_code) == {"FL200", "FL400"}
    fl200 = by_code["FL200"]
    start = text.index("It has")
    # line 2; UTF-16 column counts the emoji twice
    assert (fl200.range.start.line, fl200.range.start.character) == (2, start - text.index("中文") + 1)
    assert fl200.severity == types.DiagnosticSeverity.Warning and fl200.source == "faithlint"
    assert fl200.code_description is not None and fl200.code_description.href.endswith("#fl200")
    rel = fl200.related_information[0]
    assert rel.location.uri == (tmp_path / "draft.context.md").resolve().as_uri()
    assert fl200.data["version"] == 3 and fl200.data["sentence"][0] == start
    fl400 = by_code["FL400"]
    assert fl400.data["value"] == "$15 million" and fl400.data["context_value"] == "$12.5 million"
    a, b = fl400.data["start"], fl400.data["end"]
    assert text[a:b] == "$15 million"


def test_no_context_is_one_information_diagnostic_on_line_0(tmp_path: Path) -> None:
    draft = tmp_path / "lonely.md"
    draft.write_text("Some claim.\n")
    config = Config(relevance="lexical")
    snap = Snapshot(uri=draft.as_uri(), path=draft, text="Some claim.\n", version=1, language_id="markdown")
    out = check_snapshot(make_linter(config), config, None, snap, lambda: False)
    diags = build_diagnostics(DocState(snap.uri, draft, "markdown", outcome=out), PositionCodec())
    assert len(diags) == 1 and diags[0].severity == types.DiagnosticSeverity.Information
    assert diags[0].range.start.line == 0
    for hint in ("context:", "lonely.context.md", "[[pair]]", "--context"):
        assert hint in diags[0].message


@pytest.mark.parametrize("content,needle", [(b"abc\x00def", "binary file"), (b"\xff\xfe\x00a", "UTF-16"),
                                            (b"caf\xe9", "invalid UTF-8")])
def test_unusable_context_is_a_diagnostic_not_a_crash(tmp_path: Path, content: bytes, needle: str) -> None:
    draft = tmp_path / "d.md"
    draft.write_text("A claim.\n")
    (tmp_path / "d.context.txt").write_bytes(content)
    config = Config(relevance="lexical")
    snap = Snapshot(uri=draft.as_uri(), path=draft, text="A claim.\n", version=1, language_id="markdown")
    out = check_snapshot(make_linter(config), config, None, snap, lambda: False)
    assert out.result is None and len(out.problems) == 1 and needle in out.problems[0].message


def test_deleted_context_is_reported(tmp_path: Path) -> None:
    state, out = _outcome(tmp_path, "The library reopened on March 4, 2024.\n")
    ctx = tmp_path / "draft.context.md"
    ctx.unlink()
    snap = Snapshot(uri=out.snapshot.uri, path=out.snapshot.path, text=out.snapshot.text, version=4,
                    language_id="markdown", previous_context=list(out.context_files.values()))
    config = Config(relevance="lexical")
    out2 = check_snapshot(make_linter(config), config, None, snap, lambda: False)
    assert [p.code for p in out2.problems] == ["context-deleted"]
    assert "deleted" in out2.problems[0].message and "draft.context.md" in out2.problems[0].message


def test_too_large_drafts_are_not_checked(tmp_path: Path) -> None:
    config = Config(relevance="lexical", max_file_size=100)
    snap = Snapshot(uri="file:///x.md", path=tmp_path / "x.md", text="word " * 100, version=1, language_id=None)
    out = check_snapshot(make_linter(config), config, None, snap, lambda: False)
    assert out.result is None and out.problems[0].code == "too-large"


# ---------------------------------------------------------------------------------------------- code actions


def _actions(state: DocState, code: str) -> tuple[FixTarget, dict[str, list[Edit]]]:
    out = state.outcome
    assert out is not None and out.result is not None
    f = next(f for f in out.result.findings if f.code == code)
    data = finding_data(f, out.snapshot.text, state.uri, out.snapshot.version)  # as the client sends it back
    ctx = FixTarget(out.snapshot.text, data)
    edits = {}
    for provider in builtin_correctors():
        for p in provider.propose(ctx):
            edits[provider.id] = provider.edits(ctx, p.args)
    return ctx, edits


DRAFT = ("---\ntitle: x\n---\n# Library\n\nThe library reopened on March 4, 2024. It has a xunsup cafe. "
         "The project cost $15 million.\n\n- It is xcontra open on Sundays.\n")


def test_code_action_edits_give_the_intended_text(tmp_path: Path) -> None:
    state, _ = _outcome(tmp_path, DRAFT)
    ctx, e = _actions(state, "FL400")
    assert set(e) == {"faithlint.replaceValue", "faithlint.disableLine", "faithlint.disableFile"}
    assert apply_edits(ctx.text, e["faithlint.replaceValue"]) == DRAFT.replace("$15 million", "$12.5 million")
    assert apply_edits(ctx.text, e["faithlint.disableFile"]) == DRAFT.replace(
        "---\n# Library", "---\n<!-- faithlint-disable FL400 -->\n# Library")
    assert apply_edits(ctx.text, e["faithlint.disableLine"]) == DRAFT.replace(
        "\nThe library", "\n<!-- faithlint-disable-next-line FL400 -->\nThe library")

    ctx, e = _actions(state, "FL200")
    assert set(e) == {"faithlint.replaceWithEvidence", "faithlint.deleteSentence", "faithlint.disableLine",
                      "faithlint.disableFile"}
    assert apply_edits(ctx.text, e["faithlint.deleteSentence"]) == DRAFT.replace("It has a xunsup cafe. ", "")
    replaced = apply_edits(ctx.text, e["faithlint.replaceWithEvidence"])
    assert "xunsup" not in replaced and replaced.count("The library reopened on March 4, 2024.") == 2

    ctx, e = _actions(state, "FL100")
    assert apply_edits(ctx.text, e["faithlint.deleteSentence"]) == DRAFT.replace("- It is xcontra open on Sundays.\n",
                                                                                 "")
    assert apply_edits(ctx.text, e["faithlint.replaceWithEvidence"]).endswith("- It is closed on Sundays.\n")
    # indentation of the line is kept so list items stay list items
    assert apply_edits(ctx.text, e["faithlint.disableLine"]).endswith(
        "<!-- faithlint-disable-next-line FL100 -->\n- It is xcontra open on Sundays.\n")


def test_suppression_edits_really_suppress(tmp_path: Path) -> None:
    state, _ = _outcome(tmp_path, DRAFT)
    for code in ("FL100", "FL200", "FL400"):
        for provider_id in ("faithlint.disableLine", "faithlint.disableFile"):
            ctx, e = _actions(state, code)
            new_text = apply_edits(ctx.text, e[provider_id])
            state2, out2 = _outcome(tmp_path, new_text)
            assert out2.result is not None
            assert code not in {f.code for f in out2.result.findings}, (code, provider_id)


def test_suppression_warnings_and_quoted_words_reach_the_editor(tmp_path: Path) -> None:
    """FL002 on a mistyped code, FL001 on a code that silenced nothing, as diagnostics on the code's own UTF-16
    range; every message starts with the flagged words."""
    text = DRAFT.replace("- It is xcontra", "<!-- faithlint-disable-next-line FL201 FL400 -->\n- It is 😀 xcontra")
    state, out = _outcome(tmp_path, text)
    diags = {str(d.code): d for d in build_diagnostics(state, PositionCodec())}
    assert {"FL001", "FL002", "FL100"} <= set(diags)
    line = text[:text.index("FL201")].count("\n")
    col = text.index("FL201") - text.rindex("\n", 0, text.index("FL201")) - 1
    fl002 = diags["FL002"]
    assert (fl002.range.start.line, fl002.range.start.character, fl002.range.end.character) == (line, col, col + 5)
    assert fl002.message.startswith("\u201cFL201\u201d: unknown rule code")
    assert diags["FL001"].message.startswith("\u201cFL400\u201d: unused suppression")
    assert diags["FL100"].message.startswith("\u201c") and "xcontra" in diags["FL100"].message.split(":")[0]


def test_edits_keep_crlf_and_front_matter_detection() -> None:
    text = "---\r\na: 1\r\n---\r\nBody.\r\n"
    assert front_matter_end(text) == len("---\r\na: 1\r\n---\r\n")
    assert front_matter_end("# no front matter\n---\n") == 0
    assert front_matter_end("---\nunclosed\n") == 0
    assert front_matter_end("\ufeff---\na: 1\n...\nx") == len("\ufeff---\na: 1\n...\n")


@pytest.mark.parametrize("text,sentence,expected", [
    ("A one. B two. C three.", "B two.", "A one. C three."),
    ("A one. B two.\nNext.", "B two.", "A one.\nNext."),
    ("A one.\nB two.\nC.", "B two.", "A one.\nC."),
    ("A one.\r\nB two.\r\nC.", "B two.", "A one.\r\nC."),
    ("B two.", "B two.", ""),
    ("* B two.\n> C three.", "B two.", "> C three."),
    ("> B two.\n", "B two.", ""),
])
def test_sentence_deletion_spacing(text: str, sentence: str, expected: str) -> None:
    a = text.index(sentence)
    assert apply_edits(text, [sentence_deletion(text, a, a + len(sentence))]) == expected


def test_disable_line_and_file_keep_crlf(tmp_path: Path) -> None:
    text = "Intro line.\r\nIt has a xunsup cafe.\r\n"
    state, _ = _outcome(tmp_path, text)
    ctx, e = _actions(state, "FL200")
    assert apply_edits(ctx.text, e["faithlint.disableLine"]) == (
        "Intro line.\r\n<!-- faithlint-disable-next-line FL200 -->\r\nIt has a xunsup cafe.\r\n")
    assert apply_edits(ctx.text, e["faithlint.disableFile"]).startswith("<!-- faithlint-disable FL200 -->\r\nIntro")


def test_registry_is_pluggable() -> None:
    class Shout:
        id = "test.shout"

        def propose(self, ctx: FixTarget) -> list[Proposal]:
            return [Proposal("Shout")]

        def edits(self, ctx: FixTarget, args: dict) -> list[Edit]:
            return [Edit(0, len(ctx.text), ctx.text.upper())]

    reg = builtin_correctors()
    reg.register(Shout())
    assert [p.id for p in reg][-1] == "test.shout" and reg.get("test.shout") is not None
    reg.unregister("test.shout")
    assert reg.get("test.shout") is None
    assert list(CorrectorRegistry()) == []


# ---------------------------------------------------------------------------------------------- features


def test_features_are_objects_whose_handlers_are_wired_once() -> None:
    import asyncio

    from pygls.exceptions import FeatureAlreadyRegisteredError

    from faithlint.server import create_server
    from faithlint.server.code_actions import CodeActions
    from faithlint.server.hover import Hover

    ls = create_server(linter_factory=make_linter)
    assert [type(f).__name__ for f in ls.features] == ["DocumentSync", "Diagnostics", "Hover", "CodeActions",
                                                       "Commands", "Corrections", "FileWatching"]
    fm = ls.protocol.fm
    assert set(fm.features) == {
        types.INITIALIZE, types.INITIALIZED, types.WORKSPACE_DID_CHANGE_CONFIGURATION, types.SHUTDOWN,
        types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_CLOSE,
        types.TEXT_DOCUMENT_DIAGNOSTIC, types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_CODE_ACTION,
        types.CODE_ACTION_RESOLVE, types.WORKSPACE_DID_CHANGE_WATCHED_FILES}
    assert list(fm.commands) == ["faithlint.recheckDocument", "faithlint.recheckWorkspace", "faithlint.status",
                                 "faithlint.correct"]
    # async handlers stay coroutine functions (pygls awaits them); the others stay plain functions
    assert {m for m, h in fm.features.items() if asyncio.iscoroutinefunction(h)} == {
        types.INITIALIZED, types.WORKSPACE_DID_CHANGE_CONFIGURATION, types.TEXT_DOCUMENT_DIAGNOSTIC}
    assert set(fm.feature_options) == {types.TEXT_DOCUMENT_DIAGNOSTIC, types.TEXT_DOCUMENT_CODE_ACTION}
    # a feature's state lives on it
    assert ls.get_feature(CodeActions).correctors.get("faithlint.replaceWithEvidence") is not None
    with pytest.raises(ValueError):
        ls.add_feature(ls.features[0])
    with pytest.raises(FeatureAlreadyRegisteredError):  # one handler per LSP method
        ls.add_feature(Hover(ls))


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_a_fifo_context_file_is_a_problem_not_a_hung_worker(tmp_path: Path) -> None:
    """Issue 17 #2: a FIFO in a draft's context folder blocked the server's only worker thread for good."""
    import os

    draft = tmp_path / "draft.md"
    draft.write_text("The library reopened on March 4, 2024.\n")
    (tmp_path / "draft.context").mkdir()
    (tmp_path / "draft.context" / "facts.md").write_text(CONTEXT)
    fifo = tmp_path / "draft.context" / "pipe.md"
    os.mkfifo(fifo)
    config = Config(relevance="lexical")
    snap = Snapshot(uri=draft.as_uri(), path=draft, text=draft.read_text(), version=1, language_id="markdown")
    done: list[Outcome] = []
    t = threading.Thread(target=lambda: done.append(check_snapshot(make_linter(config), config, None, snap,
                                                                   lambda: False)), daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        with open(fifo, "w"):
            pass
        pytest.fail("check_snapshot hung on a FIFO")
    problems = [p.message for p in done[0].problems]
    assert any("pipe.md" in m and "FIFO" in m for m in problems), problems


# ---------------------------------------------------------------------------------------------- hover


def _hover_sentence(monitor: object = None) -> SentenceResult:
    text = "The library reopened on March 4, 2024 after a $2 million renovation."
    window = Evidence("facts.md", 0, 40, "The library reopened in 2024.", weight=0.9)
    return SentenceResult(start=0, end=len(text), text=text, label="neutral",
                          probs={"entailment": 0.3, "neutral": 0.6, "contradiction": 0.1}, score=0.3, scale_1_5=2,
                          evidence=window, windows=[window], monitor=monitor)


def test_hover_shows_what_grounding_weighed() -> None:
    from faithlint.evidence.grounding import GroundingVerdict
    from faithlint.server.hover import render

    state = DocState(uri="file:///d.md", path=None, language_id="markdown")
    plain = render(state, _hover_sentence())
    s = _hover_sentence()
    s.grounding = GroundingVerdict(0.3, {"entailment": 0.81, "neutral": 0.1, "contradiction": 0.09},
                                   {"entailment_logit": 1.45, "content_absent": 0.25, "numbers_absent": 3.0})
    hover = render(state, s)
    assert "grounding: checker P(entailment) 0.81 \u00b7 content words absent from the context 25% \u00b7 3+ " \
           "number(s) absent" in hover
    assert "grounding" not in plain


def test_hover_shows_the_monitor_verdict_drivers_and_marks() -> None:
    from faithlint.monitor.monitor import MonitorVerdict
    from faithlint.server.hover import render

    state = DocState(uri="file:///d.md", path=None, language_id="markdown")
    plain = render(state, _hover_sentence())
    assert "Monitor" not in plain and "P(entailment) 0.30" in plain and "facts.md" in plain

    s = _hover_sentence()
    start = s.text.index("$2 million")
    verdict = MonitorVerdict(p=0.42, aggregator="lr", features={"numbers_absent": 1.0, "lm_gain": 0.25},
                             drivers=[("numbers_absent", 1.0, -0.8), ("lm_gain", 0.25, 0.3)],
                             marks=[[start, start + len("$2 million")]])
    hover = render(state, _hover_sentence(verdict))
    assert hover.startswith(plain + "\n")  # the existing content is kept, the monitor's section follows it
    section = hover[len(plain):]
    assert "Monitor (lr): P(faithful) 0.42" in section
    assert "`numbers_absent` 1.00 \u2192 unsupported" in section and "`lm_gain` 0.25 \u2192 supported" in section
    assert "Not raised by the context: \u201c$2 million\u201d" in section

    # mlp: P is the MLP's, the drivers still the logistic regression's; no drivers or marks: just the line
    bare = render(state, _hover_sentence(MonitorVerdict(p=0.9, aggregator="mlp", features={})))
    assert bare == plain + "\n\nMonitor (mlp): P(faithful) 0.90"
