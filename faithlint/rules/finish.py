"""The rules' last step on a draft: suppression comments, the warnings about them, the flagged words in messages.

Findings a comment silences are dropped; a comment code that silenced nothing is FL001 and one that no rule has
is FL002 (ruff's RUF100), themselves subject to ``select``/``ignore`` and to the comments. Every message then
starts with the draft's flagged words, quoted on one line (``“$25 million”: …``), as ruff names the offending
name, so a reader need not find the column by hand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from faithlint.document.markdown import line_of
from faithlint.rules.registry import RULES
from faithlint.types import Finding

if TYPE_CHECKING:
    from faithlint.config import Config
    from faithlint.document.markdown import Extracted
    from faithlint.document.suppressions import Directive

QUOTE_CHARS = 80  # a longer flagged range is cut with "…"


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``limit`` characters with "…", in quotes."""
    flat = re.sub(r"\s+", " ", text).strip()
    if len(flat) > limit:
        cut = flat[:limit - 1]
        space = cut.rfind(" ")
        flat = (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "\u2026"  # at a word's end
    return f"\u201c{flat}\u201d"


def _covers_own(code: str) -> bool:
    """Does a comment code cover FL001/FL002? Such a code may silence their warnings: never reported unused."""
    return any(own.startswith(code) for own in ("FL001", "FL002"))


def _comment_findings(directives: Sequence[Directive], used: set[tuple[int, str]], config: Config
                      ) -> list[tuple[Directive, Finding]]:
    """FL001/FL002 on the comments, each with the comment it is about."""
    out: list[tuple[Directive, Finding]] = []

    def warn(code: str, message: str, start: int, end: int) -> None:
        out.append((d, Finding(code, config.severity_for(code, RULES[code].severity), message, start, end)))

    for d in directives:
        if not d.codes:
            if d.kind != "enable" and (d.offset, "") not in used:
                warn("FL001", f"unused suppression: this faithlint-{d.kind} comment silenced no finding",
                     d.offset, d.end)
            continue
        for code, (a, b) in zip(d.codes, d.spans):
            rules = [c for c in RULES if c.startswith(code)]
            if not rules:
                warn("FL002", f"unknown rule code in faithlint-{d.kind}: no rule's code starts with {code}", a, b)
            elif (d.kind != "enable" and (d.offset, code) not in used and not _covers_own(code)
                  and any(config.rule_enabled(c) for c in rules)):
                warn("FL001", f"unused suppression: no {code} finding here for faithlint-{d.kind} to silence", a, b)
    return out


def finish(findings: Sequence[Finding], ex: Extracted, config: Config) -> list[Finding]:
    """The findings of a draft as reported: unsilenced, with FL001/FL002, quoted, in source order."""
    sup = ex.suppressions
    used: set[tuple[int, str]] = set()  # (comment offset, its code that matched; "" for a comment without codes)
    kept: list[Finding] = []
    for f in findings:
        hit = sup.suppressing(f.code, line_of(ex.source, f.start))
        if hit is None:
            kept.append(f)
        else:
            used.add((hit[0].offset, hit[1]))
    for d, f in _comment_findings(sup.directives, used, config):
        hit = sup.suppressing(f.code, line_of(ex.source, f.start))  # a comment does not silence its own warning
        if config.rule_enabled(f.code) and (hit is None or hit[0] is d):
            kept.append(f)
    for f in kept:
        f.message = f"{quoted(ex.source[f.start:f.end])}: {f.message}"
    kept.sort(key=lambda f: (f.start, f.code))
    return kept
