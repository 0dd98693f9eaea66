"""LLM boilerplate ("Sure!", "Here is a summary in 89 words:", "Based on the passages, ...") is not a claim:
left unchecked with its reason, while a claim that follows a lead in the same sentence is still checked."""

from __future__ import annotations

import json

import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.boilerplate import exemption
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.report import render
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

WHOLE = [
    ("Sure!", "greeting"),
    ("Sure, I can help you with that!", "greeting"),
    ("Certainly.", "greeting"),
    ("Here is a summary of the article in 89 words:", "announcement"),
    ("Here's the summary within 200 words:", "announcement"),
    ("Based on the provided passages, here is the answer to the question:", "announcement"),
    ("Based on the given passages, the benefits of a water pick include:", "announcement"),
    ("Here are the symptoms and causes of irritable bowel syndrome (IBS) based on the given passages:",
     "announcement"),
    ("(Word count: 120)", "word count"),
    ("I hope this helps!", "closing"),
    ("Let me know if you have any further questions.", "closing"),
    ("Unable to answer based on given passages.", "refusal"),
    ("Therefore, I am unable to answer the question based on this passage alone.", "refusal"),
    ("If you have any specific questions or need further guidance, feel free to ask.", "closing"),
    ("The passages do not provide information on other potential benefits of using a water pick.",
     "about the sources"),
    ("Additionally, the passages do not provide clear information on the specific causes.", "about the sources"),
    ("The provided structured data does not include information about restaurant reservations.",
     "about the sources"),
    ("Based on the provided structured data in JSON format, here is an objective overview of the local business "
     "Verd\u00e9:", "announcement"),
]

CLAIMS = [
    "The library reopened on March 4, 2024.",
    "Yes, the library reopened in 2024.",
    "Great food and friendly staff make it popular.",
    "The passages say the project cost $25 million.",
    "It is open from 9 to 5 on weekdays.",
    "The restaurant is known for its seafood.",
    "Customers praised the service.",
    "Police did not provide details about the suspect.",
    "The museum is closed, according to data from 2020.",
]


@pytest.mark.parametrize(("sentence", "reason"), WHOLE)
def test_whole_boilerplate_sentences(sentence, reason):
    ex = exemption(sentence)
    assert ex is not None and ex.reason == reason and ex.whole(len(sentence))


@pytest.mark.parametrize("sentence", CLAIMS)
def test_claims_are_not_boilerplate(sentence):
    assert exemption(sentence) is None


@pytest.mark.parametrize(("sentence", "rest"), [
    ("Based on the provided passages, the bridge opened in 1931.", "the bridge opened in 1931."),
    ("According to the article, police arrested two men.", "police arrested two men."),
    ("From the structured data, the restaurant has 4 stars.", "the restaurant has 4 stars."),
    ("Sure, the museum opens at 9.", "the museum opens at 9."),
])
def test_only_the_lead_of_a_claim_is_exempt(sentence, rest):
    ex = exemption(sentence)
    assert ex is not None and ex.reason == "lead" and not ex.whole(len(sentence))
    assert sentence[ex.end:] == rest


def test_a_source_lead_at_the_end_is_cut_off_too():
    sentence = "A water pick has several benefits, according to the given passages."
    ex = exemption(sentence)
    assert ex is not None and ex.reason == "lead" and sentence[:ex.start] == "A water pick has several benefits"
    res = _linter(ignore=["FL400"]).check("The library UNSUP reopened in 1931, according to the article.\n", CTX)
    assert [s.text for s in res.sentences] == ["The library UNSUP reopened in 1931"]
    assert [(u.reason, u.text) for u in res.unchecked] == [("lead", "according to the article")]


CTX = [ContextDoc("ctx.md", "The library reopened on March 4, 2024. The project cost $12.5 million.")]
DRAFT = ("Sure! Here is a summary of the article in 45 words:\n\n"
         "Based on the provided passages, the library UNSUP reopened in 1931. The project cost $12.5 million.\n\n"
         "I hope this helps!\n")


def _linter(**cfg) -> Linter:
    cfg.setdefault("rules", {code: {"threshold": t} for code, t in (("FL100", 0.5), ("FL200", 0.3), ("FL300", 0.6))})
    return Linter(Config(**cfg), checker=KeywordChecker(), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))


def test_the_linter_skips_boilerplate_and_reports_it_with_offsets():
    res = _linter(ignore=["FL400"]).check(DRAFT, CTX)
    assert [s.text for s in res.sentences] == ["the library UNSUP reopened in 1931.", "The project cost $12.5 million."]
    # the claim after the lead is still caught, marked from its first word, not from "Based"
    flagged = [(f.code, DRAFT[f.start:f.end]) for f in res.findings]
    assert flagged == [("FL200", "the library UNSUP reopened in 1931.")]
    got = [(u.reason, DRAFT[u.start:u.end], u.text) for u in res.unchecked]
    assert got == [("greeting", "Sure!", "Sure!"),
                   ("announcement", "Here is a summary of the article in 45 words:",
                    "Here is a summary of the article in 45 words:"),
                   ("lead", "Based on the provided passages,", "Based on the provided passages,"),
                   ("closing", "I hope this helps!", "I hope this helps!")]
    doc = json.loads(render([res], "json"))["results"][0]
    assert [u["reason"] for u in doc["unchecked"]] == ["greeting", "announcement", "lead", "closing"]
    assert doc["unchecked"][2] == {"start": DRAFT.index("Based"), "end": DRAFT.index("Based") + 31,
                                   "text": "Based on the provided passages,", "reason": "lead"}


def test_offsets_hold_with_crlf_and_emoji():
    draft = DRAFT.replace("\n", "\r\n").replace("Sure!", "Sure! 🎉")
    res = _linter(ignore=["FL400"]).check(draft, CTX)
    for u in res.unchecked:
        assert draft[u.start:u.end] == u.text
    assert [draft[f.start:f.end] for f in res.findings] == ["the library UNSUP reopened in 1931."]


def test_check_boilerplate_checks_everything():
    res = _linter(ignore=["FL400"], check_boilerplate=True).check(DRAFT, CTX)
    assert res.unchecked == []
    assert "Based on the provided passages, the library UNSUP reopened in 1931." in [s.text for s in res.sentences]
    assert "I hope this helps!" in [s.text for s in res.sentences]


def test_real_models_still_catch_the_wrong_figure_after_a_lead(tmp_path):
    """The bundled checker: boilerplate is not flagged, the planted wrong amount after the lead is."""
    from pathlib import Path

    from faithlint import api

    context = (Path(__file__).parents[1] / "examples" / "rag-answer" / "answer.context.md").read_text(encoding="utf-8")
    draft = ("Sure! Here is a summary of the article in 40 words:\n\n"
             "Based on the provided passages, the project cost $25 million and was funded by a city bond that "
             "voters approved in 2021.\n\nI hope this helps! Let me know if you have any other questions.\n")
    res = api.check(draft, context)
    flagged = {f.code for f in res.findings if f.severity in ("error", "warning")}
    # the wrong amount is a warning (FL400); the sentence is judged too (stage 8 scores it 0.3-0.5: FL300, info)
    assert "FL400" in flagged and {f.code for f in res.findings} & {"FL100", "FL200", "FL300"}
    first = draft.index("the project")
    assert all(f.start >= first and f.end <= draft.index("I hope") for f in res.findings)
    assert [u.reason for u in res.unchecked] == ["greeting", "announcement", "lead", "closing", "closing"]
