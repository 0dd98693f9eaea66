"""training/fit_point_ragtruth.py: the operating point per kind of context, chosen on a calibration-part dump."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import fit_point_ragtruth as fit  # noqa: E402

from faithlint.evidence.grounding import FILE, GroundingModel  # noqa: E402
from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.pipeline.linter import kind_thresholds  # noqa: E402


def sentence(rid: str, task: str, score: float, positive: bool, codes: tuple[str, ...] = ()) -> dict:
    return {"id": rid, "task": task, "label": "hallucinated" if positive else "faithful", "text": "It opened.",
            "score": score, "positive": positive, "codes": list(codes)}


def dump() -> list[dict]:
    """Answers whose values FL400 alone flags are faithful (the question kind should tie FL400 to FL200); the
    summaries' and overviews' sentences follow the shared point."""
    out = []
    for i in range(40):
        out += [sentence(f"qa{i}", "qa", 0.1, True), sentence(f"qa{i}", "qa", 0.4, False, ("FL400",)),
                sentence(f"qa{i}", "qa", 0.9, False)]
        out += [sentence(f"s{i}", "summary", 0.1 + 0.01 * (i % 7), i % 3 == 0),
                sentence(f"s{i}", "summary", 0.4, i % 4 == 0, ("FL400",)), sentence(f"s{i}", "summary", 0.8, False)]
        out += [sentence(f"d{i}", "data-to-text", 0.15, i % 2 == 0), sentence(f"d{i}", "data-to-text", 0.45,
                                                                             i % 3 == 0, ("FL400",))]
    return out


def write(folder: Path, name: str, sentences: list[dict], note: str | None = fit.EVERY_FL400) -> Path:
    path = folder / f"ragtruth_{name}_calib_sentences.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in sentences), encoding="utf-8")
    (folder / f"ragtruth_{name}_calib.json").write_text(json.dumps({"note": note} if note else {}), encoding="utf-8")
    return path


def test_a_kind_takes_its_own_point_only_where_it_gains_beyond_the_noise(tmp_path, monkeypatch):
    sentences = fit.read_dump(write(tmp_path, "t", dump()))
    question = fit.kind_point([s for s in sentences if s["kind"] == "question"], (0.24, 0.5))
    assert question["thresholds"] == {"FL200": 0.11, "FL400": 0.11} and question["fl400"] == "with FL200"
    assert question["bootstrap"]["gain"] > question["bootstrap"]["sd"] and question["bootstrap"]["share_better"] == 1
    assert question["figures"]["precision"] == 1.0 and question["shared_figures"]["precision"] == 0.5
    assert [row["threshold"] for row in question["neighbours"]] == [0.09, 0.1, 0.11, 0.12, 0.13]
    records = fit.kind_point([s for s in sentences if s["kind"] == "records"], (0.24, 0.5))
    assert records["thresholds"] == {"FL200": 0.24, "FL400": 0.5} and records["taken"].startswith("the shared")

    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copyfile(Path(DEFAULT_MODEL_DIR) / FILE, folder / FILE)
    monkeypatch.setattr(sys, "argv", ["fit_point_ragtruth.py", "--dump", str(tmp_path / "ragtruth_t_calib_sentences"
                                                                               ".jsonl"), "--out", str(folder),
                                      "--false-alarm-budget", "1"])  # the synthetic answers' labels are per sentence
    fit.main()
    model = GroundingModel.load(folder)
    assert model is not None and set(kind_thresholds(model)) == {"records", "question", "prose"}
    assert kind_thresholds(model)["question"] == {"FL200": 0.11, "FL400": 0.11}
    assert model.meta["operating_point"]["kinds"]["question"]["trade_off"]


def test_a_kind_whose_point_gives_too_many_faithful_responses_a_false_alarm_flags_less(tmp_path):
    """Every overview has a sentence at 0.2: a wrong one in the hallucinated ones, a right one in the faithful
    ones. Flagging them wins flagged-sentence F1 (0.67 -> 0.80) and gives every faithful overview a false alarm;
    within a 0.35 budget the records take a threshold that leaves them."""
    rows = []
    for i in range(10):
        rows += [sentence(f"h{i}", "data-to-text", 0.1, True), sentence(f"h{i}", "data-to-text", 0.2, True)]
        rows += [sentence(f"f{i}", "data-to-text", 0.2, False), sentence(f"f{i}", "data-to-text", 0.9, False)]
    sentences = fit.read_dump(write(tmp_path, "b", rows))
    free = fit.kind_point(sentences, (0.24, 0.5))
    assert free["thresholds"]["FL200"] > 0.2 and free["figures"]["false_alarm"] == 1.0
    bound = fit.kind_point(sentences, (0.24, 0.5), budget=0.35)
    assert bound["thresholds"]["FL200"] <= 0.2 and bound["figures"]["false_alarm"] == 0.0
    assert bound["figures"]["recall"] == 0.5 and bound["taken"].startswith("the best point within the false-alarm")
    assert bound["false_alarm_budget"] == 0.35


def test_a_dump_without_every_absent_value_or_from_the_development_part_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="not made with FL400 at any score"):
        fit.read_dump(write(tmp_path, "plain", dump(), note=None))
    dev = tmp_path / "ragtruth_x_sentences.jsonl"
    dev.write_text("")
    with pytest.raises(SystemExit, match="not a calibration-part dump"):
        fit.read_dump(dev)
