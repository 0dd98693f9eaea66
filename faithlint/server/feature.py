"""The shape of a server feature: one object per LSP feature, its handlers methods, wired once by the server.

A feature lists what it answers -- :meth:`Feature.handlers` (LSP methods with their options) and
:meth:`Feature.commands` (``workspace/executeCommand`` names) -- and
:meth:`~faithlint.server.app.FaithlintServer.add_feature` registers each with pygls once, so every
handler runs under pygls' dispatch and its error path (``report_server_error``, with
:class:`~faithlint.server.rpc.RobustProtocol` underneath). State that belongs to one feature lives on
its object; what several features read (the open drafts, settings, the scheduler) lives on the server.

The ``on_*`` methods are events the server sends every feature, in registration order; the defaults
do nothing, so a feature overrides only the ones it cares about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faithlint.server.app import DocState, FaithlintServer


@dataclass(frozen=True)
class Handler:
    """One LSP method a feature answers; ``options`` are what the initialize result advertises for it."""

    method: str
    function: Callable[..., Any]
    options: Any = None


@dataclass(frozen=True)
class Command:
    """One ``workspace/executeCommand`` command; ``function`` gets the command's arguments as ``*args``."""

    name: str
    function: Callable[..., Any]


class Feature:
    """One LSP feature of the faithlint server."""

    def __init__(self, server: FaithlintServer) -> None:
        self.server = server

    def handlers(self) -> Iterable[Handler]:
        return ()

    def commands(self) -> Iterable[Command]:
        return ()

    # -- events (sent to every feature) -----------------------------------------------------------------

    def on_initialized(self) -> None:
        """The client sent ``initialized`` (before the settings are fetched and the worker starts)."""

    def on_result(self, state: DocState) -> None:
        """A check's findings (the first sentences' early, or the whole draft's) became ``state``'s latest."""

    def on_checked(self, state: DocState) -> None:
        """A whole check of ``state`` was delivered (after :meth:`on_result`)."""

    def on_changed(self, uri: str) -> None:
        """The user edited the draft ``uri`` (``didChange``; the new version is the open document's)."""

    def on_closed(self, uri: str) -> None:
        """The draft ``uri`` was closed."""

    def on_shutdown(self) -> None:
        """The client asked the server to shut down (the worker has been stopped)."""

    def shows_partial_results(self) -> bool:
        """Does this feature show the client early (partial) results of a freshly opened draft?"""
        return False
