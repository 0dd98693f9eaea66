"""When and how drafts are checked: a debounced, cancellable scheduler around one worker thread.

Why one thread: the models are CPU-heavy and not designed for concurrent use, and a second
check of the same machine's cores would only slow the first one down. Running them off the
protocol thread keeps hover, code actions and ``shutdown`` answered while a check runs.

Per document the scheduler keeps at most one pending check (the newest snapshot). An edit
resets that document's debounce timer and cancels its in-flight check through the
``cancelled`` callback the :class:`~faithlint.pipeline.linter.Linter` polls between stages; a result
that still comes back for a superseded version is dropped by the caller (``deliver`` gets the
job, whose ``cancel`` flag and version tell). Tasks submitted with :meth:`Scheduler.submit`
(model loading) run before any pending check.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from faithlint.inputs.drafts import Preparation, Problem, prepare
from faithlint.types import ContextDoc, DraftResult

log = logging.getLogger(__name__)


@dataclass
class Job:
    """One requested check of one document version."""

    uri: str
    version: int | None
    payload: Any
    due: float
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float | None = None
    finished: float | None = None

    def cancelled(self) -> bool:
        return self.cancel.is_set()


IDLE_AFTER_S = 1.0  # idle work starts once no check was requested for this long (a pause in typing)
SHUTDOWN_WAIT_S = 5.0  # how long stopping the server waits for the checker thread to finish what it is doing


class Scheduler:
    """Debounce per document, run checks one at a time in a worker thread, cancel superseded ones.

    ``run(job)`` executes in the worker and returns the outcome; ``deliver(job, outcome)`` is
    then called, still in the worker (the server marshals it to the protocol thread).
    """

    def __init__(self, run: Callable[[Job], Any], deliver: Callable[[Job, Any], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._run = run
        self._deliver = deliver
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: dict[str, Job] = {}
        self._tasks: deque[Callable[[], None]] = deque()
        self._current: Job | None = None
        self._idle: dict[str, Iterator[Any]] = {}  # per document: work to do a step at a time when nothing waits
        self._idle_keys: dict[str, Any] = {}  # per open document: what its latest idle work was started for
        self._last_request = float("-inf")  # clock of the latest schedule(): idle work waits for a pause
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.cancelled_runs = 0

    # -- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="faithlint-checker", daemon=True)
            self._thread.start()

    def stop(self, wait: float = 0.0) -> None:
        """Stop taking work and cancel the check in flight; with ``wait``, give the worker that long to end.

        The worker is a daemon thread: a process that exits while it is inside native code (a model
        load, a pydantic validation) can abort, so the server waits for it before exiting.
        """
        with self._cond:
            self._stopped = True
            if self._current is not None:
                self._current.cancel.set()
            self._pending.clear()
            self._cond.notify_all()
        thread = self._thread
        if wait > 0 and thread is not None and thread is not threading.current_thread():
            thread.join(wait)

    # -- requests (any thread) ----------------------------------------------------------------------

    def schedule(self, uri: str, version: int | None, payload: Any, delay: float) -> Job:
        """Check ``payload`` (a snapshot of the document) after ``delay`` seconds of quiet."""
        job = Job(uri, version, payload, self._clock() + max(0.0, delay))
        with self._cond:
            self._last_request = self._clock()
            self._cancel_locked(uri)
            self._pending[uri] = job
            self._cond.notify_all()
        return job

    def cancel(self, uri: str) -> None:
        """Forget pending and idle work for ``uri`` and cancel its in-flight check (document closed)."""
        with self._cond:
            self._idle.pop(uri, None)
            self._idle_keys.pop(uri, None)
            self._cancel_locked(uri)

    def _cancel_locked(self, uri: str) -> None:
        old = self._pending.pop(uri, None)
        if old is not None:
            old.cancel.set()
        if self._current is not None and self._current.uri == uri:
            self._current.cancel.set()

    def submit(self, task: Callable[[], None]) -> None:
        """Run ``task`` in the worker before any pending check (used to load models)."""
        with self._cond:
            self._tasks.append(task)
            self._cond.notify_all()

    def set_idle(self, uri: str, start: Callable[[], Iterator[Any]] | None, key: Any = None) -> None:
        """Run the steps of ``start()`` (an iterator) one at a time while no task or check waits and no check was
        requested for ``IDLE_AFTER_S``; they replace ``uri``'s previous idle work (None: drop it). ``key`` names
        the work: while the document stays open, the same key again starts nothing (it runs, or it ran). A step
        must be short: a check requested meanwhile waits for it to end."""
        with self._cond:
            if start is not None and key is not None and self._idle_keys.get(uri) == key:
                return
        steps = start() if start is not None else None  # planned in the caller's thread (the worker's)
        with self._cond:
            self._idle.pop(uri, None)
            self._idle_keys.pop(uri, None)
            if steps is not None:
                self._idle[uri] = steps
                self._idle_keys[uri] = key
                self._cond.notify_all()

    def _idle_step(self, uri: str, steps: Iterator[Any]) -> None:
        done = False
        try:
            next(steps)
        except StopIteration:
            done = True
        except Exception:  # idle work is an optimisation: a failure only ends it
            log.exception("idle work for %s failed", uri)
            done = True
        with self._cond:
            if self._idle.get(uri) is steps:
                del self._idle[uri]
                if not done:  # round robin between documents
                    self._idle[uri] = steps

    def busy(self, uri: str) -> bool:
        """True while a check of ``uri`` is pending or running."""
        with self._cond:
            return uri in self._pending or (self._current is not None and self._current.uri == uri)

    @property
    def pending_count(self) -> int:
        with self._cond:
            return len(self._pending) + (self._current is not None)

    # -- worker -------------------------------------------------------------------------------------

    def _next(self) -> Callable[[], None] | Job | None:
        with self._cond:
            while not self._stopped:
                if self._tasks:
                    return self._tasks.popleft()
                wait: float | None = None
                if self._pending:
                    job = min(self._pending.values(), key=lambda j: j.due)
                    wait = job.due - self._clock()
                    if wait <= 0:
                        del self._pending[job.uri]
                        self._current = job
                        return job
                if self._idle:
                    quiet = self._last_request + IDLE_AFTER_S - self._clock()
                    if quiet <= 0:
                        uri, steps = next(iter(self._idle.items()))
                        return lambda: self._idle_step(uri, steps)
                    wait = quiet if wait is None else min(wait, quiet)
                self._cond.wait(wait)
            return None

    def _loop(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            if not isinstance(item, Job):
                try:
                    item()
                except Exception:  # a task must never kill the worker
                    log.exception("faithlint worker task failed")
                continue
            job = item
            outcome: Any = None
            try:
                job.started = self._clock()
                outcome = self._run(job)
            except Exception as exc:
                log.exception("checking %s failed", job.uri)
                outcome = exc
            finally:
                job.finished = self._clock()
                with self._cond:
                    self._current = None
                self.runs += 1
                if job.cancelled():
                    self.cancelled_runs += 1
            try:
                self._deliver(job, outcome)
            except Exception:
                log.exception("delivering the result for %s failed", job.uri)


# ---------------------------------------------------------------------------------------------- checks

@dataclass
class Snapshot:
    """What the worker needs about a document, captured on the protocol thread."""

    uri: str
    path: Path | None
    text: str
    version: int | None
    language_id: str | None
    previous_context: list[Path] = field(default_factory=list)
    progressive: bool = False  # first check of a freshly opened draft: publish its top early


@dataclass
class Outcome:
    """The result of checking one snapshot."""

    snapshot: Snapshot
    result: DraftResult | None = None
    problems: list[Problem] = field(default_factory=list)
    pairing_how: str = "none"
    context_paths: list[Path] = field(default_factory=list)  # as resolved (files or folders)
    context_files: dict[str, Path] = field(default_factory=dict)  # ContextDoc.source -> absolute file
    context_texts: dict[str, str] = field(default_factory=dict)  # ContextDoc.source -> text (evidence ranges)
    context_docs: dict[str, ContextDoc] = field(default_factory=dict)  # ContextDoc.source -> doc (to_source)
    config_path: Path | None = None
    elapsed: float = 0.0
    partial: bool = False  # only the first sentences of the draft; the whole follows
    stage_ms: dict[str, float] = field(default_factory=dict)  # where the check's time went (status command)


NO_CONTEXT_HELP = ("No context is paired with this draft, so faithlint cannot check it. Pair one with "
                   "'context:' in the front matter, a sibling file {stem}.context.md (or {stem}.context/ "
                   "folder), a [[pair]] rule in faithlint.toml, or --context on the command line.")


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def _shown(p: Problem, snap: Snapshot) -> Problem:
    """A preparation problem as the editor shows it (no command-line hints; context errors say so)."""
    if p.code == "no-context" and p.severity == "error":
        assert snap.path is not None
        return Problem("info", "no-context", NO_CONTEXT_HELP.format(stem=snap.path.stem))
    if p.code == "context":
        return Problem("error", "context", f"Context not usable: {p.message}")
    return p


def prepare_snapshot(config: Any, config_path: Path | None, snap: Snapshot) -> Preparation:
    """Pair the draft and load its context as ``faithlint check`` would (the editor's text, absolute context
    paths): what a check reads, and what a correction (:mod:`faithlint.server.corrections`) corrects against."""
    return prepare(snap.path, config, config_path, text=snap.text, language_id=snap.language_id or "markdown",
                   allow_empty=True, absolute_context=True, previous_context=snap.previous_context)


def check_snapshot(linter: Any, config: Any, config_path: Path | None, snap: Snapshot,
                   cancelled: Callable[[], bool],
                   partial: Callable[[Outcome], None] | None = None) -> Outcome:
    """Pair, load the context and check one draft with ``config`` exactly as ``faithlint check`` would
    (:func:`faithlint.inputs.drafts.prepare`, the one preparation path, on the editor's text).

    Never raises for bad input: problems become :class:`Problem` entries. ``partial`` receives an
    outcome for the first sentences of a long draft before the whole draft is done.
    """
    t0 = time.perf_counter()
    out = Outcome(snapshot=snap, config_path=config_path)
    prep = prepare_snapshot(config, config_path, snap)
    prepared = time.perf_counter()
    out.stage_ms = {"prepare": round(1000 * (prepared - t0) - prep.parse_ms, 2), "parse": prep.parse_ms}
    out.problems = [_shown(p, snap) for p in prep.problems]
    if prep.pairing is not None:
        out.pairing_how = prep.pairing.how
        out.context_paths = prep.context_paths
    draft = prep.draft
    if draft is None or not draft.context:
        return out
    for doc in draft.context:
        out.context_files[doc.source] = _absolute(Path(doc.source) if Path(doc.source).is_absolute()
                                                  else Path.cwd() / doc.source)
        out.context_texts[doc.source] = doc.text
        out.context_docs[doc.source] = doc
    if cancelled():
        return out
    on_partial: Callable[[DraftResult], None] | None = None
    if partial is not None:
        def deliver(result: DraftResult) -> None:
            partial(replace(out, result=result, problems=list(out.problems), partial=True,
                            elapsed=time.perf_counter() - t0))
        on_partial = deliver
    # the Markdown parsed once: preparation's parse (front matter) is the one the linter checks
    out.result = draft.check(linter, path=str(snap.path), cancelled=cancelled, partial=on_partial, config=config)
    stats = getattr(linter, "stats", None)  # a linter given to the server may keep none
    out.stage_ms.update({k: v for k, v in getattr(stats, "stage_ms", {}).items() if k != "parse"})
    for note in out.result.notes:
        if note.startswith("front matter"):
            out.problems.append(Problem("warning", "front-matter", note))
    out.elapsed = time.perf_counter() - t0
    return out
