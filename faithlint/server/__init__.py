"""faithlint's language server (``faithlint serve``): diagnostics, hovers and quick fixes in the editor.

Organised by LSP feature, one module each: :mod:`.documents` (lifecycle, settings, sync),
:mod:`.checking` (debounced scheduler, one worker thread), :mod:`.diagnostics` (push/pull),
:mod:`.hover`, :mod:`.code_actions` (pluggable quick fixes), :mod:`.commands` and
:mod:`.watching` (context/config files). :mod:`.settings` documents the settings precedence.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from faithlint.server.app import FaithlintServer

__all__ = ["FaithlintServer", "create_server", "serve"]


def create_server(linter_factory: Callable[[Any], Any] | None = None) -> FaithlintServer:
    """A server with every feature registered (``linter_factory`` lets tests run without models)."""
    from faithlint.server import code_actions, commands, diagnostics, documents, hover, watching

    ls = FaithlintServer(linter_factory=linter_factory)
    documents.register(ls)
    diagnostics.register(ls)
    hover.register(ls)
    code_actions.register(ls)
    commands.register(ls)
    watching.register(ls)
    return ls


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> None:
    """Run the server on stdio (default) or TCP; logs go to stderr, never to the protocol stream."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="faithlint-lsp %(levelname)s %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    ls = create_server()
    if tcp:
        ls.start_tcp(host, port)
    else:
        ls.start_io()
