"""The core pipeline with a fake checker: rules, offsets, suppression, caching, aggregation."""

from __future__ import annotations

import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.rules.registry import RULES
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

CTX = [ContextDoc("ctx.md", "The library reopened on March 4, 2024. The project cost $12.5 million. "
                            "It is closed on Sundays. Helen Okafor is the director.")]


def linter(**cfg) -> tuple[Linter, KeywordChecker]:
    """An operating point pinned whatever is calibrated: the fake's WEAK (P(entailment) 0.45) is FL300, and
    FL400 is checked on every sentence."""
    cfg.setdefault("rules", {})
    for code, threshold in (("FL100", 0.5), ("FL200", 0.3), ("FL300", 0.6), ("FL400", 1.0)):
        cfg["rules"].setdefault(code, {"threshold": threshold})
    checker = KeywordChecker()
    lt = Linter(Config(**cfg), checker=checker, relevance=LexicalRelevance(),
                splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))
    return lt, checker


def codes(result, with_values: bool = False):
    """(code, flagged text); FL400 left out unless asked (the fake's keywords look like names to it)."""
    return [(f.code, result.text[f.start:f.end]) for f in result.findings if with_values or f.code != "FL400"]


def test_rules_fire_on_the_right_sentences_with_exact_offsets():
    text = ("# Title\n\nThe library reopened. It is open CONTRA on Sundays.\n\n"
            "A café UNSUP opened. It cost WEAK a lot.\n")
    lt, _ = linter()
    res = lt.check(text, CTX)
    assert [s.label for s in res.sentences] == ["entailment", "contradiction", "neutral", "entailment"]
    got = codes(res)
    assert ("FL100", "It is open CONTRA on Sundays.") in got
    assert ("FL200", "A café UNSUP opened.") in got
    assert ("FL300", "It cost WEAK a lot.") in got
    assert not any(c[1].startswith("The library") for c in got)
    for f in res.findings:
        assert f.evidence is not None and f.evidence.source == "ctx.md"
    assert res.score["unsupported_share"] == pytest.approx(2 / 4)


def test_fl400_names_draft_and_context_values():
    lt, _ = linter()
    res = lt.check("The project cost $15 million.", CTX)
    fl400 = [f for f in res.findings if f.code == "FL400"]
    assert fl400, codes(res)
    f = fl400[0]
    assert res.text[f.start:f.end] == "$15 million"
    assert "$15 million" in f.message and "$12.5 million" in f.message
    assert f.data["context_value"] == "$12.5 million"
    # a context value that does not stand where the draft's does is neither named nor offered as the fix
    res = lt.check("The mayor approved the plan in 2019.", CTX)
    f = next(f for f in res.findings if f.code == "FL400")
    assert res.text[f.start:f.end] == "2019" and "context has" not in f.message
    assert f.data["context_value"] is None


def test_offsets_survive_emoji_cjk_and_crlf():
    text = "😀 Intro 中文 line.\r\n\r\nThe café 👍🏽 UNSUP opened.\r\n"
    lt, _ = linter()
    res = lt.check(text, CTX)
    f = [f for f in res.findings if f.code == "FL200"][0]
    assert text[f.start:f.end] == "The café 👍🏽 UNSUP opened."


def test_markdown_code_and_links_are_not_checked():
    text = "Use `CONTRA` here.\n\n```\nCONTRA UNSUP\n```\n\nSee [the docs](http://x/UNSUP).\n"
    lt, _ = linter()
    res = lt.check(text, CTX)
    assert not [f for f in res.findings if f.code in ("FL100", "FL200")]


def test_a_contradiction_without_common_ground_is_reported_as_unsupported():
    """The checker's "contradiction" of a sentence that shares no content word with its evidence (a café the
    context never mentions) is FL200, not FL100: the context does not talk about it."""
    text = "A rooftop café CONTRA opened upstairs. The project cost CONTRA $12.5 million."
    lt, _ = linter()
    got = codes(lt.check(text, CTX))
    assert ("FL200", "A rooftop café CONTRA opened upstairs.") in got
    assert ("FL100", "The project cost CONTRA $12.5 million.") in got
    assert not any(c == ("FL100", "A rooftop café CONTRA opened upstairs.") for c in got)


def test_common_ground_compares_content_word_stems():
    from faithlint.rules.common_ground import common_ground, content_stems

    assert content_stems("The renovation was funded in 2021.") == {"renov", "fund", "2021"}
    assert common_ground("It was renovated.", ["The renovation took 18 months."])
    assert not common_ground("A rooftop café opened on the top floor.", ["The library reopened on March 4."])
    assert common_ground("Is it?", ["Anything."])  # nothing to share: no evidence of a topic change
    assert not common_ground("The café opened.", [])
    assert common_ground("东京的人口很多。", ["东京的人口很多。"])


def test_suppression_comments():
    text = ("<!-- faithlint-disable FL200 -->\nA UNSUP one.\n<!-- faithlint-enable -->\n\nB UNSUP two.\n\n"
            "<!-- faithlint-disable-next-line FL100 -->\nC CONTRA library three.\n\nD CONTRA library four.\n")
    lt, _ = linter()
    got = codes(lt.check(text, CTX))
    assert ("FL200", "B UNSUP two.") in got
    assert ("FL100", "D CONTRA library four.") in got
    assert not any("A UNSUP" in c[1] or "C CONTRA" in c[1] for c in got)


def test_unknown_and_unused_suppression_codes_warn_at_the_code():
    """ruff's RUF100: FL002 on a code no rule has, FL001 on a code (or a comment without codes) that silenced
    nothing; the used code and the enable comment are not reported; both are ignorable and suppressible."""
    text = ("<!-- faithlint-disable-next-line FL201 -->\nA UNSUP one.\n\n"
            "<!-- faithlint-disable-next-line FL200, FL100 -->\nB UNSUP two.\n\n"
            "The library reopened. <!-- faithlint-disable-line -->\n\n"
            "<!-- faithlint-disable FL4 -->\nC UNSUP three.\n<!-- faithlint-enable FL4 -->\n")
    lt, _ = linter(ignore=["FL3", "FL4"])
    res = lt.check(text, CTX)
    got = codes(res)
    at = text.index("FL201")
    assert ("FL002", "FL201") in got and [f for f in res.findings if f.code == "FL002"][0].start == at
    assert ("FL200", "A UNSUP one.") in got and ("FL200", "C UNSUP three.") in got
    assert not any("B UNSUP" in c[1] for c in got)  # FL200 of that comment was used
    assert ("FL001", "FL100") in got and ("FL001", "<!-- faithlint-disable-line -->") in got
    assert not any(c == ("FL001", "FL4") for c in got)  # FL4's rules are ignored in this run: not "unused"
    assert all(f.severity == "warning" for f in res.findings if f.code in ("FL001", "FL002"))
    lt, _ = linter(ignore=["FL3", "FL4", "FL0"])
    assert not [f for f in lt.check(text, CTX).findings if f.code.startswith("FL0")]
    lt, _ = linter(ignore=["FL3", "FL4"])
    quiet = "<!-- faithlint-disable-next-line FL001 -->\nThe library reopened. <!-- faithlint-disable-line FL200 -->\n"
    assert codes(lt.check(quiet, CTX)) == []


def test_messages_start_with_the_flagged_words():
    lt, _ = linter()
    res = lt.check("The project cost $15 million.\n\nA café UNSUP opened on the top floor of the renovated "
                   "building next to the new children's wing.", CTX)
    fl400 = next(f for f in res.findings if f.code == "FL400")
    assert fl400.message.startswith("\u201c$15 million\u201d: does not appear in the evidence (money)")
    fl200 = next(f for f in res.findings if f.code == "FL200")
    assert fl200.message.startswith("\u201cA café UNSUP opened on the top floor of the renovated building next to "
                                    "the new\u2026\u201d: not supported by the context"), fl200.message
    assert "\n" not in fl200.message


def test_select_ignore_and_severity_overrides():
    text = "A UNSUP one. It cost WEAK a lot. B CONTRA library two."
    lt, _ = linter(ignore=["FL3", "FL4"], rules={"FL200": {"severity": "error"}})
    res = lt.check(text, CTX)
    assert {f.code for f in res.findings} == {"FL100", "FL200"}
    assert all(f.severity == "error" for f in res.findings)
    lt, _ = linter(select=["FL1"])
    assert {f.code for f in lt.check(text, CTX).findings} == {"FL100"}


def test_fl300_threshold_from_config():
    lt, _ = linter(rules={"FL300": {"threshold": 0.3}}, ignore=["FL400"])
    assert not lt.check("It cost WEAK a lot.", CTX).findings


def test_verdict_cache_rechecks_only_changed_sentences():
    lt, checker = linter(verbatim=False)
    lt.check("The library reopened. It is closed on Sundays. Helen Okafor is the director.", CTX)
    first = lt.stats.last["scored"]
    lt.check("The library reopened. It is closed UNSUP on Sundays. Helen Okafor is the director.", CTX)
    assert lt.stats.last["scored"] < first
    assert lt.stats.last["scored"] >= 1
    lt.check("The library reopened. It is closed UNSUP on Sundays. Helen Okafor is the director.", CTX)
    assert lt.stats.last["scored"] == 0


def test_no_context_and_empty_draft():
    lt, _ = linter()
    res = lt.check("Something UNSUP here.", [])
    assert res.findings == [] and res.notes
    assert lt.check("   \n", CTX).sentences == []


def test_cancelled_check_returns_early():
    lt, checker = linter()
    res = lt.check("The library reopened. It is open.", CTX, cancelled=lambda: True)
    assert checker.pairs == 0 and res.findings == []


def test_short_answers_become_provenance_claims():
    from faithlint.evidence.selection import claim

    assert claim("Paris.", "What is the capital of France?", "auto") == (
        "The answer to the question \u201cWhat is the capital of France?\u201d is: Paris.")
    long = "The capital of France has been Paris for a long time."
    assert claim(long, "What is the capital?", "auto") == long
    assert claim(long, "What is the capital?", "always").endswith(long)
    assert claim("Paris.", "Q?", "never") == "Paris." and claim("Paris.", None, "always") == "Paris."


def test_headings_and_fragments_are_skipped_unless_configured():
    text = "# A CONTRA title\n\nOK.\n\nThe library UNSUP reopened.\n"
    lt, _ = linter(ignore=["FL400"])
    assert [s.text for s in lt.check(text, CTX).sentences] == ["The library UNSUP reopened."]
    lt, _ = linter(ignore=["FL400"], check_headings=True, min_words=1)
    assert [s.text for s in lt.check(text, CTX).sentences] == ["A CONTRA title", "OK.", "The library UNSUP reopened."]



def test_a_lead_in_to_a_list_is_not_checked_unless_configured():
    text = ("Here is what UNSUP changed:\n\n- The library UNSUP reopened.\n- It is closed on Sundays.\n\n"
            "Note UNSUP this:\n")
    lt, _ = linter(ignore=["FL400"])
    assert [s.text for s in lt.check(text, CTX).sentences] == ["The library UNSUP reopened.",
                                                               "It is closed on Sundays.", "Note UNSUP this:"]
    lt, _ = linter(ignore=["FL400"], check_lead_ins=True)
    assert [s.text for s in lt.check(text, CTX).sentences][0] == "Here is what UNSUP changed:"


def test_a_one_fragment_answer_to_a_query_is_checked_as_a_claim():
    """"1998." is too short to be a sentence worth checking, unless it is the whole answer to a question: then
    it is checked, as "The answer to the question ... is: 1998." (what the checker is shown)."""
    lt, checker = linter()
    q = "When did the library reopen?"
    res = lt.check("UNSUP 1998.", CTX, query=q, markdown=False)
    assert [s.text for s in res.sentences] == ["UNSUP 1998."]
    assert codes(res) == [("FL200", "UNSUP 1998.")]
    assert any(h.startswith("The answer to the question \u201cWhen did the library reopen?\u201d is: UNSUP 1998.")
               for h in checker.hypotheses)
    # the same words without the question, in a longer answer, or with query_claim = "never" stay unchecked
    assert lt.check("UNSUP 1998.", CTX, markdown=False).sentences == []
    assert [s.text for s in lt.check("UNSUP 1998. The library UNSUP reopened.", CTX, query=q,
                                     markdown=False).sentences] == ["The library UNSUP reopened."]
    lt_never, _ = linter(query_claim="never")
    assert lt_never.check("UNSUP 1998.", CTX, query=q, markdown=False).sentences == []
    # punctuation alone is no answer
    assert lt.check("…", CTX, query=q, markdown=False).sentences == []

def test_rescored_sentences_are_counted():
    lt, _ = linter(ignore=["FL400"], verbatim=False)
    lt.check("The library reopened. It is closed on Sundays.", CTX)
    assert lt.stats.last["sentences_rescored"] == 2
    lt.check("The library reopened. It is closed UNSUP on Sundays.", CTX)
    assert lt.stats.last["sentences_rescored"] == 1


def test_long_draft_reports_its_first_sentences_early_and_the_whole_matches_one_pass():
    sentences = [f"Sentence {i} says the library reopened." for i in range(30)]
    sentences[2] = "It is open CONTRA on Sundays."
    sentences[20] = "A café UNSUP opened."
    text = " ".join(sentences)
    lt, _ = linter(ignore=["FL400"])
    partials = []
    res = lt.check(text, CTX, partial=partials.append, first=8)
    assert len(partials) == 1
    early = partials[0]
    assert len(early.sentences) == 8 and codes(early) == [("FL100", "It is open CONTRA on Sundays.")]
    whole = linter(ignore=["FL400"])[0].check(text, CTX)
    assert codes(res) == codes(whole) == [("FL100", "It is open CONTRA on Sundays."),
                                          ("FL200", "A café UNSUP opened.")]
    assert [s.probs for s in res.sentences] == [s.probs for s in whole.sentences]
    assert lt.stats.last["sentences_rescored"] == 30 and lt.stats.drafts_checked == 1
    # short drafts come in one piece
    partials.clear()
    lt.check(" ".join(sentences[:20]), CTX, partial=partials.append, first=8)
    assert not partials


def test_a_sentence_copied_from_the_context_is_supported_without_the_model():
    ctx = [ContextDoc("ctx.md", "The library\nreopened in spring. It is open CONTRA on \u201cSundays\u201d now.")]
    lt, checker = linter(ignore=["FL400"])
    res = lt.check("It is open contra on \"Sundays\" now. The library reopened in spring.", ctx)
    assert [s.label for s in res.sentences] == ["entailment", "entailment"] and not res.findings
    ev = res.sentences[0].evidence
    assert (ev.source, ctx[0].text[ev.start:ev.end]) == ("ctx.md", "It is open CONTRA on \u201cSundays\u201d now.")
    assert lt.stats.last["scored"] == 0
    # after a heading or a line with no full stop
    heading = [ContextDoc("h.md", "# Reopening CONTRA\nThe library reopened CONTRA in spring.")]
    assert lt.check("The library reopened CONTRA in spring.", heading).sentences[0].label == "entailment"
    # a changed word, a partial copy or the setting off: the model decides
    assert lt.check("It is open CONTRA on Sundays today.", ctx).sentences[0].label == "contradiction"
    assert lt.check("Is open CONTRA on “Sundays” now.", ctx).sentences[0].label == "contradiction"
    assert lt.check("It is open CONTRA on", ctx).sentences[0].label == "contradiction"
    lt.config = Config(verbatim=False, ignore=["FL400"])
    assert lt.check("It is open CONTRA on \u201cSundays\u201d now.", ctx).sentences[0].label == "contradiction"


def test_the_checker_reads_figures_as_the_evidence_writes_them_and_marks_map_back():
    ctx = [ContextDoc("ctx.md", "The new building has 40 study rooms. The project cost $12.5 million and took "
                                "18 months, 60 percent longer than planned.")]
    text = "It has forty study rooms. The work cost 12.5 million dollars, 60% longer than planned. It has 41 rooms.\n"
    lt, checker = linter()
    lt.check(text, ctx)
    seen = set(checker.hypotheses)
    assert "It has 40 study rooms." in seen  # "forty" written as the context writes it
    assert "The work cost $12.5 million, 60 percent longer than planned." in seen
    assert "It has 41 rooms." in seen  # another value: left as written (FL400's to report)
    off, plain = linter(align_values=False)
    off.check(text, ctx)
    assert "It has forty study rooms." in plain.hypotheses and "It has 40 study rooms." not in plain.hypotheses


def test_alignment_edits_only_figures_of_equal_value_in_another_form():
    from faithlint.pipeline.figures import marks_before_edits, rewritten

    vx = ValueExtractor(nlp=False)
    evidence = ["It has 40 rooms and cost $12.5 million.", "About 32,000 came."]
    h = "It has forty rooms, cost 12.5 million dollars and drew 32 thousand; 41 desks."
    edits = vx.alignment(h, evidence)
    assert rewritten(h, edits) == "It has 40 rooms, cost $12.5 million and drew 32,000; 41 desks."
    assert vx.alignment("It has forty rooms.", ["It has forty rooms, 40 in all."]) == []  # the form is in the evidence
    # a form that is only a substring of the evidence's ("4" in "4.0") is another form: a JSON record's 4.0
    h4 = "Customers rate it 4 stars."
    assert rewritten(h4, vx.alignment(h4, ["It is rated 4.0 stars."])) == "Customers rate it 4.0 stars."
    new = rewritten(h, edits)
    a = new.index("$12.5")
    (back,) = marks_before_edits([(a, a + len("$12.5 million"))], edits)
    assert h[back[0]:back[1]] == "12.5 million dollars"
    a = new.index("41")
    (back,) = marks_before_edits([(a, a + 8)], edits)
    assert h[back[0]:back[1]] == "41 desks"  # after the edits: shifted by what they changed


def test_fl400_names_no_value_the_whole_context_says_word_for_word():
    """A value the sentence's evidence lacks but the context states verbatim elsewhere is no absent fact."""
    from faithlint.document.markdown import extract
    from faithlint.rules.base import Judged, RuleContext
    from faithlint.rules.fl400_absent_value import RULE

    lt, _ = linter()
    res = lt.check("The library UNSUP reopened with Taylor Swift in 2031.", CTX)
    judged = Judged(lt.extractor.units(extract(res.text), lt.config)[0], res.sentences[0], lambda: "")
    point = RULES.operating_point(lt.config)
    base = RuleContext(lt.config, point, lt._mismatches)
    assert {f.data["value"] for f in RULE.check(judged, base)} >= {"Taylor Swift", "2031"}
    told = RuleContext(lt.config, point, lt._mismatches,
                       [ContextDoc("other.md", "Elsewhere:  TAYLOR   swift sang.")])
    assert "Taylor Swift" not in {f.data["value"] for f in RULE.check(judged, told)}
    assert "2031" in {f.data["value"] for f in RULE.check(judged, told)}
    # a name every word of which the context has, apart, is one of its names put together; one word is not enough
    apart = RuleContext(lt.config, point, lt._mismatches, [ContextDoc("other.md", "Swift wrote it; Taylor sang.")])
    assert "Taylor Swift" not in {f.data["value"] for f in RULE.check(judged, apart)}
    half = RuleContext(lt.config, point, lt._mismatches, [ContextDoc("other.md", "Taylor sang it.")])
    assert "Taylor Swift" in {f.data["value"] for f in RULE.check(judged, half)}
    # word for word: a value inside a longer number or word of the context is still absent
    inside = RuleContext(lt.config, point, lt._mismatches,
                         [ContextDoc("other.md", "In 12031 the TaylorSwiftian era began.")])
    assert {"Taylor Swift", "2031"} <= {f.data["value"] for f in RULE.check(judged, inside)}
    # in another form elsewhere in the context ("twelve", "a seven-day period"): no absent fact either; a value of
    # the same kind that differs still is one
    res2 = lt.check("The library UNSUP raised fees by 12% for 7 days.", CTX)
    judged2 = Judged(lt.extractor.units(extract(res2.text), lt.config)[0], res2.sentences[0], lambda: "")
    assert {f.data["value"] for f in RULE.check(judged2, base)} == {"12%", "7 days"}
    other_form = RuleContext(lt.config, point, lt._mismatches,
                             [*CTX, ContextDoc("other.md", "Fees rose twelve percent through a seven-day period.")])
    assert [f.data["value"] for f in RULE.check(judged2, other_form)] == []
    differs = RuleContext(lt.config, point, lt._mismatches,
                          [*CTX, ContextDoc("other.md", "Fees rose eleven percent through a nine-day period.")])
    assert {f.data["value"] for f in RULE.check(judged2, differs)} == {"12%", "7 days"}
    # the first occurrence inside a longer word, a whole one later; the ends of the text; \\w as re has it
    later = RuleContext(lt.config, point, lt._mismatches, [ContextDoc("o.md", "In 12031, then in 2031_x and 2031.")])
    assert later.in_context("2031") and not later.in_context("203")
    for text, value, found in [("2031", "2031", True), ("x2031", "2031", False), ("2031é", "2031", False),
                               ("$25 million", "$25", True), ("a$25", "$25", False), ("(café)", "Café", True),
                               ("12_5", "12", False), ("", "12", False), ("12", "", False)]:
        assert RuleContext(lt.config, point, lt._mismatches,
                           [ContextDoc("o.md", text)]).in_context(value) is found, (text, value)
