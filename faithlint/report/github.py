"""``--format github``: GitHub Actions workflow commands (``::error file=...,line=...::message``), which the
runner turns into annotations on the pull request's diff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from faithlint.document.positions import LineIndex
from faithlint.report.records import span
from faithlint.report.registry import Format, register
from faithlint.rules.registry import RULES
from faithlint.types import DraftResult

_GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _gh_escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_property(value: str) -> str:
    return _gh_escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _rule_name(code: str) -> str:
    return RULES[code].name if code in RULES else code.lower()


def render_github(results: Sequence[DraftResult], *, color: bool = False,
                  contexts: Mapping[str, str] | None = None) -> str:
    out = []
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = result.path if result.path is not None else result.id
        for f in result.findings:
            line, col, end_line, end_col = span(index, f)
            props = [] if name is None else [f"file={_gh_escape_property(name)}"]
            props += [f"line={line}", f"endLine={end_line}", f"col={col}", f"endColumn={end_col}",
                      f"title={_gh_escape_property(f'{f.code} {_rule_name(f.code)}')}"]
            command = _GITHUB_COMMAND.get(f.severity, "warning")
            out.append(f"::{command} {','.join(props)}::{_gh_escape_data(f.message)}")
    return "".join(line + "\n" for line in out)


register(Format("github", render_github, "GitHub Actions workflow commands: annotations on the pull request",
                order=50))
