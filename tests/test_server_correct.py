"""RAC and FOD in the editor: the ``faithlint.correct`` code actions, their run off the protocol thread with
``$/progress`` and cancellation, the popup, ``workspace/applyEdit`` and the stored quick fixes.

The fast tests drive the real server over stdio with fake models (tests/fixtures/server/fake_models.py:
"xcontra" -> contradicted, "xunsup" -> unsupported) and a fake corrector (fake_correctors.py, set per test by
environment variables), or the real RAC on the fake models. The slow tests (``pytest -m slow``) run the real
server with the real models on examples/rag-answer.

UTF-16 positions are checked by applying the server's edits with the client-side helper, which counts UTF-16
units itself, on a draft with emoji, CJK and CRLF line breaks.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any, Union

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))

from lsp_helpers import (  # noqa: E402
    REAL_SERVER,
    apply_workspace_edit,
    capabilities,
    open_doc,
    replace,
    session,
    status,
    wait_checked,
    wait_for,
    write_pair,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLE = ROOT / "examples" / "rag-answer"
SERVER = [sys.executable, str(HERE / "fixtures" / "server" / "fake_correct_server.py")]
MODEL = os.environ.get("FAITHLINT_TEST_MODEL") or None
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"
LOAD_TIMEOUT = 300.0

CONTEXT = ("The library reopened on March 4, 2024. The project cost $12.5 million.\n\n"
           "It is closed on Sundays. The roof has solar panels.\n")
# emoji (2 UTF-16 units) and CJK before the flagged words on their line, CRLF line breaks
DRAFT = ("---\r\nquery: What changed?\r\n---\r\n# Library 😀\r\n\r\n"
         "The library 图书馆 😀 reopened on March 4, 2024. It has a xunsup rooftop cafe 😀. "
         "The project cost $15 million.\r\n\r\n"
         "- 😀 It is xcontra open on Sundays.\r\n")
INIT = {"debounce": 0, "relevance": "lexical", "rules": {"FL400": {"threshold": 1.0}}}


def workspace(tmp_path: Path, draft: str = DRAFT, context: str = CONTEXT) -> Path:
    return write_pair(tmp_path, draft, context)


def caps(*, ask: bool = True, **kwargs: Any) -> types.ClientCapabilities:
    """The helpers' capabilities, plus message actions (the popup) and workspace/applyEdit."""
    c = capabilities(**kwargs)
    assert c.window is not None and c.workspace is not None
    if ask:
        c.window.show_message = types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(additional_properties_support=False))
    c.workspace.apply_edit = True
    return c


def env(tmp_path: Path, mode: str = "swap", delay: float = 0.0) -> dict[str, str]:
    return {"FAITHLINT_FAKE_CORRECT": mode, "FAITHLINT_FAKE_CORRECT_DELAY": str(delay),
            "FAITHLINT_FAKE_CORRECT_LOG": str(tmp_path / "corrector.log")}


def corrector_log(tmp_path: Path) -> list[str]:
    path = tmp_path / "corrector.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def structure_code_actions(client: Any) -> None:
    """lsprotocol structures every code action with a ``command`` as a bare Command (it checks the key, not
    that its value is a string, as LSP clients do): read ours as CodeActions."""
    conv = client.protocol._converter

    def hook(obj: Any, _: type) -> Any:
        return conv.structure(obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction)

    conv.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007 (lsprotocol's key)


class Editor:
    """What the test client does with the server's requests: answer popups (``pick``), apply edits."""

    def __init__(self, client: Any, pick: Any = "Apply") -> None:
        self.client = client
        structure_code_actions(client)
        self.pick = pick  # a title prefix to choose, None to dismiss, or a callable(params) -> title | None
        self.asked: list[types.ShowMessageRequestParams] = []
        self.applied: list[types.ApplyWorkspaceEditParams] = []

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def _ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
            self.asked.append(params)
            title = self.pick(params) if callable(self.pick) else self.pick
            if title is None:
                return None
            return next((a for a in params.actions or [] if a.title.startswith(title)), None)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def _apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.applied.append(params)
            return types.ApplyWorkspaceEditResult(applied=True)


def diagnostic(client: Any, uri: str, code: str) -> types.Diagnostic:
    return next(d for d in client.diagnostics.get(uri, []) if str(d.code) == code)


async def actions_for(client: Any, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag]))) or []


def correct_action(actions: list[types.CodeAction], method: str) -> types.CodeAction:
    return next(a for a in actions if a.command is not None and a.command.arguments[0]["method"] == method)


def execute(client: Any, action: types.CodeAction, token: Any = None) -> Any:
    """Send the action's command; returns the request's future."""
    assert action.command is not None
    return client.protocol.send_request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments, work_done_token=token))


async def result_of(future: Any, timeout: float = 30.0) -> Any:
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)


def kinds(client: Any, token: Any = None) -> list[str]:
    return [r.kind for t, rs in client.progress_reports.items() if token is None or t == token for r in rs]


def correction_tokens(client: Any) -> list[Any]:
    return [t for t, rs in client.progress_reports.items()
            if rs and rs[0].kind == "begin" and "Correct" in rs[0].title or "Regenerate" in (rs[0].title or "")]


async def ready(client: Any, tmp_path: Path, text: str = DRAFT) -> str:
    uri = open_doc(client, workspace(tmp_path, draft=text), text=text)
    await wait_checked(client, uri, 1)
    await wait_for(lambda: client.diagnostics.get(uri))
    return uri


# ---------------------------------------------------------------------------------------------- fast

def test_previews_show_what_changes() -> None:
    from faithlint.fixes.edits import Edit
    from faithlint.server.corrections import preview

    text = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
    a = text.index("$25 million")
    assert preview(text, (Edit(a, a + 11, "$12.5 million"),)) == \
        "\u201c$25 million\u201d \u2192 \u201c$12.5 million\u201d"
    # a regenerated sentence: the words that differ, with one shared word either side
    new = text.replace("$25", "$12.5")
    assert preview(text, (Edit(0, len(text), new),)) == \
        "\u201c\u2026cost $25 million\u2026\u201d \u2192 \u201c\u2026cost $12.5 million\u2026\u201d"
    assert preview(text, (Edit(0, len(text), new),), limit=240, whole=True) == \
        f"\u201c{text}\u201d \u2192 \u201c{new}\u201d"
    assert preview(text, (Edit(0, len(text), ""),)).startswith("delete \u201cThe project cost")
    assert preview(text, (Edit(0, 0, "Yes. "),)) == "insert \u201cYes.\u201d"


@pytest.mark.asyncio
async def test_the_two_actions_appear_on_flagged_codes_only_and_run_nothing(tmp_path: Path) -> None:
    (tmp_path / "lonely.md").write_text("A draft without context.\n")
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path)) as client:
        structure_code_actions(client)
        uri = await ready(client, tmp_path)
        assert sorted(str(d.code) for d in client.diagnostics[uri]) == ["FL100", "FL200", "FL400"]
        for diag in client.diagnostics[uri]:
            actions = await actions_for(client, uri, diag)
            runs = [a for a in actions if a.command is not None]
            assert [a.title for a in runs] == ["Correct from the context (RAC)", "Regenerate faithfully (FOD)"]
            for a, method in zip(runs, ("rac", "fod")):
                assert a.kind == types.CodeActionKind.QuickFix and a.edit is None and list(a.diagnostics) == [diag]
                assert a.command.command == "faithlint.correct"
                assert await client.code_action_resolve_async(a) == a  # editors resolve actions without an edit
                assert list(a.command.arguments) == [{"uri": uri, "version": 1, "method": method, "code": diag.code,
                                                "range": [diag.data["start"], diag.data["end"]]}]
        # a diagnostic of another kind (no context paired) gets no correction
        lonely = open_doc(client, tmp_path / "lonely.md")
        await wait_checked(client, lonely, 1)
        (info,) = await wait_for(lambda: client.diagnostics.get(lonely))
        assert info.code == "no-context"
        assert not [a for a in await actions_for(client, lonely, info) if a.command is not None]
        assert corrector_log(tmp_path) == []  # the menus ran nothing


@pytest.mark.asyncio
async def test_no_correction_actions_for_a_client_that_cannot_apply_server_edits(tmp_path: Path) -> None:
    c = caps()
    assert c.workspace is not None
    c.workspace.apply_edit = False
    async with session(tmp_path, command=SERVER, init=INIT, caps=c, env=env(tmp_path)) as client:
        structure_code_actions(client)
        uri = await ready(client, tmp_path)
        actions = await actions_for(client, uri, diagnostic(client, uri, "FL100"))
        assert actions and not [a for a in actions if a.command is not None]  # the quick fixes only


@pytest.mark.asyncio
async def test_apply_from_the_popup_with_progress_off_the_protocol_thread(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, delay=3)) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        fl100 = diagnostic(client, uri, "FL100")
        future = execute(client, correct_action(await actions_for(client, uri, fl100), "rac"))
        await wait_for(lambda: corrector_log(tmp_path), timeout=10)  # the corrector runs
        # the protocol thread answers meanwhile
        t0 = time.monotonic()
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=fl100.range.start))
        st = await status(client)
        assert time.monotonic() - t0 < 1.0 and hover is not None and st["documents"][uri]["version"] == 1
        assert not future.done()
        result = await result_of(future)
        assert result["method"] == "rac" and result["version"] == 1 and not result.get("cancelled")
        (cand,) = result["candidates"]
        assert cand["title"] == "Apply RAC: \u201cxcontra\u201d \u2192 \u201cfixed 🎉\u201d"
        assert cand["edit"]["documentChanges"][0]["textDocument"] == {"uri": uri, "version": 1}
        start, *_ = corrector_log(tmp_path)
        a, b = fl100.data["start"], fl100.data["end"]
        assert start == f"start rac ({a}, {b}) 1 'What changed?' True"  # the check's context, query, markdown
        # $/progress: begin (cancellable), the corrector's reports, end
        (token,) = [t for t, rs in client.progress_reports.items() if rs and getattr(rs[0], "title", "") ==
                    "faithlint: Correct from the context (RAC)"]
        reports = client.progress_reports[token]
        assert [r.kind for r in reports] == ["begin", "report", "report", "report", "report", "report", "end"]
        assert reports[0].cancellable and [r.percentage for r in reports[1:-1]] == [0, 25, 50, 75, 100]
        assert reports[1].message == "rac: step 1 of 4"
        # the popup: the preview, one Apply per candidate and Dismiss; Apply sends the versioned edit
        await wait_for(lambda: editor.applied, timeout=10)
        (asked,) = editor.asked
        assert asked.type == types.MessageType.Info
        assert "\u201cxcontra\u201d \u2192 \u201cfixed 🎉\u201d" in asked.message
        assert [a.title for a in asked.actions] == ["Apply: \u201cxcontra\u201d \u2192 \u201cfixed 🎉\u201d", "Dismiss"]
        (applied,) = editor.applied
        new = apply_workspace_edit(DRAFT, uri, applied.edit, version=1)
        assert new == DRAFT.replace("xcontra", "fixed 🎉")
        assert "\n" not in new.replace("\r\n", "")


@pytest.mark.asyncio
async def test_dismiss_keeps_the_candidates_as_quick_fixes_and_in_the_hover(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path)) as client:
        editor = Editor(client, pick=None)
        uri = await ready(client, tmp_path)
        fl200 = diagnostic(client, uri, "FL200")
        result = await result_of(execute(client, correct_action(await actions_for(client, uri, fl200), "fod")))
        assert [c["title"] for c in result["candidates"]] == [
            "Apply FOD (0.93): \u201cxunsup\u201d \u2192 \u201cfixed 🎉\u201d",
            "Apply FOD (0.88): \u201cxunsup\u201d \u2192 \u201csound\u201d"]
        assert [c["score"] for c in result["candidates"]] == [0.93, 0.88]
        await wait_for(lambda: editor.asked, timeout=10)
        assert [a.title for a in editor.asked[0].actions] == [
            "Apply 1: \u201cxunsup\u201d \u2192 \u201cfixed 🎉\u201d",
            "Apply 2: \u201cxunsup\u201d \u2192 \u201csound\u201d", "Dismiss"]
        await asyncio.sleep(0.3)
        assert editor.applied == []  # dismissed: nothing changes
        # the same diagnostic's menu offers them, ready, with their edits; other diagnostics do not
        actions = await actions_for(client, uri, fl200)
        ready_fixes = [a for a in actions if a.edit is not None and a.title.startswith("Apply FOD")]
        assert [a.title for a in ready_fixes] == [c["title"] for c in result["candidates"]]
        new = apply_workspace_edit(DRAFT, uri, ready_fixes[1].edit, version=1)
        assert new == DRAFT.replace("xunsup", "sound")
        assert await client.code_action_resolve_async(ready_fixes[1]) == ready_fixes[1]
        assert not [a for a in await actions_for(client, uri, diagnostic(client, uri, "FL100"))
                    if a.title.startswith("Apply")]
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=fl200.range.start))
        assert hover is not None and "Corrections ready" in hover.contents.value
        assert "Apply FOD (0.93)" in hover.contents.value
        # applying it (the editor's didChange) ends the offer
        replace(client, uri, DRAFT, DRAFT.index("xunsup"), DRAFT.index("xunsup") + 6, "sound", 2)
        await wait_checked(client, uri, 2)
        assert all("xunsup" not in str(d.message) for d in client.diagnostics[uri])
        assert not [a for a in await actions_for(client, uri, diagnostic(client, uri, "FL100"))
                    if a.title.startswith("Apply")]


@pytest.mark.asyncio
async def test_without_message_actions_the_fixes_wait_in_the_menu(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(ask=False, progress=False),
                       env=env(tmp_path)) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        fl100 = diagnostic(client, uri, "FL100")
        result = await result_of(execute(client, correct_action(await actions_for(client, uri, fl100), "rac")))
        assert len(result["candidates"]) == 1
        msg = await wait_for(lambda: [m for m in client.messages if "quick fixes" in m.message], timeout=10)
        assert "\u201cxcontra\u201d \u2192 \u201cfixed 🎉\u201d" in msg[0].message
        await asyncio.sleep(0.2)
        assert editor.asked == [] and editor.applied == [] and not correction_tokens(client)
        actions = await actions_for(client, uri, fl100)
        assert [a.title for a in actions if a.edit is not None and a.title.startswith("Apply RAC")]


@pytest.mark.asyncio
async def test_cancel_request_stops_the_corrector(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, delay=20)) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL100")), "rac")
        future = execute(client, action)
        (msg_id,) = [i for i, f in client.protocol._request_futures.items() if f is future]
        await wait_for(lambda: corrector_log(tmp_path), timeout=10)
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        with pytest.raises(JsonRpcException) as err:  # LSP's answer to a cancelled request
            await result_of(future, timeout=10)
        assert err.value.code == -32800
        await wait_for(lambda: "cancelled" in corrector_log(tmp_path), timeout=10)  # the corrector saw it
        await wait_for(lambda: kinds(client)[-1:] == ["end"], timeout=10)
        await asyncio.sleep(0.2)
        assert editor.asked == [] and editor.applied == []
        assert (await status(client))["documents"][uri]["version"] == 1


@pytest.mark.asyncio
async def test_progress_cancel_stops_the_corrector(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, delay=20)) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL200")), "fod")
        client.progress_reports.setdefault("my-token", [])  # a client-made token (the client knows it)
        future = execute(client, action, token="my-token")  # the request's own workDoneToken
        await wait_for(lambda: corrector_log(tmp_path), timeout=10)
        await wait_for(lambda: kinds(client, "my-token")[:1] == ["begin"], timeout=10)
        client.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
                               types.WorkDoneProgressCancelParams(token="my-token"))
        result = await result_of(future, timeout=10)
        assert result == {"method": "fod", "version": 1, "cancelled": True}
        assert "cancelled" in corrector_log(tmp_path)
        assert kinds(client, "my-token")[-1] == "end"
        await asyncio.sleep(0.2)
        assert editor.asked == [] and editor.applied == []


@pytest.mark.asyncio
async def test_an_edit_during_the_run_drops_its_result(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, delay=20)) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL100")), "rac")
        future = execute(client, action)
        await wait_for(lambda: corrector_log(tmp_path), timeout=10)
        replace(client, uri, DRAFT, 0, 0, "Hello. ", 2)
        result = await result_of(future, timeout=10)
        assert result == {"method": "rac", "version": 1, "cancelled": True}
        assert "cancelled" in corrector_log(tmp_path)
        assert [m for m in client.messages if "the draft changed while faithlint corrected it" in m.message]
        await asyncio.sleep(0.2)
        assert editor.asked == [] and editor.applied == []
        # the action of the old version is refused
        with pytest.raises(JsonRpcException) as err:
            await result_of(execute(client, action), timeout=10)
        assert err.value.code == -32801 and "the draft changed" in str(err.value)
        assert [m for m in client.messages if m.message == "faithlint: the draft changed; run the action again"]


@pytest.mark.asyncio
async def test_an_edit_before_the_user_picks_drops_the_choice(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path)) as client:
        def edit_then_apply(params: types.ShowMessageRequestParams) -> str:
            replace(client, uri, DRAFT, 0, 0, "Hello. ", 2)  # the user typed while the popup was open
            return "Apply"

        editor = Editor(client, pick=edit_then_apply)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL100")), "rac")
        result = await result_of(execute(client, action))
        assert len(result["candidates"]) == 1
        await wait_for(lambda: [m for m in client.messages if "the draft changed while" in m.message], timeout=10)
        assert len(editor.asked) == 1 and editor.applied == []


@pytest.mark.asyncio
async def test_no_candidate_shows_the_notes(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, "none")) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL400")), "fod")
        result = await result_of(execute(client, action))
        assert result["candidates"] == [] and "no candidate passed" in result["notes"][0]
        (msg,) = await wait_for(lambda: [m for m in client.messages if "no candidate passed" in m.message])
        assert msg.type == types.MessageType.Info and msg.message.startswith("faithlint FOD: FOD: no candidate")
        assert editor.asked == [] and editor.applied == []


@pytest.mark.asyncio
async def test_a_failing_corrector_is_one_error_line_and_the_server_keeps_working(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, "fail")) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        action = correct_action(await actions_for(client, uri, diagnostic(client, uri, "FL100")), "fod")
        with pytest.raises(JsonRpcException) as err:
            await result_of(execute(client, action))
        assert err.value.code == -32803 and "cannot reach the LLM endpoint" in str(err.value)
        (msg,) = [m for m in client.messages if "cannot reach" in m.message]
        assert msg.type == types.MessageType.Error and "\n" not in msg.message and "Traceback" not in msg.message
        assert not [m for m in client.messages if "internal error" in m.message]
        assert editor.asked == [] and editor.applied == []
        # still serving: an edit is checked, the next run works
        text = replace(client, uri, DRAFT, 0, 0, "Hello. ", 2)
        await wait_checked(client, uri, 2)
        assert text.startswith("Hello.") and (await status(client))["documents"][uri]["version"] == 2


@pytest.mark.asyncio
async def test_the_real_rac_on_the_fake_models_swaps_the_value(tmp_path: Path) -> None:
    async with session(tmp_path, command=SERVER, init=INIT, caps=caps(), env=env(tmp_path, "real")) as client:
        editor = Editor(client)
        uri = await ready(client, tmp_path)
        fl400 = diagnostic(client, uri, "FL400")
        result = await result_of(execute(client, correct_action(await actions_for(client, uri, fl400), "rac")), 60)
        (cand,) = result["candidates"]
        assert cand["title"] == "Apply RAC: \u201c$15 million\u201d \u2192 \u201c$12.5 million\u201d"
        await wait_for(lambda: editor.applied, timeout=10)
        new = apply_workspace_edit(DRAFT, uri, editor.applied[0].edit, version=1)
        assert new == DRAFT.replace("$15 million", "$12.5 million")


# ---------------------------------------------------------------------------------------------- slow

def init_real(**extra: object) -> dict[str, object]:
    return {"debounce": 0, **({"model": MODEL} if MODEL else {}), **extra}


def copy_example(tmp_path: Path) -> Path:
    for name in ("answer.md", "answer.context.md"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    return tmp_path / "answer.md"


needs_model = pytest.mark.skipif(MODEL is None and not BUNDLED.exists(),
                                 reason="no bundled model yet; set FAITHLINT_TEST_MODEL=/path/to/model")


async def amount_diagnostic(client: Any, uri: str, text: str) -> types.Diagnostic:
    a = text.index("$25 million")
    found = [d for d in client.diagnostics.get(uri, []) if d.data and d.data.get("start", -1) <= a < d.data["end"]
             and str(d.code) in ("FL100", "FL110", "FL200", "FL210", "FL400")]
    assert found, [(d.code, d.message) for d in client.diagnostics.get(uri, [])]
    return found[0]


@pytest.mark.slow
@pytest.mark.asyncio
@needs_model
async def test_real_rac_corrects_the_amount_and_the_recheck_clears_it(tmp_path: Path) -> None:
    draft = copy_example(tmp_path)
    text = draft.read_text(encoding="utf-8")
    async with session(tmp_path, command=REAL_SERVER, init=init_real(), caps=caps()) as client:
        editor = Editor(client)
        uri = open_doc(client, draft)
        st = await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        assert not st["modelErrors"], st["modelErrors"]
        diag = await amount_diagnostic(client, uri, text)
        result = await result_of(execute(client, correct_action(await actions_for(client, uri, diag), "rac")),
                                 LOAD_TIMEOUT)
        assert [c["title"] for c in result["candidates"]] == [
            "Apply RAC: \u201c$25 million\u201d \u2192 \u201c$12.5 million\u201d"], result
        await wait_for(lambda: editor.applied, timeout=10)
        new = apply_workspace_edit(text, uri, editor.applied[0].edit, version=1)
        assert new == text.replace("$25 million", "$12.5 million")
        # the editor applies it: a new version, re-checked; the amount is no longer flagged
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)]))
        await wait_checked(client, uri, 2, LOAD_TIMEOUT, interval=0.1)
        a = new.index("$12.5 million")
        sentence = [d for d in client.diagnostics[uri] if d.data and d.data.get("start", -1) <= a < d.data["end"]
                    and str(d.code) in ("FL100", "FL110", "FL400")]
        assert not sentence, [(d.code, d.message) for d in sentence]


@pytest.mark.slow
@pytest.mark.asyncio
@needs_model
@pytest.mark.skipif(importlib.util.find_spec("faithlint.fixes.correctors.fod") is None,
                    reason="faithlint.fixes.correctors.fod (the FOD corrector) is not in this tree yet")
async def test_real_fod_offers_a_supported_candidate_or_says_none_passed(tmp_path: Path) -> None:
    draft = copy_example(tmp_path)
    text = draft.read_text(encoding="utf-8")
    async with session(tmp_path, command=REAL_SERVER, init=init_real(fodSamples=2, fodBeams=1),
                       caps=caps()) as client:
        editor = Editor(client, pick=None)
        uri = open_doc(client, draft)
        st = await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        assert not st["modelErrors"], st["modelErrors"]
        diag = await amount_diagnostic(client, uri, text)
        result = await result_of(execute(client, correct_action(await actions_for(client, uri, diag), "fod")),
                                 2 * LOAD_TIMEOUT)
        assert not result.get("cancelled")
        if result["candidates"]:
            for c in result["candidates"]:
                assert c["title"].startswith("Apply FOD") and c.get("score") is not None and c["score"] >= 0.85
                new = apply_workspace_edit(text, uri, types.WorkspaceEdit(document_changes=[
                    client.protocol._converter.structure(dc, types.TextDocumentEdit)
                    for dc in c["edit"]["documentChanges"]]), version=1)
                assert new != text
            await wait_for(lambda: editor.asked, timeout=10)
        else:
            assert any("\u03c42" in n or "tau2" in n.lower() or "no candidate" in n for n in result["notes"]), result
        assert editor.applied == []
