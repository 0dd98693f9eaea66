"""The watchdog side of ``faithlint watch``: record touched paths, hand them over in quiet-period batches.

A watchdog observer only records which paths were touched. The main loop waits until the file system has
been quiet for ``debounce`` seconds (at most ``max_delay`` after the first event), then looks at the disk as
it is *now*: that coalesces editor atomic saves (temp file + rename), a ``git checkout`` touching hundreds of
files and a file rewritten several times a second into one check per affected draft. Besides the recursive
watch on each watched folder, context files, folders and the config file outside them get watches of their own.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from faithlint.errors import FaithlintError
from faithlint.inputs.context import display_path
from faithlint.watch.paths import git_internal, norm, root_of, under


class EventSource:
    """The observer thread and the queue between it and the main loop.

    ``stop`` ends :meth:`collect`'s waiting; ``once(key, message)`` reports a watch that failed, once.
    """

    def __init__(self, roots: Sequence[Path], report_dir: Path | None, *, debounce: float, max_delay: float,
                 stop: threading.Event, once: Callable[[str, str], None]) -> None:
        self.roots = roots
        self.report_dir = report_dir
        self.debounce = debounce
        self.max_delay = max_delay
        self._stop = stop
        self._once = once
        self._events: queue.Queue[tuple[list[str], bool]] = queue.Queue()
        self._observer: Any = None
        self._handler: Any = None
        self._root_watches: list[Any] = []
        self._extra_watches: dict[tuple[Path, bool], Any] = {}
        self._dead: set[Path] = set()  # watched folders deleted since the last sync: their watches ended with them
        self._dead_lock = threading.Lock()  # the observer thread adds, sync takes

    @property
    def running(self) -> bool:
        return self._observer is not None

    def on_event(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return  # our own reads; reacting to them would loop
        if event.is_directory and kind == "modified":
            return  # the child events say what changed
        paths = [os.fsdecode(event.src_path)]
        if kind in ("deleted", "moved") and event.is_directory:
            with self._dead_lock:
                self._dead.add(norm(paths[0]))
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(os.fsdecode(dest))
        paths = [p for p in paths if not self._in_report_dir(norm(p)) and not git_internal(p)]
        if paths:
            self._events.put((paths, kind in ("created", "deleted", "moved") or bool(event.is_directory)))

    def _in_report_dir(self, path: Path) -> bool:
        return self.report_dir is not None and under(path, self.report_dir)

    def collect(self, wait: float = 0.2) -> tuple[set[Path], bool] | None:
        """The next batch: touched paths and whether files or folders came, went or moved (None if none)."""
        try:
            paths, structural = self._events.get(timeout=wait)
        except queue.Empty:
            return None
        touched = {norm(p) for p in paths}
        deadline = time.monotonic() + self.max_delay
        while not self._stop.is_set():
            remaining = min(self.debounce, deadline - time.monotonic())
            if remaining <= 0:
                break
            try:
                paths, more = self._events.get(timeout=remaining)
            except queue.Empty:
                break
            touched.update(norm(p) for p in paths)
            structural = structural or more
        return touched, structural

    def start(self) -> None:
        """Start the observer with a recursive watch on each watched folder."""
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            raise FaithlintError("faithlint watch needs watchdog: pip install 'faithlint[watch]'") from None

        source = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                try:
                    source.on_event(event)
                except Exception:  # noqa: BLE001 - never kill the observer thread
                    pass

        self._handler = Handler()
        self._observer = Observer()
        for root in self.roots:
            try:
                self._root_watches.append(self._observer.schedule(self._handler, str(root), recursive=True))
            except OSError as exc:
                raise FaithlintError(f"{display_path(root)}: cannot watch ({exc.strerror or exc})") from None
        self._observer.daemon = True
        self._observer.start()

    def _watch_target(self, dep: Path) -> tuple[Path, bool] | None:
        if root_of(dep, self.roots) is not None:
            return None  # the recursive root watch sees it
        try:
            if dep.is_dir():
                return dep, True
            if dep.exists() or dep.parent.is_dir():
                return dep.parent, False
        except OSError:
            pass
        for folder in dep.parents:  # gone: watch the nearest folder that exists, to see it come back
            try:
                if folder.is_dir():
                    return (folder, False) if root_of(folder, self.roots) is None else None
            except OSError:
                continue
        return None

    def sync(self, deps: Iterable[Path]) -> None:
        """Watch exactly the folders that ``deps`` living outside the watched folders need."""
        if self._observer is None:
            return
        needed = {t for t in (self._watch_target(d) for d in deps) if t is not None}
        with self._dead_lock:
            dead, self._dead = self._dead, set()
        # a folder deleted and made again at once still looks needed, but its old watch is gone with it
        for key in {k for k in self._extra_watches if k not in needed or k[0] in dead}:
            try:
                self._observer.unschedule(self._extra_watches.pop(key))
            except Exception:  # noqa: BLE001 - already gone with its folder
                pass
        for key in sorted(needed - set(self._extra_watches)):
            folder, recursive = key
            try:
                self._extra_watches[key] = self._observer.schedule(self._handler, str(folder), recursive=recursive)
            except OSError as exc:
                self._once(f"watch:{folder}", f"cannot watch {display_path(folder)}: {exc.strerror or exc}")
                continue
            # what changed in the folder between the check that asked for this watch and the watch itself
            # (a folder that came back and was filled at once) raised no event: look at it once more; the
            # drafts' signatures keep that from re-checking anything that did not change
            self._events.put(([str(folder)], True))

    def close(self) -> None:
        """Stop and join the observer thread (a no-op when it never started)."""
        if self._observer is not None:
            try:
                self._observer.stop()
                self._observer.join(timeout=5)
            except Exception:  # noqa: BLE001
                pass
            self._observer = None
