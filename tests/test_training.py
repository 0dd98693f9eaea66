"""Training helpers: pair encoding, the sweep's choice and its one-run GPU recipe (run here on the CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import sweep  # noqa: E402

from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR  # noqa: E402
from faithlint.train.training import _encode, encode_pairs  # noqa: E402

TRAINED = ROOT / "training" / "checker"  # sweep's default --base: the checker's trained weights


@pytest.fixture(scope="module")
def tok():  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(DEFAULT_MODEL_DIR))


ROWS = [
    {"premise": "The library reopened on March 4, 2024, after an 18-month renovation.",
     "hypothesis": "The library reopened in March.", "label": "entailment"},
    {"premise": "word " * 400, "hypothesis": "A short claim.", "label": "neutral"},
    {"premise": "A short premise.", "hypothesis": "claim " * 300, "label": "contradiction"},
]


def test_encode_matches_the_tokenizer_and_survives_a_long_hypothesis(tok) -> None:  # type: ignore[no-untyped-def]
    enc = _encode(tok, ROWS, 64)
    pairs = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in ROWS], 64)  # the sweep's encoding
    assert pairs == [{k: v for k, v in e.items() if k != "label"} for e in enc]
    for r, e in zip(ROWS[:2], enc):  # ordinary rows: exactly the tokenizer's pair encoding
        ref = tok(r["premise"], r["hypothesis"], truncation="only_first", max_length=64)
        assert e["input_ids"] == ref["input_ids"]
        assert e["token_type_ids"] == ref["token_type_ids"]
    assert [e["label"] for e in enc] == [0, 1, 2]
    for e in enc[2:]:  # too long alone: its head, within the limit, still a pair
        ids = e["input_ids"]
        assert len(ids) <= 64 and ids[0] == tok.cls_token_id and ids[-1] == tok.sep_token_id
        assert ids.count(tok.sep_token_id) == 2
        assert tok.convert_ids_to_tokens(ids[-2]) == "claim"


def _result(name: str, scores: list[float], probes: list[float], best: float | None) -> dict:
    history = [{"epoch": float(i), "score": s, "probe_acc": p} for i, (s, p) in enumerate(zip(scores, probes))]
    return {"name": name, "history": history, "best_epoch": best}


def test_choice_takes_the_best_kept_epoch_and_never_an_untrained_model() -> None:
    results = [_result("a", [0.70, 0.74, 0.78], [0.85, 0.85, 0.70], 1.0),  # epoch 2 lost the value probe
               _result("b", [0.70, 0.76], [0.85, 0.84], 1.0)]
    name, why = sweep.choose(results)
    assert name == "b" and "0.7600" in why and "0.7000" in why
    assert sweep.choose([_result("a", [0.70, 0.75], [0.85, 0.5], None)])[0] is None


def test_split_parts_join_to_the_same_bytes(tmp_path: Path) -> None:
    src = tmp_path / "m.safetensors"
    src.write_bytes(bytes(range(256)) * 20000)
    out = tmp_path / "out"
    out.mkdir()
    names = sweep.split_file(src, out, part_mb=1)
    assert len(names) == 5
    assert b"".join((out / n).read_bytes() for n in names) == src.read_bytes()


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_sweep_runs_end_to_end_on_the_cpu(tmp_path: Path) -> None:
    """One warm-started variant with the multiple-instance loss, on a tiny data set; the winner loads."""
    facts = [("The museum opened in 1998 and has 40 rooms.", "The museum has 40 rooms.", "The museum has 12 rooms."),
             ("Sales rose 8 percent to $3 million in May.", "Sales rose in May.", "Sales fell 8 percent in May."),
             ("The bridge is 2 km long and carries four lanes.", "The bridge carries four lanes.",
              "The bridge carries two lanes.")]
    rows, calib, probe, bags = [], [], [], []
    held = next(str(i) for i in range(100) if sweep.in_probe({"source": "numswap", "doc_id": str(i), "premise": ""}))
    for i, (p, good, bad) in enumerate(facts * 4):
        rows += [{"premise": p, "hypothesis": good, "label": "entailment", "source": "frank_train", "doc_id": str(i)},
                 {"premise": p, "hypothesis": bad, "label": "contradiction", "source": "frank_train",
                  "doc_id": str(i)},
                 {"premise": p, "hypothesis": "It rained.", "label": "neutral", "source": "frank_train",
                  "doc_id": str(i)}]
        calib += [{"premise": p, "hypothesis": good, "label": "entailment", "source": "q2_train"},
                  {"premise": p, "hypothesis": bad, "label": "neutral", "source": "q2_train"}]
        probe += [{"premise": p, "hypothesis": h, "label": lab, "source": "numswap", "doc_id": held}
                  for h, lab in ((good, "entailment"), (bad, "contradiction"))]
        pairs = [{"sentence": 0, "premise": p, "hypothesis": good}, {"sentence": 1, "premise": p, "hypothesis": bad}]
        bags += [{"pairs": pairs, "faithful": False, "source": "frank_train"},
                 {"pairs": pairs[:1], "faithful": True, "source": "frank_train"}]
    data = tmp_path / "data"
    _write(data / "data3m" / "train.jsonl", rows)
    _write(data / "data3m" / "calib.jsonl", calib)
    _write(data / "data3m" / "bags_train.jsonl", bags)
    _write(data / "data3m" / "bags_calib.jsonl", bags)
    _write(data / "data3b" / "train.jsonl", probe)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, str(ROOT / "training" / "sweep.py"), "--data", str(data), "--out", str(out),
                          "--work", str(tmp_path / "work"), "--variants", "m2", "--smoke", "--probe-drop", "1",
                          "--final", str(tmp_path / "final")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads((out / "sweep.json").read_text())
    (result,) = summary["results"]
    assert [h["epoch"] for h in result["history"]] == [0, 1.0]
    assert summary["choice"] == "m2" and summary["parts"]
    joined = tmp_path / "model.safetensors"
    joined.write_bytes(b"".join((out / n).read_bytes() for n in summary["parts"]))
    assert joined.read_bytes() == (tmp_path / "final" / "model.safetensors").read_bytes()
    assert (tmp_path / "final" / "config.json").exists() and (tmp_path / "final" / "tokenizer.json").exists()
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(TRAINED))
    state = load_file(str(joined))
    assert set(state) == set(model.state_dict())
    assert any(not state[k].float().equal(v.float()) for k, v in model.state_dict().items())  # it trained


def test_device_choice_and_a_gpu_that_is_not_there(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import torch

    from faithlint.cli import app as cli
    from faithlint.errors import InputError
    from faithlint.train.training import torch_device

    assert torch_device("cpu").type == "cpu"
    assert torch_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(InputError, match="not a torch device"):
        torch_device("gpu0")
    if torch.cuda.is_available():
        return
    with pytest.raises(InputError, match="sees no CUDA GPU"):
        torch_device("cuda:1")
    data = tmp_path / "pairs.jsonl"
    data.write_text(json.dumps({"premise": "A cat sat.", "hypothesis": "A cat sat.", "label": "entailment"}) + "\n")
    code = cli.main(["train", str(data), "-o", str(tmp_path / "m"), "--device", "cuda"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "sees no CUDA GPU" in err[0], err
    assert not (tmp_path / "m").exists()  # refused before anything was written


def test_negation_pairs_are_minimal_and_balanced() -> None:
    """training/build_negation.py: a negated sentence copied entails, the same with its one negation removed
    contradicts; a plain one with "not" added contradicts; each against the same premise."""
    import random

    import build_negation as bn

    assert bn.remove_negation("Purchases are not reimbursed.") == "Purchases are reimbursed."
    assert bn.remove_negation("He didn't attend.") == "He did attend."
    assert bn.remove_negation("It won't open.") == "It will open."
    assert bn.remove_negation("No one came.") is None  # nothing to delete cleanly
    assert bn.remove_negation("It is not and never was.") is None  # two negations: no single removal
    assert bn.add_negation("The museum is open daily.") == "The museum is not open daily."
    doc = ("The library opened in 2019. Personal purchases are not reimbursed by the office. The museum is open "
           "every day of the week. Staff never work on Sundays at the branch.")
    rows = bn.pairs([doc], random.Random(1), per_doc=4, plain_per_doc=1)
    by = {(r["hypothesis"], r["label"]) for r in rows}
    assert ("Personal purchases are not reimbursed by the office.", "entailment") in by
    assert ("Personal purchases are reimbursed by the office.", "contradiction") in by
    assert ("Staff work on Sundays at the branch.", "contradiction") in by
    assert ("The museum is not open every day of the week.", "contradiction") in by
    for r in rows:
        assert r["premise"].count(".") >= 2 and r["label"] in ("entailment", "contradiction")
        base = r["hypothesis"] if r["label"] == "entailment" else None
        assert base is None or base in r["premise"]


def test_distilled_loss_learns_labels_on_hard_rows_and_the_teacher_elsewhere() -> None:
    import torch

    logits = torch.tensor([[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]])
    y = torch.tensor([2, 0])
    hard = torch.tensor([True, False])
    ce = torch.nn.functional.cross_entropy(logits, y, reduction="none")
    # the student equals the teacher: soft rows cost nothing, hard rows their cross-entropy
    loss = sweep.distilled_loss(logits, logits.clone(), y, hard, 1.0, None)
    assert loss.item() == pytest.approx(ce[0].item() / 2)
    moved = sweep.distilled_loss(logits, torch.tensor([[2.0, 0.0, -1.0], [-3.0, 3.0, 0.0]]), y, hard, 1.0, None)
    assert moved.item() > loss.item()  # a soft row that differs from the teacher costs its KL
    half = sweep.distilled_loss(logits, logits.clone(), y, hard, 0.5, None)  # half weight on the soft row's label
    assert half.item() == pytest.approx((ce[0].item() + 0.5 * ce[1].item()) / 2)


def test_an_epoch_that_catches_deleted_negations_outranks_a_better_score() -> None:
    fix = {"epoch": 1.0, "score": 0.80, "probe_acc": 0.85, "neg_contradiction": {"neg_removed": 0.6}}
    miss = {"epoch": 2.0, "score": 0.83, "probe_acc": 0.85, "neg_contradiction": {"neg_removed": 0.1}}
    assert sweep.rank_key(fix, 0.5) > sweep.rank_key(miss, 0.5)
    assert sweep.rank_key(fix, 0.7) < sweep.rank_key(miss, 0.7)  # neither catches 70 %: the score decides
    results = [{"name": "a", "history": [miss], "best_epoch": 2.0},
               {"name": "b", "history": [fix], "best_epoch": 1.0}]
    assert sweep.choose(results, 0.5)[0] == "b" and sweep.ranked(results, 0.5) == ["b", "a"]
    assert sweep.choose(results, 0.0)[0] == "a"


def _tiny_sweep(tmp_path: Path, variant: str) -> tuple[Path, Path]:
    """``variant`` of the sweep on tiny data (negation pairs included), its best weights sent back: (out, work)."""
    p = "The office is not open on Sundays, but it opens at 9 on Saturdays."
    rows = [{"premise": p, "hypothesis": "The office opens at 9 on Saturdays.", "label": "entailment",
             "source": "frank_train", "doc_id": "1"}] * 6
    neg = [{"premise": p, "hypothesis": "The office is open on Sundays.", "label": "contradiction",
            "source": "neg_removed"},
           {"premise": p, "hypothesis": "The office is not open on Sundays.", "label": "entailment",
            "source": "neg_negated_copy"}] * 6
    bags = [{"pairs": [{"sentence": 0, "premise": p, "hypothesis": "It opens at 9."}], "faithful": True,
             "source": "frank_train"}]
    data = tmp_path / "data"
    _write(data / "data3m" / "train.jsonl", rows)
    _write(data / "data3m" / "calib.jsonl", rows[:1] + [{**rows[0], "hypothesis": "It closes.", "label": "neutral"}])
    _write(data / "data3m" / "bags_train.jsonl", bags)
    _write(data / "data3m" / "bags_calib.jsonl", bags + [{**bags[0], "faithful": False}])
    _write(data / "data_neg" / "train.jsonl", neg)
    _write(data / "data_neg" / "calib.jsonl", neg[:2])
    out, work = tmp_path / "out", tmp_path / "work"
    run = subprocess.run([sys.executable, str(ROOT / "training" / "sweep.py"), "--data", str(data), "--out", str(out),
                          "--work", str(work), "--variants", variant, "--smoke", "--probe-drop", "1", "--send", "1"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return out, work


def test_sent_back_weights_without_the_frozen_embeddings_rebuild_the_model(tmp_path: Path) -> None:
    """A distilled negation variant on tiny data: --send writes its weights less the frozen word embeddings,
    --assemble joins them over the base into a model equal to the trained one."""
    out, work = _tiny_sweep(tmp_path, "d2")
    summary = json.loads((out / "sweep.json").read_text())
    (result,) = summary["results"]
    assert "neg_contradiction" in result["history"][0] and list(summary["sent"]) == ["d2"]
    from safetensors.torch import load_file

    parts = [out / n for n in summary["sent"]["d2"]]
    joined = tmp_path / "joined.safetensors"
    joined.write_bytes(b"".join(x.read_bytes() for x in parts))
    assert sweep.FROZEN not in load_file(str(joined))
    final = tmp_path / "final"
    subprocess.run([sys.executable, str(ROOT / "training" / "sweep.py"), "--assemble", *map(str, parts),
                    "--final", str(final)], check=True, capture_output=True, timeout=300)
    rebuilt, trained = load_file(str(final / "model.safetensors")), load_file(str(work / "d2" / "model.safetensors"))
    assert set(rebuilt) == set(trained) and all(rebuilt[k].equal(trained[k]) for k in trained)
    base = load_file(str(TRAINED / "model.safetensors"))
    assert rebuilt[sweep.FROZEN].equal(base[sweep.FROZEN])  # frozen: the base's, as sent
    assert any(not rebuilt[k].equal(base[k]) for k in base)  # the rest trained


def test_kept_layers_are_evenly_spaced_and_keep_the_last() -> None:
    assert sweep.kept_layers(6, 3) == [0, 2, 5] and sweep.kept_layers(6, 4) == [0, 2, 3, 5]
    assert sweep.kept_layers(6, 6) == list(range(6)) and sweep.kept_layers(6, 1) == [5]
    with pytest.raises(ValueError):
        sweep.kept_layers(6, 7)


def test_a_student_is_sent_back_and_rebuilt_with_its_own_layers(tmp_path: Path) -> None:
    """A 3-layer student (every row distilled from the shipped checker): its sent-back weights say in their
    metadata how many layers they have; --assemble rebuilds a 3-layer model folder that transformers loads
    and that equals the trained one."""
    out, work = _tiny_sweep(tmp_path, "s3")
    summary = json.loads((out / "sweep.json").read_text())
    assert list(summary["sent"]) == ["s3"]
    final = tmp_path / "final"
    parts = [out / n for n in summary["sent"]["s3"]]
    subprocess.run([sys.executable, str(ROOT / "training" / "sweep.py"), "--assemble", *map(str, parts),
                    "--final", str(final)], check=True, capture_output=True, timeout=300)
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification

    rebuilt, trained = load_file(str(final / "model.safetensors")), load_file(str(work / "s3" / "model.safetensors"))
    assert set(rebuilt) == set(trained) and all(rebuilt[k].equal(trained[k]) for k in trained)
    assert not any(k.startswith("bert.encoder.layer.3.") for k in rebuilt)
    config = json.loads((final / "config.json").read_text())
    assert config["num_hidden_layers"] == 3 and "faithlint_temperature" in config  # the base's keys kept
    assert len(AutoModelForSequenceClassification.from_pretrained(final).bert.encoder.layer) == 3


def test_value_rewrites_keep_or_change_the_meaning_as_named() -> None:
    import random

    from faithlint.train.rewrites import paraphrases, value_changes

    s = "Attendance was about 32,000 visitors on March 4, 2024, roughly 60 percent more than the 40 expected."
    kept = dict(paraphrases(s))
    assert kept["percent_sign"].endswith("roughly 60% more than the 40 expected.")
    assert "in March 2024" in kept["date_month"] and "on March" not in kept["date_month"]
    assert "about 32 thousand visitors" in kept["thousands_word"]
    assert kept["approximator"].startswith("Attendance was around 32,000")
    assert "the forty expected" in kept["number_word"]
    assert dict(paraphrases("The project cost $12.5 million.")) == {
        "money_words": "The project cost 12.5 million dollars."}
    assert paraphrases("It opened in 1998 with no fanfare.") == []  # a year is no count
    changed = dict(value_changes(s, random.Random(0)))
    assert set(changed) >= {"percent_changed", "date_changed", "thousands_changed"}
    assert "% more" in changed["percent_changed"] and "60%" not in changed["percent_changed"]
    assert " 2024," in changed["date_changed"] and "March" not in changed["date_changed"]
    assert " thousand visitors" in changed["thousands_changed"] and "32 thousand" not in changed["thousands_changed"]


def test_value_rewrite_pairs_are_entailed_and_their_changed_twins_contradict() -> None:
    """training/build_paraphrase.py: each rewrite of a sentence's figure entails, one changed twin contradicts;
    the sweep mixes them in as hard rows (their labels, not the teacher's)."""
    import random

    import build_paraphrase as bp

    doc = ("The library reopened in 2024 after a long closure. Attendance reached about 32,000 visitors in the "
           "first month of the year. The city paid for the work with a bond.")
    rows = bp.pairs([doc], random.Random(3), per_doc=10)
    kept = {r["hypothesis"] for r in rows if r["label"] == "entailment"}
    assert "Attendance reached about 32 thousand visitors in the first month of the year." in kept
    assert "Attendance reached around 32,000 visitors in the first month of the year." in kept
    (changed,) = [r for r in rows if r["label"] == "contradiction"]
    assert changed["source"] == "para_thousands_changed" and "32 thousand" not in changed["hypothesis"]
    assert all(r["source"].startswith(sweep.HARD) and "32,000" in r["premise"] for r in rows)
