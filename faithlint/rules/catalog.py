"""The rule catalogue (kept for imports that predate :mod:`faithlint.rules.registry`)."""

from __future__ import annotations

from faithlint.rules.base import DOCS_URL, Rule
from faithlint.rules.registry import RULES

__all__ = ["DOCS_URL", "RULES", "Rule"]
