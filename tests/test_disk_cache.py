"""The on-disk cache of context splits and piece embeddings: real files in a temporary cache folder, real processes
writing at once, corrupt entries, the size bound, and a reopened workspace that neither splits nor embeds again."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import numpy as np
import pytest

from faithlint.cache import disk as disk_cache
from faithlint.cache.disk import DiskCache, open_cache
from faithlint.config import Config
from faithlint.pipeline.linter import Linter
from faithlint.types import ContextDoc


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.bin") if not p.name.startswith(".tmp-"))


def test_values_round_trip_and_corrupt_entries_miss_then_are_rewritten(tmp_path: Path) -> None:
    c = DiskCache(tmp_path)
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert c.get_array("emb", "ab12") is None
    assert c.put_array("emb", "ab12", arr) and c.put_json("spl", "cd34", {"spans": [[0, 5]], "counts": [2]})
    assert np.array_equal(c.get_array("emb", "ab12"), arr)
    assert c.get_json("spl", "cd34") == {"spans": [[0, 5]], "counts": [2]}
    path = c._path("emb", "ab12")
    for corrupt in (path.read_bytes()[:-3], path.read_bytes()[:-1] + b"\x00", b"", b"garbage" * 10):
        path.write_bytes(corrupt)
        assert c.get_array("emb", "ab12") is None  # a miss, never an exception
        assert c.put_array("emb", "ab12", arr)
        assert np.array_equal(c.get_array("emb", "ab12"), arr)
    assert not list(tmp_path.rglob(".tmp-*"))


def test_prune_keeps_the_most_recently_used_files_and_folders(tmp_path: Path) -> None:
    """How the compiled checkers' folders are bounded (:func:`~faithlint.cache.disk.prune`)."""
    for i, name in enumerate("abcd"):
        (tmp_path / f"checker-{name}").mkdir()
        (tmp_path / f"checker-{name}" / "x.blob").write_bytes(b"x")
        os.utime(tmp_path / f"checker-{name}", ns=(i * 10**9, i * 10**9))
    (tmp_path / "other").mkdir()
    disk_cache.prune(tmp_path, "checker-*", 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checker-c", "checker-d", "other"]
    (tmp_path / "old.tmp").write_bytes(b"x")
    os.utime(tmp_path / "old.tmp", ns=(0, 0))
    (tmp_path / "new.tmp").write_bytes(b"x")  # another process may be writing it now
    disk_cache.prune(tmp_path, "*.tmp", 0, older_than_s=3600)
    assert [p.name for p in tmp_path.glob("*.tmp")] == ["new.tmp"]


def test_the_size_bound_evicts_the_least_recently_used(tmp_path: Path) -> None:
    c = DiskCache(tmp_path, max_bytes=10_000)
    blob = b"x" * 1_500
    for i in range(5):
        c.put_bytes("b", f"{i:02d}", blob)
        os.utime(c._path("b", f"{i:02d}"), (time.time() - 100 + i, time.time() - 100 + i))
    assert c.get_bytes("b", "00") == blob  # read: now the most recent
    for i in range(5, 7):  # the 7th entry takes the folder over 10,000 bytes
        c.put_bytes("b", f"{i:02d}", blob)
    total = sum(p.stat().st_size for p in entries(tmp_path))
    assert total <= 10_000
    assert c.get_bytes("b", "00") == blob and c.get_bytes("b", "01") is None  # the oldest unread went first
    assert not c.put_bytes("b", "big", b"y" * 20_000)  # larger than the whole bound: not stored


def _writer(folder: str, n: int) -> None:
    c = DiskCache(folder, max_bytes=0)
    for i in range(40):
        c.put_array("emb", "shared", np.full((50, 384), n, dtype=np.float32))
        c.put_json("spl", f"{n:02d}{i:03d}", {"n": n, "i": i})


def test_processes_writing_at_once_leave_whole_entries(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), n)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    c = DiskCache(tmp_path)
    shared = c.get_array("emb", "shared")
    assert shared is not None and shared.shape == (50, 384) and len(set(shared.ravel().tolist())) == 1
    assert all(c.get_json("spl", f"{n:02d}{i:03d}") == {"n": n, "i": i} for n in range(4) for i in range(40))
    assert not list(tmp_path.rglob(".tmp-*"))


def test_settings_and_environment_choose_the_folder_or_turn_it_off(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(disk_cache.ENV, raising=False)
    assert open_cache("off", 10) is None
    assert open_cache(str(tmp_path / "a"), 10).folder == tmp_path / "a"
    assert open_cache(None, 10).folder == disk_cache.default_folder()
    monkeypatch.setenv(disk_cache.ENV, str(tmp_path / "env"))
    assert open_cache(str(tmp_path / "a"), 10).folder == tmp_path / "env"  # the environment wins
    monkeypatch.setenv(disk_cache.ENV, "off")
    assert open_cache(str(tmp_path / "a"), 10) is None
    assert Config(cache_dir="off", cache_max_mb=64).cache_max_mb == 64
    with pytest.raises(ValueError):
        Config(cache_max_mb=0)


LONG_CONTEXT = "\n\n".join(
    f"Paragraph {i}: the {w} committee met on day {i} and approved {i + 3} new projects in the district."
    for i, w in enumerate(["budget", "library", "transport", "housing", "parks", "schools", "health", "water"] * 5))
DRAFT = "The library committee approved 4 new projects. The water committee met on day 39."


@pytest.mark.slow
def test_a_reopened_workspace_reads_splits_and_embeddings_from_disk(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(disk_cache.ENV, raising=False)
    path = tmp_path / "notes.txt"
    path.write_text(LONG_CONTEXT)
    ctx = [ContextDoc(str(path), LONG_CONTEXT)]
    cfg = Config(cache_dir=str(tmp_path / "cache"))

    def run() -> tuple[list, DiskCache, Linter]:
        lt = Linter(cfg)
        res = lt.check(DRAFT, ctx)
        assert lt.disk_cache is not None
        return [(f.code, f.start, f.end, f.message) for f in res.findings], lt.disk_cache, lt

    first, cache, lt = run()
    files = entries(tmp_path / "cache")
    assert {p.parent.parent.name for p in files} == {"sentences", "embeddings"}
    pieces = lt.index.pieces(ctx[0], 0, next(iter(lt.index.sentences_cache)))[0]
    emb = next(p for p in files if p.parent.parent.name == "embeddings")
    stored = DiskCache(tmp_path / "cache").get_array("embeddings", emb.stem)
    ranked = int(np.isfinite(stored).all(axis=1).sum())
    assert 0 < ranked < len(pieces)  # only the pieces the check ranked were embedded, and only they are stored
    writes, hits = cache.writes, cache.hits
    again, _, _ = run()  # a new linter: its memory caches are empty, the disk has the context
    assert again == first and cache.writes == writes and cache.hits >= hits + 2
    for p in files:  # corrupt entries are ignored and rewritten
        p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    third, _, _ = run()
    assert third == first and cache.writes == writes + len(files)
    assert all(DiskCache(tmp_path / "cache").get_bytes(p.parent.parent.name, p.stem) for p in files)


def test_inline_contexts_are_not_cached_on_disk(tmp_path: Path, monkeypatch) -> None:
    """A batch of pairs carries its contexts inline: caching them would only churn the folder."""
    monkeypatch.delenv(disk_cache.ENV, raising=False)
    lt = Linter(Config(cache_dir=str(tmp_path / "cache")))
    lt.check(DRAFT, [ContextDoc("pair-7#context[0]", LONG_CONTEXT)])
    assert entries(tmp_path / "cache") == []
