"""FL002 unknown-suppression-code: a code in a suppression comment that no rule has (``FL201``, a typo).

Reported by :func:`faithlint.rules.finish.finish` on the code in the comment: such a code silences nothing,
so the finding it was meant for still shows, or the comment is left over.
"""

from __future__ import annotations

from faithlint.rules.base import Rule, RuleExample


class UnknownSuppressionCode(Rule):
    code = "FL002"
    name = "unknown-suppression-code"
    severity = "warning"
    summary = "A code in a faithlint-disable/enable comment is no rule's code nor a prefix of one."
    units = ()  # not a verdict on a unit: found from the draft's comments after the other rules
    explanation = """\
A code in a suppression comment that no rule has, nor a prefix of one (`FL201`, `FL5`, a word such as `because`:
put a reason after `--`, `<!-- faithlint-disable FL200 -- quoted from the press release -->`). Such a code
silences nothing, so a finding it was meant to silence still shows. Ranged over the code in the comment.
"""
    example = RuleExample(context="The library reopened on March 4, 2024, after an 18-month renovation.",
                          draft="The library reopened in March 2024. <!-- faithlint-disable-line FL201 -->")


RULE = UnknownSuppressionCode()
