"""What ``faithlint watch`` shows: a live rich table on a terminal, one plain line per event otherwise."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from faithlint.inputs.context import display_path
from faithlint.rules.registry import RULES
from faithlint.types import SEVERITY_RANK
from faithlint.watch.state import DraftState


class Display:
    """Live rich table on a terminal, one plain line per event otherwise (logs, CI, tests)."""

    def __init__(self, console: Any = None, live: bool | None = None) -> None:
        from rich.console import Console

        if console is None:
            console = Console(highlight=False, soft_wrap=True)
            if not console.is_terminal and "COLUMNS" not in os.environ:
                console.width = 160  # logs and pipes: don't fold paths at 80 columns
        self.console = console
        self.live_enabled = self.console.is_terminal if live is None else live
        self._live: Any = None
        self._table_source: Callable[[], Any] | None = None

    def start(self, table: Callable[[], Any]) -> None:
        self._table_source = table
        if self.live_enabled:
            from rich.live import Live

            self._live = Live(table(), console=self.console, refresh_per_second=4, transient=False,
                              redirect_stdout=False, redirect_stderr=False)
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            try:
                if self._table_source:
                    self._live.update(self._table_source(), refresh=True)
            finally:
                self._live.stop()
                self._live = None

    def refresh(self) -> None:
        if self._live is not None and self._table_source:
            self._live.update(self._table_source(), refresh=True)

    def log(self, message: str, style: str = "") -> None:
        from rich.text import Text

        line = Text(time.strftime("%H:%M:%S "), style="dim") + Text(message, style=style)
        (self._live.console if self._live is not None else self.console).print(line)

    def print(self, renderable: Any) -> None:
        self.console.print(renderable)


def worst(st: DraftState) -> int:
    """The highest severity rank among ``st``'s findings: -1 for none, 3 when it has no result."""
    if not st.result:
        return 3
    return max((SEVERITY_RANK.get(f.severity, 0) for f in st.result.findings), default=-1)


def severity_style(st: DraftState) -> str:
    """The rich style of ``st``'s line: by its worst finding, green when clean, bold red when it failed."""
    if st.error:
        return "bold red"
    return {2: "red", 1: "yellow", 0: "cyan"}.get(worst(st), "green")


def check_line(st: DraftState) -> str:
    """The one line logged after a check: ``ok`` or the findings per rule code, and the mean score."""
    r = st.result
    assert r is not None
    codes = Counter(f.code for f in r.findings)
    mean = _f(r.score.get("mean") if r.score else None)
    score = f", mean score {mean}" if mean else ""
    if not r.findings:
        return f"{st.display}: ok ({len(r.sentences)} sentences{score})"
    detail = ", ".join(f"{c} \u00d7{n}" for c, n in sorted(codes.items()))
    n = len(r.findings)
    return f"{st.display}: {n} finding{'s' if n != 1 else ''} ({detail}){score}"


def summary_table(drafts: Iterable[DraftState], display: Display, roots: Sequence[Path], once: bool) -> Any:
    """The summary: one row per draft (failed and worst first), a column per rule code."""
    from rich.table import Table
    from rich.text import Text

    states = sorted(drafts, key=lambda s: (s.error is None, -worst(s), s.display))
    findings = [f for s in states if s.result for f in s.result.findings]
    sev = Counter(f.severity for f in findings)
    errors = sum(1 for s in states if s.error)
    title = (f"faithlint watch \u00b7 {len(states)} draft{'s' if len(states) != 1 else ''} \u00b7 "
             f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({sev.get('error', 0)} errors, "
             f"{sev.get('warning', 0)} warnings, {sev.get('info', 0)} infos)"
             + (f" \u00b7 {errors} unreadable" if errors else ""))
    rule_codes = tuple(RULES)
    t = Table(title=title, title_justify="left", expand=False)
    longest = max((len(s.display) for s in states), default=5)
    t.add_column("draft", overflow="fold", min_width=min(longest, 60))
    t.add_column("status")
    t.add_column("mean", justify="right")
    t.add_column("min", justify="right")
    for code in rule_codes:
        t.add_column(code, justify="right")
    t.add_column("checked", justify="right")
    limit = max(5, (display.console.height or 30) - 10) if display.live_enabled else len(states)
    for s in states[:limit]:
        when = time.strftime("%H:%M:%S", time.localtime(s.checked_at)) if s.checked_at else ""
        if s.error or s.result is None:
            name = Text(s.display)
            if s.error:
                name.append("\n" + s.error.removeprefix(s.display + ": ")[:160], style="dim")
            t.add_row(name, "[bold red]error[/]", "", "", *("" for _ in rule_codes), when)
            continue
        codes = Counter(f.code for f in s.result.findings)
        sc = s.result.score or {}
        mean, mn = sc.get("mean"), sc.get("min")
        status = "[green]ok[/]" if not s.result.findings else f"[{severity_style(s)}]{len(s.result.findings)}[/]"
        t.add_row(Text(s.display), status, _f(mean), _f(mn), *(str(codes.get(c, "")) for c in rule_codes), when)
    if len(states) > limit:
        t.caption = f"\u2026 and {len(states) - limit} more"
    elif not once:
        t.caption = "watching " + ", ".join(display_path(r) for r in roots) + " \u00b7 Ctrl-C to stop"
    return t


def _f(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) and value == value else ""
