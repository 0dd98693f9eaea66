"""The NLI backend: label mapping, loading any HF classifier folder, sha256 check of the bundled model."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from faithlint.errors import ModelError
from faithlint.models.checkers.nli import NLIChecker, label_indices, verify_bundled
from faithlint.models.checkers.tokens import base_model_dir


@pytest.mark.parametrize("id2label,expected", [
    ({0: "entailment", 1: "neutral", 2: "contradiction"}, (0, 1, 2)),
    ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, (2, 1, 0)),  # MNLI-style checkpoints
    ({"0": "entailment", "1": "not_entailment"}, (0, 1, None)),  # 2-way models: no contradiction
])
def test_label_indices(id2label, expected):
    assert label_indices(id2label, "m") == expected


def test_non_nli_labels_are_refused():
    with pytest.raises(ModelError, match="not an NLI classifier"):
        label_indices({0: "positive", 1: "negative"}, "sentiment-model")


def tiny_model(path: Path, labels: dict[int, str]) -> Path:
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=64, num_labels=len(labels), id2label=labels,
                     label2id={v: k for k, v in labels.items()})
    BertForSequenceClassification(cfg).save_pretrained(path)
    AutoTokenizer.from_pretrained(str(base_model_dir())).save_pretrained(path)
    return path


def test_loads_any_local_hf_classifier_and_scores_pairs(tmp_path):
    path = tiny_model(tmp_path / "m", {0: "contradiction", 1: "neutral", 2: "entailment"})
    checker = NLIChecker(str(path), device="cpu", batch_size=2)
    probs = checker.score_pairs(["A cat sat.", "Dogs bark loudly at night.", "x"], ["A cat.", "Dogs bark.", "y"])
    assert probs.shape == (3, 3)
    assert np.allclose(probs.sum(1), 1, atol=1e-5)
    assert checker.count_tokens(["hello world"]) == [2]
    assert checker.token_offsets("hello world") == [(0, 5), (6, 11)]


def test_a_hypothesis_longer_than_the_model_is_scored_in_chunks(tmp_path):
    """Issue 17 #1: a sentence over the model's 512 tokens raised "Truncation error" for the whole draft."""
    path = tiny_model(tmp_path / "m", {0: "contradiction", 1: "neutral", 2: "entailment"})
    checker = NLIChecker(str(path), device="cpu", batch_size=4)
    run_on = " ".join(["the board said the library which reopened in march would serve the town and"] * 50)
    no_stops = "word " * 4000  # a 20,000-character line without punctuation
    assert checker.count_tokens([run_on])[0] > 600
    premises = ["The library reopened in March 2024.", "The library reopened in March 2024. " * 40,
                "Dogs bark.", "The town."]
    hypotheses = [run_on, run_on, "Dogs bark loudly.", no_stops]
    probs = checker.score_pairs(premises, hypotheses)
    assert probs.shape == (4, 3) and np.allclose(probs.sum(1), 1, atol=1e-5)
    # the other pairs of the batch are scored exactly as on their own
    assert np.allclose(probs[2], checker.score_pairs(["Dogs bark."], ["Dogs bark loudly."])[0], atol=1e-5)
    # conservative: the chunked pair gets the row of its least supported chunk
    feats, groups = checker._features(premises[:1], [run_on])
    assert len(groups[0]) > 1 and all(len(f["input_ids"]) <= 512 for f in feats)
    parts = [checker.score_pairs([premises[0]], [p])[0] for p in _parts(checker, premises[0], run_on)]
    assert probs[0, 0] == pytest.approx(min(p[0] for p in parts), abs=1e-5)


def _parts(checker, premise, hypothesis):
    from faithlint.models.checkers.nli import _chunk_text

    room = checker.input_limit() - checker.tokenizer.num_special_tokens_to_add(pair=True)
    size = room - min(checker.count_tokens([premise])[0], room // 2) - 8
    return _chunk_text(hypothesis, checker.token_offsets(hypothesis), size)


def test_two_way_model_maps_to_entailment_and_neutral(tmp_path):
    path = tiny_model(tmp_path / "m2", {0: "entailment", 1: "not_entailment"})
    probs = NLIChecker(str(path), device="cpu").score_pairs(["a"], ["b"])
    assert probs[0, 2] == 0 and probs[0, :2].sum() == pytest.approx(1, abs=1e-5)


def test_a_sentence_encoder_is_not_a_checker():
    with pytest.raises(ModelError, match="not a sequence classifier"):
        NLIChecker(str(base_model_dir()))


def test_missing_hub_model_gives_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError, match="cannot load model"):
        NLIChecker("no-such-org/no-such-model-xyz")


def test_bundled_weights_are_verified(tmp_path):
    d = tmp_path / "default"
    d.mkdir()
    (d / "model.int8.onnx").write_bytes(b"weights")
    import hashlib

    (d / "SHA256SUMS").write_text(hashlib.sha256(b"weights").hexdigest() + "  model.int8.onnx\n")
    verify_bundled(d)
    (d / "model.int8.onnx").write_bytes(b"tampered")
    with pytest.raises(ModelError, match="sha256 mismatch"):
        verify_bundled(d)
    (d / "model.int8.onnx").unlink()
    with pytest.raises(ModelError, match="missing"):
        verify_bundled(d)


def test_shipped_model_matches_its_checksum_and_size():
    from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR

    verify_bundled(DEFAULT_MODEL_DIR)
    # issue 37: the model files inside the package at most 60 MB; the checker ships once, as its int8 graph
    models = DEFAULT_MODEL_DIR.parent
    weights = [f for f in models.rglob("*") if f.suffix in {".onnx", ".safetensors", ".bin", ".npz", ".gguf", ".pt"}]
    assert not list(models.rglob("*.safetensors"))
    assert sum(f.stat().st_size for f in weights) <= 60_000_000, [(f.name, f.stat().st_size) for f in weights]
    # the trained weights stay in the repository with the same config and tokenizer (training/checker/README.md)
    trained = DEFAULT_MODEL_DIR.parents[2] / "training" / "checker"
    if trained.exists():
        for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
            assert (trained / name).read_bytes() == (DEFAULT_MODEL_DIR / name).read_bytes(), name
    assert (DEFAULT_MODEL_DIR / "MODEL_CARD.md").exists()
    shutil.disk_usage(DEFAULT_MODEL_DIR)  # the folder is readable as installed
