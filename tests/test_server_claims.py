"""Claim units (``unit = "claim"``) in the language server: diagnostics, hover, code actions, settings.

The fast tests drive the real server over stdio with the fake checker of tests/fixtures/server ("xcontra" in
a claim -> contradicted, "xunsup" -> unsupported) and the real spaCy triplet extractor, so the claims, their
offsets and everything the server does with them are real. The slow tests (``pytest -m slow``) run the real
models on examples/rag-answer.

UTF-16 positions are computed here from the text itself, not with the server's own conversion.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))

from lsp_helpers import (  # noqa: E402
    REAL_SERVER,
    apply_workspace_edit,
    capabilities,
    open_doc,
    session,
    status,
    wait_checked,
    wait_for,
    write_pair,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rag-answer"
MODEL = os.environ.get("FAITHLINT_TEST_MODEL") or None
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"
LOAD_TIMEOUT = 300.0

CONTEXT = ("The Riverside library opened a new wing. The project cost $25 million and was funded by a city bond.\n\n"
           "A rooftop café run by a local bakery opened on the top floor. The library has a café.\n")
# emoji (2 UTF-16 units), CJK (1 unit, 3 UTF-8 bytes) and CRLF before and inside the claims
DRAFT = ("# Notes 🎉\r\n\r\n"
         "Readers 😀 love the library 图书馆. The project cost $25 million and was funded by a xunsup bond.\r\n"
         "A rooftop café run by a local bakery opened on the xcontra floor.\r\n"
         "The library has a café.\r\n")
UNSUPPORTED = "The project cost $25 million and was funded by a xunsup bond"  # subject .. object of the claim
CONTRADICTED = "A rooftop café run by a local bakery opened on the xcontra floor"
INIT = {"debounce": 0, "relevance": "lexical", "unit": "claim"}


def utf16(text: str, offset: int) -> types.Position:
    """The LSP (UTF-16) position of a code-point offset, counted by hand (CRLF, CR and LF end a line)."""
    before = text[:offset].replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n")
    column = before[before.rfind("\n") + 1:]
    return types.Position(line=line, character=len(column.encode("utf-16-le")) // 2)


def utf16_range(text: str, words: str) -> types.Range:
    a = text.index(words)
    return types.Range(start=utf16(text, a), end=utf16(text, a + len(words)))


def workspace(tmp_path: Path, draft: str = DRAFT, context: str = CONTEXT) -> Path:
    return write_pair(tmp_path, draft, context)


def by_code(client: Any, uri: str) -> dict[str, list[types.Diagnostic]]:
    out: dict[str, list[types.Diagnostic]] = {}
    for d in client.diagnostics.get(uri, []):
        out.setdefault(str(d.code), []).append(d)
    return out


async def hover_at(client: Any, uri: str, position: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))


async def resolved_actions(client: Any, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    return [await client.code_action_resolve_async(a) for a in actions or []]


def check_action(text: str, uri: str, diag: types.Diagnostic, action: types.CodeAction, version: int) -> str:
    """Apply ``action`` as the editor would and check it did what its title says; returns the new text."""
    new = apply_workspace_edit(text, uri, action.edit, version=version)
    if "\r\n" in text:  # the draft's line breaks are kept: no bare LF is added
        assert "\n" not in new.replace("\r\n", "")
    a, b = diag.data["sentence"]
    if action.title.startswith("Delete"):
        assert text[a:b] not in new
    elif action.title.startswith("Replace the sentence"):
        assert diag.data["quote"] in new and text[a:b] not in new
    elif action.title.startswith("Replace"):
        assert diag.data["context_value"] in new
    else:
        assert "faithlint-disable" in new and str(diag.code) in new and text[a:b] in new
    return new


# ---------------------------------------------------------------------------------------------- fast


@pytest.mark.asyncio
async def test_claim_diagnostics_ranges_data_hover_and_actions(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT) as client:
        uri = open_doc(client, draft, text=DRAFT)
        st = await wait_checked(client, uri, 1)
        found = by_code(client, uri)
        assert set(found) == {"FL110", "FL210"}, found  # the claim findings replace the sentences' FL100/FL200
        (fl110,), (fl210,) = found["FL110"], found["FL210"]
        # ranged over the claim's words (subject to object), in UTF-16 after emoji, CJK and CRLF lines
        assert fl110.range == utf16_range(DRAFT, CONTRADICTED)
        assert fl210.range == utf16_range(DRAFT, UNSUPPORTED)
        assert fl110.severity == types.DiagnosticSeverity.Error and fl210.severity == types.DiagnosticSeverity.Warning
        assert fl110.code_description.href.endswith("#fl110") and fl110.related_information
        # data: code-point offsets, the whole sentence for the fixes, the triplet and its parts
        a = DRAFT.index(CONTRADICTED)
        assert (fl110.data["start"], fl110.data["end"]) == (a, a + len(CONTRADICTED))
        assert fl110.data["sentence"] == [a, a + len(CONTRADICTED) + 1]  # the sentence ends with its full stop
        assert fl110.data["claim"] == {"subject": "A rooftop café", "predicate": "opened on",
                                       "object": "the xcontra floor",
                                       "text": "A rooftop café opened on the xcontra floor."}
        assert [DRAFT[x:y] for x, y in fl110.data["marks"]] == ["A rooftop café", "opened on", "the xcontra floor"]
        assert fl210.data["claim"]["text"] == "The project was funded by a xunsup bond."
        assert st["linters"][0]["unit"] == "claim" and st["linters"][0]["stats"]["claimsChecked"] >= 5
        assert st["linters"][0]["claims"]["extractor"] == "spacy"

        # hover on the claim's words: the claim first, then its sentence with all of its claims
        hover = await hover_at(client, uri, fl110.range.start)
        assert hover is not None and hover.range == fl110.range
        claim_part, sentence_part = hover.contents.value.split("\n\n---\n\n")
        assert claim_part.startswith("**faithlint**: claim contradicted (contradiction) · **FL110**")
        assert "subject “A rooftop café”" in claim_part and "P(contradiction) 0.85" in claim_part
        assert "Claims (2, its verdict is theirs):" in sentence_part
        assert "- ✗ contradicted — “A rooftop café opened on the xcontra floor.” (0.05) · **FL110**" in sentence_part
        assert "- ✓ supported — “A rooftop café was run by a local bakery.” (0.90)" in sentence_part
        # hover on the sentence outside any flagged claim: the sentence, its claims listed with verdicts
        after_full_stop = utf16(DRAFT, DRAFT.index(UNSUPPORTED) + len(UNSUPPORTED) + 1)
        hover = await hover_at(client, uri, after_full_stop)
        assert hover is not None and "---" not in hover.contents.value
        assert "? not supported — “The project was funded by a xunsup bond.” (0.10) · **FL210** · evidence: “" \
            in hover.contents.value
        assert "✓ supported — “The project cost $25 million.”" in hover.contents.value

        # every quick fix of a claim diagnostic resolves to an edit of the whole sentence (or a comment)
        for diag in (fl110, fl210):
            titles = []
            for action in await resolved_actions(client, uri, diag):
                titles.append(action.title)
                check_action(DRAFT, uri, diag, action, 1)
            assert any(t.startswith("Delete the sentence") for t in titles), titles
            assert any(t.startswith(f"Disable {diag.code} for this line") for t in titles), titles


@pytest.mark.asyncio
async def test_utf8_clients_get_byte_columns_for_claims(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    async with session(tmp_path, init=INIT, caps=capabilities(encodings=["utf-8"])) as client:
        uri = open_doc(client, draft, text=DRAFT)
        await wait_checked(client, uri, 1)
        (fl110,) = by_code(client, uri)["FL110"]
        line_start = DRAFT.rindex("\n", 0, DRAFT.index(CONTRADICTED)) + 1
        a = DRAFT.index(CONTRADICTED)
        assert fl110.range.start.character == len(DRAFT[line_start:a].encode("utf-8"))
        assert fl110.range.end.character == len(DRAFT[line_start:a + len(CONTRADICTED)].encode("utf-8"))


@pytest.mark.asyncio
async def test_changing_unit_and_claim_settings_rechecks(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    init = {k: v for k, v in INIT.items() if k != "unit"}
    async with session(tmp_path, init=init, client_settings={"unit": "sentence"}) as client:
        uri = open_doc(client, draft, text=DRAFT)
        await wait_checked(client, uri, 1)
        assert set(by_code(client, uri)) == {"FL100", "FL200"}
        hover = await hover_at(client, uri, utf16(DRAFT, DRAFT.index(CONTRADICTED)))
        assert hover is not None and "Claims" not in hover.contents.value

        await recheck_with(client, unit="claim")
        assert set(by_code(client, uri)) == {"FL110", "FL210"}
        # unit = both: the sentences are judged too; their FL100/FL200 give way to their claims' findings
        await recheck_with(client, unit="both")
        assert set(by_code(client, uri)) == {"FL110", "FL210"}
        hover = await hover_at(client, uri, utf16(DRAFT, DRAFT.index("The library has")))
        assert hover is not None and "judged besides the sentence" in hover.contents.value
        # with FL210 ignored, the unsupported sentence is reported by its own FL200 again
        await recheck_with(client, unit="claim", ignore=["FL210"])
        assert set(by_code(client, uri)) == {"FL110", "FL200"}
        # soft aggregation: one bad claim of two no longer flags its sentence, so no claim is reported
        await recheck_with(client, unit="claim", claimAggregation="soft")
        assert not {"FL110", "FL210"} & set(by_code(client, uri))
        # an invalid unit falls back to the lower layers (the default: sentences) and the user is told once
        await recheck_with(client, unit="claims")
        assert set(by_code(client, uri)) == {"FL100", "FL200"}
        assert any("unit" in m.message and "claims" in m.message for m in client.messages)


@pytest.mark.asyncio
async def test_a_claim_extractor_that_fails_is_reported_once_then_replaced(tmp_path: Path) -> None:
    draft = workspace(tmp_path)
    broken = {**INIT, "claimExtractor": "llm", "llmEndpoint": "http://127.0.0.1:9", "llmEndpointModel": "m"}
    async with session(tmp_path, init=broken) as client:
        uri = open_doc(client, draft, text=DRAFT)
        await wait_checked(client, uri, 1)
        (problem,) = client.diagnostics[uri]
        assert problem.code == "model" and "LLM endpoint http://127.0.0.1:9" in problem.message
        errors = [m.message for m in client.messages if "LLM endpoint" in m.message]
        assert len(errors) == 1 and (await status(client))["modelErrors"]
        await recheck_with(client, claimExtractor="spacy")  # the user fixes the setting: claims are checked
        assert set(by_code(client, uri)) == {"FL110", "FL210"} and not (await status(client))["modelErrors"]


async def recheck_with(client: Any, **settings: Any) -> None:
    """Change the workspace settings and wait for the re-check they cause to be delivered (published)."""
    before = (await status(client))["resultsDelivered"]
    client.set_configuration({"faithlint": settings})
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(1000):
        st = await status(client)
        if st["resultsDelivered"] > before and not st["pending"]:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no re-check after the settings {settings}")


# ---------------------------------------------------------------------------------------------- slow: real models

needs_model = pytest.mark.skipif(MODEL is None and not BUNDLED.exists(),
                                 reason="no bundled model; set FAITHLINT_TEST_MODEL=/path/to/model")
PROJECT_CLAIM = "The project cost $25 million"
CAFE = "A rooftop café run by a local bakery opened on the top floor"


def real_init(**extra: Any) -> dict[str, Any]:
    return {"debounce": 0, **({"model": MODEL} if MODEL else {}), **extra}


def copy_example(tmp_path: Path) -> Path:
    for name in ("answer.md", "answer.context.md"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    return tmp_path / "answer.md"


@pytest.mark.slow
@pytest.mark.asyncio
@needs_model
async def test_real_server_claims_on_the_rag_example(tmp_path: Path) -> None:
    """The planted "$25 million" (context: $12.5 million) is flagged as a claim, ranged on its words; the café
    sentence's two claims are unsupported; the supported sentences have no diagnostics; hovers list the claims;
    quick fixes work; switching ``unit`` back to sentences re-checks."""
    draft = copy_example(tmp_path)
    text = draft.read_text(encoding="utf-8")
    async with session(tmp_path, command=REAL_SERVER, init=real_init(unit="claim"), caps=capabilities()) as client:
        uri = open_doc(client, draft, text=text)
        st = await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        assert not st["modelErrors"], st["modelErrors"]
        diags = client.diagnostics[uri]
        # the planted claim: an FL110 (its amount conflicts with the context's)
        planted = [d for d in diags if d.code == "FL110" and d.range == utf16_range(text, PROJECT_CLAIM)]
        assert len(planted) == 1, [(d.code, d.range) for d in diags]
        assert planted[0].range == types.Range(start=types.Position(6, 0), end=types.Position(6, 28))
        assert planted[0].data["claim"]["text"] == "The project cost $25 million."
        project = text.index("The project cost")
        project_end = text.index("\n", project)
        cafe = text.index(CAFE)
        cafe_claims = [d for d in diags if d.code == "FL210" and d.data["sentence"][0] == cafe]
        assert {text[d.data["start"]:d.data["end"]] for d in cafe_claims} == {
            "A rooftop café run by a local bakery", CAFE}
        for d in diags:  # nothing on the supported sentences
            assert project <= d.data["start"] < project_end or cafe <= d.data["start"] < cafe + len(CAFE), d

        hover = await hover_at(client, uri, types.Position(6, 40))  # "... and was funded by": no flagged claim
        value = hover.contents.value
        assert "Claims (4, its verdict is theirs):" in value and "---" not in value
        contradicted = re.escape(f"✗ contradicted — “{PROJECT_CLAIM}.” (") + r"0\.0\d" + re.escape(  # its score
            f") · **{planted[0].code}** · evidence: “The project cost $12.5 million")
        assert re.search(contradicted, value), value
        assert "✓ supported — “The project was funded by a city bond.”" in value
        hover = await hover_at(client, uri, types.Position(6, 5))
        assert hover.range == planted[0].range and hover.contents.value.startswith(
            f"**faithlint**: claim contradicted (contradiction) · **{planted[0].code}**")

        titles = []
        for action in await resolved_actions(client, uri, planted[0]):
            titles.append(action.title)
            new = check_action(text, uri, planted[0], action, 1)
            if action.title.startswith("Replace the sentence"):
                assert "The project cost $12.5 million" in new
        assert any(t.startswith("Replace the sentence with the evidence") for t in titles), titles
        assert st["linters"][0]["stats"]["claimsChecked"] >= 13

        client.set_configuration({"faithlint": {"unit": "sentence"}})
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await wait_for(lambda: {str(d.code) for d in client.diagnostics[uri]} >= {"FL100", "FL200"}, LOAD_TIMEOUT)
        assert not {"FL110", "FL210"} & {str(d.code) for d in client.diagnostics[uri]}


@pytest.mark.slow
@pytest.mark.asyncio
@needs_model
async def test_real_server_claim_range_after_emoji_cjk_and_crlf(tmp_path: Path) -> None:
    copy_example(tmp_path)
    text = ("# Notes 🎉\r\n\r\nThe library 图书馆 reopened in 2024 🎉. "
            "The project cost $25 million and was funded by a city bond.\r\n")
    draft = tmp_path / "notes.md"
    draft.write_text(text, encoding="utf-8", newline="")
    (tmp_path / "notes.context.md").write_bytes((EXAMPLE / "answer.context.md").read_bytes())
    async with session(tmp_path, command=REAL_SERVER, init=real_init(unit="claim"), caps=capabilities()) as client:
        uri = open_doc(client, draft, text=text)
        await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        planted = [d for d in client.diagnostics[uri] if d.code == "FL110"
                   and d.data["claim"]["text"] == "The project cost $25 million."]
        assert len(planted) == 1
        # line 2; 36 code points but 37 UTF-16 units before it (the emoji is a surrogate pair)
        assert planted[0].range == utf16_range(text, PROJECT_CLAIM)
        assert planted[0].range == types.Range(start=types.Position(2, 37), end=types.Position(2, 65))
        hover = await hover_at(client, uri, types.Position(2, 40))
        assert hover is not None and hover.range == planted[0].range
