"""Parts of libraries left out of their first import (a shorter cold start), and reachable as usual afterwards."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def hidden(name: str) -> Iterator[None]:
    """Inside the block ``import <name>`` raises ImportError, so a library that tolerates its absence imports
    without it; afterwards it imports as usual. A module already imported is left alone."""
    if name in sys.modules:
        yield
        return
    sys.modules[name] = None  # type: ignore[assignment]  # makes its import raise ImportError
    try:
        yield
    finally:
        if sys.modules.get(name, 0) is None:
            del sys.modules[name]


# held while spaCy's first import hides torch (faithlint.document.sentences.import_spacy) and while torch first imports:
# a model loading on another thread (Linter.load_models) that imported torch inside that window got ImportError
TORCH_LOCK = threading.Lock()


def import_torch() -> Any:
    """``import torch``, after any import that hides it has finished. Raises ImportError like ``import torch``."""
    with TORCH_LOCK:
        import torch
    return torch


def lazy_submodule(package: Any, name: str, imports: str | None = None) -> None:
    """``package.<name>`` imports that submodule (or ``imports``, a module below it) when first read (PEP 562), as
    if the package had imported it itself."""
    if "__getattr__" in vars(package):
        return
    full = f"{package.__name__}.{name}"

    def __getattr__(attr: str) -> Any:  # noqa: N807 - the module attribute hook
        if attr == name:
            import importlib

            importlib.import_module(imports or full)
            return sys.modules[full]
        raise AttributeError(f"module {package.__name__!r} has no attribute {attr!r}")

    package.__getattr__ = __getattr__
