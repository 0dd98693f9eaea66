"""``--format html``: a self-contained report, checked as markup and in a real headless Chromium.

The browser tests read the DOM *after* scripts ran (``--dump-dom``), so they see what a user sees: the
sentence highlights, the detail panel filled in by the report's own script (opened through a
``#d0-sN`` link), and no trace of the ``<script>``/``onerror`` payloads planted in the draft. A screenshot
goes to ``test-artifacts/`` for humans. They are skipped only when Chromium is not installed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fakes import KeywordChecker

from faithlint.config import Config
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.pipeline.linter import Linter
from faithlint.report import render
from faithlint.report.html import render_html
from faithlint.types import ContextDoc, DraftResult

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag-answer"
ARTIFACTS = ROOT / "test-artifacts"
BUNDLED = ROOT / "faithlint" / "models" / "default" / "model.safetensors"
CONTRADICTION = "The library is open on Sundays from 10 a.m. to 5 p.m."
RAG_DRAFT = """---
query: "What changed at the Riverside Public Library?"
---
# What changed at the Riverside Public Library

The Riverside Public Library reopened on March 4, 2024, after an 18-month renovation.
The project cost $12.5 million and was funded by a city bond that voters approved in 2021.
The renovated building has a new children's wing and a maker space with 3D printers.

The library is open on Sundays from 10 a.m. to 5 p.m.

According to director Helen Okafor, daily visitor numbers have doubled since the reopening.
A new solar roof supplies about 30 percent of the building's electricity.
"""  # examples/rag-answer/answer.md as the contradiction example (kept here: that file is edited for demos)
XSS_SCRIPT = ("<script>document.title='pwned';document.documentElement.setAttribute('data-pwned','1');"
              "document.body.appendChild(Object.assign(document.createElement('div'),{id:'pwned'}))</script>")
XSS_IMG = "<img src=x onerror=\"document.title='img-pwned';document.documentElement.setAttribute('data-pwned','2')\">"
XSS_CLOSE = "</script><script>document.title='closed-pwned'</script>"


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(apt-get install chromium); CI installs it")


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


class DOM(HTMLParser):
    """Just enough of a DOM: every element with its attributes and its text content."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._stack: list[dict] = []
        self.feed(markup)

    VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = {"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "text": ""}
        self.elements.append(el)
        if tag not in self.VOID:
            self._stack.append(el)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i]["tag"] == tag:
                del self._stack[i:]
                break

    def handle_data(self, data: str) -> None:
        for el in self._stack:
            el["text"] += data

    def by_id(self, ident: str) -> dict | None:
        return next((e for e in self.elements if e["attrs"].get("id") == ident), None)

    def all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[dict]:
        out = []
        for e in self.elements:
            if tag and e["tag"] != tag:
                continue
            if cls and cls not in e["attrs"].get("class", "").split():
                continue
            if any(e["attrs"].get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(e)
        return out


def example_results() -> list[DraftResult]:
    """Real pipeline (splitting, windows, evidence, FL400), keyword checker instead of the model."""
    draft = RAG_DRAFT.replace(CONTRADICTION, "CONTRA " + CONTRADICTION)
    draft = draft.replace("A new solar roof", "UNSUP A rooftop café run by a local bakery opened on the top floor.\n"
                                              "A new solar roof")
    draft += f"\nThe draft quotes {XSS_SCRIPT} and {XSS_IMG} and {XSS_CLOSE} here.\n"
    ctx = [ContextDoc("examples/rag-answer/answer.context.md", (EXAMPLE / "answer.context.md").read_text())]
    linter = Linter(Config(), checker=KeywordChecker(), relevance=LexicalRelevance())
    first = linter.check(draft, ctx, path="answers/answer.md", query="What changed at the library?")
    second = linter.check("A second draft that is fine.\n", [ContextDoc("<ctx & \"quotes\">.md", "Fine.")],
                          path="answers/<second>.md")
    return [first, second]


@pytest.fixture(scope="module")
def results() -> list[DraftResult]:
    return example_results()


@pytest.fixture(scope="module")
def markup(results: list[DraftResult]) -> str:
    return render(results, "html")


# ------------------------------------------------------------------------------------------ markup


def test_self_contained_no_external_assets(markup: str) -> None:
    assert markup.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", markup), "external asset"
    assert "@import" not in markup and "url(" not in markup
    # the only scripts are the JSON data block and the report's own script
    assert len(re.findall(r"<script\b", markup, flags=re.I)) == 2


def test_draft_text_is_escaped(markup: str, results: list[DraftResult]) -> None:
    assert XSS_SCRIPT not in markup and XSS_IMG not in markup and "<img" not in markup
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;" in markup
    data = re.search(r'<script type="application/json" id="faithlint-data">(.*?)</script>', markup, re.S)
    assert data and "<" not in data.group(1)  # cannot close its element
    payload = json.loads(data.group(1))
    assert payload["drafts"][0]["sentences"]
    assert "answers/&lt;second&gt;.md" in markup and "<second>" not in markup


def test_csp_allows_exactly_the_report_script(markup: str) -> None:
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', markup).group(1)
    assert "default-src &#x27;none&#x27;" in csp
    script = re.findall(r"<script>(.*?)</script>", markup, re.S)
    assert len(script) == 1
    digest = base64.b64encode(hashlib.sha256(script[0].encode()).digest()).decode()
    assert f"sha256-{digest}" in csp


def test_structure_sentences_findings_summary(markup: str, results: list[DraftResult]) -> None:
    dom = DOM(markup)
    res = results[0]
    spans = dom.all("span", cls="s", data_draft="0")
    assert len(spans) == len(res.sentences)
    contra = [s for s in spans if "FL100" in s["attrs"]["data-codes"].split()]
    assert len(contra) == 1 and CONTRADICTION in contra[0]["text"]
    assert "l-contradiction" in contra[0]["attrs"]["class"] and "sc1" in contra[0]["attrs"]["class"]
    assert "FL100" in contra[0]["attrs"]["title"] and "score 0.05" in contra[0]["attrs"]["title"]
    cards = dom.all("li", cls="finding", data_draft="0")
    assert len(cards) == len(res.findings)
    fl100 = next(c for c in cards if c["attrs"]["data-code"] == "FL100")
    assert "contradicting evidence" in fl100["text"] and "closed on Sundays" in fl100["text"]
    counts = {c["attrs"]["data-code"]: int(c["attrs"]["data-count"]) for c in dom.all("span", cls="chip")
              if "data-code" in c["attrs"]}
    expected = {code: sum(f.code == code for r in results for f in r.findings) for code in counts}
    assert counts == expected and counts["FL100"] == 1
    bars = dom.all("rect", cls="bar")
    assert len(bars) == 10 and sum(int(b["attrs"]["data-count"]) for b in bars) == sum(len(r.sentences)
                                                                                        for r in results)


def test_empty_and_no_context_results() -> None:
    out = render_html([])
    assert "No drafts were checked" in out
    res = DraftResult(text="Only text.", path="x.md", score={"mean": float("nan"), "min": float("nan"),
                                                              "unsupported_share": float("nan")},
                      notes=["no context: only rules that need no context ran"])
    out = render_html([res])
    assert "n/a" in out and "no context" in out and "NaN" not in out


# ------------------------------------------------------------------------------------------ browser


def _load(report: Path, tmp_path: Path, fragment: str = "") -> DOM:
    proc = chromium("--virtual-time-budget=3000", "--dump-dom", report.as_uri() + fragment,
                    profile=tmp_path / "profile")
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return DOM(proc.stdout)


def _screenshot(report: Path, tmp_path: Path, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    shot.unlink(missing_ok=True)
    proc = chromium("--window-size=1280,1400", "--hide-scrollbars", f"--screenshot={shot}", report.as_uri(),
                    profile=tmp_path / "profile-shot")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    return shot


@needs_chromium
def test_report_in_headless_chromium(markup: str, results: list[DraftResult], tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(markup, encoding="utf-8")
    contra_index = next(i for i, s in enumerate(sorted(results[0].sentences, key=lambda s: s.start))
                        if CONTRADICTION in s.text)
    dom = _load(report, tmp_path, f"#d0-s{contra_index}")
    html_el = dom.all("html")[0]
    # the report's own script ran (allowed by its CSP hash) ...
    assert html_el["attrs"].get("data-ready") == "1", "the report script did not run"
    # ... and none of the planted payloads did
    assert "data-pwned" not in html_el["attrs"]
    assert dom.all("title")[0]["text"] == "faithlint report"
    assert dom.by_id("pwned") is None and not dom.all("img")
    assert len(dom.all("script")) == 2
    xss = [s for s in dom.all("span", cls="s") if "The draft quotes" in s["text"]]
    assert xss and XSS_SCRIPT in xss[0]["text"] and XSS_IMG in xss[0]["text"] and XSS_CLOSE in xss[0]["text"]
    # highlights
    contra = dom.by_id(f"d0-s{contra_index}")
    assert contra and CONTRADICTION in contra["text"]
    assert {"l-contradiction", "sc1", "sel"} <= set(contra["attrs"]["class"].split())
    supported = [s for s in dom.all("span", cls="s", data_draft="0") if s["attrs"]["data-label"] == "entailment"]
    assert supported and all("sc5" in s["attrs"]["class"] for s in supported)
    # the detail panel, filled in by the script for the linked sentence, shows the contradicting evidence
    detail = dom.by_id("detail-0")
    assert "contradiction" in detail["text"] and "contradicting evidence" in detail["text"]
    assert "It is closed on Sundays." in detail["text"] and "FL100" in detail["text"]
    selected_cards = [c for c in dom.all("li", cls="finding", data_draft="0") if "sel" in c["attrs"]["class"]]
    assert selected_cards and all(c["attrs"]["data-sentence"] == str(contra_index) for c in selected_cards)
    # summary
    assert dom.all("svg", cls="hist") and dom.by_id("summary")
    _screenshot(report, tmp_path, "html-report.png")


@pytest.mark.slow
def test_cli_check_format_html_with_a_real_model(tmp_path: Path) -> None:
    model = os.environ.get("FAITHLINT_TEST_MODEL")
    if not model and not BUNDLED.exists():
        pytest.skip("no checker model: the bundled model is not installed and FAITHLINT_TEST_MODEL is not set")
    args = ["--model", model] if model else []
    out = tmp_path / "report.html"
    planted = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
    (tmp_path / "answer.md").write_text((EXAMPLE / "answer.md").read_text())
    (tmp_path / "answer.context.md").write_text((EXAMPLE / "answer.context.md").read_text())
    proc = subprocess.run([sys.executable, "-m", "faithlint", "check", "answer.md", "--format", "html", "-o",
                           str(out), "--fail-on", "never", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = DOM(out.read_text(encoding="utf-8"))
    spans = dom.all("span", cls="s")
    assert spans and any(planted in s["text"] for s in spans)
    if not model:  # the bundled model sees that the context says $12.5 million
        contra = next(s for s in spans if planted in s["text"])
        assert "FL100" in contra["attrs"]["data-codes"].split()
        assert "l-contradiction" in contra["attrs"]["class"].split()
    if CHROMIUM:
        dom = _load(out, tmp_path)
        assert dom.all("html")[0]["attrs"].get("data-ready") == "1"
        _screenshot(out, tmp_path, "html-report-cli.png")


# ------------------------------------------------------------------------------------------ claims
# unit = "claim": the real spaCy claim extractor and pipeline, a checker that judges each claim by its words


CLAIM_CONTEXT = ("The Riverside Public Library reopened in 2024. The project cost $12.5 million and was funded by a "
                 "city bond.\n\nA rooftop garden opened on the top floor.\n")
# emoji (two UTF-16 units, one code point) and CJK before the claims, on the same line, CRLF line breaks
CLAIM_DRAFT = ("# Notes 🎉\r\n\r\nReaders 😀 love the library 图书馆. "
               "🎉 The project cost $25 million and was funded by a city bond.\r\n"
               "A rooftop café run by a local bakery opened on the top floor.\r\n")


class ClaimChecker(KeywordChecker):
    """'$25 million' or 'the top floor' in a claim -> contradicted, 'bakery' -> unsupported, else supported."""

    def score_pairs(self, premises, hypotheses):  # type: ignore[no-untyped-def]
        import numpy as np

        rows = [[0.05, 0.1, 0.85] if "$25 million" in h or "on the top floor" in h
                else [0.1, 0.8, 0.1] if "bakery" in h else [0.9, 0.07, 0.03] for h in hypotheses]
        return np.array(rows, dtype=np.float32).reshape(-1, 3)


class WellFormed(HTMLParser):
    """Fails on any end tag that does not close the innermost open element, or an element left open."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.feed(markup)
        self.close()
        assert self.stack == [], f"unclosed: {self.stack}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in DOM.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()


def claim_pieces(dom: DOM, claim_id: str) -> list[dict]:
    return [e for e in dom.all("span", cls="cl") if claim_id in e["attrs"]["data-claims"].split()]


def claim_words(dom: DOM, claim_id: str) -> str:
    return "".join(e["text"] for e in claim_pieces(dom, claim_id))


@pytest.fixture(scope="module")
def claim_result() -> DraftResult:
    linter = Linter(Config(unit="claim"), checker=ClaimChecker(), relevance=LexicalRelevance())
    return linter.check(CLAIM_DRAFT, [ContextDoc("ctx.md", CLAIM_CONTEXT)], path="notes.md")


@pytest.fixture(scope="module")
def claim_markup(claim_result: DraftResult) -> str:
    return render([claim_result], "html")


def _claim_id(result: DraftResult, words: str) -> tuple[str, int]:
    """The report's id of the claim whose text is ``words``, and its sentence's index."""
    for i, s in enumerate(sorted(result.sentences, key=lambda s: (s.start, s.end))):
        for j, c in enumerate(s.claims or ()):
            if c.text == words:
                return f"d0-s{i}-c{j}", i
    raise AssertionError(f"no claim {words!r}")


def test_claims_are_underlined_by_verdict_with_tooltips(claim_markup: str, claim_result: DraftResult) -> None:
    WellFormed(claim_markup)
    dom = DOM(claim_markup)
    text = claim_result.text
    # every claim's pieces together are exactly its words, whatever emoji or CJK came before
    for i, s in enumerate(sorted(claim_result.sentences, key=lambda s: (s.start, s.end))):
        for j, c in enumerate(s.claims or ()):
            assert claim_words(dom, f"d0-s{i}-c{j}") == text[c.start:c.end]
    project, i = _claim_id(claim_result, "The project cost $25 million.")
    assert claim_words(dom, project) == "The project cost $25 million"
    for piece in claim_pieces(dom, project):
        assert {"cl", "cl-contradicted", "cl-fl110"} <= set(piece["attrs"]["class"].split())
        assert "claim \u201cThe project cost $25 million.\u201d \u00b7 contradicted \u00b7 score 0.05 \u00b7 FL110 " \
               "[error]" in piece["attrs"]["title"]
    funded, _ = _claim_id(claim_result, "The project was funded by a city bond.")
    only_supported = [p for p in claim_pieces(dom, funded) if project not in p["attrs"]["data-claims"]]
    assert only_supported and all(p["attrs"]["class"] == "cl cl-supported" for p in only_supported)
    sentence = dom.by_id(f"d0-s{i}")
    assert "has-claims" in sentence["attrs"]["class"].split()  # the claims carry the underline, not the sentence
    # FL400's mark stays one element around its value, with the claim's piece inside it
    marks = dom.all("mark", cls="v")
    assert [m["text"] for m in marks if m["attrs"]["data-code"] == "FL400"] == ["$25 million"]
    assert not [m for m in marks if m["attrs"]["data-code"] in ("FL110", "FL210")]  # claims are not marks
    assert re.search(r'<mark class="v" data-code="FL400"[^>]*><span class="cl cl-contradicted[^"]*" '
                     r'data-claims="[^"]*' + project, claim_markup)
    # the detail panel's data lists the sentence's claims with their verdicts and findings
    data = json.loads(re.search(r'id="faithlint-data">(.*?)</script>', claim_markup, re.S).group(1))
    listed = data["drafts"][0]["sentences"][i]
    assert listed["verdict_from"] == "claims"
    assert {(c["text"], c["verdict"], c["code"]) for c in listed["claims"]} >= {
        ("The project cost $25 million.", "contradicted", "FL110"),
        ("The project was funded by a city bond.", "supported", None)}
    assert dom.all("div", data_stat="claims")


def test_overlapping_claims_nest_in_pieces(claim_markup: str, claim_result: DraftResult) -> None:
    """"A café run by a bakery" inside "A café run by a bakery opened on the top floor": the shared words are one
    piece with both claims' classes and both tooltips, the rest is the outer claim's alone."""
    dom = DOM(claim_markup)
    inner, _ = _claim_id(claim_result, "A rooftop café was run by a local bakery.")
    outer, _ = _claim_id(claim_result, "A rooftop café opened on the top floor.")
    assert claim_words(dom, inner) == "A rooftop café run by a local bakery"
    assert claim_words(dom, outer) == "A rooftop café run by a local bakery opened on the top floor"
    shared = [p for p in claim_pieces(dom, inner) if outer in p["attrs"]["data-claims"]]
    assert [p["text"] for p in shared] == ["A rooftop café run by a local bakery"]
    classes = set(shared[0]["attrs"]["class"].split())
    assert {"cl-contradicted", "cl-unsupported", "cl-fl110", "cl-fl210"} <= classes
    assert shared[0]["attrs"]["title"].count("\n") == 1 and "FL210 [warning]" in shared[0]["attrs"]["title"]
    rest = [p for p in claim_pieces(dom, outer) if inner not in p["attrs"]["data-claims"]]
    assert [p["text"] for p in rest] == [" opened on the top floor"] and "cl-fl210" not in rest[0]["attrs"]["class"]


def test_crossing_claims_and_marks_stay_well_formed_and_escaped() -> None:
    """Claims that cross each other and a value mark, in a sentence full of markup and astral characters."""
    from faithlint.types import ClaimResult, Finding, SentenceResult

    text = 'Intro 😀 <b>"x"</b> & 图书馆 alpha 🎉 beta gamma delta.'
    s = SentenceResult(start=0, end=len(text), text=text, label="contradiction",
                       probs={"entailment": 0.1, "neutral": 0.1, "contradiction": 0.8}, score=0.1, scale_1_5=1,
                       evidence=None, verdict_from="claims")

    def claim(words_from: str, words_to: str, label: str, claim_text: str) -> ClaimResult:
        a, b = text.index(words_from), text.index(words_to) + len(words_to)
        probs = {"entailment": 0.9, "neutral": 0.05, "contradiction": 0.05} if label == "entailment" else \
            {"entailment": 0.05, "neutral": 0.1, "contradiction": 0.85}
        return ClaimResult(start=a, end=b, text=claim_text, label=label, probs=probs, score=probs["entailment"],
                           scale_1_5=1, evidence=None)

    s.claims = [claim("<b>", "alpha", "contradiction", 'A <script>alert("c")</script> claim.'),  # crosses the next
                claim("图书馆", "gamma", "entailment", "Another & claim."),
                claim("图书馆", "alpha", "entailment", "Nested claim."),  # inside both, starting with the second
                ClaimResult(start=5, end=5, text="Empty.", label="neutral", probs=s.probs, score=0.1,
                            scale_1_5=1, evidence=None)]  # zero width: underlines nothing
    first = s.claims[0]
    mark_a = text.index("& 图")
    findings = [Finding("FL110", "error", "Claim contradicted", first.start, first.end, label="contradiction",
                        score=0.05, data={"claim": {"text": first.text}, "sentence": [0, len(text)]}),
                Finding("FL400", "warning", "value", mark_a, text.index("beta") + 4, data={"sentence": [0, len(text)]})]
    result = DraftResult(text=text, path="x.md", sentences=[s], findings=findings,
                         score={"mean": 0.1, "min": 0.1, "unsupported_share": 1.0})
    markup = render_html([result])
    WellFormed(markup)
    assert '<b>"x"' not in markup and "<script>alert" not in markup and "&lt;b&gt;&quot;x&quot;&lt;/b&gt;" in markup
    dom = DOM(markup)
    for j, c in enumerate(s.claims[:3]):
        assert claim_words(dom, f"d0-s0-c{j}") == text[c.start:c.end]
    assert not claim_pieces(dom, "d0-s0-c3")
    (mark,) = dom.all("mark", cls="v")
    assert mark["text"] == text[mark_a:text.index("beta") + 4]  # one mark, the claims' pieces inside it
    assert any('A <script>alert("c")</script> claim.' in p["attrs"]["title"] for p in claim_pieces(dom, "d0-s0-c0"))
    assert all("cl-fl110" in p["attrs"]["class"] for p in claim_pieces(dom, "d0-s0-c0"))
    nested = claim_pieces(dom, "d0-s0-c2")
    assert [p["attrs"]["data-claims"] for p in nested] == ["d0-s0-c0 d0-s0-c1 d0-s0-c2"] * len(nested)
    assert "".join(p["text"] for p in dom.all("span", cls="s")) == text


@needs_chromium
def test_claims_in_headless_chromium(claim_markup: str, claim_result: DraftResult, tmp_path: Path) -> None:
    report = tmp_path / "claims.html"
    report.write_text(claim_markup, encoding="utf-8")
    project, i = _claim_id(claim_result, "The project cost $25 million.")
    dom = _load(report, tmp_path, f"#d0-s{i}")
    assert dom.all("html")[0]["attrs"].get("data-ready") == "1"
    assert claim_words(dom, project) == "The project cost $25 million"
    detail = dom.by_id("detail-0")["text"]
    assert "Claims (the sentence's verdict is theirs):" in detail
    assert "contradicted 0.05 FL110 \u00b7 \u201cThe project cost $25 million.\u201d" in detail
    assert "supported 0.90 \u00b7 \u201cThe project was funded by a city bond.\u201d" in detail


@pytest.mark.slow
def test_cli_check_format_html_unit_claim_with_a_real_model(tmp_path: Path) -> None:
    """The real CLI, models and claim extractor on examples/rag-answer: the planted "$25 million" claim and the
    café sentence's two claims are underlined as flagged; the supported claims are not."""
    model = os.environ.get("FAITHLINT_TEST_MODEL")
    if not model and not BUNDLED.exists():
        pytest.skip("no checker model: the bundled model is not installed and FAITHLINT_TEST_MODEL is not set")
    out = tmp_path / "report.html"
    for name in ("answer.md", "answer.context.md"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    proc = subprocess.run([sys.executable, "-m", "faithlint", "check", "answer.md", "--unit", "claim", "--format",
                           "html", "-o", str(out), "--fail-on", "never", *(["--model", model] if model else [])],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    markup = out.read_text(encoding="utf-8")
    WellFormed(markup)
    dom = DOM(markup)
    pieces = dom.all("span", cls="cl")
    flagged = lambda p: {"cl-fl110", "cl-fl210"} & set(p["attrs"]["class"].split())  # noqa: E731
    flagged_text = "".join(p["text"] for p in pieces if flagged(p))
    project = [p for p in pieces if p["text"].startswith("The project cost")]
    assert project and "cl-fl110" in project[0]["attrs"]["class"] and "The project cost $25 million" in flagged_text
    assert "claim \u201cThe project cost $25 million.\u201d \u00b7 contradicted" in project[0]["attrs"]["title"]
    cafe = [p for p in pieces if "rooftop café" in p["text"]]
    assert cafe and all("cl-fl210" in p["attrs"]["class"] for p in cafe)
    flagged_sentences = [s["text"] for s in dom.all("span", cls="s") if s["attrs"]["data-codes"]]
    assert len(flagged_sentences) == 2  # the project and café sentences; the supported ones have no flagged claim
    assert all(any(p["text"] in s for s in flagged_sentences) for p in pieces if flagged(p))
    if CHROMIUM:
        dom = _load(out, tmp_path)
        assert dom.all("html")[0]["attrs"].get("data-ready") == "1"
        _screenshot(out, tmp_path, "html-report-claims.png")
