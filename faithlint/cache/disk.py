"""A small on-disk cache of derived data (context sentence splits, context piece embeddings), shared by processes.

Reopening a workspace should not re-split and re-embed a context that has not changed. Entries are keyed by the
content they were computed from plus the identity of what computed them (model files, the code that splits), so a
changed file or model simply misses. Each entry is one file under the user cache directory
(``platformdirs.user_cache_dir("faithlint")``, or ``cache_dir``/``$FAITHLINT_CACHE_DIR``):

- written to a temporary file in the same folder and renamed into place, so a reader never sees half a file and
  concurrent writers of the same entry both leave a whole one;
- a header with a magic tag, the payload's length and its SHA-1: a truncated or corrupt file reads as a miss and
  is rewritten by the next ``put``;
- the folder is kept under ``max_bytes``: when a write takes it over, the least recently used entries (by mtime,
  which a hit refreshes) are removed.

Nothing here raises for I/O problems: a cache that cannot be read or written is a cache that misses.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import struct
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ENV = "FAITHLINT_CACHE_DIR"  # a folder, or "off" to turn the cache off
OFF = ("off", "none", "0", "false", "no")
_MAGIC = b"FLC1"
_HEADER = struct.Struct(">4sQ20s")  # magic, payload length, SHA-1 of the payload
_SUFFIX = ".bin"


def atomic_write(path: Path, data: bytes, *, prefix: str, suffix: str, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_folder() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("faithlint"))


def key(*parts: str | bytes) -> str:
    """A hex key from the parts (content, model identity, ...); no part can run into the next one."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8") if isinstance(p, str) else p
        h.update(struct.pack(">Q", len(b)))
        h.update(b)
    return h.hexdigest()


def file_identity(path: Path) -> str:
    """A model file's identity without reading it: path, size and modification time."""
    try:
        st = path.stat()
    except OSError:
        return str(path)
    return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"


class DiskCache:
    """Entries (bytes, JSON values or NumPy arrays) under ``folder/<namespace>/<key[:2]>/<key>.bin``."""

    def __init__(self, folder: Path | str, max_bytes: int = 512 * 2**20) -> None:
        self.folder = Path(folder).expanduser()
        self.max_bytes = max(0, max_bytes)
        self._lock = threading.Lock()
        self._size: int | None = None  # bytes under folder, counted at the first write
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def _path(self, namespace: str, k: str) -> Path:
        return self.folder / namespace / k[:2] / (k + _SUFFIX)

    # ------------------------------------------------------------------ bytes
    def get_bytes(self, namespace: str, k: str) -> bytes | None:
        path = self._path(namespace, k)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        payload = _unwrap(data)
        if payload is None:  # truncated or corrupt: a miss; the next put replaces it
            self.misses += 1
            return None
        try:
            os.utime(path)  # recently used: eviction takes the oldest first
        except OSError:
            pass
        self.hits += 1
        return payload

    def put_bytes(self, namespace: str, k: str, payload: bytes) -> bool:
        path = self._path(namespace, k)
        data = _HEADER.pack(_MAGIC, len(payload), hashlib.sha1(payload).digest()) + payload
        if self.max_bytes and len(data) > self.max_bytes:
            return False
        try:
            atomic_write(path, data, prefix=".tmp-", suffix=_SUFFIX)
        except OSError:
            return False
        self.writes += 1
        self._grew(len(data))
        return True

    # ------------------------------------------------------------------ typed values
    def get_json(self, namespace: str, k: str) -> Any | None:
        raw = self.get_bytes(namespace, k)
        if raw is None:
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            return None

    def put_json(self, namespace: str, k: str, value: Any) -> bool:
        return self.put_bytes(namespace, k, json.dumps(value, separators=(",", ":")).encode("utf-8"))

    def get_array(self, namespace: str, k: str) -> np.ndarray | None:
        raw = self.get_bytes(namespace, k)
        if raw is None:
            return None
        try:
            return np.load(io.BytesIO(raw), allow_pickle=False)
        except (ValueError, OSError, EOFError):
            return None

    def put_array(self, namespace: str, k: str, value: np.ndarray) -> bool:
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(value), allow_pickle=False)
        return self.put_bytes(namespace, k, buf.getvalue())

    # ------------------------------------------------------------------ size bound
    def _entries(self) -> list[tuple[float, int, Path]]:
        out = []
        for root, _, files in os.walk(self.folder):
            for name in files:
                if not name.endswith(_SUFFIX):
                    continue
                p = Path(root) / name
                try:
                    st = p.stat()
                except OSError:
                    continue
                out.append((st.st_mtime, st.st_size, p))
        return out

    def _grew(self, n: int) -> None:
        if not self.max_bytes:
            return
        with self._lock:
            if self._size is None:
                self._size = sum(size for _, size, _ in self._entries())
            else:
                self._size += n
            if self._size <= self.max_bytes:
                return
            entries = sorted(self._entries())  # other processes write here too: count again before evicting
            total = sum(size for _, size, _ in entries)
            target = self.max_bytes * 3 // 4  # evict a margin at once, not one entry per write
            for _, size, p in entries:
                if total <= target:
                    break
                try:
                    p.unlink()
                    total -= size
                except FileNotFoundError:
                    total -= size
                except OSError:
                    continue
            self._size = total


def _unwrap(data: bytes) -> bytes | None:
    if len(data) < _HEADER.size:
        return None
    magic, n, sha = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if magic != _MAGIC or n != len(payload) or hashlib.sha1(payload).digest() != sha:
        return None
    return payload


def prune(folder: Path, pattern: str, keep: int, older_than_s: float = 0.0) -> None:
    """Remove all but the ``keep`` most recently used files or folders matching ``pattern`` in ``folder``, of those
    last modified over ``older_than_s`` seconds ago (none raises)."""
    try:
        found = [(p.stat().st_mtime_ns, p) for p in folder.glob(pattern)]
    except OSError:
        return
    cutoff = time.time_ns() - int(older_than_s * 1e9)
    for _, old in [f for f in sorted(found, reverse=True)[keep:] if f[0] <= cutoff]:
        try:
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()
        except OSError:
            pass


_OPEN: dict[tuple[str, int], DiskCache] = {}
_OPEN_LOCK = threading.Lock()


def cache_folder(setting: str | None) -> Path | None:
    """The folder the settings name (``$FAITHLINT_CACHE_DIR`` over ``cache_dir`` over the user cache directory);
    None when either says ``off``."""
    chosen = os.environ.get(ENV) or setting
    if chosen is not None and chosen.strip().lower() in OFF:
        return None
    return Path(chosen).expanduser() if chosen else default_folder()


def compile_cache(setting: str | None) -> str | None:
    """Where the checker OpenVINO compiled for this CPU is kept (``<cache folder>/openvino``): compiling the int8
    graph takes 0.6-0.9 s of CPU at every start, loading the compiled one a fraction of that (issue 41). One folder
    per graph, settings, OpenVINO build and CPU (~60 MB; the four most recently used are kept, apart from
    ``cache_max_mb``'s bound): :mod:`faithlint.models.checkers.openvino_checker`. None when the cache is off."""
    folder = cache_folder(setting)
    return str(folder / "openvino") if folder is not None else None


def open_cache(setting: str | None, max_mb: int) -> DiskCache | None:
    """The cache the settings name: ``$FAITHLINT_CACHE_DIR`` over the ``cache_dir`` setting over the user cache
    directory; ``off`` (either place) turns it off. One object per folder and bound in a process."""
    folder = cache_folder(setting)
    if folder is None:
        return None
    k = (str(folder), max_mb)
    with _OPEN_LOCK:
        if k not in _OPEN:
            _OPEN[k] = DiskCache(folder, max_mb * 2**20)
        return _OPEN[k]
