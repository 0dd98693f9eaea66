"""What every model-running corrector (RAC, FOD) offers: one call from a draft to re-checked fixes.

The cheap correctors of :mod:`faithlint.fixes.edits` work from one finding's data while a menu opens; these run models
(a claim extractor, the checker, an LLM) and take seconds, so the caller (``faithlint fix``, the language
server) passes a cancel event and a progress callback, and says which part of the draft to correct.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from faithlint.errors import Cancelled
from faithlint.fixes.edits import Fix
from faithlint.rules.fl100_contradiction import Contradiction
from faithlint.rules.fl110_contradicted_claim import ContradictedClaim
from faithlint.rules.fl200_unsupported import Unsupported
from faithlint.rules.fl210_unsupported_claim import UnsupportedClaim
from faithlint.rules.fl400_absent_value import AbsentValue
from faithlint.types import ContextDoc, DraftResult, SentenceResult

# a candidate with one of these on its sentence is not offered
BLOCKING = (Contradiction.code, ContradictedClaim.code, Unsupported.code, UnsupportedClaim.code)
FLAGS = (*BLOCKING, AbsentValue.code)  # findings that make a sentence a correction target


class Progress(Protocol):
    def __call__(self, message: str, percentage: int | None = None) -> None: ...


@dataclass
class Corrections:
    """The re-checked fixes of one run, best first per sentence, and what the user should know (e.g. "no
    candidate passed τ2 = 0.85 (best 0.61)")."""

    fixes: list[Fix] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class SentenceCorrector(Protocol):
    """Corrects the flagged sentences of a draft (``within``: only those overlapping this code-point range)."""

    id: str
    title: str  # the editor's action title, e.g. "Correct from the context (RAC)"

    def correct(self, text: str, context: Sequence[ContextDoc], *, query: str | None = None, markdown: bool = True,
                within: tuple[int, int] | None = None, cancel: threading.Event | None = None,
                progress: Progress | None = None) -> Corrections: ...


def flag_codes(result: DraftResult, sentence: SentenceResult) -> list[str]:
    """The codes that make ``sentence`` a correction target (FLAGS findings starting in it), sorted."""
    return sorted({f.code for f in result.findings if f.code in FLAGS and sentence.start <= f.start < sentence.end})


def check_cancel(cancel: threading.Event | None) -> None:
    """Raise :class:`Cancelled` when the caller has set ``cancel`` (between model calls)."""
    if cancel is not None and cancel.is_set():
        raise Cancelled("the correction was cancelled")


def overlaps(start: int, end: int, within: tuple[int, int] | None) -> bool:
    """Whether the sentence ``[start, end)`` is one the caller asked to correct."""
    if within is None:
        return True
    a, b = within
    return start < b and a < end or start <= a < end or (a == b == start)
