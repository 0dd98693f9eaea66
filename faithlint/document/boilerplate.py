"""Boilerplate: the parts of an LLM's response that talk about the response, not about the world.

"Sure!", "Here is a summary of the article in 89 words:", "Based on the provided passages, here is the answer:",
"I hope this helps!" and "Unable to answer based on the given passages." state nothing a context could support
or contradict, yet a checker asked whether the context entails them says no: on RAGTruth's faithful responses
they drew most of the false alarms of their task. Such a sentence is left unchecked (reported as unchecked, with
its reason). Only the announcement is exempt where a claim follows it in the same sentence: in "Based on the
passages, the bridge opened in 1931." the checker reads "the bridge opened in 1931.", so a wrong date is still
caught. ``check_boilerplate = true`` checks everything again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Exemption", "exemption"]

# what a response names its input: "the (given|provided) passages", "the article", "the structured data", ...
_SOURCE = (r"(?:the\s+|these\s+|this\s+)?(?:(?:given|provided|above|available|following|retrieved|supplied|"
           r"structured|original|news|search)\s+){0,2}"
           r"(?:passages?|information|data|text|articles?|context|sources?|documents?|news|records?|content|"
           r"details|reviews?|search\s+results|results|excerpts?|report|story|input)"
           r"(?:\s+(?:provided|given|above|below|you\s+(?:provided|gave|shared)))?"
           r"(?:\s+(?:in|from|of|about)\s+(?:the\s+)?(?:json|csv|yaml|tabular|structured|table|record)\b[^,.:;!?]{0,30})?")
_LEAD = rf"(?:based\s+(?:solely\s+|only\s+)?on|according\s+to|from|as\s+per|per|as\s+stated\s+in|as\s+mentioned\s+in|" \
        rf"using)\s+{_SOURCE}"
_FLAGS = re.IGNORECASE

# whole sentences
_GREETING = re.compile(
    r"^\s*(?:sure|certainly|of\s+course|absolutely|no\s+problem|happy\s+to\s+help|"
    r"great\s+question)\s*(?:[!.,]\s*(?:(?:i\s+can|i'?d\s+be\s+(?:happy|glad)\s+to|i\s+will|i'?ll|let\s+me)\s+"
    r"(?:help|assist|do\s+that|summari[sz]e|answer)[^.!?:]*)?)?\s*[!.]?\s*$", _FLAGS)
_ANNOUNCE = re.compile(
    rf"^\s*(?:(?:{_LEAD})\s*,?\s*)?(?:(?:sure|certainly|of\s+course)\s*[!,.]\s*)?"
    r"(?:here(?:\s+is|\s+are|'s|’s)|below\s+(?:is|are)|the\s+following\s+(?:is|are)|this\s+is|i\s+will\s+now|"
    r"let\s+me|i'?ll)\b[^.!?]*:\s*$", _FLAGS)
# a sentence that only announces the list after it: "(Based on the passages,) the benefits of X include:"
_LIST_LEAD = re.compile(
    rf"^\s*(?:(?:{_LEAD})\s*,?\s*)?[^.!?:]{{0,120}}\b(?:include|includes|including|are|is|as\s+follows|the\s+following|"
    r"steps|are\s+listed\s+below)\s*:\s*$", _FLAGS)
# "Here is a summary of the article in 89 words." / "(Word count: 120)" / "Summary (89 words):"
_WORDS = re.compile(r"^\s*[(\[]?\s*(?:(?:total\s+)?word\s+count\s*:?\s*\d+|\d+\s+words?)\s*[)\]]?\s*[.:]?\s*$", _FLAGS)
_SUMMARY_OF = re.compile(
    r"^\s*(?:here(?:\s+is|'s|’s)|below\s+is|this\s+is)\s+(?:a|an|the|my)\s+(?:brief\s+|short\s+|concise\s+|"
    r"objective\s+)?(?:summary|overview|answer|response|description)\b[^.!?]*(?:\bwords?\b|requested|question)"
    r"[^.!?]*[.!:]\s*$", _FLAGS)
_CLOSING = re.compile(
    r"^\s*(?:i\s+hope\s+(?:this|that|it|the\s+above)\s+(?:helps|answers|is\s+helpful)|let\s+me\s+know\s+if|"
    r"feel\s+free\s+to|please\s+(?:let\s+me\s+know|feel\s+free)|if\s+you\s+(?:have|need)\s+any\b[^.!?]*"
    r"\b(?:questions|help|guidance|assistance)|is\s+there\s+anything\s+else|hope\s+this\s+helps|thank\s+you\s+for\s+(?:asking|"
    r"your\s+question))\b[^.!?]*[.!?]*\s*$", _FLAGS)
_REFUSAL = re.compile(
    rf"^\s*(?:(?:therefore|however|unfortunately|so)\s*,?\s*)?(?:i\s*(?:'m|am)\s+(?:unable|not\s+able)\s+to|"
    rf"i\s+(?:cannot|can't|can’t|could\s+not|couldn't)|unable\s+to|it\s+is\s+not\s+possible\s+to|"
    rf"there\s+is\s+(?:not\s+enough|insufficient|no)\s+information\s+(?:in\s+{_SOURCE}\s+)?to)\s+"
    rf"(?:answer|determine|provide|say|tell|give|find)\b[^.!?]*[.!?]?\s*$", _FLAGS)
# what the sources lack, said of the sources: "The passages do not provide information on ..."
_ABOUT_SOURCES = re.compile(
    rf"^\s*(?:(?:additionally|however|unfortunately|also|note|please\s+note|it\s+is\s+worth\s+noting|"
    rf"it'?s\s+worth\s+noting|it\s+should\s+be\s+noted)\s*(?:that)?\s*[,:]?\s*)*(?:that\s+)?{_SOURCE}\s+"
    rf"(?:do|does|did)\s+not\s+(?:provide|mention|include|specify|say|state|contain|give|offer|cover|discuss|"
    rf"list|describe|address)\b[^.!?]*[.!?]?\s*$", _FLAGS)
_WHOLE = (("greeting", _GREETING), ("announcement", _ANNOUNCE), ("announcement", _SUMMARY_OF),
          ("announcement", _LIST_LEAD),
          ("word count", _WORDS), ("closing", _CLOSING), ("refusal", _REFUSAL),
          ("about the sources", _ABOUT_SOURCES))

# a lead-in before the claim of the same sentence: "Based on the provided passages, ..." / "Sure, ..."
_PREFIX = re.compile(rf"^\s*(?:(?:{_LEAD})\s*,\s*|(?:sure|certainly|of\s+course|absolutely)\s*[,!]\s+)", _FLAGS)
# ... and after it: "A water pick has several benefits, according to the given passages."
_SUFFIX = re.compile(rf",?\s+(?:{_LEAD})\s*(?=[.!]?\s*$)", _FLAGS)


@dataclass(frozen=True)
class Exemption:
    """The part ``[start, end)`` of a sentence that is boilerplate, and why: the whole sentence, or a lead naming
    the sources at its start or end."""

    start: int
    end: int
    reason: str

    def whole(self, length: int) -> bool:
        return self.start == 0 and self.end >= length


def exemption(sentence: str) -> Exemption | None:
    """What of ``sentence`` talks about the response rather than the world, or None.

    A whole sentence is exempt when it is a greeting, an announcement of what follows (a sentence ending in a
    colon that says "here is ...", or a summary's word count), a closing offer of more help, a refusal to
    answer from the sources, or a statement of what the sources do not say. Otherwise only a lead naming the
    sources ("Based on the given passages, ", "Sure, ", or ", according to the article." at its end) is exempt,
    and the rest is checked.
    """
    if not sentence.strip():
        return None
    for reason, pattern in _WHOLE:
        if pattern.match(sentence):
            return Exemption(0, len(sentence), reason)
    m = _PREFIX.match(sentence)
    if m and any(c.isalnum() for c in sentence[m.end():]):
        return Exemption(0, m.end(), "lead")
    m = _SUFFIX.search(sentence)
    if m and any(c.isalnum() for c in sentence[:m.start()]):
        return Exemption(m.start(), m.end(), "lead")
    return None
