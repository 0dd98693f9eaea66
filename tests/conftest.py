"""Test-session settings shared by every test file."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

# The on-disk context cache goes to a fresh folder per test session (subprocesses inherit it), never to the
# user's cache directory: tests neither read what another run left nor leave anything behind there; the folder
# (with the compiled checker, ~60 MB) is removed when the session ends.
_SESSION_CACHE = None if "FAITHLINT_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="faithlint-test-cache-")
if _SESSION_CACHE is not None:
    os.environ["FAITHLINT_CACHE_DIR"] = _SESSION_CACHE


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)

BUNDLED = Path(__file__).resolve().parents[1] / "faithlint" / "models" / "default"


@pytest.fixture(scope="session")
def fp32_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled checker with an fp32 graph (``model.onnx``) beside its weights, exported as
    ``training/export_onnx.py --keep fp32`` does it: the bundled folder ships only the int8 graph (issue 41), but
    fp32 and bf16 on OpenVINO and ONNX Runtime stay supported for folders that have one. Needs torch and onnx
    (the ``dev`` extra); about half a minute, once per session."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import sys

    sys.path.insert(0, str(BUNDLED.parents[2] / "training"))
    import export_onnx  # type: ignore[import-not-found]
    import torch
    from transformers import AutoModelForSequenceClassification

    folder = tmp_path_factory.mktemp("fp32-model")
    for f in BUNDLED.iterdir():
        if f.is_file() and f.name not in ("model.int8.onnx", "SHA256SUMS"):
            shutil.copyfile(f, folder / f.name)
    model = AutoModelForSequenceClassification.from_pretrained(str(export_onnx.SOURCE), dtype=torch.float32)
    raw, fused = folder / "raw.onnx", folder / "fused.onnx"
    export_onnx.export_graph(model, raw, "logits", True)
    export_onnx.optimise(raw, fused, model.config.hidden_size, model.config.num_attention_heads)
    export_onnx.add_hidden_output(fused, fused)
    export_onnx.fp16_storage(fused, folder / "model.onnx")
    raw.unlink()
    fused.unlink()
    return folder
