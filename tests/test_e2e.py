"""End-to-end with the real bundled checker, embeddings and spaCy (no mocks)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from faithlint.cli import app as cli
from faithlint.config import Config
from faithlint.inputs.context import load_context
from faithlint.pipeline.linter import Linter

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag-answer"
CONTRADICTION = "The project cost $25 million and was funded by a city bond that voters approved in 2021."
UNSUPPORTED = "A rooftop café run by a local bakery opened on the top floor."

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=[True, False], ids=["verbatim-on", "model-only"])
def example_result(request):
    """The example as shipped, and with the verbatim-copy shortcut off so the model alone decides."""
    text = (EXAMPLE / "answer.md").read_text()
    linter = Linter(Config(verbatim=request.param))
    ctx = load_context([EXAMPLE / "answer.context.md"], 10**6)
    return linter.check(text, ctx, path="answer.md", query="What changed at the Riverside Public Library?")


def flagged(result, code):
    return {result.text[f.start:f.end] for f in result.findings if f.code == code}


def flagged_sentences(result, code):
    """The sentences that findings of ``code`` are about (a finding may cover only the words the span head marks,
    inside its sentence; ``data.sentence`` keeps the whole sentence for fixes)."""
    out = set()
    for f in result.findings:
        if f.code == code:
            a, b = f.data["sentence"]
            assert a <= f.start < f.end <= b
            out.add(result.text[a:b])
    return out


def test_example_flags_exactly_the_planted_sentences(example_result):
    res = example_result
    assert CONTRADICTION in flagged_sentences(res, "FL100"), [(f.code, f.message) for f in res.findings]
    assert UNSUPPORTED in flagged_sentences(res, "FL200"), [(f.code, f.message) for f in res.findings]
    assert "$25 million" in flagged(res, "FL400")
    planted = {CONTRADICTION, UNSUPPORTED}
    for f in res.findings:
        sentence = next(s for s in res.sentences if s.start <= f.start and f.end <= s.end)
        assert sentence.text in planted, f"finding on a supported sentence: {f.code} {sentence.text!r}"
    supported = [s for s in res.sentences if s.text not in planted and not s.text.startswith("What changed")]
    assert supported and all(s.label == "entailment" for s in supported)


def test_sentence_fields_and_evidence_offsets(example_result):
    res = example_result
    ctx_text = (EXAMPLE / "answer.context.md").read_text()
    for s in res.sentences:
        assert res.text[s.start:s.end] == s.text
        assert abs(sum(s.probs.values()) - 1) < 1e-3
        assert 1 <= s.scale_1_5 <= 5 and 0 <= s.score <= 1
        assert s.evidence is not None
        assert ctx_text[s.evidence.start:s.evidence.end] == s.evidence.text
    contra = next(s for s in res.sentences if s.text == CONTRADICTION)
    assert "$12.5 million" in contra.evidence.text


def test_the_bundled_grounding_scores_every_sentence_the_checker_judged(example_result):
    res = example_result
    for s in res.sentences:
        g = s.grounding
        assert g is not None and s.score == g.p
        assert abs(sum(g.checker.values()) - 1) < 1e-3 and set(g.features) == {
            "entailment_logit", "content_absent", "numbers_absent"}
    cafe = next(s for s in res.sentences if s.text == UNSUPPORTED)
    others = [s for s in res.sentences if s.text != UNSUPPORTED]
    # the café, the bakery and the top floor are nowhere in the context; every other sentence's words are
    assert cafe.grounding.features["content_absent"] > max(s.grounding.features["content_absent"] for s in others)


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "faithlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_cli_text_and_exit_codes():
    proc = run_cli("check", "examples/rag-answer/answer.md")
    assert proc.returncode == 1, proc.stderr
    assert "FL100" in proc.stdout and "Traceback" not in proc.stderr
    assert run_cli("check", "examples/rag-answer/answer.md", "--fail-on", "never").returncode == 0


def test_the_readme_shows_the_examples_output_as_it_is_printed():
    proc = run_cli("check", "examples/rag-answer/answer.md")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"$ faithlint check examples/rag-answer/answer.md\n{proc.stdout}```" in readme, \
        "README.md's first example is out of date; paste this output:\n" + proc.stdout


def test_cli_formats_in_process(tmp_path, capsys):
    draft = str(EXAMPLE / "answer.md")
    for fmt in ("json", "jsonl", "sarif", "github", "text"):
        out = tmp_path / f"out.{fmt}"
        code = cli.main(["check", draft, "--format", fmt, "-o", str(out)])
        assert code == 1
        body = out.read_text()
        if fmt == "json":
            doc = json.loads(body)
            r = doc["results"][0]
            assert set(r) >= {"path", "score", "sentences", "findings"}
            f = r["findings"][0]
            assert set(f) >= {"code", "severity", "message", "start", "end", "line", "column", "end_line",
                              "end_column", "lsp_range", "label", "score", "evidence"}
            s = r["sentences"][0]
            assert set(s) >= {"start", "end", "text", "label", "probs", "score", "scale_1_5", "evidence"}
        elif fmt == "jsonl":
            assert len(body.splitlines()) == 1 and json.loads(body)["findings"]
        elif fmt == "sarif":
            sarif = json.loads(body)
            assert sarif["version"] == "2.1.0"
            res = sarif["runs"][0]["results"]
            assert any(x["ruleId"] == "FL100" and x["level"] == "error" for x in res)
            assert res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
        elif fmt == "github":
            assert body.startswith("::") and "title=FL100" in body
        else:
            assert "FL100 [error]" in body


def test_clean_draft_exits_0(tmp_path):
    shutil.copy(EXAMPLE / "answer.context.md", tmp_path / "good.context.md")
    (tmp_path / "good.md").write_text("The project cost $12.5 million.\n\nThe solar roof supplies about 30 percent "
                                      "of the electricity.\n")
    # exit-code semantics on the deterministic rule (values all present in the evidence)
    assert cli.main(["check", str(tmp_path / "good.md"), "--select", "FL400", "--fail-on", "info"]) == 0
    assert cli.main(["check", str(tmp_path / "good.md"), "--select", "FL400", "--fail-on", "never"]) == 0


def test_a_bare_answer_to_a_query_is_checked(tmp_path, capsys):
    """A one-fragment answer ("$15 million.") is under min_words, but with --query it is the whole answer."""
    shutil.copy(EXAMPLE / "answer.context.md", tmp_path / "a.context.md")
    draft = tmp_path / "a.md"
    q = "How much did the renovation cost?"
    draft.write_text("$15 million.\n")
    assert cli.main(["check", str(draft), "--query", q, "--format", "json"]) == 1
    r = json.loads(capsys.readouterr().out)["results"][0]
    assert [s["text"] for s in r["sentences"]] == ["$15 million."]
    # the wrong figure is a warning (FL400); the sentence is doubted (stage 8: FL300, info, score about 0.4)
    codes = {f["code"]: f["severity"] for f in r["findings"]}
    assert codes["FL400"] == "warning" and codes.keys() & {"FL200", "FL300"}
    # a threshold for questions in the settings moves FL400 there alone (below 0.1: not at this score)
    (tmp_path / "faithlint.toml").write_text("[rules.FL400]\nby_context = { question = 0.1 }\n")
    assert cli.main(["check", str(draft), "--query", q, "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)["results"][0]
    assert "FL400" not in {f["code"] for f in r["findings"]}
    (tmp_path / "faithlint.toml").unlink()
    draft.write_text("$12.5 million.\n")
    assert cli.main(["check", str(draft), "--query", q, "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)["results"][0]
    assert [s["text"] for s in r["sentences"]] == ["$12.5 million."] and r["findings"] == []
    # without the question it states nothing to check
    draft.write_text("$15 million.\n")
    assert cli.main(["check", str(draft), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["sentences"] == []


def test_a_torch_path_model_loads_beside_spacy_in_a_fresh_process(tmp_path):
    """Linter.load_models loads the checker on a thread while spaCy imports with torch hidden; a checker on the
    torch path (runtime torch, any --model folder or hub id) imported torch inside that window and failed with
    "needs torch and transformers" (batch mode and the server load this way)."""
    folder = tmp_path / "my-checker"  # a model folder of one's own: no ONNX graph, so the torch path
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(ROOT / "training" / "checker" / name, folder / name)
    code = ("from faithlint.config import Config\nfrom faithlint.pipeline.linter import Linter\n"
            f"lt = Linter(Config(runtime='torch', model={str(folder)!r}))\nlt.load_models()\n"
            "print(type(lt.checker).__name__, type(lt.relevance).__name__)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["NLIChecker", "EmbeddingRelevance"]
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(json.dumps({"id": "a", "text": "The project cost $25 million.",
                                 "context": ["The project cost $12.5 million."]}) + "\n")
    proc = run_cli("check", "--pairs", str(pairs), "--model", str(folder), "--format", "jsonl", "--fail-on", "never")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["findings"]


def test_pairs_batch_loads_models_once(tmp_path, monkeypatch):
    from faithlint.pipeline import registry

    ctx = (EXAMPLE / "answer.context.md").read_text()
    sentences = ["The library is closed on Sundays.", "The project cost $12.5 million.",
                 "The library is open on Sundays.", "The renovation was designed by Marlow & Finch."]
    lines = [json.dumps({"id": f"d{i}", "text": sentences[i % 4], "context": [ctx]}) for i in range(200)]
    (tmp_path / "pairs.jsonl").write_text("\n".join(lines) + "\n")
    loads = []
    from faithlint.models.checkers import nli, onnx_checker, openvino_checker

    for module, name in ((nli, "NLIChecker"), (onnx_checker, "ONNXChecker"),
                         (openvino_checker, "OpenVINOChecker")):  # whichever runtime loads it
        original = getattr(module, name)

        class Counting(original):
            def __init__(self, *a, **k):
                loads.append(1)
                super().__init__(*a, **k)

        monkeypatch.setattr(module, name, Counting)
    monkeypatch.setattr(registry, "_CHECKERS", {})
    out = tmp_path / "out.jsonl"
    code = cli.main(["check", "--pairs", str(tmp_path / "pairs.jsonl"), "--format", "jsonl", "-o", str(out),
                     "--fail-on", "never"])
    assert code == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(200)]
    assert len(loads) == 1
    # the one model judged every pair: the same sentence gets the same verdict on every line
    verdicts: dict[str, set[str]] = {}
    for i, r in enumerate(rows):
        verdict = ([f["code"] for f in r["findings"]], [(s["label"], s["score"]) for s in r["sentences"]])
        verdicts.setdefault(sentences[i % 4], set()).add(json.dumps(verdict))
    assert all(len(v) == 1 for v in verdicts.values())
    assert all(len(r["sentences"]) == 1 and r["sentences"][0]["label"] in ("entailment", "neutral", "contradiction")
               for r in rows)


def test_check_fix_applies_the_value_fix_to_the_example_and_nothing_else(tmp_path, capsys):
    work = tmp_path / "rag-answer"
    shutil.copytree(EXAMPLE, work)
    draft = work / "answer.md"
    before = draft.read_bytes()
    assert cli.main(["check", str(draft), "--fix"]) == 1  # the value swap is unsafe: not without --unsafe-fixes
    assert draft.read_bytes() == before and "1 unsafe fix not applied" in capsys.readouterr().err
    assert cli.main(["check", str(draft), "--diff", "--unsafe-fixes"]) == 1
    diff = capsys.readouterr().out
    assert draft.read_bytes() == before  # --diff changes nothing
    assert [x for x in diff.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")] == [
        f"-{CONTRADICTION}", f"+{CONTRADICTION.replace('$25 million', '$12.5 million')}"]

    code = cli.main(["check", str(draft), "--fix", "--unsafe-fixes", "--format", "json"])
    after = draft.read_bytes()
    assert after == before.replace(b"$25 million", b"$12.5 million", 1) and after != before
    report = json.loads(capsys.readouterr().out)["results"][0]
    text = after.decode()
    remaining = {(f["code"], text[f["start"]:f["end"]]) for f in report["findings"]}
    assert ("FL200", UNSUPPORTED) in remaining and not any(c == "FL400" for c, _ in remaining)
    assert code == 1  # the unsupported sentence is still there, and --fix never deletes it
    assert (work / "answer.context.md").read_bytes() == (EXAMPLE / "answer.context.md").read_bytes()


def test_synth_and_train_round_trip(tmp_path):
    synth = tmp_path / "synth.jsonl"
    assert cli.main(["synth", str(EXAMPLE / "answer.context.md"), "-o", str(synth), "--per-doc", "20"]) == 0
    rows = [json.loads(x) for x in synth.read_text().splitlines()]
    assert rows and {r["label"] for r in rows} <= {"entailment", "neutral", "contradiction"}
    assert all(r["premise"] and r["hypothesis"] for r in rows)
    pairs = [r for r in rows if r["kind"] == "minimal_pair"]
    assert pairs and all(r["label"] == "entailment" and r["hypothesis"] in r["premise"] for r in pairs)
    assert cli.main(["synth", str(EXAMPLE), "-o", str(synth), "--minimal-pairs", "1.5"]) == 2
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(json.dumps(r) for r in rows[:16]) + "\n")
    assert cli.main(["train", str(small), "-o", str(tmp_path / "m"), "--epochs", "1", "--batch-size", "8"]) == 0
    final = tmp_path / "m" / "final"
    assert (final / "config.json").exists()
    (tmp_path / "d.md").write_text("The library is closed on Sundays.\n")
    code = cli.main(["check", str(tmp_path / "d.md"), "--context", str(EXAMPLE / "answer.context.md"),
                     "--model", str(final), "--fail-on", "never"])
    assert code == 0


def test_int8_precision_is_the_bundled_default():
    """The bundled checker ships a static int8 graph (issue 41): ``precision = "int8"`` is what ``auto`` runs,
    and at int8 the example's contradiction is still an FL100 error and its unsupported sentence FL200."""
    text = (EXAMPLE / "answer.md").read_text()
    ctx = load_context([EXAMPLE / "answer.context.md"], 10**6)
    linter = Linter(Config(precision="int8", verbatim=False))
    assert linter.checker.quantize == "int8" and linter.checker.runtime in ("openvino", "onnx")
    assert linter.checker.name == Linter(Config()).checker.name  # the same graph, the same cached verdicts
    res = linter.check(text, ctx, path="answer.md", query="What changed at the Riverside Public Library?")
    assert CONTRADICTION in flagged_sentences(res, "FL100"), [(f.code, f.message) for f in res.findings]
    assert UNSUPPORTED in flagged_sentences(res, "FL200"), [(f.code, f.message) for f in res.findings]
    assert all(abs(sum(s.probs.values()) - 1) < 1e-3 for s in res.sentences)


def test_bf16_is_used_only_where_the_cpu_runs_it_natively(monkeypatch):
    from faithlint.models.checkers import nli

    assert nli.NLIChecker(None, quantize="fp32").autocast is False
    monkeypatch.setattr(nli, "cpu_has_bf16", lambda: False)
    fallback = nli.NLIChecker(None)  # the bundled model asks for bf16
    assert fallback.quantize is None and not fallback.autocast
    assert nli.NLIChecker(None, quantize="bf16").autocast  # asked for explicitly: honoured
    monkeypatch.setattr(nli, "cpu_has_bf16", lambda: True)
    native = nli.NLIChecker(None)
    assert native.quantize == "bf16" and native.autocast and native.name != fallback.name
    pairs = (["The project cost $12.5 million."] * 2, ["The project cost $12.5 million.", "It cost $25 million."])
    assert abs(native.score_pairs(*pairs) - fallback.score_pairs(*pairs)).max() < 0.02


def test_cli_unit_claim_reports_the_wrong_amount_as_a_contradicted_claim():
    """Issue 13's acceptance: the planted contradiction is an FL110 on the wrong amount's claim, ranged on its
    words, and nothing is reported on the supported sentences."""
    proc = run_cli("check", "examples/rag-answer/answer.md", "--unit", "claim", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    text = (EXAMPLE / "answer.md").read_text()
    by_code: dict[str, list[str]] = {}
    for f in result["findings"]:
        by_code.setdefault(f["code"], []).append(text[f["start"]:f["end"]])
    assert by_code.get("FL110") == ["The project cost $25 million"], result["findings"]
    fl110 = next(f for f in result["findings"] if f["code"] == "FL110")
    assert fl110["data"]["claim"] == {"subject": "The project", "predicate": "cost", "object": "$25 million",
                                      "text": "The project cost $25 million."}
    assert [text[a:b] for a, b in fl110["data"]["marks"]] == ["The project", "cost", "$25 million"]
    planted = {CONTRADICTION, UNSUPPORTED}
    for f in result["findings"]:
        sentence = next(s for s in result["sentences"] if s["start"] <= f["start"] and f["end"] <= s["end"])
        assert sentence["text"] in planted, f"finding on a supported sentence: {f['code']} {sentence['text']!r}"
    assert set(by_code) <= {"FL110", "FL210", "FL400"}
    contra = next(s for s in result["sentences"] if s["text"] == CONTRADICTION)
    assert contra["verdict_from"] == "claims" and len(contra["claims"]) >= 2
    assert any(c["text"] == "The project was funded by a city bond." and c["label"] == "entailment"
               for c in contra["claims"])
