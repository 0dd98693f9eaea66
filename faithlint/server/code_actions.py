"""Quick fixes for faithlint diagnostics: the core's correctors (:mod:`faithlint.fixes.edits`) as LSP code actions.

Correctors are pluggable so later fixers (RAC-style rewriting, FOD-style deletion of unsupported
facts, ...) can register without touching this module::

    server.get_feature(CodeActions).correctors.register(MyCorrector())

A corrector proposes fixes for one diagnostic from its ``data`` alone (no model runs while the
lightbulb menu opens) and computes the edit only when the client resolves the chosen action
(``codeAction/resolve``; eagerly for clients without resolve support). Edits are code-point
spans on the document version the diagnostic was computed for, sent as a versioned
``WorkspaceEdit`` (``documentChanges`` with the version) so the editor refuses to apply them to
a newer text; the server itself refuses to propose or resolve actions for a stale version.
The same correctors serve ``faithlint check --fix``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from faithlint.fixes.edits import CorrectorRegistry, Edit, FixData, FixTarget, builtin_correctors
from faithlint.server.app import FaithlintServer
from faithlint.server.diagnostics import SOURCE
from faithlint.server.feature import Feature, Handler
from faithlint.server.text import DocumentIndex


@dataclass
class ActionContext(FixTarget):
    """One diagnostic of one document version: the corrector's target plus where it lives."""

    uri: str = ""
    version: int | None = None
    index: DocumentIndex | None = None


# ---------------------------------------------------------------------------------------------- the feature

class CodeActions(Feature):
    """Quick fixes (textDocument/codeAction) and their edits (codeAction/resolve) from the correctors."""

    def __init__(self, server: FaithlintServer) -> None:
        super().__init__(server)
        # more actions per diagnostic from other features (the model correctors' commands and ready results):
        # each gets the diagnostic and its ActionContext (current version only) and returns finished actions
        self.sources: list[Callable[[types.Diagnostic, ActionContext], list[types.CodeAction]]] = []

    @cached_property
    def correctors(self) -> CorrectorRegistry:
        """The quick fixes, the rules' own then suppression comments: register more with ``.register(...)``. Built
        on first use, from the rules then registered (plugins too), not when the server starts."""
        return builtin_correctors()

    def handlers(self) -> list[Handler]:
        return [
            Handler(types.TEXT_DOCUMENT_CODE_ACTION, self.code_action, types.CodeActionOptions(
                code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=True)),
            Handler(types.CODE_ACTION_RESOLVE, self.resolve),
        ]

    def _supports_resolve(self) -> bool:
        caps = self.server.client_capabilities
        ca = caps.text_document.code_action if caps.text_document else None
        return bool(ca and ca.resolve_support and "edit" in (ca.resolve_support.properties or []))

    def _versioned(self) -> bool:
        ws = self.server.client_capabilities.workspace
        return bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)

    def workspace_edit(self, ctx: ActionContext, edits: list[Edit]) -> types.WorkspaceEdit:
        index = ctx.index or DocumentIndex(ctx.text, self.server.workspace.position_codec)
        text_edits = [types.TextEdit(range=index.range(e.start, e.end), new_text=e.new_text) for e in edits]
        if self._versioned():
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=ctx.uri, version=ctx.version),
                edits=text_edits)])
        return types.WorkspaceEdit(changes={ctx.uri: text_edits})

    def _context(self, uri: str, data: Any) -> ActionContext | None:
        """An ActionContext for the diagnostic ``data`` if it is for the current version of an open draft."""
        doc = self.server.text_document(uri)
        if doc is None or not isinstance(data, dict) or data.get("uri") != uri or data.get("version") != doc.version:
            return None
        return ActionContext(doc.source, cast(FixData, dict(data)), uri=uri, version=doc.version,
                             index=DocumentIndex(doc.source, self.server.workspace.position_codec))

    # -- handlers -----------------------------------------------------------------------------------

    def code_action(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        if self.server.text_document(uri) is None:
            return None
        only = params.context.only
        if only and not any(types.CodeActionKind.QuickFix.startswith(k) for k in only):
            return []
        actions: list[types.CodeAction] = []
        resolve = self._supports_resolve()
        for diag in params.context.diagnostics:
            if diag.source != SOURCE:
                continue
            ctx = self._context(uri, diag.data)
            if ctx is None:
                continue
            for provider in self.correctors:
                for p in provider.propose(ctx):
                    action = types.CodeAction(
                        title=p.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                        is_preferred=p.preferred or None,
                        data={"provider": provider.id, "uri": uri, "version": ctx.version, "args": p.args,
                              "diagnostic": diag.data})
                    if not resolve:
                        action.edit = self.workspace_edit(ctx, provider.edits(ctx, p.args))
                    actions.append(action)
            for source in self.sources:  # after the cheap fixes: the model runs (and their results) come last
                actions += source(diag, ctx)
        return actions

    def resolve(self, action: types.CodeAction) -> types.CodeAction:
        if action.data is None and (action.command is not None or action.edit is not None):
            return action  # complete (a model run's command, a ready result); editors resolve what lacks an edit
        data = action.data if isinstance(action.data, dict) else {}
        provider = self.correctors.get(str(data.get("provider")))
        uri = str(data.get("uri", ""))
        if provider is None:
            raise JsonRpcInvalidParams(f"unknown faithlint code action {data.get('provider')!r}")
        doc = self.server.text_document(uri)
        if doc is None:
            raise JsonRpcInvalidParams(f"{uri} is not open")
        if data.get("version") != doc.version:
            raise JsonRpcContentModified(f"the document changed (version {doc.version}, action for version "
                                         f"{data.get('version')}); wait for faithlint to re-check it")
        ctx = self._context(uri, data.get("diagnostic"))
        if ctx is None:
            raise JsonRpcContentModified("the diagnostic is out of date; wait for faithlint to re-check the draft")
        action.edit = self.workspace_edit(ctx, provider.edits(ctx, data.get("args") or {}))
        return action
