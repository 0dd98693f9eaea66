"""FL410 record-attribute: the sentence says a record has (or lacks) a yes/no attribute that the record says it
lacks (or has).

Overviews written from structured records state many yes/no attributes in one sentence ("offers outdoor seating,
Wi-Fi and valet parking"); the checker reads such a sentence against a verbalised attribute list ("it has lot
parking and no garage, street, validated or valet parking") and passed most wrong ones: on RAGTruth's calibration
part 13 of the 34 labelled data-to-text sentences it missed were attribute conflicts (FL410 adds 11 flagged
sentences there, 10 of them labelled hallucinated). The record holds the answer
(:class:`~faithlint.types.RecordFlag`, from the verbaliser), so it is compared deterministically: a mention of the
attribute in the sentence (its aliases: "Wi-Fi"/"WiFi", "parking garage"/"garage parking"), its polarity in its
clause (a negation before it — "does not offer takeout or Wi-Fi" — or right after — "valet parking is not
available"), and the record's value. A clause that talks about the data or the reviews ("the data does not mention
parking", "reviewers praised the patio") is not judged, nor an attribute that the context's other text (its reviews)
also names: the claim may come from there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from faithlint.rules.base import Judged, Rule, RuleContext, RuleExample
from faithlint.rules.clauses import clauses
from faithlint.rules.fix import shorten
from faithlint.types import ContextDoc, Evidence, Finding, RecordFlag

_NEGATION = re.compile(r"\b(?:not|no|never|without|lacks?|lacking|neither|nor|none|unavailable|cannot)\b|n't\b",
                       re.IGNORECASE)
_NEGATED_AFTER = re.compile(r"\s*(?:(?:is|are|was|were)(?:\s+not|n't)\b|(?:not|unavailable)\b)", re.IGNORECASE)
_NEGATED_PREDICATE = re.compile(r"\b(?:is|are|was|were)(?:\s+not|n't)\b|\bnot\s+(?:available|offered|provided|"
                                r"allowed|accepted|an\s+option)\b|\bunavailable\b", re.IGNORECASE)
_VERB = re.compile(r"\b(?:has|have|had|offers?|offered|provides?|provided|includes?|features?|takes?|accepts?|"
                   r"allows?|serves?|boasts?|is|are|can|does|do)\b", re.IGNORECASE)
# clauses about the data or the reviews, not about the place
_ABOUT = re.compile(r"\b(?:information|mention\w*|specif\w*|data|details?|listed|indicat\w*|known|unclear|unsure|"
                    r"reviews?|reviewers?|praised?|complain\w*|said|says|noted|according|attributes?)\b",
                    re.IGNORECASE)
_LOT_OF = re.compile(r"\ba\s+lot\s+of\b|\blots\s+of\b", re.IGNORECASE)


def mention(clause: str, flag: RecordFlag) -> re.Match[str] | None:
    """The first place ``clause`` names ``flag`` (a parking flag only in a clause about parking)."""
    low = clause.lower()
    if flag.kind == "parking" and "park" not in low:
        return None
    for alias in flag.aliases:  # longest first
        m = re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", low)
        if m and not (flag.kind == "parking" and alias == "lot" and _LOT_OF.search(low)):
            return m
    return None


def asserted(clause: str, m: re.Match[str]) -> bool:
    """Whether the clause says the attribute is there: no negation before the mention ("not only" is none) and,
    where the mention is the clause's subject (no verb before it), no negated predicate after it ("garage parking
    and valet service are not available")."""
    before = re.sub(r"\bnot\s+only\b", "", clause[:m.start()], flags=re.IGNORECASE)
    after = clause[m.end():]
    if _NEGATION.search(before) or _NEGATED_AFTER.match(after):
        return False
    return bool(_VERB.search(before)) or not _NEGATED_PREDICATE.search(after)


def named_elsewhere(doc: ContextDoc, flag: RecordFlag) -> bool:
    """Does the context's text name the attribute outside the sentence that states it (in a review, say)?"""
    low = doc.text.lower()
    a, b = flag.statement
    for alias in flag.aliases:
        for m in re.finditer(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", low):
            if not (a <= m.start() < b):
                return True
    return False


class RecordAttribute(Rule):
    code = "FL410"
    name = "record-attribute"
    severity = "warning"
    summary = "The sentence gives a record a yes/no attribute that the record says the opposite of."
    scope = "span"
    explanation = """\
Where the context is a structured record (JSON, YAML, CSV) with yes/no attributes — `"OutdoorSeating": true`,
`"WiFi": "no"`, `"BusinessParking": {"garage": false, "lot": true}`, `"Ambience": {"romantic": false}`, columns like
`has_pool` — a sentence that gives the record one it lacks ("offers free Wi-Fi") or denies one it has ("does not
take reservations") is reported on the words that name the attribute, with the record's statement as evidence.
The comparison is deterministic: the attribute's usual names (`Wi-Fi` = `WiFi`, `parking garage` = `garage
parking`, `takeout` = `take-out`), its polarity within its clause (a negation before the mention, or `is not`
right after it; a clause ends at `but`, `while`, `;` and where a new verb phrase begins), and the record's value.
Not judged: clauses about the data or the reviews ("the data does not mention parking", "reviewers praised the
patio"), an attribute the context also names elsewhere (in a review: the sentence may repeat it), parking words in
a clause that is not about parking, and ambience words too loose to hold a draft to ("casual").
"""
    example = RuleExample(
        context='{"name": "Harbor Grill", "attributes": {"OutdoorSeating": false, "RestaurantsReservations": true}}',
        draft="Harbor Grill takes reservations and offers outdoor seating.", context_file="harbor.json")

    def check(self, judged: Judged, ctx: RuleContext) -> Iterable[Finding]:
        flags = [(doc, flag) for doc in ctx.context for flag in doc.flags]
        if not flags:
            return []
        r = judged.result
        out: list[Finding] = []
        for at, clause in clauses(r.text):
            if not clause.strip() or _ABOUT.search(clause):
                continue
            for doc, flag in flags:
                m = mention(clause, flag)
                if m is None or asserted(clause, m) == flag.value or named_elsewhere(doc, flag):
                    continue
                a, b = judged.unit.to_source(at + m.start(), at + m.end())
                said = clause[m.start():m.end()]
                stated = doc.text[flag.statement[0]:flag.statement[1]]
                start = flag.statement[0] + len(stated) - len(stated.lstrip())
                msg = (f"contradicted by the record ({flag.words}: {'yes' if flag.value else 'no'}): "
                       f"\u201c{shorten(stated.strip(), 120)}\u201d")
                finding = self.finding(ctx, judged, msg, a, b, value=said, kind="attribute",
                                       sentence=[r.start, r.end])
                finding.evidence = Evidence(doc.source, start, flag.statement[1], stated.strip())
                out.append(finding)
        return out


RULE = RecordAttribute()
