"""When and how drafts are checked: a debounced, cancellable scheduler around one worker thread.

Why one thread: the models are CPU-heavy and not designed for concurrent use, and a second
check of the same machine's cores would only slow the first one down. Running them off the
protocol thread keeps hover, code actions and ``shutdown`` answered while a check runs.

Per document the scheduler keeps at most one pending check (the newest snapshot). An edit
resets that document's debounce timer and cancels its in-flight check through the
``cancelled`` callback the :class:`~faithlint.linter.Linter` polls between stages; a result
that still comes back for a superseded version is dropped by the caller (``deliver`` gets the
job, whose ``cancel`` flag and version tell). Tasks submitted with :meth:`Scheduler.submit`
(model loading) run before any pending check.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from faithlint.errors import FaithlintError
from faithlint.files import load_context_checked
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
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.cancelled_runs = 0

    # -- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="faithlint-checker", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            if self._current is not None:
                self._current.cancel.set()
            self._pending.clear()
            self._cond.notify_all()

    # -- requests (any thread) ----------------------------------------------------------------------

    def schedule(self, uri: str, version: int | None, payload: Any, delay: float) -> Job:
        """Check ``payload`` (a snapshot of the document) after ``delay`` seconds of quiet."""
        job = Job(uri, version, payload, self._clock() + max(0.0, delay))
        with self._cond:
            self._cancel_locked(uri)
            self._pending[uri] = job
            self._cond.notify_all()
        return job

    def cancel(self, uri: str) -> None:
        """Forget pending work for ``uri`` and cancel its in-flight check (document closed)."""
        with self._cond:
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
                if self._pending:
                    job = min(self._pending.values(), key=lambda j: j.due)
                    wait = job.due - self._clock()
                    if wait <= 0:
                        del self._pending[job.uri]
                        self._current = job
                        return job
                    self._cond.wait(wait)
                else:
                    self._cond.wait()
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
class Problem:
    """Something about a draft that is not a finding: no context, unreadable context, a model error.

    Shown as one diagnostic on the first line of the draft.
    """

    severity: str  # "error" | "warning" | "info"
    code: str
    message: str


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


NO_CONTEXT_HELP = ("No context is paired with this draft, so faithlint cannot check it. Pair one with "
                   "'context:' in the front matter, a sibling file {stem}.context.md (or {stem}.context/ "
                   "folder), a [[pair]] rule in faithlint.toml, or --context on the command line.")


def is_markdown(snapshot: Snapshot, extensions: list[str]) -> bool:
    if snapshot.path is not None and snapshot.path.suffix.lower() in extensions:
        return True
    if snapshot.path is not None and snapshot.path.suffix:
        return False
    return (snapshot.language_id or "markdown") in ("markdown", "mdx")


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def check_snapshot(linter: Any, config: Any, config_path: Path | None, snap: Snapshot,
                   cancelled: Callable[[], bool],
                   partial: Callable[[Outcome], None] | None = None) -> Outcome:
    """Pair, load the context and check one draft exactly as ``faithlint check`` would.

    Never raises for bad input: problems become :class:`Problem` entries. ``partial`` receives an
    outcome for the first sentences of a long draft before the whole draft is done.
    """
    from faithlint.markdown import extract
    from faithlint.pairing import resolve_pairing

    t0 = time.perf_counter()
    out = Outcome(snapshot=snap, config_path=config_path)
    if len(snap.text) > config.max_file_size:
        out.problems.append(Problem("warning", "too-large",
                                    f"This draft has {len(snap.text):,} characters, over the max_file_size limit "
                                    f"({config.max_file_size:,}); it was not checked."))
        return out
    markdown = is_markdown(snap, config.markdown_extensions)
    if snap.path is None:
        out.problems.append(Problem("info", "no-context", "Save this draft to a file so faithlint can find its "
                                    "context (front matter 'context:', NAME.context.md or a [[pair]] rule)."))
        return out
    front_matter = extract(snap.text, markdown=True).front_matter if markdown else None
    try:
        pairing = resolve_pairing(snap.path, front_matter, config, config_path)
    except FaithlintError as exc:
        out.problems.append(Problem("error", "pairing", str(exc)))
        return out
    out.pairing_how = pairing.how
    out.context_paths = [_absolute(p if p.is_absolute() else Path.cwd() / p) for p in pairing.context]
    gone = [p for p in snap.previous_context if not p.exists() and p not in out.context_paths]
    for p in gone:
        out.problems.append(Problem("warning", "context-deleted",
                                    f"Context file {p} was deleted; this draft is "
                                    + ("now checked without it." if pairing.context else "no longer paired.")))
    if not pairing.context:
        if not gone:
            out.problems.append(Problem("info", "no-context", NO_CONTEXT_HELP.format(stem=snap.path.stem)))
        return out
    docs: list[ContextDoc] = []
    for p in out.context_paths:
        try:
            loaded = load_context_checked([p], config.max_file_size)  # a FIFO would block the worker for good
        except FaithlintError as exc:
            out.problems.append(Problem("error", "context", f"Context not usable: {exc}"))
            continue
        except OSError as exc:
            out.problems.append(Problem("error", "context", f"Context not usable: {p}: {exc.strerror or exc}"))
            continue
        for doc in loaded:
            if doc.source not in out.context_files:
                out.context_files[doc.source] = _absolute(Path(doc.source) if Path(doc.source).is_absolute()
                                                          else Path.cwd() / doc.source)
                out.context_texts[doc.source] = doc.text
                out.context_docs[doc.source] = doc
                docs.append(doc)
    if not docs:
        return out
    if cancelled():
        return out
    on_partial = None
    if partial is not None:
        def on_partial(result: DraftResult) -> None:
            partial(replace(out, result=result, problems=list(out.problems), partial=True,
                            elapsed=time.perf_counter() - t0))
    out.result = linter.check(snap.text, docs, path=str(snap.path), query=pairing.query, markdown=markdown,
                              cancelled=cancelled, partial=on_partial)
    for note in out.result.notes:
        if note.startswith("front matter"):
            out.problems.append(Problem("warning", "front-matter", note))
    out.elapsed = time.perf_counter() - t0
    return out
