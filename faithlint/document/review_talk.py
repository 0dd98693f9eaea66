"""Review roll-ups: sentences that report what a business's reviewers say, as a whole.

"Customers praise the friendly staff but complain about slow service", "One reviewer noted the long wait": an
overview written from a record with a list of reviews sums up many review texts in its own words. The checker
judges a sentence against the few pieces of evidence it assembles, so it cannot tell a fair summary of twenty
reviews from an invented one: on RAGTruth's overviews (the calibration part: 227 such sentences, 6 % of them
hallucinated) its score ranks them worse than the overviews' other sentences (AUROC 0.64 against 0.70), and 63
of its 70 warnings there were false alarms. Such a sentence is reported at info level (FL300) instead of FL200
when the context is a record that holds reviews; ``check_review_rollups = true`` warns again.
"""

from __future__ import annotations

import re

__all__ = ["reports_reviews"]

# who: the people or texts a roll-up speaks for
_WHO = (r"(?:customers?|reviewers?|patrons?|diners?|guests?|visitors?|clients?|critics?|users?|people|"
        r"(?:the\s+|many\s+|some\s+|several\s+|most\s+|other\s+|positive\s+|negative\s+|online\s+)?reviews?|"
        r"others|many|some|several|one|another|most)")
# what they do: report an opinion or an experience
_SAY = (r"(?:prais\w*|complain\w*|criticiz\w*|criticis\w*|rav\w*|mention\w*|not\w*|highlight\w*|appreciat\w*|"
        r"enjoy\w*|recommend\w*|describ\w*|express\w*|lov\w*|lik\w*|report\w*|sa(?:y|ys|id)|f(?:i|ou)nd\w*|"
        r"comment\w*|commend\w*|laud\w*|suggest\w*|point\w*\s+out|state\w*|shar\w*|call\w*|felt|feel\w*|"
        r"thought|rat\w*|give|gave|left|leave|had|have|has|were|was|are|is)")
_ROLLUP = re.compile(rf"\b{_WHO}\b[^.;:]{{0,60}}?\b{_SAY}\b", re.IGNORECASE)
_PEOPLE = re.compile(r"\b(?:reviews?|reviewers?|customers?|patrons?|diners?|guests?|visitors?)\b", re.IGNORECASE)
_REVIEWS = re.compile(r"\breviews?\b", re.IGNORECASE)
# the same in the passive: "The food is highly praised", "Their takeout is especially favoured by the patrons"
_PASSIVE = re.compile(r"\b(?:is|are|was|were|been)\s+(?:\w+\s+){0,2}(?:praised|acknowledged|noted|lauded|commended|"
                      r"appreciated|recommended|criticized|criticised|favou?red|loved)\b", re.IGNORECASE)
# the overall verdict drawn from them: "Overall, Luna Grill seems to be a solid choice for ..."
_OVERALL = re.compile(r"^\W*overall\b[^.]*\b(?:seems?|appears?)\s+(?:to\s+(?:be|offer|have)|like)\b", re.IGNORECASE)


def reports_reviews(sentence: str) -> bool:
    """Does ``sentence`` report what reviewers or customers say ("Customers praise ...", "One reviewer noted
    ...", "The reviews are mixed", "The food is highly praised") or the overall verdict drawn from them ("Overall,
    it seems to be a solid choice")? A fact about the reviews ("It has 58 reviews") counts only with such a verb."""
    if _PASSIVE.search(sentence) or _OVERALL.search(sentence):
        return True
    return bool(_PEOPLE.search(sentence)) and bool(_ROLLUP.search(sentence))


def holds_reviews(text: str) -> bool:
    """Does a verbalised record mention reviews (a list of them, their count or their spread)?"""
    return _REVIEWS.search(text) is not None
