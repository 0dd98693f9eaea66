"""Library attributes imported when first read: what a cold start leaves out stays reachable as usual."""

from __future__ import annotations

import sys
from typing import Any


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
