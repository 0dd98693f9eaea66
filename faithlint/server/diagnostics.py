"""Findings -> LSP diagnostics, delivered by push (publishDiagnostics) or pull (textDocument/diagnostic).

The client's capabilities decide: a client that can pull (``textDocument.diagnostic``) gets
pull diagnostics with result ids and, when a check finishes without a pending pull, a
``workspace/diagnostic/refresh``; every other client gets ``publishDiagnostics`` with the
document version. Never both, or editors show every finding twice.

Each diagnostic's ``data`` carries what code actions need without re-running anything: the
document version it was computed for, code-point offsets of the finding and its sentence,
FL400's value and the context's value, the best supporting evidence sentence and, for a claim
finding, the claim triplet. Claim findings are ordinary findings: ranged over the claim's words, with
``data.sentence`` still the whole sentence, so the sentence fixes apply to them unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from faithlint.fixes.edits import finding_data as core_finding_data
from faithlint.rules.registry import RULES
from faithlint.server.app import DocState, FaithlintServer
from faithlint.server.checking import Outcome
from faithlint.server.feature import Feature, Handler
from faithlint.server.text import DocumentIndex
from faithlint.types import Finding

log = logging.getLogger(__name__)

SOURCE = "faithlint"
PULL_WAIT_S = 30.0
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}


def finding_data(f: Finding, text: str, uri: str, version: int | None) -> dict[str, Any]:
    """What code actions and hovers need from a finding (:func:`faithlint.fixes.edits.finding_data`) and where."""
    return {"uri": uri, "version": version, **core_finding_data(f, text)}


class ContextIndexes:
    """Position indexes of context files, reused while their text is unchanged."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[str, DocumentIndex]] = {}
        self._uris: dict[Path, str] = {}  # every finding links its evidence file: a third of a publish's time

    def uri(self, path: Path) -> str:
        got = self._uris.get(path)
        if got is None:
            if len(self._uris) > 256:
                self._uris.clear()
            got = self._uris[path] = from_fs_path(str(path)) or path.as_uri()
        return got

    def get(self, source: str, text: str, codec: Any) -> DocumentIndex:
        hit = self._cache.get(source)
        if hit is None or hit[0] is not text and hit[0] != text:
            hit = (text, DocumentIndex(text, codec))
            self._cache[source] = hit
            if len(self._cache) > 256:
                self._cache.pop(next(iter(self._cache)))
        return hit[1]


def evidence_location(outcome: Outcome, source: str, start: int, end: int, codec: Any,
                      indexes: ContextIndexes) -> types.Location | None:
    path = outcome.context_files.get(source)
    if path is None:
        return None
    doc = outcome.context_docs.get(source)
    if doc is None:
        rng = types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    else:  # verbalised JSON/YAML/CSV: the range of the values the evidence was written from
        start, end = doc.to_source(start, end)
        rng = indexes.get(source, doc.source_text, codec).range(start, end)
    return types.Location(uri=indexes.uri(path), range=rng)


def build_diagnostics(state: DocState, codec: Any, indexes: ContextIndexes | None = None) -> list[types.Diagnostic]:
    """All diagnostics for the latest outcome of ``state`` (empty before the first check)."""
    outcome = state.outcome
    if outcome is None:
        return []
    indexes = indexes or ContextIndexes()
    snap = outcome.snapshot
    index = DocumentIndex(snap.text, codec)
    out: list[types.Diagnostic] = []
    first_line = index.range(0, index.lines.line_end(0))
    for p in outcome.problems:
        out.append(types.Diagnostic(range=first_line, message=p.message, severity=SEVERITY[p.severity],
                                    code=p.code, source=SOURCE,
                                    data={"uri": snap.uri, "version": snap.version, "code": p.code}))
    if outcome.result is None:
        return out
    for f in outcome.result.findings:
        rule = RULES.get(f.code)
        related = None
        if f.evidence is not None:
            loc = evidence_location(outcome, f.evidence.source, f.evidence.start, f.evidence.end, codec, indexes)
            if loc is not None:
                related = [types.DiagnosticRelatedInformation(location=loc, message=f"evidence in {f.evidence.source}")]
        out.append(types.Diagnostic(
            range=index.range(f.start, f.end),
            message=f.message,
            severity=SEVERITY.get(f.severity, types.DiagnosticSeverity.Warning),
            code=f.code,
            code_description=types.CodeDescription(href=rule.url) if rule else None,
            source=SOURCE,
            related_information=related,
            data=finding_data(f, snap.text, snap.uri, snap.version),
        ))
    return out


# ---------------------------------------------------------------------------------------------- the feature

class Diagnostics(Feature):
    """Push (publishDiagnostics) or pull (textDocument/diagnostic) diagnostics, as the client's capabilities say."""

    def __init__(self, server: FaithlintServer) -> None:
        super().__init__(server)
        self.indexes = ContextIndexes()  # context files' position indexes, for evidence locations

    def handlers(self) -> list[Handler]:
        return [Handler(types.TEXT_DOCUMENT_DIAGNOSTIC, self.pull, types.DiagnosticOptions(
            identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False))]

    def uses_pull(self) -> bool:
        caps = self.server.client_capabilities
        return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)

    def _refresh_supported(self) -> bool:
        caps = self.server.client_capabilities
        ws = caps.workspace if caps else None
        return bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)

    # -- events -------------------------------------------------------------------------------------

    def shows_partial_results(self) -> bool:
        return not self.uses_pull()  # push clients see early findings; a pull waits for the whole check

    def on_result(self, state: DocState) -> None:
        ls = self.server
        state.diagnostics = build_diagnostics(state, ls.workspace.position_codec, self.indexes)
        if self.uses_pull():
            if not state.waiters and self._refresh_supported():
                ls.workspace_diagnostic_refresh(None)
            return
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=state.uri, diagnostics=state.diagnostics, version=state.checked_version))

    def on_closed(self, uri: str) -> None:
        if not self.uses_pull():
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- handler ------------------------------------------------------------------------------------

    async def pull(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        ls = self.server
        uri = params.text_document.uri
        state = ls.docs.get(uri)
        doc = ls.text_document(uri)
        if state is None or doc is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[], result_id=None)
        if ls.scheduler.busy(uri) or state.checked_version != doc.version:
            if not ls.scheduler.busy(uri):
                ls.schedule(uri, 0)
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            state.waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, PULL_WAIT_S)
            except asyncio.TimeoutError:
                log.info("pull for %s answered before its check finished", uri)
        if params.previous_result_id and params.previous_result_id == state.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=state.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=state.diagnostics, result_id=state.result_id or None)
