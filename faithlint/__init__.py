"""faithlint: a linter for generated text.

Checks a draft (an LLM answer, summary, report) against the context it came
from and marks every sentence the context does not support::

    from faithlint import Linter, ContextDoc
    result = Linter().check(draft_text, [ContextDoc("source.md", source_text)])
    for f in result.findings:
        print(f.code, f.start, f.end, f.message)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ContextDoc", "DraftResult", "Finding", "Linter", "SentenceResult", "__version__"]

if TYPE_CHECKING:
    from faithlint.linter import Linter
    from faithlint.types import ContextDoc, DraftResult, Finding, SentenceResult


def __getattr__(name: str) -> Any:  # lazy: `import faithlint` must not load torch
    if name == "Linter":
        from faithlint.linter import Linter

        return Linter
    if name in {"ContextDoc", "DraftResult", "Finding", "SentenceResult"}:
        from faithlint import types

        return getattr(types, name)
    raise AttributeError(name)
