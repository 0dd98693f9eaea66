"""Clauses of a sentence: where a claim about a record's attribute (FL410) or its gaps starts and ends."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["clauses"]

# a clause ends where a contrast or a new verb phrase begins; negation does not cross it
_CLAUSE = re.compile(
    r"[;:]|,?\s+(?:but|while|whereas|although|though|yet)\s+|,\s*however,?\s+|"
    r",\s+(?=(?:they|it|there|the\s+\w+|customers|guests|visitors|diners|patrons)\s)|"
    r",?\s+and\s+(?=(?:[\w-]+\s+){0,3}?(?:also\s+)?(?:has|have|offers?|provides?|is|are|takes?|accepts?|allows?|"
    r"features?|includes?)\b)", re.IGNORECASE)
# a sentence that opens with a subordinate clause ("While it has no Wi-Fi, ...") ends that clause at its comma
_OPENER = re.compile(r"\s*(?:while|although|though|whereas|despite|since)\b[^,;]*,", re.IGNORECASE)


def clauses(text: str) -> Iterator[tuple[int, str]]:
    """(offset, clause) pieces of a sentence at contrasts, new verb phrases and after an opening subordinate
    clause."""
    at = 0
    if opener := _OPENER.match(text):
        yield 0, text[:opener.end() - 1]
        at = opener.end()
    for m in _CLAUSE.finditer(text, at):
        yield at, text[at:m.start()]
        at = m.end()
    yield at, text[at:]
