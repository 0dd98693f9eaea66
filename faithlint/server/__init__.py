"""faithlint's language server (``faithlint serve``): diagnostics, hovers and quick fixes in the editor.

Organised by LSP feature, one object each (:class:`~faithlint.server.feature.Feature`), in its own
module: :class:`~.documents.DocumentSync` (lifecycle, settings, sync), :class:`~.diagnostics.Diagnostics`
(push/pull), :class:`~.hover.Hover`, :class:`~.code_actions.CodeActions` (pluggable quick fixes),
:class:`~.commands.Commands`, :class:`~.corrections.Corrections` (RAC/FOD: ``faithlint.correct``, its
actions, progress and results) and :class:`~.watching.FileWatching` (context/config files). The server
(:mod:`.app`) holds the state they share and wires each feature's handlers once; :mod:`.checking` runs
the checks (debounced scheduler, one worker thread) and :mod:`.settings` documents the settings precedence.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from faithlint.errors import FaithlintError
from faithlint.server.app import FaithlintServer

__all__ = ["FaithlintServer", "create_server", "serve"]


def create_server(linter_factory: Callable[[Any], Any] | None = None,
                  corrector_factory: Callable[[str, Any], Any] | None = None) -> FaithlintServer:
    """A server with every feature registered (``linter_factory`` and ``corrector_factory``, which makes the
    :class:`~faithlint.fixes.correctors.base.SentenceCorrector` of a
    method for a linter, let tests run without models)."""
    from faithlint.server.code_actions import CodeActions
    from faithlint.server.commands import Commands
    from faithlint.server.corrections import Corrections
    from faithlint.server.diagnostics import Diagnostics
    from faithlint.server.documents import DocumentSync
    from faithlint.server.hover import Hover
    from faithlint.server.watching import FileWatching

    ls = FaithlintServer(linter_factory=linter_factory)
    # the order events reach the features in: diagnostics are cleared before the watched files are updated
    for feature in (DocumentSync, Diagnostics, Hover, CodeActions, Commands):
        ls.add_feature(feature(ls))
    ls.add_feature(Corrections(ls, corrector_factory))  # extends CodeActions and Hover
    ls.add_feature(FileWatching(ls))
    return ls


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087, *, pipe: str | None = None,
          socket: int | None = None, client_process_id: int | None = None) -> None:
    """Run the server on stdio (default), on a pipe or socket the client listens on (``pipe``, ``socket``: the
    server connects to it), or listening on TCP (``tcp``); logs go to stderr, never to the protocol stream.
    With ``client_process_id`` it exits when that process (the editor) ends."""
    from faithlint.server import transports

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="faithlint-lsp %(levelname)s %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    ls = create_server()
    if client_process_id is not None:
        try:
            transports.watch_client_process(client_process_id)
        except FaithlintError:
            ls.shutdown()  # waits for the models `faithlint serve` began loading: no exit inside native code
            raise
    if pipe is not None:
        transports.start_connected(ls, transports.open_pipe(pipe), pipe)
    elif socket is not None:
        transports.start_connected(ls, transports.open_socket(host, socket), f"{host}:{socket}")
    elif tcp:
        ls.start_tcp(host, port)
    else:
        ls.start_io()
