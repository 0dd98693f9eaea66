"""Lint rules: one object each, in one registry (:data:`RULES`).

Add a rule by writing one module with a :class:`Rule` subclass and registering an instance
(``faithlint.rules.register(MyRule())`` or a ``faithlint.rules`` entry point); see
docs/architecture.md.
"""

from faithlint.rules.base import Judged, Rule, RuleContext
from faithlint.rules.operating_point import OperatingPoint, Threshold
from faithlint.rules.registry import RULES, register

__all__ = ["RULES", "Judged", "OperatingPoint", "Rule", "RuleContext", "Threshold", "register"]
