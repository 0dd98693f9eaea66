"""Models loaded before the first check (faithlint.pipeline.preloading) and spaCy imported without its CLI."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading

import pytest

from faithlint.config import Config
from faithlint.pipeline import linter as linter_module
from faithlint.pipeline import preloading, registry
from faithlint.server.app import Models

# a batch size no other test loads: its checker is a cache entry of its own, released without touching theirs
OWN = Config(batch_size=3)


@pytest.fixture(autouse=True)
def fresh_preload():
    preloading._pending = preloading._dropped = None
    yield
    preloading._pending = preloading._dropped = None


def cached(checker: object) -> bool:
    return any(v is checker for v in registry._CHECKERS.values())


def test_take_with_the_same_models_returns_the_loaded_linter():
    preloading.start(OWN)
    preloading.start(Config(batch_size=5))  # one preload per process: the second call does nothing
    # settings that load no other model (rules, thresholds) still take it
    got = preloading.take(OWN.model_copy(update={"ignore": ["FL300"]}), Models.key)
    assert got is not None and got.config is OWN
    assert got._checker is not None and got._relevance is not None  # loaded on the preload thread
    assert cached(got._checker)
    assert preloading.take(OWN, Models.key) is None  # taken once
    preloading.settle(got.checker)
    assert cached(got._checker)
    registry.release_checker(got._checker)


def test_other_models_drop_the_preload_and_release_its_checker():
    preloading.start(OWN)
    assert preloading.take(Config(batch_size=4), Models.key) is None
    dropped = preloading._dropped
    assert dropped is not None and cached(dropped._checker)
    preloading.settle(used_checker=object())
    assert not cached(dropped._checker) and preloading._dropped is None


@pytest.mark.parametrize("update", [{"max_length": 256}, {"checker": "llm"}, {"relevance": "lexical"}])
def test_settings_the_checker_was_built_with_must_match(update):
    preloading.start(OWN)
    assert preloading.take(OWN.model_copy(update=update), Models.key) is None
    dropped = preloading._dropped
    preloading.settle(used_checker=object())
    assert dropped is not None and not cached(dropped._checker)


def test_a_dropped_checker_the_new_linter_uses_is_kept():
    preloading.start(OWN)
    other = OWN.model_copy(update={"relevance": "lexical"})  # other models (relevance), the same checker
    assert preloading.take(other, Models.key) is None
    dropped = preloading._dropped
    preloading.settle(used_checker=dropped._checker)
    assert cached(dropped._checker)
    registry.release_checker(dropped._checker)


def test_a_failed_preload_leaves_the_load_to_the_check(monkeypatch):
    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no model here")

    monkeypatch.setattr(registry, "load_checker", fail)
    before = gc.get_threshold()
    preloading.start(OWN)
    assert preloading.take(OWN, Models.key) is None  # the check loads (and reports) it itself
    assert gc.get_threshold() == before  # the collector is back all the same


def test_spacy_imports_without_its_cli_and_the_cli_still_works():
    code = ("import sys; from faithlint.document.sentences import import_spacy; spacy = import_spacy(); "
            "assert 'spacy.cli' not in sys.modules and 'weasel' not in sys.modules and 'cli' not in vars(spacy); "
            "assert callable(spacy.cli.download) and spacy.cli is sys.modules['spacy.cli']; "  # imported when read
            "assert isinstance(spacy.info(), dict); import spacy.cli.info")
    subprocess.run([sys.executable, "-c", code], check=True)
    code = ("from faithlint.document.sentences import import_spacy; spacy = import_spacy(); "
            "assert isinstance(spacy.info(), dict)")  # spacy.info imports the real CLI when called
    subprocess.run([sys.executable, "-c", code], check=True)


def test_wait_lets_an_untaken_preload_finish():
    preloading.start(OWN)
    preloading.wait(60)  # what the server does when told to exit before its first check
    got = preloading._pending
    assert got is not None and not got.thread.is_alive() and got.linter is not None
    assert not got.openvino.is_alive()  # the OpenVINO start is over too: no exit inside its native code
    registry.release_checker(got.linter._checker)


def test_the_rest_loads_while_the_checker_loads_and_collection_pauses_till_the_end(monkeypatch):
    """The relevance model, the rules and the value extractor load beside the checker (not after it), and the
    cyclic collector makes no automatic pass until the preload has ended, whoever calls gc.enable() meanwhile."""
    release, relevance_loading = threading.Event(), threading.Event()
    load_checker, relevance_for = registry.load_checker, linter_module.relevance_for

    def blocked_checker(*args: object, **kwargs: object) -> object:
        release.wait(120)
        return load_checker(*args, **kwargs)

    def seen_relevance(*args: object, **kwargs: object) -> object:
        relevance_loading.set()
        return relevance_for(*args, **kwargs)

    monkeypatch.setattr(registry, "load_checker", blocked_checker)
    monkeypatch.setattr(linter_module, "relevance_for", seen_relevance)
    before = gc.get_threshold()
    preloading.start(OWN)
    try:
        assert relevance_loading.wait(120)  # while the checker is still loading
        assert gc.get_threshold()[0] == 0 and gc.isenabled()
        gc.enable()  # what srsly does after reading each of spaCy's weight files: still no automatic pass
        assert gc.get_threshold()[0] == 0
    finally:
        release.set()
    got = preloading.take(OWN, Models.key)
    assert gc.get_threshold() == before  # back once the preload ended
    assert got is not None and cached(got._checker) and got._relevance is not None and got._values is not None
    registry.release_checker(got._checker)


def test_openvino_starts_before_the_checker_load_asks_for_it():
    """`faithlint serve`'s preload imports OpenVINO and starts its CPU plugin on a thread of its own, so the
    checker's load (the last model ready) begins with its graph: seen in a fresh process with that load held."""
    code = """
import sys, threading, time
from faithlint.pipeline import preloading, registry
release = threading.Event()
def held(*args, **kwargs):
    release.wait(120)
    raise RuntimeError("held")
registry.load_checker = held
from faithlint.models.checkers import openvino_core
assert "openvino" not in sys.modules
preloading.start()
deadline = time.monotonic() + 120
while time.monotonic() < deadline and not openvino_core._core.cache_info().currsize:
    time.sleep(0.05)
assert openvino_core._core.cache_info().currsize == 1 and "openvino" in sys.modules, "no Core"
release.set()
preloading.wait(120)
"""
    pytest.importorskip("openvino")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
