"""Output formats on hand-built results: positions, escaping and the shapes consumers rely on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from faithlint.report import Format, formats, get, names, register, render
from faithlint.report.records import finding_to_dict, result_to_dict
from faithlint.rules import RULES
from faithlint.types import DraftResult, Evidence, Finding, SentenceResult

TEXT = "Intro 😀 sentence.\r\nSecond line here.\r\nRevenue was 5 million in 2021.\n"
EMOJI_TEXT = "😀👍🏽 The sky is green."


def _sentence(text: str, fragment: str, label: str = "neutral", score: float = 0.3,
              evidence: Evidence | None = None) -> SentenceResult:
    start = text.index(fragment)
    return SentenceResult(start=start, end=start + len(fragment), text=fragment, label=label,
                          probs={"entailment": 0.1, "neutral": 0.6, "contradiction": 0.3}, score=score,
                          scale_1_5=2, evidence=evidence)


def _finding(text: str, fragment: str, code: str, severity: str, message: str, **kw: Any) -> Finding:
    start = text.index(fragment)
    return Finding(code=code, severity=severity, message=message, start=start, end=start + len(fragment), **kw)


@pytest.fixture
def results() -> list[DraftResult]:
    ev = Evidence(source="ctx/report.md", start=10, end=52, text="Revenue was 4 million\nin 2021.", weight=0.9)
    crlf = DraftResult(
        text=TEXT, path="drafts/a.md",
        score={"mean": 0.55, "min": 0.2, "unsupported_share": 0.5},
        sentences=[_sentence(TEXT, "Intro 😀 sentence.", "entailment", 0.9),
                   _sentence(TEXT, "Second line here.", "neutral", 0.4),
                   _sentence(TEXT, "Revenue was 5 million in 2021.", "contradiction", 0.1, ev)],
        findings=[
            _finding(TEXT, "5 million", "FL400", "warning", "Number '5 million' not found in evidence.",
                     label="contradiction", score=0.1, evidence=ev, data={"values": ["5 million"]}),
            _finding(TEXT, "Revenue was 5 million in 2021.", "FL100", "error",
                     "The context contradicts this sentence.", label="contradiction", score=0.1234567, evidence=ev),
            _finding(TEXT, "Second line here.", "FL300", "info", "Low faithfulness (0.40).", score=0.4),
        ],
        notes=["context truncated"],
    )
    emoji = DraftResult(
        text=EMOJI_TEXT, id="item-7",
        score={"mean": 0.2, "min": 0.2, "unsupported_share": 1.0},
        sentences=[_sentence(EMOJI_TEXT, "The sky is green.", "neutral", 0.2)],
        findings=[_finding(EMOJI_TEXT, "green", "FL200", "warning", "Unsupported: no context mentions it.")],
    )
    clean = DraftResult(text="All good.", path="drafts/ok.md", score={"mean": 0.95, "min": 0.95,
                                                                      "unsupported_share": 0.0})
    return [crlf, emoji, clean]


FINDING_KEYS = {"code", "severity", "message", "start", "end", "line", "column", "end_line", "end_column",
                "lsp_range", "label", "score", "evidence", "data"}


# -- dicts / json / jsonl ----------------------------------------------------------------------------------


def test_finding_dict_positions_after_crlf(results: list[DraftResult]) -> None:
    d = finding_to_dict(results[0], results[0].findings[0])
    assert set(d) == FINDING_KEYS
    col = len("Revenue was ") + 1
    assert (d["line"], d["column"]) == (3, col)
    assert (d["end_line"], d["end_column"]) == (3, col + len("5 million"))
    assert TEXT[d["start"]:d["end"]] == "5 million"
    assert d["lsp_range"] == {"start": {"line": 2, "character": col - 1},
                              "end": {"line": 2, "character": col - 1 + len("5 million")}}
    assert d["evidence"] == {"source": "ctx/report.md", "start": 10, "end": 52,
                             "text": "Revenue was 4 million\nin 2021."}
    assert d["data"] == {"values": ["5 million"]}


def test_finding_dict_positions_after_emoji(results: list[DraftResult]) -> None:
    d = finding_to_dict(results[1], results[1].findings[0])
    # "😀👍🏽 The sky is " = 3 code points of emoji + 12 chars -> "green" at code-point column 16 (1-based)
    assert (d["line"], d["column"], d["end_line"], d["end_column"]) == (1, 16, 1, 21)
    # ...but UTF-16: each of the 3 emoji code points is 2 units -> 0-based character 18.
    assert d["lsp_range"]["start"] == {"line": 0, "character": 18}
    assert d["lsp_range"]["end"] == {"line": 0, "character": 23}
    assert d["evidence"] is None and d["label"] is None and d["score"] is None


def test_result_dict_path_or_id(results: list[DraftResult]) -> None:
    a, b = result_to_dict(results[0]), result_to_dict(results[1])
    assert a["path"] == "drafts/a.md" and "id" not in a
    assert b["id"] == "item-7" and "path" not in b
    assert list(a) == ["path", "score", "sentences", "findings", "notes", "unchecked"]
    assert a["score"] == {"mean": 0.55, "min": 0.2, "unsupported_share": 0.5}
    assert a["sentences"][2]["evidence"]["source"] == "ctx/report.md"
    assert a["notes"] == ["context truncated"]
    assert a["findings"][1]["score"] == 0.1235


def test_json_document(results: list[DraftResult]) -> None:
    doc = json.loads(render(results, "json"))
    assert set(doc) == {"version", "tool", "results", "summary"}
    assert doc["version"] == 1 and doc["tool"] == "faithlint"
    assert len(doc["results"]) == 3
    assert doc["summary"] == {"drafts": 3, "findings": 4,
                              "by_code": {"FL100": 1, "FL200": 1, "FL300": 1, "FL400": 1},
                              "by_severity": {"error": 1, "warning": 2, "info": 1}}
    for r in doc["results"]:
        assert {"score", "sentences", "findings", "notes"} <= set(r)
        assert "path" in r or "id" in r
        for f in r["findings"]:
            assert set(f) == FINDING_KEYS
    f = doc["results"][1]["findings"][0]
    assert (f["line"], f["column"]) == (1, 16)


def test_json_is_strict_with_nan() -> None:
    r = DraftResult(text="x.", path="p.md", score={"mean": float("nan")},
                    findings=[Finding("FL300", "info", "m", 0, 2, score=float("inf"))])
    out = render([r], "json")
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert doc["results"][0]["score"] == {"mean": None, "min": None, "unsupported_share": None}
    assert doc["results"][0]["findings"][0]["score"] is None


def test_jsonl_one_line_per_draft(results: list[DraftResult]) -> None:
    out = render(results, "jsonl")
    lines = out.splitlines()
    assert len(lines) == 3 and out.endswith("\n")
    assert [json.loads(line) for line in lines] == [json.loads(json.dumps(result_to_dict(r))) for r in results]
    assert render([], "jsonl") == ""


# -- text --------------------------------------------------------------------------------------------------


def test_text_lines_and_summary(results: list[DraftResult]) -> None:
    lines = render(results, "text").splitlines()
    assert lines[0] == "drafts/a.md:3:13: FL400 [warning] Number '5 million' not found in evidence."
    assert lines[1] == "drafts/a.md:3:1: FL100 [error] The context contradicts this sentence."
    assert lines[2] == "drafts/a.md:2:1: FL300 [info] Low faithfulness (0.40)."
    assert lines[3] == "item-7:1:16: FL200 [warning] Unsupported: no context mentions it."
    assert lines[4] == "Found 4 findings (1 error, 2 warnings, 1 info) in 3 drafts."
    assert len(lines) == 5


def test_text_all_supported(results: list[DraftResult]) -> None:
    assert render(results[2:], "text") == "All checked sentences are supported (1 draft).\n"
    assert render([results[2], results[2]], "text") == "All checked sentences are supported (2 drafts).\n"


def test_text_plain_has_no_ansi_and_color_has(results: list[DraftResult]) -> None:
    results[1].findings[0].message = "Odd [bold]markup[/bold]\nand a newline"
    plain = render(results, "text")
    assert "\x1b[" not in plain
    assert "item-7:1:16: FL200 [warning] Odd [bold]markup[/bold] and a newline" in plain.splitlines()
    colored = render(results, "text", color=True)
    assert "\x1b[" in colored
    stripped = re.sub(r"\x1b\[[0-9;]*m", "", colored)
    assert stripped == plain  # same content, markup in messages left literal


# -- github ------------------------------------------------------------------------------------------------


def test_github_commands(results: list[DraftResult]) -> None:
    lines = render(results, "github").splitlines()
    assert len(lines) == 4
    assert lines[0] == ("::warning file=drafts/a.md,line=3,endLine=3,col=13,endColumn=22,"
                        "title=FL400 absent-fact::Number '5 million' not found in evidence.")
    assert lines[1].startswith("::error file=drafts/a.md,line=3,endLine=3,col=1,endColumn=31,"
                               "title=FL100 contradiction::")
    assert lines[2].startswith("::notice ")
    assert lines[3].startswith("::warning file=item-7,line=1,endLine=1,col=16,endColumn=21,title=FL200 unsupported::")


def test_github_escaping() -> None:
    text = "Growth was 50% in Q1."
    r = DraftResult(text=text, path="docs/a:b,c%.md",
                    findings=[_finding(text, "50%", "FL400", "warning", "50% not found:\r\nsee a, b")])
    (line,) = render([r], "github").splitlines()
    assert line == ("::warning file=docs/a%3Ab%2Cc%25.md,line=1,endLine=1,col=12,endColumn=15,"
                    "title=FL400 absent-fact::50%25 not found:%0D%0Asee a, b")


# -- sarif -------------------------------------------------------------------------------------------------


def assert_github_sarif(doc: dict[str, Any]) -> None:
    """Structural check of what GitHub code scanning requires of a SARIF upload."""
    assert doc["version"] == "2.1.0"
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert isinstance(doc["runs"], list) and doc["runs"]
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rules = driver.get("rules", [])
        for rule in rules:
            assert isinstance(rule["id"], str)
            assert isinstance(rule["shortDescription"]["text"], str)
            assert isinstance(rule["fullDescription"]["text"], str)
            assert rule["helpUri"].startswith("https://")
            assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
        assert isinstance(run["results"], list)
        for res in run["results"]:
            assert isinstance(res["message"]["text"], str) and res["message"]["text"]
            assert isinstance(res["ruleId"], str)
            if "ruleIndex" in res:
                assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            assert res["level"] in {"none", "note", "warning", "error"}
            assert res["locations"]
            for loc in res["locations"]:
                phys = loc["physicalLocation"]
                uri = phys["artifactLocation"]["uri"]
                assert isinstance(uri, str) and uri and "\\" not in uri and not uri.startswith("/")
                region = phys["region"]
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    assert isinstance(region[key], int) and region[key] >= 1, key
                assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
            for fp in res.get("partialFingerprints", {}).values():
                assert isinstance(fp, str)
            for rel in res.get("relatedLocations", []):
                assert rel["physicalLocation"]["artifactLocation"]["uri"]
                assert rel["message"]["text"]


def test_sarif_structure(results: list[DraftResult]) -> None:
    doc = json.loads(render(results, "sarif"))
    assert_github_sarif(doc)
    run = doc["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    driver = run["tool"]["driver"]
    assert driver["name"] == "faithlint" and driver["informationUri"].startswith("https://")
    assert isinstance(driver["version"], str)
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    assert driver["rules"][0]["helpUri"].endswith("docs/rules.md#fl100")
    assert len(run["results"]) == 4
    first = run["results"][0]
    assert first["ruleId"] == "FL400" and first["level"] == "warning"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "drafts/a.md"
    assert loc["region"] == {"startLine": 3, "startColumn": 13, "endLine": 3, "endColumn": 22,
                             "snippet": {"text": "5 million"}}
    (rel,) = first["relatedLocations"]
    assert rel["physicalLocation"]["artifactLocation"]["uri"] == "ctx/report.md"
    assert "Revenue was 4 million in 2021." in rel["message"]["text"]
    assert [r["level"] for r in run["results"]] == ["warning", "error", "note", "warning"]
    batch = run["results"][3]["locations"][0]["physicalLocation"]
    assert batch["artifactLocation"]["uri"] == "item-7"
    assert batch["region"]["startColumn"] == 16


def test_sarif_fingerprints_stable_and_distinct(results: list[DraftResult]) -> None:
    fps = [r["partialFingerprints"] for r in json.loads(render(results, "sarif"))["runs"][0]["results"]]
    assert len({json.dumps(fp, sort_keys=True) for fp in fps}) == len(fps)
    # Moving the sentence to another line (edits elsewhere) keeps its fingerprint.
    moved_text = "New first line.\n" + TEXT
    shift = len("New first line.\n")
    moved = DraftResult(
        text=moved_text, path="drafts/a.md",
        sentences=[SentenceResult(s.start + shift, s.end + shift, s.text, s.label, s.probs, s.score, s.scale_1_5,
                                  s.evidence) for s in results[0].sentences],
        findings=[Finding(f.code, f.severity, f.message, f.start + shift, f.end + shift) for f in results[0].findings])
    fps_moved = [r["partialFingerprints"] for r in json.loads(render([moved], "sarif"))["runs"][0]["results"]]
    assert fps_moved == fps[:3]


def test_sarif_evidence_lines_when_contexts_given(results: list[DraftResult]) -> None:
    ctx = "# Report\n\n" + "Revenue was 4 million\nin 2021." + "\n"
    doc = json.loads(render(results, "sarif", contexts={"ctx/report.md": ctx}))
    region = doc["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 3 and region["startColumn"] == 1


def test_sarif_unknown_code_and_absolute_path(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "sub dir" / "d.md"
    r = DraftResult(text="Hi.", path=str(path), findings=[Finding("FL999", "info", "new rule", 0, 3)])
    doc = json.loads(render([r], "sarif"))
    assert_github_sarif(doc)
    res = doc["runs"][0]["results"][0]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub%20dir/d.md"
    assert doc["runs"][0]["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "FL999"
    assert res["level"] == "note"


def test_sarif_empty_results_are_valid() -> None:
    doc = json.loads(render([], "sarif"))
    assert_github_sarif(doc)
    assert doc["runs"][0]["results"] == []


# -- dispatch ----------------------------------------------------------------------------------------------


def test_registered_formats_and_unknown_format(results: list[DraftResult]) -> None:
    assert names() == ("text", "json", "jsonl", "sarif", "github", "html")
    for fmt in names():
        assert isinstance(render(results, fmt), str)
    with pytest.raises(ValueError, match="unknown format 'xml'; expected one of text, json, jsonl, sarif, github, "
                                         "html"):
        render(results, "xml")


def test_each_format_is_one_module_registering_itself() -> None:
    """The renderer registered under each name lives in its own module of faithlint.report, with a help line."""
    modules = {f.name: f.render.__module__ for f in formats()}
    assert modules == {"text": "faithlint.report.text", "json": "faithlint.report.json_format",
                       "jsonl": "faithlint.report.json_format", "sarif": "faithlint.report.sarif",
                       "github": "faithlint.report.github", "html": "faithlint.report.html"}
    assert all(f.help and "\n" not in f.help for f in formats())
    assert [f.name for f in formats() if f.reads_contexts] == ["sarif", "html"]


def test_a_name_is_registered_once() -> None:
    text = get("text")
    assert register(text) is text  # the same format again: no change
    with pytest.raises(ValueError, match="format 'text' is already registered"):
        register(Format("text", text.render, "another text"))
    with pytest.raises(ValueError, match="letters, digits and dashes"):
        register(Format("a b", text.render, "spaces"))
    assert get("text") is text


def test_adding_a_format_is_adding_a_module(tmp_path: Path) -> None:
    """A module beside the built-in ones registers a format: render() and check --format take it, with its help
    line in shell completion; nothing else is edited."""
    (tmp_path / "shout.py").write_text(
        "from faithlint.report.registry import Format, register\n\n\n"
        "def render_shout(results, *, color=False, contexts=None):\n"
        "    return ''.join(f'{f.code}!\\n' for r in results for f in r.findings)\n\n\n"
        "register(Format('shout', render_shout, 'codes, loudly', order=70))\n", encoding="utf-8")
    code = f"""
import faithlint.report
faithlint.report.__path__.append({str(tmp_path)!r})
from faithlint.cli.app import _format_choices, build_parser
from faithlint.report import Format, formats, get, names, register, render
from faithlint.types import DraftResult, Finding
print(names())
print(build_parser().parse_args(["check", "--format", "shout", "a.md"]).format)
print(_format_choices()["shout"])
finding = Finding(code="FL200", severity="warning", message="m", start=0, end=1)
print(render([DraftResult(text="x", findings=[finding])], "shout"), end="")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["('text', 'json', 'jsonl', 'sarif', 'github', 'html', 'shout')", "shout",
                                        "codes, loudly", "FL200!"]
