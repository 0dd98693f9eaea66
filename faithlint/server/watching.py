"""Re-check drafts when their context or configuration changes on disk.

Clients that can watch files for us (``workspace.didChangeWatchedFiles.dynamicRegistration``)
get watchers registered dynamically: fixed globs for the pairing conventions and config files,
plus the context files that front matter or ``[[pair]]`` rules point at (re-registered when that
set changes). Other clients get a watchdog observer on the folders that matter. Either way
events end up in :meth:`FileWatching.changed`, which re-checks every open draft whose pairing reads
the file, could newly pair with it (a sibling appearing or disappearing), or -- for config
files -- every draft.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from faithlint.inputs.pairing import SIBLING_FILE_SUFFIXES, context_candidates
from faithlint.server.app import DocState, FaithlintServer
from faithlint.server.feature import Feature, Handler

log = logging.getLogger(__name__)

CONFIG_NAMES = ("faithlint.toml", "pyproject.toml")
STATIC_GLOBS = (*(f"**/*{s}" for s in SIBLING_FILE_SUFFIXES), "**/*.context/**", "**/*.sources/**",
                "**/faithlint.toml", "**/pyproject.toml")
STATIC_ID = "faithlint-watch-static"
DYNAMIC_ID = "faithlint-watch-context"


def _abs(path: Path | str) -> Path:
    p = Path(path)
    try:
        return p.resolve()
    except OSError:
        return p.absolute()


def _covered_by_static(path: Path) -> bool:
    """Would the static globs already report changes of ``path``?"""
    if "context" in path.name.split(".")[1:] or path.name in CONFIG_NAMES:
        return True
    return any(part.endswith((".context", ".sources")) for part in path.parts[:-1])


class FileWatching(Feature):
    """Owns the file watching strategy (chosen in ``initialized``) and workspace/didChangeWatchedFiles."""

    def __init__(self, server: FaithlintServer) -> None:
        super().__init__(server)
        self.mode = "none"
        self.observer: Any = None
        self._watches: dict[tuple[str, bool], Any] = {}
        self._registered: frozenset[str] = frozenset()
        self.events = 0

    def handlers(self) -> list[Handler]:
        return [Handler(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, self.did_change_watched_files)]

    # -- events -------------------------------------------------------------------------------------

    def on_initialized(self) -> None:
        self.start()

    def on_checked(self, state: DocState) -> None:
        self.update(state)

    def on_closed(self, uri: str) -> None:
        self.update()

    def on_shutdown(self) -> None:
        self.stop()

    # -- setup --------------------------------------------------------------------------------------

    def _client_watches(self) -> bool:
        ws = self.server.client_capabilities.workspace
        return bool(ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration)

    def _relative_patterns(self) -> bool:
        ws = self.server.client_capabilities.workspace
        return bool(ws and ws.did_change_watched_files and ws.did_change_watched_files.relative_pattern_support)

    def start(self) -> None:
        if self._client_watches():
            self.mode = "client"
            watchers = [types.FileSystemWatcher(glob_pattern=g) for g in STATIC_GLOBS]
            self.server.spawn(self._register(STATIC_ID, watchers))
            return
        try:
            from watchdog.observers import Observer
        except ImportError:
            log.info("no file watching: the client cannot watch files and watchdog is not installed")
            return
        self.mode = "watchdog"
        self.observer = Observer()
        self.observer.daemon = True
        self.observer.start()

    def stop(self) -> None:
        if self.observer is not None:
            try:
                self.observer.stop()
            except Exception:  # shutting down anyway
                log.debug("stopping the observer failed", exc_info=True)

    async def _register(self, reg_id: str, watchers: list[types.FileSystemWatcher]) -> None:
        try:
            await self.server.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id=reg_id, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))
            ]))
        except Exception as exc:
            log.warning("could not register file watchers: %s", exc)

    async def _reregister(self, watchers: list[types.FileSystemWatcher]) -> None:
        try:
            await self.server.client_unregister_capability_async(types.UnregistrationParams(unregisterations=[
                types.Unregistration(id=DYNAMIC_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES)]))
        except Exception:  # nothing registered yet
            log.debug("unregister %s failed", DYNAMIC_ID, exc_info=True)
        if watchers:
            await self._register(DYNAMIC_ID, watchers)

    # -- what to watch ------------------------------------------------------------------------------

    def update(self, _state: DocState | None = None) -> None:
        """Bring the watched set in line with the open drafts' latest pairings (after each check)."""
        if self.mode == "client":
            paths = set()
            for st in self.server.docs.values():
                if st.outcome is None:
                    continue
                for p in [*st.outcome.context_files.values(), *st.outcome.context_paths]:
                    if not _covered_by_static(p):
                        paths.add(str(p))
            if frozenset(paths) != self._registered:
                self._registered = frozenset(paths)
                self.server.spawn(self._reregister([self._watcher_for(Path(p)) for p in sorted(paths)]))
        elif self.mode == "watchdog":
            self._update_observer()

    def _watcher_for(self, path: Path) -> types.FileSystemWatcher:
        is_dir = path.is_dir()
        if self._relative_patterns():
            base = path if is_dir else path.parent
            pattern = types.RelativePattern(base_uri=from_fs_path(str(base)) or base.as_uri(),
                                            pattern="**/*" if is_dir else path.name)
            return types.FileSystemWatcher(glob_pattern=pattern)
        return types.FileSystemWatcher(glob_pattern=(path.as_posix() + "/**") if is_dir else path.as_posix())

    def _wanted(self) -> set[tuple[str, bool]]:
        want: set[tuple[str, bool]] = set()
        for st in self.server.docs.values():
            if st.path is not None:
                want.add((str(_abs(st.path).parent), False))  # siblings and faithlint.toml appear here
            if st.outcome is None:
                continue
            if st.outcome.config_path is not None:
                want.add((str(st.outcome.config_path.parent), False))
            for p in st.outcome.context_paths:
                if p.is_dir():
                    want.add((str(p), True))
                else:
                    want.add((str(p.parent), False))
            for p in st.outcome.context_files.values():
                want.add((str(p.parent), False))
        return {(d, r) for d, r in want if os.path.isdir(d)}

    def _update_observer(self) -> None:
        from watchdog.events import FileSystemEventHandler

        watcher = self

        class EventHandler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in ("opened", "closed", "closed_no_write") or (
                        event.is_directory and event.event_type == "modified"):
                    return
                paths = [p for p in (event.src_path, getattr(event, "dest_path", "")) if p]
                kind = {"created": "created", "deleted": "deleted", "moved": "deleted"}.get(event.event_type,
                                                                                              "changed")
                watcher.server.call_soon(watcher.changed, [(os.fsdecode(p), kind) for p in paths])

        want = self._wanted()
        for key in set(self._watches) - want:
            try:
                self.observer.unschedule(self._watches.pop(key))
            except Exception:  # the folder may be gone already
                log.debug("unschedule %s failed", key, exc_info=True)
        for key in want - set(self._watches):
            folder, recursive = key
            try:
                self._watches[key] = self.observer.schedule(EventHandler(), folder, recursive=recursive)
            except Exception as exc:  # permissions, inotify limits: keep serving without this folder
                log.warning("cannot watch %s: %s", folder, exc)

    # -- file events --------------------------------------------------------------------------------

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        kinds = {types.FileChangeType.Created: "created", types.FileChangeType.Changed: "changed",
                 types.FileChangeType.Deleted: "deleted"}
        events = []
        for change in params.changes:
            path = to_fs_path(change.uri) if change.uri.startswith("file:") else None
            if path:
                events.append((path, kinds.get(change.type, "changed")))
        self.changed(events)

    def changed(self, events: list[tuple[str, str]]) -> None:
        """Re-check the drafts affected by file events ``[(path, "created"|"changed"|"deleted")]``."""
        self.events += len(events)
        open_paths = {_abs(st.path) for st in self.server.docs.values() if st.path is not None}
        paths = [(_abs(p), kind) for p, kind in events]
        paths = [(p, k) for p, k in paths if p not in open_paths]  # saving a draft is not a context change
        if not paths:
            return
        if any(p.name in CONFIG_NAMES for p, _ in paths):
            self.server.settings.invalidate_files()
            for uri in list(self.server.docs):
                self.server.schedule(uri)
            return
        for uri, st in list(self.server.docs.items()):
            if self.affects(st, paths):
                self.server.schedule(uri)

    @staticmethod
    def affects(st: DocState, paths: list[tuple[Path, str]]) -> bool:
        candidates = {_abs(c) for c in context_candidates(st.path)} if st.path is not None else set()
        how = st.outcome.pairing_how if st.outcome else "none"
        for p, kind in paths:
            if st.uses(p) or p in candidates or any(c in p.parents for c in candidates):
                return True
            if kind != "changed" and how in ("front-matter", "config", "none"):
                return True  # a glob in the front matter or a [[pair]] rule may now match differently
        return False
