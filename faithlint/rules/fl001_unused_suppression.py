"""FL001 unused-suppression: a suppression comment, or one of its codes, that silenced no finding (ruff's RUF100).

Reported by :func:`faithlint.rules.finish.finish` once every other rule has run, on the code in the comment
(the whole comment when it names none). A code whose rules are all turned off is not reported: it silences
nothing in this run by choice, not by mistake.
"""

from __future__ import annotations

from faithlint.rules.base import Rule, RuleExample


class UnusedSuppression(Rule):
    code = "FL001"
    name = "unused-suppression"
    severity = "warning"
    summary = "A faithlint-disable comment, or one of its codes, silenced no finding: it can go."
    units = ()  # not a verdict on a unit: found from the draft's comments after the other rules
    explanation = """\
A `faithlint-disable`, `-next-line` or `-line` comment, or one of its codes, silenced no finding in this run: the
sentence it was written for is no longer flagged (the draft or the context changed, or the checker now supports
it), so the comment can go. Ranged over the code in the comment, or over the whole comment when it names no code.
A code whose rules are all turned off in this run (`select`/`ignore`, `--select`) is not reported, nor one that
covers FL001/FL002 themselves (`FL`, `FL0`). Silence it like any rule: `<!-- faithlint-disable-next-line FL001
-->` above the comment, or `ignore = ["FL001"]`.
"""
    example = RuleExample(context="The library reopened on March 4, 2024, after an 18-month renovation.",
                          draft="The library reopened in March 2024. <!-- faithlint-disable-line FL200 -->")


RULE = UnusedSuppression()
