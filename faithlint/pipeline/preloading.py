"""Models loaded before the first check asks for them: the language server's cold start.

Without it the server loads its models only once the client has said hello and sent its settings, about a
second after the process starts, while pygls and spaCy import. OpenVINO and ONNX Runtime build their
sessions mostly without holding the GIL, so started with the process they load on the second core while
those imports run. Which models the workspace wants is not known yet, so the default settings' models are
loaded; the first check takes them when its settings load the same ones, and otherwise they are released.
The cyclic garbage collector makes no automatic pass until the preload ends (:func:`_pause_gc`).
"""

from __future__ import annotations

import atexit
import gc
import logging
import threading
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faithlint.config import Config

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_pending: _Preload | None = None
_dropped: Any = None  # a preloaded linter the first load did not take
_gc_paused: tuple[int, ...] | None = None  # the collector's thresholds before start() paused it


class _Preload:
    def __init__(self, config: Config | None) -> None:
        self.config = config
        self.linter: Any = None
        self.thread = threading.Thread(target=self._run, name="faithlint-preload", daemon=True)
        self.openvino = threading.Thread(target=_start_openvino, name="faithlint-openvino", daemon=True)

    def _run(self) -> None:
        """The checker on this thread, everything else the first check needs on another (:meth:`_rest`).

        The checker is the longest load, mostly OpenVINO compiling its graph without the GIL: it starts as soon
        as the settings are known, and the linter's modules import, the relevance model loads and the rules
        register while it compiles. One after the other on this thread, they kept the first check waiting
        0.3-0.7 s after spaCy and the server were ready (2 busy cores); beside it, the preload ends ~0.3 s after
        them, at ~25 MB more peak memory (another thread's allocations)."""
        try:  # the imports too: they hold the GIL, and this thread may start before the CLI has imported them
            from faithlint.config import Config
            from faithlint.models.checkers import openvino_checker
            from faithlint.pipeline.registry import checker_for, models_key

            # a server seals the compiled checker once its first checks are done, not beside its cold start
            openvino_checker.save_delay_s = SAVE_DELAY_S
            self.config = self.config or Config()
            rest: list[Any] = []
            other = threading.Thread(target=self._rest, args=(self.config, rest), name="faithlint-preload-rest",
                                     daemon=True)
            other.start()
            try:
                checker_for(models_key(self.config).checker)  # kept by the registry: the linter's checker
            finally:
                other.join()
            linter, error = rest
            if error is not None:
                raise error
            _ = linter.checker  # the one loaded above
            self.linter = linter
        except Exception as exc:  # the check that needs these models loads them again and reports the error
            log.info("preloading the default models failed: %s", exc)
        finally:
            self.openvino.join()  # over with this thread: wait() and take() cover it (no exit inside native code)
            _resume_gc()

    @staticmethod
    def _rest(config: Config, out: list[Any]) -> None:
        """The linter with its relevance model, its rules and (once spaCy has loaded) its value extractor:
        ``out`` gets [linter or None, error or None]."""
        try:
            from faithlint.pipeline.linter import Linter

            linter = Linter(config)
            _ = linter.relevance, linter.rules
            if linter.matches_values:
                _ = linter.values
            out[:] = [linter, None]
        except Exception as exc:  # noqa: BLE001 - handed to the preload thread, which logs it
            out[:] = [None, exc]


EXIT_WAIT_S = 30.0  # how long an exiting process waits for a preload it started (the models' native builds)
SAVE_DELAY_S = 5.0  # a preloading process (the language server) seals the compiled checker this long after its load


def start(config: Config | None = None) -> None:
    """Start loading ``config``'s models (the defaults) on a daemon thread, the spaCy pipeline on another (every
    check needs it) and OpenVINO on a third (:func:`_start_openvino`); one preload per process."""
    global _pending
    from faithlint.document.sentences import preload_spacy

    with _LOCK:
        if _pending is not None:
            return
        _pause_gc()
        preload_spacy()
        _pending = _Preload(config)
        _pending.openvino.start()
        _pending.thread.start()
        # a process that exits while the preload is inside a native build aborts ("terminate called without an
        # active exception", status -6): `faithlint serve` with bad arguments exits 2 right after starting it
        atexit.register(wait, EXIT_WAIT_S)


def _start_openvino() -> None:
    """OpenVINO imported and its CPU plugin started while the preload thread imports the settings and the registry:
    the checker's load (the last of the models to be ready) then begins with its graph."""
    try:
        from faithlint.models.checkers.openvino_core import cpu_plugin_problem

        cpu_plugin_problem()  # imports openvino, makes the process's Core, lists its devices (what picking asks)
    except Exception as exc:  # noqa: BLE001 - not installed or broken: the checker's load says so, or takes another
        log.debug("starting OpenVINO early failed: %s", exc)


def _pause_gc() -> None:
    """No automatic garbage collection while the models load (under ``_LOCK``; :func:`_resume_gc` restores it).

    The cyclic collector's passes during a cold start walk every object the imports and model loads have made so
    far, ~0.2-0.4 s of a language server's start (holding the GIL), and free next to nothing (about a thousand
    objects); reference counting frees the rest as usual. A threshold of 0, not ``gc.disable()``:
    srsly re-enables the collector after each msgpack it reads (spaCy's weights). A collector someone turned off
    stays off."""
    global _gc_paused
    if gc.isenabled() and _gc_paused is None:
        _gc_paused = gc.get_threshold()
        gc.set_threshold(0)


def _resume_gc() -> None:
    """The collector's thresholds back once the preload has ended, the objects so far frozen (the modules and models
    stay: later full passes need not walk them)."""
    global _gc_paused
    with _LOCK:
        paused, _gc_paused = _gc_paused, None
    if paused is not None:
        gc.freeze()
        gc.set_threshold(*paused)


def take(config: Config, key: Callable[[Config], Hashable]) -> Any | None:
    """The preloaded linter if ``config`` loads the same models (``key`` says which settings do), else None.

    Either way the preload is over, once its load has finished (a workspace with its own model waits for
    it, up to about a second). A linter for other models is dropped; :func:`settle` then releases its
    checker from the process's model cache unless the new linter uses the same one."""
    global _pending, _dropped
    with _LOCK:
        got, _pending = _pending, None
    if got is None:
        return None
    got.thread.join()  # the models are needed now either way (spaCy goes on loading on its own thread)
    if got.linter is not None and got.config is not None and key(got.config) == key(config):  # config set by then
        return got.linter
    _dropped = got.linter
    return None


def settle(used_checker: Any) -> None:
    """After the first load: release a dropped preload's checker unless it is ``used_checker``, so a workspace
    with its own model does not keep the default one in memory."""
    global _dropped
    with _LOCK:
        dropped, _dropped = _dropped, None
    checker = getattr(dropped, "_checker", None)
    if checker is not None and checker is not used_checker:
        from faithlint.pipeline.registry import release_checker

        release_checker(checker)


def wait(timeout: float) -> None:
    """Give a preload nobody took up to ``timeout`` seconds to finish (a server told to exit before its first
    check): a process that exits while a daemon thread is inside a native model build can abort."""
    got = _pending
    if got is not None:
        got.thread.join(timeout)
