"""The one registry of output formats: every place that needs to know the formats reads it.

Each module of :mod:`faithlint.report` that is an output format registers itself here when imported
(``register(Format(name, render, help, ...))`` at its end); the registry imports every module of the package on
first use, so adding a format is adding one module. :func:`render` dispatches on the name, and the command
line's ``check --format`` takes its choices (in :attr:`Format.order`) from :func:`names`.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from faithlint.types import DraftResult

__all__ = ["Format", "Renderer", "formats", "get", "names", "register", "render"]


class Renderer(Protocol):
    """Results -> the report's whole text. ``color`` only matters to formats for a terminal; ``contexts`` (source ->
    the context file's text, which evidence offsets index) only to those with :attr:`Format.reads_contexts`."""

    def __call__(self, results: Sequence[DraftResult], *, color: bool = False,
                 contexts: Mapping[str, str] | None = None) -> str: ...


@dataclass(frozen=True)
class Format:
    """One output format: its ``--format`` name, its renderer and a one-line description (shell completion shows
    it beside the name). ``order`` places it among the choices; ``reads_contexts``: the renderer uses the context
    texts, so callers collect them (they cost memory for a whole batch)."""

    name: str
    render: Renderer
    help: str
    order: int = 100
    reads_contexts: bool = False


_FORMATS: dict[str, Format] = {}
_lock = threading.RLock()  # a format module that reads the registry while it loads must not deadlock
_loaded = False


def register(fmt: Format, *, replace: bool = False) -> Format:
    """Add ``fmt``; its name must be new (``replace=True`` swaps the format of the same name)."""
    if not fmt.name or not fmt.name.replace("-", "").isalnum():
        raise ValueError(f"format name {fmt.name!r} must be letters, digits and dashes")
    known = _FORMATS.get(fmt.name)
    if known is not None and known != fmt and not replace:
        raise ValueError(f"format {fmt.name!r} is already registered")
    _FORMATS[fmt.name] = fmt
    return fmt


def _load() -> None:
    """Import every module of the package once: each format module registers itself."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        import faithlint.report as package

        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
        _loaded = True


def formats() -> tuple[Format, ...]:
    """Every registered format, in their ``order`` (then by name)."""
    _load()
    return tuple(sorted(_FORMATS.values(), key=lambda f: (f.order, f.name)))


def names() -> tuple[str, ...]:
    """The names ``--format`` accepts, in order."""
    return tuple(f.name for f in formats())


def get(name: str) -> Format:
    """The format called ``name``; :class:`ValueError` naming the known ones if there is none."""
    _load()
    fmt = _FORMATS.get(name)
    if fmt is None:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(names())}")
    return fmt


def render(results: Sequence[DraftResult], fmt: str, *, color: bool = False,
           contexts: Mapping[str, str] | None = None) -> str:
    """Render ``results`` in the format called ``fmt`` (one of :func:`names`).

    ``color`` only affects ``text``. ``contexts`` (source -> context text) is optional and only used by formats
    that read it (``sarif``, ``html``: evidence locations with line numbers); results carry offsets alone.
    """
    return get(fmt).render(results, color=color, contexts=contexts)
