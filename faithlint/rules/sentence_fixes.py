"""The fixes of a rule whose findings mark a whole sentence (``scope = "sentence"``): replace the sentence with
its evidence, or delete it. Display-only: offered in the editor, where a person picks one."""

from __future__ import annotations

import re
from typing import Any

from faithlint.rules.fix import Edit, FixTarget, Proposal, line_start, shorten


class ReplaceWithEvidence:
    """Replace an unsupported sentence with the evidence sentence that is closest to it."""

    id = "faithlint.replaceWithEvidence"

    def propose(self, target: FixTarget) -> list[Proposal]:
        quote = str(target.data.get("quote") or "").strip()
        if not quote or target.span("sentence") is None:
            return []
        return [Proposal(f"Replace the sentence with the evidence: \u201c{shorten(quote)}\u201d")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("sentence")
        assert span is not None
        return [Edit(span[0], span[1], " ".join(str(target.data.get("quote", "")).split()))]


_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)]|>)[ \t]*)*")


def sentence_deletion(text: str, start: int, end: int) -> Edit:
    """Remove a sentence and the spacing that separated it, so no double spaces or blank lines remain.

    A sentence that is all its line holds (after list markers or ``>``) takes the line with it,
    so no empty list item is left behind.
    """
    n = len(text)
    j = end
    while j < n and text[j] in " \t":
        j += 1
    i = start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if j < n and text[j] not in "\r\n":
        return Edit(start, j, "")  # "A. [B. ]C." -> "A. C."
    first = line_start(text, start)
    if not _LINE_PREFIX.fullmatch(text[first:start]):
        return Edit(i, j, "")  # "A.[ B.]\n"
    k = j
    if k < n and text[k] == "\r" and k + 1 < n and text[k + 1] == "\n":
        k += 2
    elif k < n:
        k += 1
    return Edit(first, k, "")


class DeleteSentence:
    id = "faithlint.deleteSentence"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.span("sentence") is None:
            return []
        return [Proposal("Delete the sentence")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("sentence")
        assert span is not None
        return [sentence_deletion(target.text, *span)]


SENTENCE_FIXES = (ReplaceWithEvidence(), DeleteSentence())
