"""``--format text`` (the default): one finding per line, ``path:line:col: CODE [severity] message``, then a
summary line; coloured for a terminal when asked."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping, Sequence

from faithlint.document.positions import LineIndex
from faithlint.report.records import display_name, span, summarize
from faithlint.report.registry import Format, register
from faithlint.types import DraftResult, Finding

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _one_line(message: str) -> str:
    """Keep one finding per output line so ``grep``/editors can parse the text format."""
    return re.sub(r"\s*(?:\r\n|\r|\n)\s*", " ", message)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _summary_line(results: Sequence[DraftResult]) -> str:
    s = summarize(results)
    sev = s["by_severity"]
    if not s["findings"]:
        return f"All checked sentences are supported ({_plural(s['drafts'], 'draft')})."
    return (f"Found {_plural(s['findings'], 'finding')} ({_plural(sev['error'], 'error')}, "
            f"{_plural(sev['warning'], 'warning')}, {_plural(sev['info'], 'info')}) "
            f"in {_plural(s['drafts'], 'draft')}.")


def _text_rows(results: Sequence[DraftResult]) -> Iterable[tuple[str, int, int, Finding]]:
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = display_name(result)
        for finding in result.findings:
            line, column, _, _ = span(index, finding)
            yield name, line, column, finding


def render_text(results: Sequence[DraftResult], *, color: bool = False,
                contexts: Mapping[str, str] | None = None) -> str:
    if not color:
        lines = [f"{name}:{line}:{col}: {f.code} [{f.severity}] {_one_line(f.message)}"
                 for name, line, col, f in _text_rows(results)]
        lines.append(_summary_line(results))
        return "\n".join(lines) + "\n"

    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="standard", width=10_000,
                      highlight=False, soft_wrap=True, emoji=False)
    for name, line, col, f in _text_rows(results):
        style = _SEVERITY_STYLE.get(f.severity, "")
        # Text.assemble treats the message literally, so "[...]" in messages is not rich markup.
        console.print(Text.assemble((name, "bold"), f":{line}:{col}: ", (f.code, style), " ",
                                    (f"[{f.severity}]", style), " ", _one_line(f.message)))
    s = summarize(results)
    console.print(Text(_summary_line(results), style="bold red" if s["by_severity"]["error"]
                       else ("bold yellow" if s["findings"] else "bold green")))
    return buf.getvalue()


register(Format("text", render_text, "one finding per line, path:line:col: CODE [severity] message, for logs and "
                "terminals (the default)", order=10))
