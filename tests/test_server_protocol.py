"""The language server over stdio (pytest-lsp), with fake models so it runs in seconds.

tests/fixtures/server/fake_server.py is the real server with a keyword checker swapped in:
"xcontra" in a sentence -> contradiction, "xunsup" -> unsupported, anything else -> supported;
FL400 uses the real (regex-only) value extractor.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))

from lsp_helpers import (  # noqa: E402
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

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = ("The library reopened on March 4, 2024. The project cost $12.5 million.\n\n"
           "It is closed on Sundays. The roof has solar panels.\n")
DRAFT = ("---\nquery: What changed?\n---\n# Library 😀\n\n"
         "The library reopened on March 4, 2024. It has a xunsup rooftop cafe. The project cost $15 million.\n\n"
         "- It is xcontra open on Sundays.\n")
# FL400 on every sentence: the fake checker finds the "$15 million" sentence entailed (its keywords decide)
INIT = {"debounce": 0, "relevance": "lexical", "rules": {"FL400": {"threshold": 1.0}}}


def workspace(tmp_path: Path, draft: str = DRAFT, context: str = CONTEXT) -> Path:
    return write_pair(tmp_path, draft, context)


def codes(client, uri: str) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(str(d.code) for d in client.diagnostics.get(uri, []))


@pytest.mark.asyncio
async def test_open_publishes_diagnostics_with_progress(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: client.diagnostics.get(uri))
        assert codes(client, uri) == ["FL100", "FL200", "FL400"]
        fl200 = next(d for d in client.diagnostics[uri] if d.code == "FL200")
        text = draft.read_text()
        # "# Library 😀" is line 3; the FL200 sentence is on line 5
        assert fl200.range.start.line == 5
        assert fl200.range.start.character == text.split("\n")[5].index("It has")
        assert fl200.related_information and fl200.related_information[0].location.uri.endswith("answer.context.md")
        assert fl200.code_description.href.endswith("#fl200")
        # begin waits for the client's answer to workDoneProgress/create, so it may trail the diagnostics
        kinds = lambda: [r.kind for rs in client.progress_reports.values() for r in rs]  # noqa: E731
        await wait_for(lambda: len(kinds()) >= 2, timeout=10)
        assert kinds() == ["begin", "end"]
        st = await status(client)
        assert st["modelsReady"] and st["documents"][uri]["pairing"] == "sibling"


@pytest.mark.asyncio
async def test_editing_one_sentence_rescores_only_that_sentence(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft)
        await wait_checked(client, uri, 1)
        first = (await status(client))["linters"][0]["stats"]
        text = draft.read_text()
        a = text.index("rooftop cafe")
        text = replace(client, uri, text, a, a + len("rooftop cafe"), "garden", 2)
        await wait_checked(client, uri, 2)
        st = (await status(client))["linters"][0]["stats"]
        assert st["last"] == {"pairs": first["last"]["pairs"], "scored": 1, "sentences_rescored": 1}
        assert st["pairsScored"] == first["pairsScored"] + 1
        assert codes(client, uri) == ["FL100", "FL200", "FL400"]
        # fixing the sentence clears its diagnostic
        a = text.index("It has a xunsup garden.")
        text = replace(client, uri, text, a, a + len("It has a xunsup garden."), "It has solar panels.", 3)
        await wait_checked(client, uri, 3)
        await wait_for(lambda: codes(client, uri) == ["FL100", "FL400"])


@pytest.mark.asyncio
async def test_a_long_draft_shows_its_top_first_then_the_whole(tmp_path: Path) -> None:
    lines = ["The library reopened on March 4, 2024."] * 30
    lines[1] = "It is xcontra open on Sundays."
    lines[25] = "It has a xunsup rooftop cafe."
    draft = workspace(tmp_path, draft="\n\n".join(lines) + "\n")
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft)
        await wait_checked(client, uri, 1)
        st = await status(client)
        assert st["partialResultsDelivered"] == 1
        assert sorted((str(d.code), d.range.start.line) for d in client.diagnostics[uri]) == [
            ("FL100", 2), ("FL200", 50)]
        # later checks of an open draft come whole (no flicker of the diagnostics below the top)
        text = draft.read_text()
        a = text.index("xunsup")
        replace(client, uri, text, a, a + len("xunsup"), "green", 2)
        await wait_checked(client, uri, 2)
        assert (await status(client))["partialResultsDelivered"] == 1
        assert codes(client, uri) == ["FL100"]


@pytest.mark.asyncio
async def test_rapid_edits_cancel_stale_checks_and_the_server_stays_responsive(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init={**INIT, "debounce": 0}, env={"FAITHLINT_FAKE_DELAY": "0.3"}) as client:
        uri = open_doc(client, draft)
        text = draft.read_text()
        prev = ""
        await asyncio.sleep(0.3)  # the first check is now in flight (it takes ~1 s)
        t0 = time.monotonic()
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=3)))
        assert time.monotonic() - t0 < 0.5 and hover is None  # answered at once; nothing checked yet
        for v, word in enumerate(["garden", "terrace", "balcony", "patio"], start=2):
            text = text.replace("rooftop", word, 1) if v == 2 else text.replace(prev, word, 1)
            prev = word
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
            await asyncio.sleep(0.05)
        await wait_checked(client, uri, 5, timeout=30)
        assert "patio" in text
        st = await status(client)
        assert st["checksCancelled"] >= 1
        assert st["resultsDelivered"] <= 2  # never a result for a superseded version


@pytest.mark.asyncio
async def test_pull_diagnostics_with_result_ids(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT, caps=capabilities(pull=True)) as client:
        uri = open_doc(client, draft)
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert report.kind == "full" and report.result_id
        assert sorted(str(d.code) for d in report.items) == ["FL100", "FL200", "FL400"]
        again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
        assert again.kind == "unchanged" and again.result_id == report.result_id
        assert uri not in client.diagnostics  # pull clients never get pushed diagnostics
        text = draft.read_text()
        a = text.index(" It has a xunsup rooftop cafe.")
        replace(client, uri, text, a, a + len(" It has a xunsup rooftop cafe."), "", 2)
        third = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
        assert third.kind == "full" and sorted(str(d.code) for d in third.items) == ["FL100", "FL400"]


@pytest.mark.asyncio
async def test_hover_shows_verdict_scores_and_evidence_links(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: client.diagnostics.get(uri))
        fl100 = next(d for d in client.diagnostics[uri] if d.code == "FL100")
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=fl100.range.start))
        assert hover is not None and hover.range == fl100.range
        value = hover.contents.value
        assert "contradicted" in value and "P(contradiction) 0.85" in value and "1/5" in value
        assert (tmp_path / "answer.context.md").resolve().as_uri() + "#L" in value


@pytest.mark.asyncio
@pytest.mark.parametrize("resolve", [True, False])
async def test_every_code_action_edit_gives_the_intended_text(tmp_path: Path, resolve: bool) -> None:
    draft = workspace(tmp_path)
    text = draft.read_text()
    expected = {
        "Replace \u2018$15 million\u2019": text.replace("$15 million", "$12.5 million"),
        "Delete the sentence@FL200": text.replace("It has a xunsup rooftop cafe. ", ""),
        "Delete the sentence@FL100": text.replace("- It is xcontra open on Sundays.\n", ""),
        "Replace the sentence with the evidence@FL100": text.replace("It is xcontra open on Sundays.",
                                                                      "It is closed on Sundays."),
        "Disable FL400 for this file": text.replace("---\n# Library", "---\n<!-- faithlint-disable FL400 -->\n"
                                                    "# Library"),
        "Disable FL100 for this line": text.replace("- It is xcontra", "<!-- faithlint-disable-next-line FL100 -->"
                                                    "\n- It is xcontra"),
    }
    async with session(tmp_path, init=INIT, caps=capabilities(resolve=resolve)) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: client.diagnostics.get(uri))
        seen: dict[str, str] = {}
        for diag in client.diagnostics[uri]:
            actions = await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag])))
            assert actions
            for action in actions:
                assert (action.edit is None) == resolve
                if resolve:
                    action = await client.code_action_resolve_async(action)
                new_text = apply_workspace_edit(text, uri, action.edit, version=1)
                assert new_text != text
                seen[f"{action.title}@{diag.code}"] = new_text
        for title, want in expected.items():
            match = [t for t in seen if t.startswith(title.split("@")[0]) and ("@" not in title or t.endswith(
                title.split("@")[1]))]
            assert match, (title, list(seen))
            assert seen[match[0]] == want, title


@pytest.mark.asyncio
async def test_actions_for_a_stale_version_are_refused(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init={**INIT, "debounce": 5000}) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: client.diagnostics.get(uri))
        diag = next(d for d in client.diagnostics[uri] if d.code == "FL400")
        params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
                                        context=types.CodeActionContext(diagnostics=[diag]))
        actions = await client.text_document_code_action_async(params)
        text = draft.read_text()
        replace(client, uri, text, 0, 0, "\n", 2)  # version 2; re-check held back by the debounce
        with pytest.raises(JsonRpcException) as err:
            await client.code_action_resolve_async(actions[0])
        assert err.value.code == types.LSPErrorCodes.ContentModified
        assert not await client.text_document_code_action_async(params)


@pytest.mark.asyncio
async def test_context_change_reported_by_the_client_rechecks(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT, caps=capabilities(watch=True)) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: "FL400" in codes(client, uri))
        regs = await wait_for(lambda: [r for r in client.registrations
                                       if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES])
        globs = [w["globPattern"] for r in regs for w in r.register_options["watchers"]]
        assert "**/*.context.md" in globs and "**/faithlint.toml" in globs
        ctx = tmp_path / "answer.context.md"
        ctx.write_text(CONTEXT.replace("$12.5 million", "$15 million"))
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=ctx.as_uri(), type=types.FileChangeType.Changed)]))
        await wait_for(lambda: codes(client, uri) == ["FL100", "FL200"])


@pytest.mark.asyncio
async def test_context_change_on_disk_rechecks_with_watchdog_and_deletion_is_reported(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT, caps=capabilities(watch=False)) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: "FL400" in codes(client, uri))
        await asyncio.sleep(0.3)  # the observer is scheduled after the first check
        ctx = tmp_path / "answer.context.md"
        ctx.write_text(CONTEXT.replace("$12.5 million", "$15 million"))
        await wait_for(lambda: codes(client, uri) == ["FL100", "FL200"], timeout=15)
        ctx.unlink()
        await wait_for(lambda: codes(client, uri) == ["context-deleted"], timeout=15)
        assert "deleted" in client.diagnostics[uri][0].message
        ctx.write_text(CONTEXT)  # a sibling appearing pairs the draft again
        await wait_for(lambda: codes(client, uri) == ["FL100", "FL200", "FL400"], timeout=15)


@pytest.mark.asyncio
async def test_bad_inputs_do_not_break_the_server(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_text("A claim about things.\n")
    (tmp_path / "bin.context.txt").write_bytes(b"\x00\x01binary\xff")
    (tmp_path / "lonely.md").write_text("Another claim.\n")
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, tmp_path / "bin.md")
        await wait_for(lambda: client.diagnostics.get(uri))
        assert codes(client, uri) == ["context"] and "binary file" in client.diagnostics[uri][0].message
        lonely = open_doc(client, tmp_path / "lonely.md")
        await wait_for(lambda: client.diagnostics.get(lonely))
        d = client.diagnostics[lonely][0]
        assert d.severity == types.DiagnosticSeverity.Information and "context:" in d.message
        unknown = (tmp_path / "never-opened.md").as_uri()
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=unknown), position=types.Position(line=0, character=0)))
        assert hover is None
        assert await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=unknown), range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)),
            context=types.CodeActionContext(diagnostics=[]))) is None
        res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="faithlint.recheckDocument", arguments=[unknown, "untitled:Untitled-1"]))
        assert res["unknown"] == [unknown, "untitled:Untitled-1"]
        untitled = "untitled:Untitled-1"
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=untitled, language_id="markdown", version=1, text="Unsaved 😀 claim.\n")))
        await wait_for(lambda: client.diagnostics.get(untitled))
        assert "Save this draft" in client.diagnostics[untitled][0].message
        huge = tmp_path / "huge.md"
        huge.write_text("x")
        (tmp_path / "huge.context.md").write_text(CONTEXT)
        big = open_doc(client, huge, text="word " * 500_000)
        await wait_for(lambda: client.diagnostics.get(big))
        assert codes(client, big) == ["too-large"]
        assert (await status(client))["modelsReady"]


@pytest.mark.asyncio
async def test_settings_layers_and_messages(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    (tmp_path / "faithlint.toml").write_text('ignore = ["FL100"]\n')
    async with session(tmp_path, init={**INIT, "topP": 7, "debounce": -1},
                       client_settings={"select": ["FL4"], "maxWindows": "many"}) as client:
        uri = open_doc(client, draft)
        await wait_for(lambda: client.diagnostics.get(uri))
        assert codes(client, uri) == ["FL400"]  # workspace/configuration wins over the others
        messages = [m.message for m in client.messages]
        assert any("initializationOptions" in m and "top_p" in m for m in messages), messages
        assert any("debounce" in m for m in messages), messages
        assert any("workspace/configuration" in m and "max_windows" in m for m in messages), messages
        assert len(messages) == len(set(messages))
        client.set_configuration({"faithlint": {"select": ["FL"]}})
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        # faithlint.toml ignores FL100, so the contradicted sentence falls through to FL300
        await wait_for(lambda: codes(client, uri) == ["FL200", "FL300", "FL400"])
        (tmp_path / "faithlint.toml").write_text("")
        res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="faithlint.recheckWorkspace"))
        assert res["scheduled"] == [uri]
        await wait_for(lambda: codes(client, uri) == ["FL100", "FL200", "FL400"])


@pytest.mark.asyncio
async def test_incremental_edits_use_lsp_lines_not_splitlines(tmp_path: Path) -> None:
    # U+2028 and form feeds are not line breaks in LSP; an edit after them must land where the editor made it
    text = "Intro\u2028more 😀\x0cstill the first line. It has a xunsup cafe.\r\nThe roof has solar panels.\n"
    draft = workspace(tmp_path, draft=text)
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft, text=text)
        await wait_for(lambda: codes(client, uri) == ["FL200"])
        d = client.diagnostics[uri][0]
        assert d.range.start.line == 0
        assert d.range.start.character == len(text[:text.index("It has")].encode("utf-16-le")) // 2
        a = text.index("xunsup cafe")
        replace(client, uri, text, a, a + len("xunsup cafe"), "garden", 2)
        await wait_checked(client, uri, 2)
        assert codes(client, uri) == []
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=4)))
        assert hover is not None and hover.range.start == types.Position(line=1, character=0)
