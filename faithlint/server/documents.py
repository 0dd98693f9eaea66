"""Lifecycle, settings and document synchronisation: what turns editor events into scheduled checks."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from faithlint.pairing import is_context_file
from faithlint.server.app import DocState, FaithlintServer
from faithlint.server.settings import SECTION

log = logging.getLogger(__name__)

DRAFT_LANGUAGES = ("markdown", "plaintext", "mdx", "text")
DRAFT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt")
CONFIG_TIMEOUT_S = 5.0


def is_draft(path: Path | None, language_id: str | None) -> bool:
    """Drafts are Markdown/plain text that is not itself a context file."""
    if path is not None:
        if is_context_file(path):
            return False
        if path.suffix.lower() in DRAFT_SUFFIXES:
            return True
    return (language_id or "").lower() in DRAFT_LANGUAGES


def _apply_server_options(ls: FaithlintServer) -> None:
    opts, messages = ls.settings.server_options()
    ls.debounce_ms = opts.debounce_ms
    for m in messages:
        ls.show_once(m, types.MessageType.Warning)


async def fetch_configuration(ls: FaithlintServer) -> bool:
    """Pull the ``faithlint`` section with workspace/configuration; False when the client cannot."""
    ws = ls.client_capabilities.workspace
    if not (ws and ws.configuration):
        return False
    try:
        result = await asyncio.wait_for(ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section=SECTION)])), CONFIG_TIMEOUT_S)
    except Exception as exc:  # timeouts, clients answering with an error: keep the other layers
        log.warning("workspace/configuration failed: %s", exc)
        return False
    ls.settings.set_client(result[0] if result else None)
    _apply_server_options(ls)
    return True


def recheck_all(ls: FaithlintServer) -> None:
    for uri in list(ls.docs):
        ls.schedule(uri)


def preload(ls: FaithlintServer) -> None:
    """Load the models for the workspace's settings in the worker, before any check."""

    def task() -> None:
        root = ls.workspace.root_path if ls.protocol._workspace is not None else None
        resolved = ls.settings.resolve(Path(root) / "_" if root else None)
        for m in resolved.messages:
            ls.call_soon(ls.show_once, m, types.MessageType.Warning)
        try:
            ls.models.linter_for(resolved.config)
        except Exception as exc:  # reported to the user by Models; checks will show it per document
            log.warning("model loading failed: %s", exc)

    ls.scheduler.submit(task)


def register(ls: FaithlintServer) -> None:
    @ls.feature(types.INITIALIZE)
    def initialize(ls: FaithlintServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.settings.set_init_options(params.initialization_options)
        _apply_server_options(ls)

    @ls.feature(types.INITIALIZED)
    async def initialized(ls: FaithlintServer, params: types.InitializedParams) -> None:
        ws = ls.client_capabilities.workspace
        if ws and ws.did_change_configuration and ws.did_change_configuration.dynamic_registration:
            ls.spawn(ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id="faithlint-configuration", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                                   register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION))
            ])))
        ls.watcher.start()
        # settings first, so the models for the user's `model` setting are the ones loaded
        await fetch_configuration(ls)
        preload(ls)
        ls.scheduler.start()

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: FaithlintServer, params: types.DidChangeConfigurationParams) -> None:
        if not await fetch_configuration(ls):
            settings: Any = params.settings
            if isinstance(settings, dict) and (SECTION in settings or not settings):
                ls.settings.set_client(settings.get(SECTION))
                _apply_server_options(ls)
        ls.settings.invalidate_files()
        ls.models.errors.clear()
        recheck_all(ls)

    @ls.feature(types.SHUTDOWN)
    def shutdown(ls: FaithlintServer, *args: Any) -> None:
        ls.scheduler.stop()
        if ls.watcher is not None:
            ls.watcher.stop()

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FaithlintServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = ls.doc_path(item.uri)
        if not is_draft(path, item.language_id):
            return
        ls.docs[item.uri] = DocState(uri=item.uri, path=path, language_id=item.language_id)
        ls.schedule(item.uri, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FaithlintServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.docs:
            ls.schedule(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FaithlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.scheduler.cancel(uri)
        state = ls.docs.pop(uri, None)
        if state is not None:
            for w in state.waiters:
                if not w.done():
                    w.set_result(None)
            ls.clear_diagnostics(uri)
            if ls.watcher is not None:
                ls.watcher.update()
