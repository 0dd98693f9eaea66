"""One correction run over a draft: what ``faithlint fix`` does per file or per ``--pairs`` line (the CLI only
prints and exits).

``method``: ``"rac"`` (:class:`~faithlint.fixes.correctors.rac.RACCorrector`), ``"fod"``
(:class:`~faithlint.fixes.correctors.fod.FODCorrector`), both run through the
:class:`~faithlint.fixes.correctors.base.SentenceCorrector` protocol, or ``"values"`` (the FL400 value swap of
``check --fix``). Drafts are written only by :func:`write_corrected`, which refuses when the file no longer
holds the text the correction started from (the user edited it while the correction ran).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faithlint.errors import FaithlintError, InputError
from faithlint.fixes.edits import Applicability, Fix, applicable_fixes, fix_text, write_fixed
from faithlint.types import ContextDoc, DraftResult

METHODS = ("rac", "fod", "values")
MODEL_METHODS = ("rac", "fod")  # the methods that run a SentenceCorrector


def corrector_for(method: str, linter: Any) -> Any:
    """The :class:`~faithlint.fixes.correctors.base.SentenceCorrector` of ``method`` on ``linter``'s models."""
    if method == "rac":
        from faithlint.fixes.correctors.rac import RACCorrector

        return RACCorrector(linter)
    if method == "fod":
        try:
            from faithlint.fixes.correctors.fod import FODCorrector
        except ImportError as exc:
            raise FaithlintError(f"--method fod is not available here ({exc})") from None

        return FODCorrector(linter)
    raise InputError(f"unknown correction method {method!r}; choose from {', '.join(MODEL_METHODS)}")


def non_overlapping(fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes in text order, each dropped that overlaps one kept before it (of alternatives for one
    sentence, offered best first, the best is kept)."""
    chosen: list[Fix] = []
    for fx in fixes:
        a, b = fx.span
        if not any(a < y and x < b or a == b == x for x, y in (c.span for c in chosen)):
            chosen.append(fx)
    return sorted(chosen, key=lambda fx: fx.span)


@dataclass
class Corrected:
    """One draft's correction: the chosen (non-overlapping) fixes, the corrected text and the corrector's notes."""

    fixes: list[Fix]
    text: str
    notes: list[str] = field(default_factory=list)


def correct_text(text: str, context: Sequence[ContextDoc], method: str, *, result: DraftResult | None = None,
                 corrector: Any = None, query: str | None = None, markdown: bool = True,
                 cancel: threading.Event | None = None, progress: Any = None) -> Corrected:
    """The correction of ``text`` by ``method``: ``corrector`` (a SentenceCorrector, for "rac" and "fod") or
    ``result`` (the text's check, for "values")."""
    notes: list[str] = []
    if method in MODEL_METHODS:
        if corrector is None:
            raise ValueError(f"method {method!r} needs a SentenceCorrector (corrector_for)")
        got = corrector.correct(text, context, query=query, markdown=markdown, cancel=cancel, progress=progress)
        fixes, notes = list(got.fixes), [str(n) for n in got.notes]
    elif method == "values":
        if result is None:
            raise ValueError("method 'values' needs the draft's check result")
        # asked for by name, shown as a diff, written only with --write
        fixes = applicable_fixes(result, Applicability.UNSAFE)
    else:
        raise InputError(f"unknown correction method {method!r}; choose from {', '.join(METHODS)}")
    fixes = non_overlapping(fixes)
    return Corrected(fixes, fix_text(text, fixes), notes)


def corrections(job: Any, result: DraftResult | None, method: str, corrector: Any = None, *,
                cancel: threading.Event | None = None, progress: Any = None) -> Corrected:
    """:func:`correct_text` for a prepared draft (``result``: its check)."""
    return correct_text(job.text, job.context, method, result=result, corrector=corrector,
                        query=job.pairing.query, markdown=job.markdown, cancel=cancel, progress=progress)


def fix_to_dict(fx: Fix) -> dict[str, Any]:
    """A fix as JSON (``fix --pairs`` output): edits in code points of the text it was made for."""
    return {"title": fx.title, "code": fx.code, "corrector": fx.corrector, "safe": fx.safe, "unsafe": fx.unsafe,
            **({"score": fx.score} if fx.score is not None else {}),
            "edits": [{"start": e.start, "end": e.end, "new_text": e.new_text} for e in fx.edits]}


def write_corrected(path: Path, before: str, after: str, name: str) -> None:
    """Write a corrected draft, refusing (one line naming the file) when it changed since it was read."""
    from faithlint.inputs.context import read_text

    try:
        current = read_text(path, max_bytes=1 << 30)
    except (OSError, FaithlintError):
        current = None
    if current != before:
        raise InputError(f"{name}: the file changed while the correction ran; not written (run faithlint fix again)")
    write_fixed(path, before, after, name)
