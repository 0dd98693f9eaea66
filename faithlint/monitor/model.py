"""The monitor's aggregator as shipped: weights in a numpy archive, metadata in JSON, both sha256-checked.

Trained with scikit-learn (``faithlint train-monitor``) and exported as plain arrays, so loading
runs no pickled code and needs no scikit-learn: a logistic regression and a one-hidden-layer MLP
(ReLU, 100 units) over standardised features, plus the LID reference sets (hidden states of
faithful sentences) and the operating point calibrated for each aggregator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from faithlint.errors import ModelError
from faithlint.models.checkers.nli import file_sha256, read_sums
from faithlint.monitor.lid import lid_mle

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "models" / "monitor"
WEIGHTS, META = "monitor.npz", "monitor.json"
FORMAT = 1
AGGREGATORS = ("lr", "mlp")


@dataclass
class MonitorModel:
    features: list[str]  # input order (LID features included)
    mean: np.ndarray
    scale: np.ndarray
    lr: tuple[np.ndarray, float]
    mlp: tuple[np.ndarray, np.ndarray, np.ndarray, float]
    references: dict[int, np.ndarray]  # layer -> (m, d) hidden states of faithful sentences
    thresholds: dict[str, dict[str, float]]  # aggregator -> {"FL200": .., "FL300": ..}
    meta: dict[str, Any] = field(default_factory=dict)
    name: str = ""

    # ------------------------------------------------------------------ inference
    def lid(self, hidden: dict[int, np.ndarray], exclude_self: bool = False) -> dict[str, float]:
        out = {}
        for layer, ref in self.references.items():
            vec = hidden.get(layer)
            out[f"lid_l{layer}"] = (float(lid_mle(vec[None], ref, exclude_self=exclude_self)[0])
                                    if vec is not None else 0.0)
        return out

    def matrix(self, rows: list[dict[str, float]]) -> np.ndarray:
        x = np.array([[r.get(name, 0.0) for name in self.features] for r in rows], dtype=np.float64)
        return (x - self.mean) / self.scale

    def predict(self, rows: list[dict[str, float]], aggregator: str = "lr") -> np.ndarray:
        """P(faithful) of each feature row."""
        if not rows:
            return np.zeros(0)
        return self._predict(self.matrix(rows), aggregator)

    def predict_matrix(self, x: np.ndarray, aggregator: str = "lr") -> np.ndarray:
        """P(faithful) of raw feature rows already in :attr:`features` order."""
        return self._predict((np.asarray(x, dtype=np.float64) - self.mean) / self.scale, aggregator)

    def _predict(self, z: np.ndarray, aggregator: str) -> np.ndarray:
        if aggregator == "lr":
            coef, b = self.lr
            logit = z @ coef + b
        elif aggregator == "mlp":
            w1, b1, w2, b2 = self.mlp
            logit = np.maximum(z @ w1 + b1, 0.0) @ w2 + b2
        else:
            raise ModelError(f"unknown monitor aggregator {aggregator!r} (lr or mlp)")
        return 1.0 / (1.0 + np.exp(-np.clip(logit, -40, 40)))

    def drivers(self, row: dict[str, float], n: int = 4) -> list[tuple[str, float, float]]:
        """The features that moved this row's logistic-regression score most: (name, value, push towards faithful)."""
        z = self.matrix([row])[0]
        push = z * self.lr[0]
        order = np.argsort(-np.abs(push))[:n]
        return [(self.features[i], float(row.get(self.features[i], 0.0)), float(push[i])) for i in order]

    # ------------------------------------------------------------------ files
    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {"mean": self.mean, "scale": self.scale, "lr_coef": self.lr[0], "lr_intercept": np.array([self.lr[1]]),
                  "mlp_w1": self.mlp[0], "mlp_b1": self.mlp[1], "mlp_w2": self.mlp[2],
                  "mlp_b2": np.array([self.mlp[3]])}
        arrays.update({f"ref_{layer}": ref.astype(np.float16) for layer, ref in self.references.items()})
        # numpy's stub matches **arrays against its allow_pickle keyword too; none of these names is that
        np.savez_compressed(folder / WEIGHTS, **arrays)  # pyright: ignore[reportArgumentType]
        meta = {**self.meta, "format": FORMAT, "features": self.features, "thresholds": self.thresholds,
                "layers": sorted(self.references)}
        (folder / META).write_text(json.dumps(meta, indent=2) + "\n")
        (folder / "SHA256SUMS").write_text("".join(f"{file_sha256(folder / f)}  {f}\n" for f in (WEIGHTS, META)))

    @classmethod
    def load(cls, folder: Path | str | None = None) -> MonitorModel:
        path = Path(folder) if folder else DEFAULT_DIR
        sums = path / "SHA256SUMS"
        if not (path / WEIGHTS).exists() or not (path / META).exists() or not sums.exists():
            raise ModelError(f"{path}: no monitor aggregator ({WEIGHTS}, {META}, SHA256SUMS); "
                             "train one with `faithlint train-monitor` or reinstall faithlint")
        expected = read_sums(sums)
        for name in (WEIGHTS, META):
            got = file_sha256(path / name)
            if expected.get(name) != got:
                raise ModelError(f"{path / name}: sha256 mismatch (expected {expected.get(name)}, got {got}); "
                                 "the monitor aggregator is corrupted, retrain or reinstall faithlint")
        meta = json.loads((path / META).read_text())
        if meta.get("format") != FORMAT:
            raise ModelError(f"{path / META}: monitor format {meta.get('format')!r}, this faithlint reads {FORMAT}")
        with np.load(path / WEIGHTS) as z:
            refs = {int(k[4:]): z[k].astype(np.float32) for k in z.files if k.startswith("ref_")}
            return cls(features=list(meta["features"]), mean=z["mean"], scale=z["scale"],
                       lr=(z["lr_coef"], float(z["lr_intercept"][0])),
                       mlp=(z["mlp_w1"], z["mlp_b1"], z["mlp_w2"], float(z["mlp_b2"][0])),
                       references=refs, thresholds=meta["thresholds"], meta=meta,
                       name=expected[WEIGHTS][:16])
