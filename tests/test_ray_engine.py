"""``--engine ray``: corpus checking on a real local Ray runtime (``ray.init(num_cpus=2)``, no mocks).

One Ray runtime serves the whole module; the reference output comes from the local engine on the same pairs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from faithlint.batch import engine as batch
from faithlint.cli import app as cli

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag-answer"
SENTENCES = ["The library is closed on Sundays.", "The project cost $12.5 million.",
             "The library is open on Sundays.", "The renovation was designed by Marlow & Finch.",
             "The solar roof supplies about 30 percent of the electricity."]


def write_pairs(path: Path, n: int) -> Path:
    ctx = (EXAMPLE / "answer.context.md").read_text(encoding="utf-8")
    path.write_text("".join(json.dumps({"id": f"d{i:03d}", "text": SENTENCES[i % len(SENTENCES)],
                                        "context": [ctx]}) + "\n" for i in range(n)), encoding="utf-8")
    return path


def by_id(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    ids = [json.loads(x)["id"] for x in lines]
    assert len(ids) == len(set(ids)), "an id was written twice"
    return dict(zip(ids, lines))


@pytest.fixture(scope="module")
def ray_runtime(tmp_path_factory: pytest.TempPathFactory):
    ray = pytest.importorskip("ray", reason="the Ray extra: pip install 'faithlint[ray]'")
    hook = tmp_path_factory.mktemp("hook") / "kill-on-id"
    before = os.environ.get(batch.KILL_HOOK_ENV)
    os.environ[batch.KILL_HOOK_ENV] = str(hook)  # workers inherit the driver's environment at ray.init
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield hook
    ray.shutdown()
    if before is None:
        os.environ.pop(batch.KILL_HOOK_ENV, None)
    else:
        os.environ[batch.KILL_HOOK_ENV] = before


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """200 short pairs and the local engine's output on them (the single-process reference)."""
    d = tmp_path_factory.mktemp("ref")
    pairs = write_pairs(d / "pairs.jsonl", 200)
    summary = batch.check_pairs(pairs, d / "local.jsonl", engine="local", progress=False)
    assert (summary.checked, summary.failed, summary.skipped, len(summary.loads)) == (200, 0, 0, 1)
    return pairs, d / "local.jsonl"


def test_ray_output_equals_the_local_engine_on_200_pairs(ray_runtime, reference, tmp_path):
    pairs, local = reference
    out = tmp_path / "ray.jsonl"
    summary = batch.check_pairs(pairs, out, engine="ray", workers=2, progress=False)
    assert (summary.checked, summary.failed, summary.skipped) == (200, 0, 0)
    assert 1 <= len(summary.loads) <= 2  # one model load per actor (the 2nd may start after the work is done)
    assert by_id(out) == by_id(local)
    assert out.read_bytes() == local.read_bytes()  # input order is kept, so even the bytes are the same


def test_a_killed_worker_is_replaced_and_every_id_is_written_once(ray_runtime, reference, tmp_path):
    pairs, local = reference
    ray_runtime.write_text("d137", encoding="utf-8")  # the actor that meets d137 SIGKILLs itself, once
    out = tmp_path / "ray.jsonl"
    summary = batch.check_pairs(pairs, out, engine="ray", workers=2, progress=False)
    assert not ray_runtime.exists() and Path(f"{ray_runtime}.claimed").exists()  # the worker did die
    assert (summary.checked, summary.failed) == (200, 0)
    assert by_id(out) == by_id(local)


def test_resume_after_an_interruption_skips_finished_ids(ray_runtime, reference, tmp_path):
    pairs, local = reference
    out = tmp_path / "ray.jsonl"
    seen: list[str] = []

    def interrupt(line: str) -> None:
        seen.append(line)
        if len(seen) == 40:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the run

    with pytest.raises(KeyboardInterrupt):
        batch.check_pairs(pairs, out, engine="ray", workers=2, progress=False, on_line=interrupt)
    done = out.read_text(encoding="utf-8")
    assert done.count("\n") == 40
    with out.open("a", encoding="utf-8") as fh:  # and a last line cut off as a killed writer leaves it
        fh.write('{"id": "d04')
    summary = batch.check_pairs(pairs, out, engine="ray", workers=2, progress=False, resume=True)
    assert (summary.checked, summary.failed, summary.skipped) == (160, 0, 40)
    assert by_id(out) == by_id(local)


def test_bad_lines_become_error_lines_and_the_job_goes_on(ray_runtime, tmp_path, capsys):
    ctx = (EXAMPLE / "answer.context.md").read_text(encoding="utf-8")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_text(
        json.dumps({"id": "ok1", "text": SENTENCES[1], "context": ctx}) + "\n"
        "{oops\n"
        + json.dumps({"id": "notext", "context": ctx}) + "\n"
        + json.dumps({"id": "noctx", "text": SENTENCES[0]}) + "\n", encoding="utf-8")
    (tmp_path / "in" / "b.jsonl").write_text(json.dumps({"id": "ok2", "text": SENTENCES[0], "context": ctx}) + "\n"
                                      + json.dumps({"id": "ok1", "text": SENTENCES[0], "context": ctx}) + "\n",
                                      encoding="utf-8")
    code = cli.main(["check", "--pairs", str(tmp_path / "in" / "*.jsonl"), "--engine", "ray", "--workers", "1",
                     "-o", str(tmp_path / "out.jsonl"), "--no-progress"])
    assert code == 2  # rows failed
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["ok1", "a.jsonl:2", "notext", "noctx", "ok2", "ok1"]  # one line per line
    errors = {r["id"]: r["error"] for r in rows if "error" in r}
    assert "line 2: invalid JSON" in errors["a.jsonl:2"]
    assert "line 3: needs 'id' and a string 'text'" in errors["notext"]
    assert "has no context" in errors["noctx"]
    assert "duplicate id 'ok1'" in rows[-1]["error"] and "findings" in rows[0]
    assert "faithlint: 2 checked, 4 failed, 0 skipped" in capsys.readouterr().err


def test_without_ray_engine_ray_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    write_pairs(tmp_path / "pairs.jsonl", 2)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as without the extra
    monkeypatch.setitem(sys.modules, "ray.data", None)
    code = cli.main(["check", "--pairs", str(tmp_path / "pairs.jsonl"), "--engine", "ray", "-o",
                     str(tmp_path / "out.jsonl")])
    assert code == 2
    err = capsys.readouterr().err
    assert err == "faithlint: error: --engine ray needs Ray: pip install 'faithlint[ray]'\n"
    assert not (tmp_path / "out.jsonl").exists()


def test_read_done_drops_a_cut_off_last_line(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "a", "score": {}}\n{"id": "b", "error": "x"}\n{"id": "c", "sco', encoding="utf-8")
    assert batch.read_done(out) == {"a", "b"}
    assert out.read_text(encoding="utf-8") == '{"id": "a", "score": {}}\n{"id": "b", "error": "x"}\n'
    out.write_text('{"id": "a"}\nnot json\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(batch.InputError, match="line 2"):
        batch.read_done(out)


def test_local_engine_resumes_too(reference, tmp_path, capsys):
    pairs, local = reference
    out = tmp_path / "out.jsonl"
    lines = local.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:190]) + lines[190][:25], encoding="utf-8")  # killed while writing line 191
    code = cli.main(["check", "--pairs", str(pairs), "--resume", "-o", str(out), "--fail-on", "never"])
    assert code == 0
    assert out.read_bytes() == local.read_bytes()
    assert "faithlint: 10 checked, 0 failed, 190 skipped" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    (["--engine", "ray"], "--engine ray needs an output file: -o OUT.jsonl"),
    (["--resume", "-o", "out.jsonl", "--format", "json"], "--resume writes JSONL, not --format json"),
    (["--workers", "2", "--format", "jsonl"], "--address, --workers and --gpus-per-worker go with --engine ray"),
])
def test_batch_engine_usage_errors(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    write_pairs(tmp_path / "pairs.jsonl", 2)
    assert cli.main(["check", "--pairs", "pairs.jsonl", *args]) == 2
    assert capsys.readouterr().err == f"faithlint: error: {message}\n"
