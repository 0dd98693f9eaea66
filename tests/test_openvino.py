"""The checker graph on OpenVINO: the bundled int8 graph close to fp32 and batch-independent; a folder's fp32 graph
giving ONNX Runtime's results in fp32 and close ones in bf16."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from faithlint.errors import ModelError
from faithlint.models.checkers import openvino_checker
from faithlint.models.checkers.onnx_checker import ONNXChecker

pytest.importorskip("openvino")

from faithlint.models.checkers.openvino_checker import OpenVINOChecker, wants_bf16  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"
CTX = (EXAMPLE / "answer.context.md").read_text()
SENTENCES = ["The library reopened in 2024.", "The project cost $25 million.", "It has a rooftop garden.",
             "Voters approved a city bond in 2021 that funded the project.",
             " and ".join(["the library added new windows, doors and a roof in 2024"] * 50)]  # chunked: too long
PREMISES = [CTX, CTX[:300], CTX[200:900], CTX, CTX[:500]]


@pytest.fixture(scope="module")
def onnx_fp32(fp32_model) -> ONNXChecker:
    return ONNXChecker(str(fp32_model), precision="fp32")


@pytest.mark.slow
def test_fp32_gives_onnx_runtime_results(onnx_fp32, fp32_model):
    ov = OpenVINOChecker(str(fp32_model), precision="fp32", batch_size=4)
    assert ov.quantize is None and ov.runtime == "openvino"
    a, b = onnx_fp32.score_pairs(PREMISES, SENTENCES), ov.score_pairs(PREMISES, SENTENCES)
    assert np.abs(a - b).max() < 1e-4
    assert ov.name != onnx_fp32.name  # cached verdicts never mix runtimes
    assert ov.score_pairs([], []).shape == (0, 3)


@pytest.mark.slow
def test_bf16_is_close_and_does_not_depend_on_the_batch(onnx_fp32, fp32_model):
    ov = OpenVINOChecker(str(fp32_model), precision="bf16", batch_size=8)
    assert ov.quantize == "bf16"
    together = ov.score_pairs(PREMISES, SENTENCES)
    alone = np.concatenate([ov.score_pairs([p], [h]) for p, h in zip(PREMISES, SENTENCES)])
    assert np.array_equal(together, alone)  # a pair's verdict is the same whatever is checked with it
    assert np.abs(together - onnx_fp32.score_pairs(PREMISES, SENTENCES)).max() < 0.03
    assert (together.argmax(1) == onnx_fp32.score_pairs(PREMISES, SENTENCES).argmax(1)).all()


def test_auto_precision_follows_the_model_where_the_cpu_has_bf16(monkeypatch):
    prefers = {"faithlint_quantize": "bf16"}
    monkeypatch.setattr(openvino_checker, "native_bf16", lambda: True)
    assert wants_bf16("auto", prefers) and wants_bf16("bf16", {}) and not wants_bf16("fp32", prefers)
    assert not wants_bf16("auto", {})  # a model that does not ask for bf16 stays fp32
    monkeypatch.setattr(openvino_checker, "native_bf16", lambda: False)
    assert not wants_bf16("auto", prefers)  # emulated bf16 would be slower than fp32
    assert wants_bf16("bf16", prefers)  # asked for by name: honoured


@pytest.mark.slow
def test_the_bundled_int8_graph_is_close_and_does_not_depend_on_the_batch(onnx_fp32):
    """The bundled graph (static int8, issue 41) runs in int8 here, by default, and each pair alone."""
    ov = OpenVINOChecker(None, batch_size=8)
    assert ov.quantize == "int8" and ov.graph.name == "model.int8.onnx"
    together = ov.score_pairs(PREMISES, SENTENCES)
    alone = np.concatenate([ov.score_pairs([p], [h]) for p, h in zip(PREMISES, SENTENCES)])
    assert np.array_equal(together, alone)
    fp32 = onnx_fp32.score_pairs(PREMISES, SENTENCES)
    assert np.abs(together - fp32).max() < 0.15 and (together.argmax(1) == fp32.argmax(1)).all()
    # ONNX Runtime on the same graph: its int8 kernels round differently (up to about 0.01 here)
    assert np.abs(together - ONNXChecker(None).score_pairs(PREMISES, SENTENCES)).max() < 0.03


def test_a_folder_without_an_fp32_graph_refuses_fp32_and_bf16():
    for precision in ("fp32", "bf16"):
        with pytest.raises(ModelError, match="no ONNX graph.*model.int8.onnx"):
            OpenVINOChecker(None, precision=precision)


def test_a_broken_graph_is_a_one_line_model_error(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (folder / name).write_bytes((Path(openvino_checker.__file__).parents[1] / "default" / name)
                                    .read_bytes())
    (folder / "model.onnx").write_bytes(b"not a graph")
    with pytest.raises(ModelError) as err:
        OpenVINOChecker(str(folder), precision="fp32")
    assert "model.onnx" in str(err.value) and "OpenVINO cannot load" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_inputs_come_in_few_shapes():
    """OpenVINO compiles kernels per input shape: widths are padded to multiples of 8 (memory stays bounded)."""
    ov = OpenVINOChecker(None)  # the bundled int8 graph: one pair per run, like bf16
    widths: list[tuple[int, int]] = []
    run = ov._logits

    def spy(batch):  # type: ignore[no-untyped-def]
        widths.append(batch["input_ids"].shape)
        return run(batch)

    ov._logits = spy
    words = CTX.split()
    premises = [" ".join(words[:n]) for n in range(5, 120, 7)]
    probs = ov.score_pairs(premises, ["The library reopened in 2024."] * len(premises))
    assert len({w for _, w in widths}) < len(premises) and all(b == 1 and w % 8 == 0 for b, w in widths)
    assert np.allclose(probs.sum(1), 1.0, atol=1e-5)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_scores_like_its_parent():
    """A batch engine may fork after loading: OpenVINO's thread pool must still run there (and not hang)."""
    ov = OpenVINOChecker(None)
    want = ov.score_pairs(PREMISES[:3], SENTENCES[:3])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        signal.alarm(120)  # a child waiting on threads it does not have would hang: end it instead
        os._exit(0 if np.array_equal(ov.score_pairs(PREMISES[:3], SENTENCES[:3]), want) else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_openvino_imports_without_its_model_converter():
    import subprocess
    import sys

    code = ("import sys; from faithlint.models.checkers.openvino_core import core; "
            "assert 'CPU' in core().available_devices; "
            "assert 'openvino.tools.ovc' not in sys.modules; "
            "assert sys.modules.get('openvino_telemetry') is None; "  # never loaded (faithlint.offline keeps it out)
            "import openvino; assert callable(openvino.convert_model); "  # imports the converter when called
            "from openvino.tools.ovc import convert_model; assert 'openvino.tools.ovc' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    code = ("from faithlint.models.checkers.openvino_core import core; core(); import openvino; "
            "assert callable(openvino.tools.ovc.convert_model)")  # the attribute path imports it too
    subprocess.run([sys.executable, "-c", code], check=True)


def _blobs(folder: Path) -> list[Path]:
    """The compiled graphs OpenVINO wrote, each in its folder, with their seals (``.crc``) once sealed."""
    return sorted(folder.glob("checker-*/*.blob"))


@pytest.mark.slow
def test_the_compiled_checker_is_kept_in_the_cache_folder(tmp_path, monkeypatch):
    """The compiled int8 graph goes to ``<cache>/openvino`` (issue 41: compiling takes most of a second of every
    start), written after the load; a second load imports it and scores alike, and a folder it cannot use only costs
    the compile."""
    from faithlint.cache.disk import compile_cache
    from faithlint.config import Config
    from faithlint.pipeline.registry import models_key

    folder = tmp_path / "openvino"
    folder.mkdir()
    (folder / "16245187465325978053.blob").write_bytes(b"OpenVINO's own cache file, before stop 41")
    first = OpenVINOChecker(None, compile_cache=str(folder))
    openvino_checker.save_pending()
    [blob] = _blobs(folder)
    assert blob.with_suffix(".crc").exists()  # sealed
    assert [p.name for p in folder.iterdir()] == [blob.parent.name]  # the old file is gone
    again = OpenVINOChecker(None, compile_cache=str(folder))
    assert np.array_equal(first.score_pairs(PREMISES, SENTENCES), again.score_pairs(PREMISES, SENTENCES))
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert OpenVINOChecker(None, compile_cache=str(blocked)).score_pairs(PREMISES[:1], SENTENCES[:1]).shape == (1, 3)
    openvino_checker.save_pending()  # its write fails quietly
    monkeypatch.delenv("FAITHLINT_CACHE_DIR", raising=False)  # tests/conftest.py sets it; the key decides here
    assert compile_cache(str(tmp_path / "c")) == str(tmp_path / "c" / "openvino")
    assert models_key(Config(cache_dir=str(tmp_path / "c"))).checker.compile_cache == str(tmp_path / "c" / "openvino")


@pytest.mark.slow
def test_a_damaged_compiled_checker_is_compiled_again_not_used(tmp_path):
    """A compiled graph damaged on disk (bytes overwritten, cut short) or not sealed scores as a fresh compile and is
    replaced: OpenVINO imported a damaged file of its own cache and scored with it (0.65 off)."""
    reference = OpenVINOChecker(None).score_pairs(PREMISES, SENTENCES)  # no cache
    folder = tmp_path / "openvino"
    OpenVINOChecker(None, compile_cache=str(folder))
    openvino_checker.save_pending()
    [blob] = _blobs(folder)
    good = blob.read_bytes()
    rng = np.random.default_rng(1)
    damaged = bytearray(good)
    for at in rng.integers(64, len(good) - 64, 2000):
        damaged[at:at + 64] = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
    for bad in (bytes(damaged), good[: len(good) // 2], None):
        if bad is None:
            blob.with_suffix(".crc").unlink()  # whole but never sealed (a process killed before)
        else:
            blob.write_bytes(bad)
        assert np.array_equal(OpenVINOChecker(None, compile_cache=str(folder)).score_pairs(PREMISES, SENTENCES),
                              reference)
        openvino_checker.save_pending()
        [again] = _blobs(folder)
        assert again.with_suffix(".crc").exists()  # replaced and sealed (a compile writes alike, not byte for byte)
        blob = again
    assert np.array_equal(OpenVINOChecker(None, compile_cache=str(folder)).score_pairs(PREMISES, SENTENCES),
                          reference)  # the replacement, imported


def _shift_bias(graph: Path) -> None:
    """Change the graph's classifier bias in place: the same size and modification time, other scores."""
    import onnx
    from onnx import numpy_helper

    bias = next(t for t in onnx.load(str(graph)).graph.initializer if t.name == "inner.classifier.bias")
    old = numpy_helper.to_array(bias).astype("<f4").tobytes()
    new = (numpy_helper.to_array(bias) + np.array([2.0, 0.0, -2.0], dtype=np.float32)).astype("<f4").tobytes()
    data = graph.read_bytes()
    assert data.count(old) == 1
    stat = graph.stat()
    graph.write_bytes(data.replace(old, new))
    os.utime(graph, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert graph.stat().st_size == stat.st_size


@pytest.mark.slow
def test_a_bundled_graph_failing_its_sha256_is_not_kept(tmp_path, monkeypatch):
    """The bundled graph's compilation is kept under its recorded sha256: a damaged bundled graph is refused and not
    kept, so a reinstalled (good) one is never served the damaged one's compilation."""
    import shutil

    from faithlint.models.checkers import nli

    bundled = tmp_path / "default"
    shutil.copytree(nli.DEFAULT_MODEL_DIR, bundled)
    _shift_bias(bundled / "model.int8.onnx")
    monkeypatch.setattr(nli, "DEFAULT_MODEL_DIR", bundled)
    folder = tmp_path / "openvino"
    with pytest.raises(ModelError, match="sha256 mismatch"):
        OpenVINOChecker(None, compile_cache=str(folder))
    openvino_checker.save_pending()
    assert not _blobs(folder)


@pytest.mark.slow
def test_a_changed_graph_does_not_take_the_compiled_one(tmp_path):
    """A model folder whose graph changed in place (same size, same modification time: only the content differs)
    compiles the new graph instead of importing the old one's compilation."""
    import shutil

    from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR

    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model)
    folder = tmp_path / "openvino"
    before = OpenVINOChecker(str(model), compile_cache=str(folder)).score_pairs(PREMISES, SENTENCES)
    openvino_checker.save_pending()
    assert len(_blobs(folder)) == 1
    _shift_bias(model / "model.int8.onnx")
    changed = OpenVINOChecker(str(model), compile_cache=str(folder)).score_pairs(PREMISES, SENTENCES)
    assert not np.allclose(changed, before, atol=1e-3)
    assert np.array_equal(changed, OpenVINOChecker(str(model)).score_pairs(PREMISES, SENTENCES))  # no cache
    openvino_checker.save_pending()
    assert len(_blobs(folder)) == 2  # one per graph


def test_no_compile_cache_when_the_cache_is_off(monkeypatch):
    from faithlint.cache.disk import ENV, compile_cache

    monkeypatch.delenv(ENV, raising=False)
    assert compile_cache("off") is None
    monkeypatch.setenv(ENV, "off")
    assert compile_cache("/some/folder") is None  # the environment wins, as for the disk cache
