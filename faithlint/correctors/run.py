"""One correction run over a prepared draft: what ``faithlint fix`` does per file (the CLI only prints and exits).

``method``: ``"rac"`` (:class:`~faithlint.correctors.rac.RACCorrector`) or ``"values"`` (the FL400 value swap
of ``check --fix``). Drafts are written only by :func:`write_corrected`, which refuses when the file no longer
holds the text the correction started from (the user edited it while the correction ran).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faithlint.errors import FaithlintError, InputError
from faithlint.fixes import Fix, fix_text, safe_fixes, write_fixed
from faithlint.types import DraftResult

METHODS = ("rac", "fod", "values")
MODEL_METHODS = ("rac", "fod")  # the methods that run a SentenceCorrector


def corrector_for(method: str, linter: Any) -> Any:
    """The :class:`~faithlint.correctors.base.SentenceCorrector` of ``method`` on ``linter``'s models and settings."""
    if method == "rac":
        from faithlint.correctors.rac import RACCorrector

        return RACCorrector(linter)
    if method == "fod":
        from faithlint.correctors.fod import FODCorrector

        return FODCorrector(linter)
    raise InputError(f"unknown correction method {method!r}; choose from {', '.join(MODEL_METHODS)}")


def non_overlapping(fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes in text order, each dropped that overlaps one kept before it."""
    chosen: list[Fix] = []
    for fx in fixes:
        a, b = fx.span
        if not any(a < y and x < b or a == b == x for x, y in (c.span for c in chosen)):
            chosen.append(fx)
    return sorted(chosen, key=lambda fx: fx.span)


def corrections(job: Any, result: DraftResult, method: str, rac: Any = None) -> tuple[list[Fix], str]:
    """The fixes chosen for a prepared draft (``result``: its check) and the corrected text."""
    if method == "rac":
        if rac is None:
            raise ValueError("method 'rac' needs a RACCorrector")
        fixes = rac.fixes(job.text, job.context, query=job.pairing.query, markdown=job.markdown)
    elif method == "values":
        fixes = safe_fixes(result)
    else:
        raise InputError(f"unknown correction method {method!r}; choose from {', '.join(METHODS)}")
    fixes = non_overlapping(fixes)
    return fixes, fix_text(job.text, fixes)


def write_corrected(path: Path, before: str, after: str, name: str) -> None:
    """Write a corrected draft, refusing (one line naming the file) when it changed since it was read."""
    from faithlint.context import read_text

    try:
        current = read_text(path, max_bytes=1 << 30)
    except (OSError, FaithlintError):
        current = None
    if current != before:
        raise InputError(f"{name}: the file changed while the correction ran; not written (run faithlint fix again)")
    write_fixed(path, before, after, name)
