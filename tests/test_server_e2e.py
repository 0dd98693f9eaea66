"""End-to-end: ``python -m faithlint serve`` with real models, driven over stdio by pytest-lsp.

Slow (models load on the CPU): run with ``pytest -m slow tests/test_server_e2e.py``. The model is
the bundled default unless ``FAITHLINT_TEST_MODEL`` names another (e.g. a small local export).
Labels of an untrained model are meaningless, so these tests check mechanics, not verdicts.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types

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
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rag-answer"
MODEL = os.environ.get("FAITHLINT_TEST_MODEL") or None
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio,
    pytest.mark.skipif(MODEL is None and not BUNDLED.exists(),
                       reason="no bundled model yet; set FAITHLINT_TEST_MODEL=/path/to/model"),
]
LOAD_TIMEOUT = 300.0


def init(**extra: object) -> dict[str, object]:
    return {"debounce": 0, **({"model": MODEL} if MODEL else {}), **extra}


def copy_example(tmp_path: Path) -> Path:
    for name in ("answer.md", "answer.context.md"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    return tmp_path / "answer.md"


async def test_push_session_diagnostics_incremental_hover_actions_context(tmp_path: Path) -> None:
    draft = copy_example(tmp_path)
    (tmp_path / "bad.md").write_text("The library has a cafe.\n")
    (tmp_path / "bad.context.txt").write_bytes(b"\x00\x01\x02 binary")
    async with session(tmp_path, command=REAL_SERVER, init=init(), caps=capabilities(watch=True)) as client:
        uri = open_doc(client, draft)
        st = await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        assert not st["modelErrors"], st["modelErrors"]
        # `python -m faithlint serve` loads the default models as it starts; a check with them takes them
        assert st["modelsPreloaded"] is (MODEL is None)
        diags = await wait_for(lambda: client.diagnostics.get(uri), LOAD_TIMEOUT)
        assert all(d.source == "faithlint" and str(d.code).startswith("FL") for d in diags)
        reports = [r.kind for rs in client.progress_reports.values() for r in rs]
        assert reports[:1] == ["begin"] and reports[-1:] == ["end"]
        first = st["linters"][0]["stats"]
        assert st["linters"][0]["runtime"] in {"openvino", "onnx", "torch"}
        assert st["linters"][0]["precision"] in {"fp32", "bf16", "int8"}

        # edit one sentence: only its pairs are scored again
        text = draft.read_text()
        a = text.index("rooftop café")
        text = replace(client, uri, text, a, a + len("rooftop café"), "rooftop garden", 2)
        st = await wait_checked(client, uri, 2, LOAD_TIMEOUT, interval=0.1)
        last = st["linters"][0]["stats"]["last"]
        assert 1 <= last["scored"] <= 4 < last["pairs"] and last["pairs"] == first["last"]["pairs"]
        stages = st["lastCheckMs"]  # where the edit's time went, for bench/lsp_latency.py
        assert {"prepare", "parse", "split", "evidence", "checker", "rules", "results", "diagnostics",
                "total"} <= set(stages), stages
        assert all(v >= 0 for v in stages.values()) and stages["checker"] > 0
        assert sum(v for k, v in stages.items() if k != "total") <= stages["total"] + 5

        # hover on any sentence shows probabilities and the 1-5 score
        lines = text.split("\n")
        line = next(i for i, s in enumerate(lines) if s.startswith("The project cost"))
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=5)))
        assert hover is not None and "P(entailment)" in hover.contents.value and "/5" in hover.contents.value
        assert "grounding: checker P(entailment)" in hover.contents.value  # the bundled model's grounding ran

        # every code action resolves to an edit that changes the text as its title says
        diags = await wait_for(lambda: [d for d in client.diagnostics.get(uri, []) if d.data["version"] == 2])
        for diag in diags:
            actions = await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag])))
            for action in actions or []:
                action = await client.code_action_resolve_async(action)
                new = apply_workspace_edit(text, uri, action.edit, version=2)
                a, b = diag.data["sentence"]
                if action.title.startswith("Delete"):
                    assert text[a:b] not in new
                elif action.title.startswith("Replace the sentence"):
                    assert diag.data["quote"] in new
                elif action.title.startswith("Replace"):
                    assert diag.data["context_value"] in new
                else:
                    assert "faithlint-disable" in new and str(diag.code) in new

        # a changed context file re-checks the draft (prepending shifts every window, so pairs are re-scored)
        before = st["checksRun"]
        ctx = tmp_path / "answer.context.md"
        ctx.write_text("A rooftop garden opened on the top floor of the library.\n\n" + ctx.read_text())
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=ctx.as_uri(), type=types.FileChangeType.Changed)]))
        st = await wait_for_async(client, lambda s: s["checksRun"] > before)
        assert st["linters"][0]["stats"]["last"]["scored"] > 0

        # bad inputs: binary context, unknown uri
        bad = open_doc(client, tmp_path / "bad.md")
        bad_diags = await wait_for(lambda: client.diagnostics.get(bad), 60)
        assert [d.code for d in bad_diags] == ["context"] and "binary" in bad_diags[0].message
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=(tmp_path / "nope.md").as_uri()),
            position=types.Position(line=0, character=0)))
        assert hover is None


async def wait_for_async(client, pred):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 120
    while True:
        st = await status(client)
        if pred(st):
            return st
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)


async def test_pull_session(tmp_path: Path) -> None:
    draft = copy_example(tmp_path)
    async with session(tmp_path, command=REAL_SERVER, init=init(), caps=capabilities(pull=True)) as client:
        uri = open_doc(client, draft)
        await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert report.kind == "full" and report.result_id and report.items
        again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
        assert again.kind == "unchanged"
        assert uri not in client.diagnostics


async def test_monitor_session_narrows_diagnostics_and_hovers_the_drivers(tmp_path: Path) -> None:
    """The real server with ``monitor: on``: the surrogate LM loads with the models, sentence diagnostics
    narrow to the words the context did not raise (the whole sentence stays in ``data``), the hover shows
    the monitor's probability and drivers, and an edit re-reads only the edited sentence."""
    draft = copy_example(tmp_path)
    async with session(tmp_path, command=REAL_SERVER, init=init(monitor="on"), caps=capabilities()) as client:
        uri = open_doc(client, draft)
        st = await wait_checked(client, uri, 1, LOAD_TIMEOUT, interval=0.1)
        assert not st["modelErrors"], st["modelErrors"]
        diags = await wait_for(lambda: client.diagnostics.get(uri), LOAD_TIMEOUT)
        text = draft.read_text()
        sentence_diags = [d for d in diags if d.code in ("FL100", "FL200")]
        assert {d.code for d in sentence_diags} == {"FL100", "FL200"}  # the planted contradiction and café
        for d in sentence_diags:
            a, b = d.data["sentence"]
            assert a <= d.data["start"] < d.data["end"] <= b and (d.data["start"], d.data["end"]) != (a, b)

        lines = text.split("\n")
        line = next(i for i, s in enumerate(lines) if s.startswith("The project cost"))
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=5)))
        assert hover is not None and "Monitor (lr): P(faithful)" in hover.contents.value

        read = st["linters"][0]["monitor"]["sentencesRead"]
        assert read >= len(sentence_diags)
        a = text.index("rooftop café")
        replace(client, uri, text, a, a + len("rooftop café"), "rooftop garden", 2)
        st = await wait_checked(client, uri, 2, LOAD_TIMEOUT, interval=0.1)
        assert st["linters"][0]["stats"]["last"]["scored"] <= 4
        assert st["linters"][0]["monitor"]["sentencesRead"] == read + 1  # only the edited sentence
