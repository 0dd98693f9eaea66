"""The one rule registry: every place that needs to know the rules reads it.

Config validation (``select``/``ignore``/``[rules.X]``), SARIF rule metadata, the HTML report, the
watch summary, hovers and code actions all iterate :data:`RULES`, so a rule exists once: as a
:class:`~faithlint.rules.base.Rule` object registered here. Built-in rules register on first use;
third-party rules either call :func:`register` (before settings naming them are loaded) or are
found through the ``faithlint.rules`` entry-point group (the entry point names a ``Rule`` object).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points

from faithlint.config import Config, ContextKind, use_rules
from faithlint.errors import ConfigError
from faithlint.rules.base import Rule
from faithlint.rules.operating_point import OperatingPoint

BUILTIN = ("faithlint.rules.fl100_contradiction", "faithlint.rules.fl110_contradicted_claim",
           "faithlint.rules.fl200_unsupported", "faithlint.rules.fl210_unsupported_claim",
           "faithlint.rules.fl300_low_faithfulness", "faithlint.rules.fl400_absent_value",
           "faithlint.rules.fl410_record_attribute",
           "faithlint.rules.fl001_unused_suppression", "faithlint.rules.fl002_unknown_suppression_code")
ENTRY_POINT_GROUP = "faithlint.rules"
_CODE = re.compile(r"^[A-Z]{1,4}[0-9]{2,4}$")


class RuleRegistry(Mapping[str, Rule]):
    """Rules by code, in registration order (built-ins first), loaded lazily."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}
        self._loaded = False
        self._lock = threading.RLock()

    def _load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            self._loaded = True  # set first: a built-in that reads RULES while registering must not recurse
            for module in BUILTIN:
                self.register(importlib.import_module(module).RULE)
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                try:
                    rule = ep.load()
                    self.register(rule() if isinstance(rule, type) else rule)
                except Exception as exc:  # a broken plugin is named, not a traceback
                    raise ConfigError(f"rule plugin '{ep.name}' ({ep.value}): {type(exc).__name__}: {exc}") from None

    def register(self, rule: Rule, *, replace: bool = False) -> Rule:
        """Add ``rule``; its code must be new (``replace=True`` swaps a rule of the same code)."""
        if not isinstance(rule, Rule):
            raise TypeError(f"register() takes a faithlint.rules.Rule, not {type(rule).__name__}")
        if not _CODE.match(rule.code):
            raise ValueError(f"rule code {rule.code!r} must be 1-4 capital letters and 2-4 digits, like FL100")
        with self._lock:
            self._load()
            if rule.code in self._rules and not replace and self._rules[rule.code] is not rule:
                raise ValueError(f"rule code {rule.code} is already registered ({self._rules[rule.code].name})")
            self._rules[rule.code] = rule
        return rule

    def unregister(self, code: str) -> None:
        with self._lock:
            self._load()
            self._rules.pop(code, None)

    def __getitem__(self, code: str) -> Rule:
        self._load()
        return self._rules[code]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._rules))

    def __len__(self) -> int:
        self._load()
        return len(self._rules)

    def operating_point(self, config: Config, calibrated: Mapping[str, float] | None = None,
                        kind: ContextKind | None = None) -> OperatingPoint:
        """Every registered rule's threshold: configured (``rules.CODE.by_context`` for ``kind``, the kind of
        context checked against, else ``rules.CODE.threshold``), else ``calibrated``'s (the grounding model's
        point for that kind or the monitor's calibrated point; None: there is none), else the rule's default.

        In a calibrated point a rule it names no threshold for takes that of its ``calibrated_as`` rule (the
        claim rules take their sentence rules'), as that rule ends up configured or calibrated.
        """
        given = calibrated or {}
        out: dict[str, float] = {}
        follow: list[tuple[str, str, float]] = []
        for code, rule in self.items():
            threshold = rule.threshold
            if threshold is None:
                continue
            if calibrated is not None and threshold.calibrated_as is not None and code not in given:
                follow.append((code, threshold.calibrated_as, threshold.default))
            else:
                out[code] = config.threshold_for(code, given.get(code, threshold.default), kind)
        for code, other, default in follow:
            out[code] = config.threshold_for(code, out.get(other, default), kind)
        return OperatingPoint(out)


RULES = RuleRegistry()
register = RULES.register
use_rules(RULES)  # settings validate rule codes against this registry, plugins included
