"""The language server object and the state its features share; each feature is an object (:mod:`.feature`).

The server owns what several features read -- the open drafts (:class:`DocState`), settings, the
models and the check scheduler -- and the path of a check: scheduled from the documents' text, run on
the worker, delivered back here, then announced to every feature (``on_result``/``on_checked``).
:meth:`FaithlintServer.add_feature` registers a feature's handlers with pygls once.

Threads: pygls runs handlers on the asyncio protocol thread; checks and model loading run on
the scheduler's single worker thread (:mod:`faithlint.server.checking`). The worker never
touches the protocol: everything it produces is handed back with :meth:`FaithlintServer.call_soon`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from faithlint import __version__
from faithlint.claims.extractors import extractor_settings, warm_up
from faithlint.config import Config
from faithlint.errors import FaithlintError
from faithlint.evidence.index import doc_key
from faithlint.evidence.warm_up import steps as warm_up_steps
from faithlint.pipeline import preloading
from faithlint.pipeline.registry import ModelsKey, models_key
from faithlint.rules.fl400_absent_value import AbsentValue
from faithlint.server import rpc
from faithlint.server.checking import SHUTDOWN_WAIT_S, Job, Outcome, Problem, Scheduler, Snapshot, check_snapshot
from faithlint.server.rpc import FaithlintProtocol, pygls_handler
from faithlint.server.settings import Resolved, Settings

log = logging.getLogger("faithlint.server")


class ServerFeature(Protocol):
    """What the server asks of a feature; :class:`faithlint.server.feature.Feature` is the base class that
    answers all of it (the server knows features by this shape, so the feature module may name the server)."""

    def handlers(self) -> Iterable[Any]: ...  # faithlint.server.feature.Handler: method, function, options

    def commands(self) -> Iterable[Any]: ...  # faithlint.server.feature.Command: name, function

    def on_initialized(self) -> None: ...

    def on_result(self, state: DocState) -> None: ...

    def on_checked(self, state: DocState) -> None: ...

    def on_changed(self, uri: str) -> None: ...

    def on_closed(self, uri: str) -> None: ...

    def on_shutdown(self) -> None: ...

    def shows_partial_results(self) -> bool: ...


F = TypeVar("F", bound=ServerFeature)


@dataclass
class DocState:
    """What the server knows about one open draft."""

    uri: str
    path: Path | None
    language_id: str | None
    outcome: Outcome | None = None  # the latest delivered check (for ``outcome.snapshot.version``)
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    result_id: str = ""
    waiters: list[asyncio.Future[None]] = field(default_factory=list)

    @property
    def checked_version(self) -> int | None:
        return self.outcome.snapshot.version if self.outcome else None

    def uses(self, path: Path) -> bool:
        """Does the latest pairing of this draft read ``path`` (a file, or a file inside a context folder)?"""
        if self.outcome is None:
            return False
        files = set(self.outcome.context_files.values())
        if path in files:
            return True
        return any(path == p or p in path.parents for p in self.outcome.context_paths)


class Models:
    """One loaded :class:`~faithlint.pipeline.linter.Linter` per distinct model setting
    (:func:`~faithlint.pipeline.registry.models_key`), created in the worker.

    Settings that do not change which models are loaded (rules, thresholds, windows) go to the linter with
    each check (``check(config=...)``); its caches are keyed by everything those settings affect. The claim
    settings are such settings too: the linter builds the extractor ``claim_extractor`` names when it changes
    (:attr:`~faithlint.pipeline.linter.Linter.claims`); :meth:`_load_claims` only loads it ahead of the check,
    with progress shown, since an LLM extractor takes seconds.
    """

    def __init__(self, server: FaithlintServer, factory: Callable[[Config], Any] | None = None) -> None:
        self.server = server
        self.factory = factory
        self.linters: dict[ModelsKey, Any] = {}
        self.configs: dict[ModelsKey, Config] = {}  # the settings of each linter's latest check (status)
        self.errors: dict[tuple[Any, ...], str] = {}
        self.no_values: set[ModelsKey] = set()
        self.claims_loaded: set[tuple[Any, ...]] = set()  # (models key, claim extractor settings) warmed up
        self.ready = threading.Event()
        self.load_seconds: float | None = None
        self.preloaded = False  # the first load took the models `faithlint serve` preloaded

    key = staticmethod(models_key)  # also what a preloaded linter must share with the config to be taken

    def linter_for(self, config: Config) -> tuple[Any, Config]:
        """The linter for ``config``'s models, loading them first if needed, and the config its checks take (FL400
        off where the value extractor cannot load) (worker thread only)."""
        key = self.key(config)
        if key in self.errors:
            raise FaithlintError(self.errors[key])
        linter = self.linters.get(key)
        if linter is None:
            linter = self._load(key, config)
        checked = config
        if key in self.no_values and config.rule_enabled(AbsentValue.code):
            checked = config.model_copy(update={"ignore": [*config.ignore, AbsentValue.code]})
        self.configs[key] = checked
        if checked.unit != "sentence":
            self._load_claims(key, linter, checked)
        return linter, checked

    def _load_claims(self, key: ModelsKey, linter: Any, config: Config) -> None:
        """Load the claim extractor ``config`` names, once per setting. A failure (an LLM endpoint that
        does not answer) is remembered like a model's, so edits do not wait for it again; a settings change or
        ``faithlint.recheckWorkspace`` clears it."""
        full = ("claims", key, extractor_settings(config))
        if full in self.errors:
            raise FaithlintError(self.errors[full])
        if full in self.claims_loaded:
            return
        name = config.claim_extractor
        progress = self.server.progress_start("faithlint", f"Loading the claim extractor ({name})")
        try:
            with linter.using(config):
                warm_up(linter.claims.extractor)
        except Exception as exc:
            if not isinstance(exc, FaithlintError):
                log.exception("claim extractor loading failed")
            self.errors[full] = str(exc) if isinstance(exc, FaithlintError) else \
                f"cannot load the claim extractor ({name}): {type(exc).__name__}: {exc}"
            self.server.call_soon(self.server.show_once, f"faithlint: {self.errors[full]}", types.MessageType.Error)
            raise FaithlintError(self.errors[full]) from exc
        finally:
            progress()
        self.claims_loaded.add(full)

    def _load(self, key: ModelsKey, config: Config) -> Any:
        from faithlint.pipeline.linter import Linter

        progress = self.server.progress_start("faithlint", f"Loading models ({key.model})")
        t0 = time.perf_counter()
        try:
            # the defaults' models, loading since the process started (faithlint serve), when they are these
            taken = None if self.factory else preloading.take(config, self.key)
            self.preloaded = self.preloaded or taken is not None
            linter = taken or (self.factory(config) if self.factory else Linter(config))
            with linter.using(config):  # a preloaded linter's own settings are the defaults
                linter.load_models()
                if not self.factory:
                    preloading.settle(linter.checker)
                if config.monitor == "on":  # the surrogate LM and the aggregator (a load error is reported like any)
                    linter.monitor.load()
                try:
                    if config.rule_enabled(AbsentValue.code):
                        _ = linter.values
                except ImportError as exc:  # value extraction not installed/available: the NLI rules still work
                    self.no_values.add(key)
                    self.server.call_soon(self.server.show_once, f"FL400 is disabled: the value extractor could "
                                          f"not be loaded ({exc})", types.MessageType.Warning)
        except FaithlintError as exc:
            self.errors[key] = str(exc)
            self.server.call_soon(self.server.show_once, f"faithlint: {exc}", types.MessageType.Error)
            raise
        except Exception as exc:  # torch/transformers errors: report them in one line, keep serving
            self.errors[key] = f"cannot load the models: {type(exc).__name__}: {exc}"
            log.exception("model loading failed")
            self.server.call_soon(self.server.show_once, f"faithlint: {self.errors[key]}", types.MessageType.Error)
            raise FaithlintError(self.errors[key]) from exc
        finally:
            progress()
        self.load_seconds = time.perf_counter() - t0
        self.linters[key] = linter
        self.ready.set()
        log.info("models %s loaded in %.1fs", key, self.load_seconds)
        return linter


class FaithlintServer(LanguageServer):
    """faithlint's language server: the state its features share, and the features (:attr:`features`)."""

    protocol: FaithlintProtocol  # ``protocol_cls`` below (pygls declares its base class)

    def __init__(self, linter_factory: Callable[[Config], Any] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("protocol_cls", FaithlintProtocol)
        super().__init__("faithlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         **kwargs)
        self.settings = Settings()
        self.docs: dict[str, DocState] = {}
        self.models = Models(self, linter_factory)
        self.scheduler = Scheduler(self._run_job, self._deliver_from_worker)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.shown: set[str] = set()
        self.debounce_ms = 300
        self.dropped_results = 0
        self.delivered_results = 0
        self.partial_delivered = 0
        self.timings: dict[str, Any] = {}  # seconds spent on the latest delivered check (status command)
        self.stage_ms: dict[str, float] = {}  # its milliseconds per stage, diagnostics included (status command)
        self._result_ids = itertools.count(1)
        self._progress_ids = itertools.count(1)
        self._tasks: set[asyncio.Future[Any]] = set()
        self.features: list[ServerFeature] = []  # in registration order, which is the order events reach them

    # -- features -----------------------------------------------------------------------------------

    def add_feature(self, feature: F) -> F:
        """Register ``feature``'s handlers and commands with pygls (once; an LSP method has one handler)."""
        if any(f is feature for f in self.features):
            raise ValueError(f"{type(feature).__name__} is registered already")
        for h in feature.handlers():
            self.feature(h.method, h.options)(pygls_handler(h.function))
        for c in feature.commands():
            self.command(c.name)(pygls_handler(c.function))
        self.features.append(feature)
        return feature

    def get_feature(self, cls: type[F]) -> F:
        """The registered feature of class ``cls``."""
        for f in self.features:
            if isinstance(f, cls):
                return f
        raise LookupError(f"no {cls.__name__} feature is registered")

    # -- transport: faithlint's reader (faithlint.server.rpc) instead of pygls' ------------------------

    def shutdown(self) -> None:
        """End serving (stdio or TCP, with or without the client's ``shutdown``): the checker thread first.

        It is a daemon thread; a process that exits while it is inside native code (a model load, a
        pydantic validation) can abort, so it gets :data:`SHUTDOWN_WAIT_S` to finish what it is doing.
        """
        self.scheduler.stop(wait=SHUTDOWN_WAIT_S)
        preloading.wait(SHUTDOWN_WAIT_S)  # the same for models `faithlint serve` began loading and no check took
        super().shutdown()

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        rpc.start_io(self, stdin, stdout)

    def start_tcp(self, host: str, port: int) -> None:
        rpc.start_tcp(self, host, port)

    # -- threads ------------------------------------------------------------------------------------

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the protocol thread (from any thread)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._guarded, fn, args)

    @staticmethod
    def _guarded(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("callback %s failed", getattr(fn, "__name__", fn))

    def spawn(self, coro: Any) -> None:
        """Start a coroutine on the protocol loop and keep a reference until it finishes."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- messages -----------------------------------------------------------------------------------

    def show_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Tell the user about a settings/model problem once per session, not on every check."""
        if message in self.shown:
            return
        self.shown.add(message)
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log every handler error with its traceback; show out-of-band ones once (requests get an LSP error)."""
        from pygls.exceptions import JsonRpcException

        if isinstance(error, JsonRpcException) and error.code != JsonRpcException.CODE:
            log.debug("request refused: %s", error)  # expected answers (client mistakes, ContentModified): no traceback
            return
        log.error("%s", "".join(traceback.format_exception(error)).rstrip())
        try:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                           message=f"faithlint: {error}"))
        except Exception:  # the connection may be gone
            return
        from pygls.exceptions import FeatureRequestError

        if source is not FeatureRequestError:
            self.show_once(f"faithlint: internal error: {error}", types.MessageType.Error)

    def progress_start(self, title: str, message: str) -> Callable[[], None]:
        """Begin a ``$/progress`` (when the client supports it); returns the function that ends it.

        Callable from the worker thread. The token is created with window/workDoneProgress/create
        and ``begin`` is sent only after the client answered; ``end`` waits for ``begin``.
        """
        window = self.client_capabilities.window if self.loop is not None else None
        if not (window and window.work_done_progress):
            log.info("%s: %s", title, message)
            return lambda: log.info("%s: done", title)
        token = f"faithlint-{next(self._progress_ids)}"
        state = {"begun": False, "ended": False}

        def send_end() -> None:
            if state["begun"] and state["ended"]:
                state["begun"] = False
                self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

        async def begin() -> None:
            try:
                await self.work_done_progress.create_async(token)
            except Exception as exc:  # the client refused the token: no progress, keep going
                log.info("progress not available: %s", exc)
                return
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, message=message))
            state["begun"] = True
            send_end()

        def end() -> None:
            state["ended"] = True
            send_end()

        self.call_soon(self.spawn, begin())
        return lambda: self.call_soon(end)

    # -- documents ----------------------------------------------------------------------------------

    def doc_path(self, uri: str) -> Path | None:
        if not uri.startswith("file:"):
            return None
        try:
            path = to_fs_path(uri)
        except Exception:
            return None
        return Path(path) if path else None

    def text_document(self, uri: str) -> Any | None:
        """The open document for ``uri`` or None (never falls back to reading unknown URIs from disk)."""
        from urllib.parse import unquote

        if self.protocol._workspace is None:
            return None
        return self.workspace.text_documents.get(unquote(uri))

    def schedule(self, uri: str, delay_ms: int | None = None) -> bool:
        """Check the current text of ``uri`` after the debounce (or ``delay_ms``)."""
        snap = self.snapshot(uri)
        state = self.docs.get(uri)
        if snap is None or state is None:
            return False
        # a first check comes in two parts only when some feature shows the part (push diagnostics do; pull waits)
        snap.progressive = state.outcome is None and any(f.shows_partial_results() for f in self.features)
        delay = self.debounce_ms if delay_ms is None else delay_ms
        self.scheduler.schedule(uri, snap.version, snap, delay / 1000.0)
        return True

    # -- worker side --------------------------------------------------------------------------------

    def snapshot(self, uri: str) -> Snapshot | None:
        """What a check (or a correction) of the current text of the open draft ``uri`` reads."""
        doc = self.text_document(uri)
        state = self.docs.get(uri)
        if doc is None or state is None:
            return None
        previous: list[Path] = []
        if state.outcome is not None:
            previous = list(dict.fromkeys([*state.outcome.context_files.values()]))
        return Snapshot(uri=uri, path=state.path, text=doc.source, version=doc.version,
                        language_id=state.language_id, previous_context=previous)

    def linter_for_snapshot(self, snap: Snapshot) -> tuple[Any, Resolved]:
        """The linter (models loaded, settings applied) and the settings for ``snap``'s draft (worker thread only);
        settings messages are shown once. Raises :class:`FaithlintError` when the models cannot be loaded."""
        resolved = self.settings.resolve(snap.path)
        for m in resolved.messages:
            self.call_soon(self.show_once, m, types.MessageType.Warning)
        linter, config = self.models.linter_for(resolved.config)
        return linter, replace(resolved, config=config)

    def _run_job(self, job: Job) -> Outcome:
        snap: Snapshot = job.payload
        try:
            linter, resolved = self.linter_for_snapshot(snap)
        except FaithlintError as exc:
            return Outcome(snapshot=snap, problems=[Problem("error", "model", f"faithlint cannot check: {exc}")])
        partial: Callable[[Outcome], None] | None = None
        if snap.progressive:
            def deliver(outcome: Outcome) -> None:
                self.call_soon(self.deliver_partial, job, outcome)
            partial = deliver
        try:
            config = resolved.config
            outcome = check_snapshot(linter, config, resolved.config_path, snap, job.cancelled, partial)
            if outcome.result is not None and not job.cancelled():  # read the rest of its context while idle,
                docs = list(outcome.context_docs.values())  # once per context, models and settings
                self.scheduler.set_idle(snap.uri, lambda: warm_up_steps(linter, docs, config=config),
                                        key=(id(linter), config.model_dump_json(), *map(doc_key, docs)))
            return outcome
        except FaithlintError as exc:  # a model failing mid-check (an LLM claim endpoint going away): not a bug
            return Outcome(snapshot=snap, problems=[Problem("error", "model", f"faithlint cannot check: {exc}")])

    def _deliver_from_worker(self, job: Job, outcome: Any) -> None:
        self.call_soon(self.deliver, job, outcome)

    def _current_state(self, job: Job) -> DocState | None:
        """The document's state if ``job`` checked its current version, else None (a stale result)."""
        state = self.docs.get(job.uri)
        doc = self.text_document(job.uri)
        if state is None or doc is None or job.cancelled() or doc.version != job.version:
            return None
        return state

    def deliver_partial(self, job: Job, outcome: Outcome) -> None:
        """Show the first sentences' findings of a freshly opened draft while the rest is checked."""
        state = self._current_state(job)
        if state is None or state.outcome is not None:
            return
        state.outcome = outcome
        state.result_id = f"{job.version}-{next(self._result_ids)}"
        self.partial_delivered += 1
        self._publish(state)

    def deliver(self, job: Job, outcome: Any) -> None:
        """Accept a finished check on the protocol thread, unless its document moved on."""
        state = self._current_state(job)
        if state is None:
            self.dropped_results += 1
            return
        if isinstance(outcome, BaseException):
            outcome = Outcome(snapshot=job.payload, problems=[Problem(
                "error", "internal", f"faithlint failed on this draft: {type(outcome).__name__}: {outcome}")])
        self.delivered_results += 1
        state.outcome = outcome
        state.result_id = f"{job.version}-{next(self._result_ids)}"
        t0 = time.perf_counter()
        self._publish(state)
        publish = time.perf_counter() - t0
        self.timings = {"check": round(outcome.elapsed, 4), "publish": round(publish, 4),
                        "queued": round(job.started - job.due, 4) if job.started else None}
        self.stage_ms = {**outcome.stage_ms, "diagnostics": round(1000 * publish, 2),
                         "total": round(1000 * (outcome.elapsed + publish), 2)}
        for feature in self.features:
            try:
                feature.on_checked(state)
            except Exception:
                log.exception("delivery hook failed")
        waiters, state.waiters = state.waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    def _publish(self, state: DocState) -> None:
        for feature in self.features:
            feature.on_result(state)
