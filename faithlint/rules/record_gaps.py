"""Gaps in a record: sentences that say the data does not state something, checked against the record.

Overviews written from a record often say what it leaves out: "Reservations are not mentioned in the data.",
"The structured data does not provide information about parking, WiFi or music." An NLI checker reads such a
sentence as a claim about the business and doubts it: on RAGTruth's training and calibration overviews four of
the five such sentences it flagged were faithful. A record can settle them: the sentence is right when the
record's own statements (its verbalisation without free text such as reviews, and without the values it gives
as "not given") name none of the things the sentence says are missing. Then FL100/FL200 do not report it; when
the record does name one ("hours are not provided" beside a record with opening hours), the checker's verdict
stands. A sentence that also claims something else ("They are good for groups, but there is no mention of a
children's menu") is judged as usual. ``check_boilerplate = true`` judges all of them again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from faithlint.rules.clauses import clauses
from faithlint.rules.common_ground import STOP_WORDS, stem
from faithlint.types import ContextDoc

__all__ = ["says_record_lacks"]

# "... is not mentioned", "does not specify", "no information about", "unclear whether"
_GAP = re.compile(r"""(?ix)
    \b(?:is|are|was|were)\s+not\s+(?:specifically\s+|explicitly\s+)?(?:specified|mentioned|provided|given|listed|
        indicated|stated|disclosed|included)\b
  | \b(?:do|does|did)(?:\s+not|n't|n’t)\s+(?:specify|mention|state|indicate|list|disclose)\b
  | \b(?:do|does|did)(?:\s+not|n't|n’t)\s+(?:provide|give|include|have|offer|contain)\s+(?:any\s+)?(?:specific\s+)?
        (?:information|details|data|mention)\b
  | \bno\s+(?:specific\s+|explicit\s+)?(?:information|details|mention|data|indication)\b
  | \bunspecified\b
  | \b(?:unclear|unknown|not\s+clear)\s+(?:whether|if)\b
""")
# a clause without one of these says nothing by itself ("In terms of amenities,", "The ambience, music")
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|offers?|offered|provides?|provided|serves?|includes?|"
                   r"features?|opens?|closes?|operates?|accepts?|takes?|allows?|mentions?|mentioned|says?|states?|"
                   r"can|will|does|do|did|seems?|appears?|specif\w*|lacks?)\b|n't\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
# the words of saying that something is missing, and of naming the data
_GAP_WORDS = frozenset("""
specified specify specifies mentioned mention mentions provided provide provides given give gives listed list
indicated indicate indication stated state states disclosed disclose included include information details detail
data structured provided available specific specifically explicit explicitly unclear unknown clear whether any
presence availability terms regarding about business restaurant establishment place record records listing
however additionally also furthermore unfortunately note noted worth noting dataset json
""".split())
_NOT_GIVEN = re.compile(r"[^.]*\b(?:is|are) not given\b[^.]*\.?")
_WIFI = re.compile(r"\bwi-?fi\b", re.IGNORECASE)
_ALSO = {"hour": "open", "sched": "open"}  # a record with hours says when it is open, not "hours"
_SUBJECT = re.compile(r"^[^\n:]{1,120}:(?=\s)", re.MULTILINE)  # "Holdren's Grill: ..." opens each paragraph


def says_record_lacks(sentence: str, docs: Sequence[ContextDoc]) -> bool:
    """Does ``sentence`` only say that the data leaves things out, and does a structured context confirm it (its
    own statements name none of those things, nor does any other context document)?"""
    if not any(doc.offsets is not None for doc in docs) or not _GAP.search(sentence) or not _only_gaps(sentence):
        return False
    named = {stem(w) for w in _WORD.findall(_WIFI.sub("wifi", sentence))
             if len(w) >= 3 and w.lower() not in STOP_WORDS and w.lower() not in _GAP_WORDS}
    named |= {also for word, also in _ALSO.items() if word in named}
    return bool(named) and not any(named & _stated(doc) for doc in docs)


def _only_gaps(sentence: str) -> bool:
    """Every clause (one without a verb joins the next) says that something is missing, or says nothing."""
    pending = ""
    for _, clause in clauses(sentence):
        clause = f"{pending} {clause}" if pending else clause
        if not _VERB.search(clause):
            pending = clause
            continue
        pending = ""
        if not _GAP.search(clause):
            return False
    return True


def _stated(doc: ContextDoc) -> frozenset[str]:
    """What a document states: a record's own statements; all of a prose document (it may name what the record
    lacks)."""
    if doc.offsets is None:
        return _stems_of(doc.text, (), False)
    return _stems_of(doc.text, doc.free_text, True)


@lru_cache(maxsize=64)
def _stems_of(text: str, free_text: tuple[str, ...], record: bool) -> frozenset[str]:
    """The stems of what a record itself states: its verbalisation without free text (reviews, descriptions),
    without the sentences that give a value as missing ("Its music is not given.") and without the subject that
    opens each paragraph (a sentence may name the business whose data it talks about)."""
    for value in free_text:
        text = text.replace(value, " ")
    if record:
        text = _SUBJECT.sub(" ", _NOT_GIVEN.sub(" ", text))
    text = _WIFI.sub("wifi", text)
    return frozenset(stem(w) for w in _WORD.findall(text) if len(w) >= 3)
