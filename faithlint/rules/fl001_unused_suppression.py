"""FL001 unused-suppression: a suppression comment, or one of its codes, that silenced no finding (ruff's RUF100).

Reported by :func:`faithlint.rules.finish.finish` once every other rule has run, on the code in the comment
(the whole comment when it names none). A code whose rules are all turned off is not reported: it silences
nothing in this run by choice, not by mistake.
"""

from __future__ import annotations

from faithlint.rules.base import Rule


class UnusedSuppression(Rule):
    code = "FL001"
    name = "unused-suppression"
    severity = "warning"
    summary = "A faithlint-disable comment, or one of its codes, silenced no finding: it can go."
    units = ()  # not a verdict on a unit: found from the draft's comments after the other rules


RULE = UnusedSuppression()
