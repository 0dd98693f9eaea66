"""The RAGTruth benchmark's metric functions on hand-made cases, and the split by source (no models)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import eval_ragtruth as ev  # noqa: E402

from faithlint.train import ragtruth  # noqa: E402


def test_overlap_is_of_half_open_ranges() -> None:
    assert ev.overlaps((0, 10), (9, 12))
    assert not ev.overlaps((0, 10), (10, 12))  # touching ends share no character
    assert ev.overlaps((5, 5), (0, 10)) and not ev.overlaps((10, 10), (0, 10))  # an empty range: by its position
    assert ev.overlaps((3, 4), (0, 10)) and ev.overlaps((0, 10), (3, 4))


def test_span_scores_are_micro_over_characters_of_all_responses() -> None:
    # response 1: predicted 0-10, gold 5-15 (5 shared); response 2: predicted 0-4 and 2-6 (union 0-6), no gold
    got = ev.span_scores([([(0, 10)], [(5, 15)]), ([(0, 4), (2, 6)], [])])
    assert got["predicted_chars"] == 16 and got["gold_chars"] == 10
    assert got["precision"] == pytest.approx(5 / 16) and got["recall"] == pytest.approx(5 / 10)
    assert got["f1"] == pytest.approx(2 * (5 / 16) * 0.5 / (5 / 16 + 0.5))
    assert ev.span_scores([([], [])])["f1"] == 0.0


def test_flagged_sentence_labels_and_their_precision_recall() -> None:
    sentences = [(0, 20), (21, 40), (41, 60), (61, 80)]
    findings = [(25, 30), (45, 60)]  # flags sentences 2 and 3
    spans = [(10, 22), (70, 75)]  # sentence 1, sentence 2 (one character) and sentence 4 are positive
    labels = ev.sentence_labels(sentences, findings, spans)
    assert labels == [(False, True), (True, True), (True, False), (False, True)]
    recs = [{"flagged": f, "positive": p} for f, p in labels]
    tp = sum(r["flagged"] and r["positive"] for r in recs)
    got = ev.prf(tp, sum(r["flagged"] for r in recs), sum(r["positive"] for r in recs))
    assert (got["precision"], got["recall"]) == (0.5, pytest.approx(1 / 3))


def _response(rid: str, task: str, hallucinated: bool, findings: list, spans: list) -> dict:
    return {"id": rid, "source_id": rid, "task": task, "hallucinated": hallucinated, "spans": spans,
            "findings": findings, "ms": 10.0, "gold_outside": 0, "findings_outside": 0}


def _sentence(rid: str, flagged: bool, positive: bool, score: float, text: str = "A fact.") -> dict:
    return {"id": rid, "flagged": flagged, "positive": positive, "score": score, "boilerplate": ev.is_boilerplate(text)}


def test_metrics_of_a_tiny_part() -> None:
    responses = [_response("a", "qa", True, [("FL200", "warning", 0, 5)], [(0, 5)]),
                 _response("b", "qa", False, [("FL100", "error", 0, 5)], []),
                 _response("c", "summary", False, [], [])]
    sentences = [_sentence("a", True, True, 0.1), _sentence("a", False, False, 0.9),
                 _sentence("b", True, False, 0.4, "Sure, here is a summary of the article in 100 words:"),
                 _sentence("c", False, False, 0.8, "Based on the provided passages, the bridge opened in 2019.")]
    per = ev.summarise(responses, sentences)
    assert set(per) == {"qa", "summary", "all"}
    m = per["all"]
    assert m["response"] == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3)}
    assert m["faithful_with_false_alarm"] == 0.5 and per["summary"]["faithful_with_false_alarm"] == 0.0
    assert m["sentence"]["precision"] == 0.5 and m["sentence"]["recall"] == 1.0
    assert m["span"]["precision"] == 0.5 and m["span"]["recall"] == 1.0
    assert m["sentence_auroc"] == 1.0  # the one positive sentence has the lowest faithfulness score
    assert m["boilerplate"]["without_span"] == 2 and m["boilerplate"]["without_span_flagged_share"] == 0.5
    assert per["summary"]["sentence_auroc"] is None  # one class only


def test_boilerplate_patterns() -> None:
    for text in ("Sure! Here's a summary of the news in 100 words:", "I hope this helps!",
                 "Based on the provided passages, the answer is yes.", "Hello there."):
        assert ev.is_boilerplate(text), text
    assert not ev.is_boilerplate("The bridge opened in 2019 after five years of work.")


def _rows() -> list[dict]:
    return [{"task": t, "source_id": s, "label": "hallucinated" if s % 3 == 0 else "faithful", "id": f"{t}-{s}-{k}"}
            for t, base in (("qa", 0), ("summary", 1000), ("data-to-text", 2000)) for s in range(base, base + 40)
            for k in range(3)]


def test_split_is_by_source_stratified_and_independent_of_row_order() -> None:
    rows = _rows()
    parts = ragtruth.split(rows)
    again = ragtruth.split(list(reversed(rows)))
    assert {p: sorted(r["id"] for r in rs) for p, rs in parts.items()} == \
        {p: sorted(r["id"] for r in rs) for p, rs in again.items()}
    seen = {p: {(r["task"], r["source_id"]) for r in rs} for p, rs in parts.items()}
    assert not (seen["train"] & seen["calib"] or seen["train"] & seen["dev"] or seen["calib"] & seen["dev"])
    for task in ragtruth.TASKS:  # 40 sources per task: 20 / 6 / 14
        assert [sum(1 for t, _ in seen[p] if t == task) for p in ("train", "calib", "dev")] == [20, 6, 14]
    # the part of a source depends on its id's SHA-256, not on Python's per-process hash
    assert ragtruth.source_key(7) == "b48ac37f4c03a2904bdab82e926ff55dd35c2f08c0659d1214ff669c0649489a"
    with pytest.raises(ValueError, match="unknown part"):
        ragtruth.part_rows("test")


def test_split_of_the_real_file_is_disjoint_and_sized() -> None:
    rows = ragtruth.read_rows()
    if rows is None:
        pytest.skip(f"{ragtruth.FILE} is not in ../shared/data")
    dev = ragtruth.part_rows("dev")
    assert dev == ragtruth.part_rows("dev")
    sizes = ragtruth.sizes(rows)
    assert sum(sizes[p]["all"]["responses"] for p in ragtruth.PARTS) == len(rows)
    by_source = {p: {r["source_id"] for r in ragtruth.part_rows(p)} for p in ragtruth.PARTS}
    assert not (by_source["train"] & by_source["dev"] or by_source["calib"] & by_source["dev"]
                or by_source["train"] & by_source["calib"])
    for task in ragtruth.TASKS:
        n = sum(sizes[p][task]["sources"] for p in ragtruth.PARTS)
        assert abs(sizes["dev"][task]["sources"] - 0.35 * n) <= 1 and abs(sizes["train"][task]["sources"] - n / 2) <= 1
    assert Counter(r["task"] for r in dev) == {t: sizes["dev"][t]["responses"] for t in ragtruth.TASKS}


def test_settings_over_the_defaults_are_checked_like_faithlint_toml(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="eval_ragtruth.py")
    assert ev.parse_settings(ap, None) is None
    assert ev.parse_settings(ap, '{"check_boilerplate": true, "rules": {"FL200": {"threshold": 0.2}}}') == {
        "check_boilerplate": True, "rules": {"FL200": {"threshold": 0.2}}}
    for bad, said in [('{"nope": 1}', "unknown key 'nope'"), ("[1]", "not a JSON object"),
                      ("{oops", "Expecting property name"), ('{"check_boilerplate": "maybe"}', "check_boilerplate")]:
        with pytest.raises(SystemExit) as exit_:
            ev.parse_settings(ap, bad)
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.startswith("eval_ragtruth.py: error: --settings: ") and said in err
