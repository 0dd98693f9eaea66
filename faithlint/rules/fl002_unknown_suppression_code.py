"""FL002 unknown-suppression-code: a code in a suppression comment that no rule has (``FL201``, a typo).

Reported by :func:`faithlint.rules.finish.finish` on the code in the comment: such a code silences nothing,
so the finding it was meant for still shows, or the comment is left over.
"""

from __future__ import annotations

from faithlint.rules.base import Rule


class UnknownSuppressionCode(Rule):
    code = "FL002"
    name = "unknown-suppression-code"
    severity = "warning"
    summary = "A code in a faithlint-disable/enable comment is no rule's code nor a prefix of one."
    units = ()  # not a verdict on a unit: found from the draft's comments after the other rules


RULE = UnknownSuppressionCode()
