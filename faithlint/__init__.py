"""faithlint: a linter for generated text.

Checks a draft (an LLM answer, summary, report) against the context it came
from and marks every sentence the context does not support::

    import faithlint
    result = faithlint.check(draft_text, context=[source_text], query=None)
    for f in result.findings:
        print(f.code, f.start, f.end, f.message)

See :mod:`faithlint.api` (``check``, ``check_batch``, ``check_file``) and, to
swap pipeline stages, :class:`faithlint.pipeline.linter.Linter` and :mod:`faithlint.pipeline.stages`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faithlint.offline import go_offline
from faithlint.types import VERSION

go_offline()  # before any library faithlint loads reads its settings: no telemetry, no hub look-ups

__version__ = VERSION
__all__ = ["Config", "ContextDoc", "DraftResult", "Finding", "Linter", "Rule", "SentenceResult", "__version__",
           "check", "check_batch", "check_file", "register_rule", "to_dict"]

if TYPE_CHECKING:
    from faithlint.api import check, check_batch, check_file, to_dict
    from faithlint.config import Config
    from faithlint.pipeline.linter import Linter
    from faithlint.rules import Rule
    from faithlint.rules import register as register_rule
    from faithlint.types import ContextDoc, DraftResult, Finding, SentenceResult

_LAZY = {"Linter": ("faithlint.pipeline.linter", "Linter"), "check": ("faithlint.api", "check"),
         "check_batch": ("faithlint.api", "check_batch"), "check_file": ("faithlint.api", "check_file"),
         "to_dict": ("faithlint.api", "to_dict"),
         "Config": ("faithlint.config", "Config"), "Rule": ("faithlint.rules", "Rule"),
         "register_rule": ("faithlint.rules", "register"),
         **{n: ("faithlint.types", n) for n in ("ContextDoc", "DraftResult", "Finding", "SentenceResult")}}


def __getattr__(name: str) -> Any:  # lazy: `import faithlint` must not load torch
    if name not in _LAZY:
        raise AttributeError(name)
    import importlib

    module, attr = _LAZY[name]
    if name == "Config":  # settings name rules, plugins' too: their registry is in use before any is validated
        importlib.import_module("faithlint.rules.registry")
    return getattr(importlib.import_module(module), attr)
