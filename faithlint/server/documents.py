"""Lifecycle, settings and document synchronisation: what turns editor events into scheduled checks.

(The protocol underneath applies incremental changes on LSP lines: :class:`~faithlint.server.rpc.FaithlintProtocol`.)
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from faithlint.inputs.discovery import DRAFT_SUFFIXES
from faithlint.inputs.pairing import is_context_file
from faithlint.server.app import DocState
from faithlint.server.checking import SHUTDOWN_WAIT_S
from faithlint.server.feature import Feature, Handler
from faithlint.server.settings import SECTION

log = logging.getLogger(__name__)

DRAFT_LANGUAGES = ("markdown", "plaintext", "mdx", "text")
CONFIG_TIMEOUT_S = 5.0


def is_draft(path: Path | None, language_id: str | None) -> bool:
    """Drafts are Markdown/plain text that is not itself a context file."""
    if path is not None:
        if is_context_file(path):
            return False
        if path.suffix.lower() in DRAFT_SUFFIXES:
            return True
    return (language_id or "").lower() in DRAFT_LANGUAGES


class DocumentSync(Feature):
    """Lifecycle (initialize, initialized, shutdown), settings (didChangeConfiguration) and open/change/close.

    It sends the other features their lifecycle events (``on_initialized``, ``on_changed``, ``on_closed``,
    ``on_shutdown``).
    """

    def handlers(self) -> list[Handler]:
        return [
            Handler(types.INITIALIZE, self.initialize),
            Handler(types.INITIALIZED, self.initialized),
            Handler(types.WORKSPACE_DID_CHANGE_CONFIGURATION, self.did_change_configuration),
            Handler(types.SHUTDOWN, self.shutdown),
            Handler(types.TEXT_DOCUMENT_DID_OPEN, self.did_open),
            Handler(types.TEXT_DOCUMENT_DID_CHANGE, self.did_change),
            Handler(types.TEXT_DOCUMENT_DID_CLOSE, self.did_close),
        ]

    # -- settings -----------------------------------------------------------------------------------

    def apply_server_options(self) -> None:
        ls = self.server
        opts, messages = ls.settings.server_options()
        ls.debounce_ms = opts.debounce_ms
        for m in messages:
            ls.show_once(m, types.MessageType.Warning)

    async def fetch_configuration(self) -> bool:
        """Pull the ``faithlint`` section with workspace/configuration; False when the client cannot."""
        ls = self.server
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
        self.apply_server_options()
        return True

    def recheck_all(self) -> None:
        for uri in list(self.server.docs):
            self.server.schedule(uri)

    def preload(self) -> None:
        """Load the models for the workspace's settings in the worker, before any check."""
        ls = self.server

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

    # -- handlers -----------------------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        ls = self.server
        ls.loop = asyncio.get_running_loop()
        ls.settings.set_init_options(params.initialization_options)
        self.apply_server_options()

    async def initialized(self, params: types.InitializedParams) -> None:
        ls = self.server
        ws = ls.client_capabilities.workspace
        if ws and ws.did_change_configuration and ws.did_change_configuration.dynamic_registration:
            ls.spawn(ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id="faithlint-configuration", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                                   register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION))
            ])))
        for feature in ls.features:
            feature.on_initialized()
        # settings first, so the models for the user's `model` setting are the ones loaded
        await self.fetch_configuration()
        self.preload()
        ls.scheduler.start()

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        ls = self.server
        if not await self.fetch_configuration():
            settings: Any = params.settings
            if isinstance(settings, dict) and (SECTION in settings or not settings):
                ls.settings.set_client(settings.get(SECTION))
                self.apply_server_options()
        ls.settings.invalidate_files()
        ls.models.errors.clear()
        self.recheck_all()

    def shutdown(self, *args: Any) -> None:
        self.server.scheduler.stop(wait=SHUTDOWN_WAIT_S)
        for feature in self.server.features:
            feature.on_shutdown()

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        ls = self.server
        item = params.text_document
        path = ls.doc_path(item.uri)
        if not is_draft(path, item.language_id):
            return
        ls.docs[item.uri] = DocState(uri=item.uri, path=path, language_id=item.language_id)
        ls.schedule(item.uri, 0)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in self.server.docs:
            self.server.schedule(uri)
            for feature in self.server.features:
                feature.on_changed(uri)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        ls = self.server
        uri = params.text_document.uri
        ls.scheduler.cancel(uri)
        state = ls.docs.pop(uri, None)
        if state is not None:
            for w in state.waiters:
                if not w.done():
                    w.set_result(None)
            for feature in ls.features:
                feature.on_closed(uri)
