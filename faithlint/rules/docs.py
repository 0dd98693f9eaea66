"""A rule's documentation, read from the registry: what ``faithlint rule CODE`` prints, and docs/rules.md's rule
sections, which are generated from it (``python -m faithlint.rules.docs docs/rules.md``), so a rule is documented
once, beside its code, and the offline help cannot drift from the web page.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from faithlint.rules.base import Rule

BEGIN = ("<!-- begin: rule sections, generated from the rule registry by "
         "`python -m faithlint.rules.docs docs/rules.md` -->")
END = "<!-- end: rule sections -->"
SUPPRESSIONS = (("<!-- faithlint-disable-next-line {code} -->", "on the line before: the next line"),
                ("<!-- faithlint-disable-line {code} -->", "at the end of the line it applies to"),
                ("<!-- faithlint-disable {code} -->", "from here on, until <!-- faithlint-enable {code} -->"))
_MODEL_DIR = Path(__file__).resolve().parents[1] / "models" / "default"  # the bundled checker (checkers.nli)


@cache
def grounded_thresholds() -> dict[str, float]:
    """The thresholds calibrated for the bundled checker's grounding (its ``grounding.json``): the defaults while
    ``grounding = "on"`` (the default); the rules' own ``threshold`` applies with grounding off."""
    from faithlint.evidence.grounding import GroundingModel

    model = GroundingModel.load(_MODEL_DIR)
    return dict(model.thresholds) if model is not None else {}


def default_threshold(rule: Rule) -> str | None:
    """``0.6 with grounding (the default), 0.7 without``, or one number where both are the same."""
    if rule.threshold is None:
        return None
    default = rule.threshold.default
    grounded = grounded_thresholds().get(rule.code)
    if grounded is None or grounded == default:
        return f"{default:g}"
    return f"{grounded:g} with grounding (the default), {default:g} without"


def units(rule: Rule) -> str:
    if not rule.units:  # FL001/FL002: found from the draft's suppression comments once the other rules have run
        return "suppression comments"
    return "claims (with unit = \"claim\" or \"both\")" if "sentence" not in rule.units else "sentences"


def heading(rule: Rule) -> str:
    """The first line of a rule's section in docs/rules.md: name, default severity, threshold."""
    parts = [f"default severity: {rule.severity}"]
    if (threshold := default_threshold(rule)) is not None and rule.threshold is not None:
        on = rule.threshold.on
        parts.append(f"`threshold`{' on ' + on if on else ''}, default {threshold}")
    return f"**{rule.name}** ({'; '.join(parts)})."


def _example(rule: Rule, indent: str) -> list[str]:
    ex = rule.example
    if ex is None:
        return []
    label = f"context ({ex.context_file})" if ex.context_file else "context"
    out = [f"{indent}{label}: {ex.context}", f"{indent}draft:{' ' * (len(label) - 4)}{ex.draft}"]
    if ex.settings:
        out.append(f"{indent}with:    " + ", ".join(f"{k} = {_toml(v)}" for k, v in ex.settings.items()))
    return out


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def markdown(rule: Rule) -> str:
    """The rule's section of docs/rules.md."""
    out = [f"## {rule.code}", "", heading(rule), "", rule.explanation.strip()]
    if rule.example is not None:
        out += ["", "Example:", "", "```text", *_example(rule, ""), "```"]
    return "\n".join(out) + "\n"


def markdown_all(rules: list[Rule]) -> str:
    return "\n".join([BEGIN, "", *(markdown(r) for r in rules), END]) + "\n"


def text(rule: Rule, here: str | None = None) -> str:
    """What ``faithlint rule CODE`` prints: the documentation, how to configure the rule and suppress it.
    ``here``: a line on what the settings in effect in the current folder make of the rule."""
    out = [f"{rule.code} {rule.name}", "", rule.summary, "", f"Default severity: {rule.severity}"]
    if (threshold := default_threshold(rule)) is not None and rule.threshold is not None:
        on = f"; compared with {rule.threshold.on}" if rule.threshold.on else ""
        out.append(f"Threshold:        {threshold}{on}")
    out.append(f"Judges:           {units(rule)}")
    if here:
        out.append(f"Here:             {here}")
    out += ["", rule.explanation.strip()]
    if rule.example is not None:
        out += ["", "Example:", *_example(rule, "  ")]
    out += ["", "Configure (faithlint.toml, or [tool.faithlint] in pyproject.toml):",
            f"  [rules.{rule.code}]", '  severity = "warning"    # error, warning or info']
    if rule.threshold is not None:
        out.append(f"  threshold = {grounded_thresholds().get(rule.code, rule.threshold.default):g}")
    out += ["", f"Turn it off with ignore = [\"{rule.code}\"] or --ignore {rule.code}; check only it with "
            f"select = [\"{rule.code}\"] or --select {rule.code}"
            + ("." if rule.code.startswith("FL") else " (rules outside FL are off until selected)."),
            "", "Suppress in a draft (HTML comments, invisible in rendered Markdown):"]
    width = max(len(c.format(code=rule.code)) for c, _ in SUPPRESSIONS)
    out += [f"  {c.format(code=rule.code):<{width}}  {what.format(code=rule.code)}" for c, what in SUPPRESSIONS]
    out += ["", f"Documentation: {rule.url}"]
    return "\n".join(out) + "\n"


def as_dict(rule: Rule) -> dict[str, Any]:
    """The documentation as JSON (``faithlint rule --output-format json``)."""
    ex = rule.example
    return {"code": rule.code, "name": rule.name, "summary": rule.summary, "severity": rule.severity,
            "threshold": rule.threshold and rule.threshold.default,
            "grounded_threshold": grounded_thresholds().get(rule.code),
            "threshold_on": rule.threshold and rule.threshold.on or None,
            "units": list(rule.units), "scope": rule.scope,
            "explanation": rule.explanation.strip(),
            "example": None if ex is None else {"context": ex.context, "draft": ex.draft, "settings": ex.settings,
                                                "context_file": ex.context_file or None},
            "suppress": [c.format(code=rule.code) for c, _ in SUPPRESSIONS], "url": rule.url}


def table(rules: list[Rule]) -> str:
    """``faithlint rule``: one line per rule (code, name, default severity, summary)."""
    name = max((len(r.name) for r in rules), default=4)
    return "".join(f"{r.code:<6} {r.name:<{name}}  {r.severity:<7}  {r.summary}\n" for r in rules)


def update(path: Path, rules: list[Rule]) -> bool:
    """Rewrite the generated part of ``path`` (docs/rules.md); True when it changed."""
    old = path.read_text(encoding="utf-8")
    start, end = old.index(BEGIN), old.index(END) + len(END) + 1
    new = old[:start] + markdown_all(rules) + old[end:]
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old


if __name__ == "__main__":  # python -m faithlint.rules.docs docs/rules.md
    from faithlint.rules.registry import RULES

    changed = update(Path(sys.argv[1]), list(RULES.values()))
    print(f"{sys.argv[1]}: {'updated' if changed else 'up to date'}", file=sys.stderr)
