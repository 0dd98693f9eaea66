"""The model registry: which settings choose the models, and one loaded checker per process and settings.

:func:`models_key` is the one place that says which settings load models. The
:class:`~faithlint.pipeline.linter.Linter` reloads a model when its part of the key changes between checks; the
language server, ``faithlint check``/``fix`` and the watcher keep one linter per key and hand it each draft's
config with the check. :func:`load_checker` keeps the loaded checkers: batch runs, tests and the server share them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from faithlint.cache.disk import compile_cache
from faithlint.evidence.grounding import GroundingModel
from faithlint.evidence.relevance import load_relevance
from faithlint.lazy_imports import import_torch
from faithlint.models.checkers.base import Checker

if TYPE_CHECKING:
    from faithlint.config import Config

LLMSettings = tuple[str | None, str | None, str | None, str]  # llm_model, llm_endpoint, llm_endpoint_model, key env


class CheckerSettings(NamedTuple):
    """What :func:`load_checker` is called with."""

    model: str | None
    device: str
    max_length: int
    batch_size: int
    precision: str
    llm: LLMSettings | None  # checker = "llm": the LLM checker on the claim extractor's model
    runtime: str
    threads: int
    compile_cache: str | None = None  # OpenVINO's compiled-model folder (``cache_dir``; None: off)


class RelevanceSettings(NamedTuple):
    """What :func:`faithlint.evidence.relevance.load_relevance` is called with."""

    kind: str
    runtime: str
    threads: int


class ModelsKey(NamedTuple):
    """The settings that choose the models: the checker, the relevance model and the monitor (None: off)."""

    checker: CheckerSettings
    relevance: RelevanceSettings
    monitor: tuple[str, str | None] | None  # (surrogate, monitor_model)

    @property
    def model(self) -> str:
        """The checker's model as the server's status names it."""
        return self.checker.model or "default"


def models_key(config: Config) -> ModelsKey:
    """Which models ``config`` loads; configs with equal keys can share one linter (each check takes its config)."""
    c = config
    llm = (c.llm_model, c.llm_endpoint, c.llm_endpoint_model, c.llm_api_key_env) if c.checker == "llm" else None
    monitor = (c.surrogate or "default", c.monitor_model) if c.monitor == "on" else None
    return ModelsKey(CheckerSettings(c.model, c.device, c.max_length, c.batch_size, c.precision, llm, c.runtime,
                                     c.threads, compile_cache(c.cache_dir)),
                     RelevanceSettings(c.relevance, c.runtime, c.threads), monitor)


_CHECKERS: dict[tuple, Any] = {}
_CHECKERS_LOCK = threading.Lock()


def release_checker(checker: Any) -> None:
    """Drop ``checker`` from the process's model cache (:func:`load_checker`); it is freed with its last user."""
    with _CHECKERS_LOCK:
        for key in [k for k, v in _CHECKERS.items() if v is checker]:
            del _CHECKERS[key]


def checker_for(settings: CheckerSettings) -> Checker:
    """:func:`load_checker` with the settings :func:`models_key` names."""
    return load_checker(**settings._asdict())


def relevance_for(settings: RelevanceSettings) -> Any:
    """:func:`~faithlint.evidence.relevance.load_relevance` with the settings :func:`models_key` names."""
    return load_relevance(*settings)


def load_checker(model: str | None, device: str, max_length: int, batch_size: int,
                 precision: str = "auto", llm: LLMSettings | None = None,
                 runtime: str = "auto", threads: int = 0, compile_cache: str | None = None) -> Any:
    """One loaded model per process and settings: batch runs, tests and the server share it.

    ``llm``: (llm_model, llm_endpoint, llm_endpoint_model, llm_api_key_env) for ``checker = "llm"``: the LLM
    checker on the claim extractor's model instead of the NLI model. ``runtime``: where the NLI model runs
    (:func:`faithlint.models.checkers.onnx_checker.pick_runtime`: OpenVINO, else ONNX Runtime, for the bundled model on
    the CPU; the torch path for Hugging Face ids and CUDA); ``threads``: intra-op threads (0: auto);
    ``compile_cache``: where OpenVINO keeps the graph it compiled (None: compile at every load)."""
    from faithlint.models.checkers import nli
    from faithlint.models.checkers.onnx_checker import ONNXChecker, pick_runtime, resolve_threads, threads_requested
    from faithlint.models.checkers.openvino_checker import OpenVINOChecker

    if llm is not None:
        key: tuple = ("llm", device, *llm)
        with _CHECKERS_LOCK:
            if key not in _CHECKERS:
                from faithlint.claims.llm import llm_extractor
                from faithlint.models.checkers.llm_checker import LLMChecker

                _CHECKERS[key] = LLMChecker(llm_extractor(llm[0], device, *llm[1:]).generator)
            return _CHECKERS[key]
    kind = pick_runtime(runtime, model, device, precision)
    key = (model, device, max_length, batch_size, precision, kind, threads, compile_cache)
    with _CHECKERS_LOCK:
        if key not in _CHECKERS:
            if kind == "openvino":
                _CHECKERS[key] = OpenVINOChecker(model, max_length=max_length, batch_size=batch_size,
                                                 precision=precision, threads=threads, compile_cache=compile_cache)
            elif kind == "onnx":
                _CHECKERS[key] = ONNXChecker(model, max_length=max_length, batch_size=batch_size, precision=precision,
                                             threads=threads)
            else:
                if threads_requested(threads):  # set by the user: the torch path honours it too
                    import_torch().set_num_threads(resolve_threads(threads))
                _CHECKERS[key] = nli.NLIChecker(model, device=device, max_length=max_length, batch_size=batch_size,
                                                quantize=None if precision == "auto" else precision)
            path = Path(nli.resolve_model(model)[0])  # the grounding fitted for these weights lives beside them
            _CHECKERS[key].grounding = GroundingModel.load(path) if path.is_dir() else None
        return _CHECKERS[key]
