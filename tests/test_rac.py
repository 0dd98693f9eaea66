"""RAC corrections (faithlint.fixes.correctors.rac) and ``faithlint fix``: fakes first, then the real models (slow)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.claims.base import Extraction, Span, Triplet
from faithlint.claims.units import ClaimUnits
from faithlint.cli import app as cli
from faithlint.config import Config
from faithlint.document.sentences import SentenceSplitter
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.fixes.correctors.rac import RACCorrector
from faithlint.fixes.edits import apply_edits
from faithlint.pipeline.linter import Linter
from faithlint.rules.values import ValueExtractor
from faithlint.types import ContextDoc

CTX = [ContextDoc("ctx.md", "The project cost $12.5 million. The hall has 40 rooms. The roof has solar panels.")]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class ValueChecker(KeywordChecker):
    """Contradiction when a number of the hypothesis is not in the premise; else the keyword verdicts."""

    name = "value-fake"

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        rows = super().score_pairs(premises, hypotheses)
        for i, (p, h) in enumerate(zip(premises, hypotheses)):
            if any(n not in _NUMBER.findall(p) for n in _NUMBER.findall(h)):
                rows[i] = [0.05, 0.1, 0.85]
        return rows


class SentenceExtractor:
    """One triplet per sentence: first word, second word, the rest (up to the final period)."""

    name = "whole-sentence"

    def extract_sentences(self, sentences: Sequence[str]) -> Extraction:
        out = []
        for s in sentences:
            body = s.rstrip().rstrip(".")
            words = [m.span() for m in re.finditer(r"\S+", body)]
            if len(words) < 3:
                out.append([])
                continue
            out.append([Triplet(Span(*words[0]), Span(*words[1]), Span(words[2][0], len(body)), body + ".")])
        return Extraction(out)


class FakeGenerator:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        self.prompts.append(messages[-1]["content"])
        return self.answer


def fake_linter(config: Config | None = None, **_: object) -> Linter:
    config = config or Config()
    data = config.model_dump()
    for code, threshold in (("FL100", 0.5), ("FL110", 0.5), ("FL200", 0.3), ("FL210", 0.3), ("FL300", 0.6)):
        data["rules"].setdefault(code, {"threshold": threshold})
    return Linter(Config(**data), checker=ValueChecker(), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), values=ValueExtractor(nlp=False),
                  claims=ClaimUnits(SentenceExtractor()))


def test_a_conflicting_value_is_replaced_by_the_contexts_at_its_exact_offsets():
    text = "# Report\n\nThe hall has 40 rooms. The project cost $25 million.\n"
    fixes = RACCorrector(fake_linter()).fixes(text, CTX)
    assert len(fixes) == 1
    fix = fixes[0]
    a = text.index("$25 million")
    assert [(e.start, e.end, e.new_text) for e in fix.edits] == [(a, a + len("$25 million"), "$12.5 million")]
    assert fix.title == "Correct from the context (RAC): $25 million \u2192 $12.5 million"
    assert fix.safe and fix.corrector == "faithlint.rac"
    assert apply_edits(text, fix.edits) == text.replace("$25 million", "$12.5 million")


def test_facts_are_verified_true_false_or_not_mentioned():
    text = "The project cost $25 million. The hall has UNSUP views."
    targets = RACCorrector(fake_linter()).targets(text, CTX)
    verdicts = [(text[t.start:t.end], [f.verdict for f in t.facts]) for t in targets]
    assert verdicts == [("The project cost $25 million.", ["False"]), ("The hall has UNSUP views.", ["Not Mentioned"])]
    assert targets[0].facts[0].values == [("$25 million", "$12.5 million")]


def test_a_candidate_the_recheck_does_not_support_is_never_offered():
    text = "The project UNSUP cost $25 million."  # still unsupported once the amount is right
    rac = RACCorrector(fake_linter())
    assert list(rac.candidates(text, rac.targets(text, CTX)[0]))  # a candidate was made ...
    assert rac.fixes(text, CTX) == []  # ... and dropped by the re-check


def test_a_value_swap_the_recheck_rejects_falls_back_to_the_llm_rewrite():
    text = "The project UNSUP cost $25 million."  # the swap alone leaves it unsupported
    gen = FakeGenerator("The project cost $12.5 million.")
    fixes = RACCorrector(fake_linter(), generator=gen).fixes(text, CTX)
    assert [f.edits[0].new_text for f in fixes] == ["The project cost $12.5 million."]
    assert not fixes[0].safe and len(gen.prompts) == 1


def test_the_llm_is_not_asked_when_the_value_swap_is_supported():
    gen = FakeGenerator("never used")
    fixes = RACCorrector(fake_linter(), generator=gen).fixes("The project cost $25 million.", CTX)
    assert [f.edits[0].new_text for f in fixes] == ["$12.5 million"] and gen.prompts == []


def test_a_supported_draft_and_a_draft_without_context_get_no_fixes():
    rac = RACCorrector(fake_linter())
    assert rac.fixes("The hall has 40 rooms.", CTX) == []
    assert rac.fixes("The project cost $25 million.", []) == []


def test_without_an_llm_a_false_fact_without_a_value_is_left_alone():
    assert RACCorrector(fake_linter()).fixes("The hall CONTRA has a pool.", CTX) == []


def test_the_llm_rewrites_a_false_fact_and_its_rewrite_is_rechecked():
    text = "Intro line. The hall CONTRA has a pool."
    gen = FakeGenerator("The hall has 40 rooms.")
    fixes = RACCorrector(fake_linter(), generator=gen).fixes(text, CTX)
    assert len(fixes) == 1 and not fixes[0].safe
    assert apply_edits(text, fixes[0].edits) == "Intro line. The hall has 40 rooms."
    assert "The hall has 40 rooms." in gen.prompts[0] and "Facts to correct" in gen.prompts[0]
    bad = FakeGenerator("The hall CONTRA has 41 rooms.")  # the rewrite is judged contradicted: not offered
    assert RACCorrector(fake_linter(), generator=bad).fixes(text, CTX) == []


# ---------------------------------------------------------------------------------------------- CLI, fakes
DRAFT = "# Report\n\nThe hall has 40 rooms.\nThe project cost $25 million.\n"


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("faithlint.pipeline.linter.Linter", fake_linter)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "answer.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "answer.context.md").write_text(CTX[0].text + "\n", encoding="utf-8")
    return tmp_path / "answer.md"


@pytest.mark.parametrize("method", ["rac", "values"])
def test_fix_prints_a_diff_and_changes_nothing(draft: Path, capsys: pytest.CaptureFixture[str], method: str):
    code = cli.main(["fix", str(draft), "--method", method])
    out, err = capsys.readouterr()
    assert code == 1
    assert "-The project cost $25 million.\n+The project cost $12.5 million.\n" in out
    assert out.count("\n-") == 1 and out.count("\n+") == 1 + 1  # one changed line ("+++ b/..." is the other)
    assert "not written" in err
    assert draft.read_text(encoding="utf-8") == DRAFT


def test_fix_write_writes_the_correction_and_says_so(draft: Path, capsys: pytest.CaptureFixture[str]):
    code = cli.main(["fix", str(draft), "--write"])
    _, err = capsys.readouterr()
    assert draft.read_text(encoding="utf-8") == DRAFT.replace("$25 million", "$12.5 million")
    assert "answer.md: wrote: Correct from the context (RAC): $25 million \u2192 $12.5 million" in err
    assert code == 0  # the corrected draft is clean
    assert cli.main(["fix", str(draft)]) == 0
    assert "nothing to fix" in capsys.readouterr().err


def test_fix_refuses_to_write_over_an_edit_made_while_it_ran(draft: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch):
    original = RACCorrector.correct
    edited = DRAFT + "A line the user added.\n"

    def fixes_while_the_user_edits(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        draft.write_text(edited, encoding="utf-8")
        return out

    monkeypatch.setattr(RACCorrector, "correct", fixes_while_the_user_edits)
    code = cli.main(["fix", str(draft), "--write"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0 and "answer.md: the file changed while the correction ran" in err
    assert draft.read_text(encoding="utf-8") == edited  # no lost edit


def test_fix_bad_input_is_one_line_without_traceback(draft: Path, capsys: pytest.CaptureFixture[str]):
    assert cli.main(["fix", "missing.md"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "faithlint: error: missing.md: no such file or directory"
    (draft.parent / "answer.context.md").unlink()
    assert cli.main(["fix", str(draft)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no context found" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------- real models
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"


@pytest.mark.slow
def test_fix_corrects_the_planted_amount_of_the_example_end_to_end(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch):
    for f in EXAMPLE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "answer.md").read_text(encoding="utf-8")
    code = cli.main(["fix", "answer.md", "--method", "rac"])
    out, _ = capsys.readouterr()
    assert code == 1
    removed = [x for x in out.splitlines() if x.startswith("-") and not x.startswith("---")]
    added = [x for x in out.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert removed == ["-The project cost $25 million and was funded by a city bond that voters approved in 2021."]
    assert added == [removed[0].replace("-", "+", 1).replace("$25 million", "$12.5 million")]
    assert (tmp_path / "answer.md").read_text(encoding="utf-8") == before  # no --write: unchanged

    assert cli.main(["fix", "answer.md", "--method", "rac", "--write"]) in (0, 1)
    after = (tmp_path / "answer.md").read_text(encoding="utf-8")
    assert after == before.replace("$25 million", "$12.5 million")

    from faithlint import api
    from faithlint.config import Config as _Config

    linter = Linter(_Config(unit="both"))
    context = [ContextDoc("answer.context.md", (tmp_path / "answer.context.md").read_text(encoding="utf-8"))]
    res = api.check(after, context, linter=linter, markdown=True)
    a = after.index("The project cost")
    b = after.index("2021.") + 5
    assert not [f for f in res.findings if f.code in ("FL100", "FL110", "FL400") and a <= f.start < b]
