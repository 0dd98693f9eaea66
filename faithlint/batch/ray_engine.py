"""The Ray engine of :func:`faithlint.batch.engine.check_pairs`: Ray Data reads the shards, a pool of actors (each
loading the models once) checks them in batches, the driver writes the lines in input order. See
docs/scale-out.md."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from faithlint.batch.rows import (
    Progress,
    Summary,
    check_line,
    count_rows,
    error_line,
    is_remote,
    line_id,
    mean_row_bytes,
    one_line,
    parse_pair,
)
from faithlint.errors import FaithlintError, InputError

RAY_MISSING = "--engine ray needs Ray: pip install 'faithlint[ray]'"
# test hook: a file naming one id; the Ray actor that meets that id first claims the file and kills its own
# process with SIGKILL (a real worker death: Ray restarts the actor and retries the batch). Never set in use.
KILL_HOOK_ENV = "FAITHLINT_TEST_KILL_ON_ID_FILE"
RAY_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # =0: one machine, on loopback (Ray's macOS/Windows default)


def import_ray(local: bool = False) -> Any:
    """``import ray``; ``local``: for a runtime started on this machine, which then talks over loopback only (Ray's
    single-machine mode: otherwise it finds its address by a UDP connect to 8.8.8.8 and serves on the machine's
    outward address). Read when Ray first imports, by this process and the ones it starts."""
    if local and "ray" not in sys.modules and not os.environ.get("RAY_ADDRESS") and not _started_cluster():
        os.environ.setdefault(RAY_LOOPBACK_ENV, "0")
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise FaithlintError(RAY_MISSING) from None
    return ray


def _started_cluster() -> bool:
    """Whether ``ray start`` left a cluster on this machine, which ``ray.init()`` joins: its address file, where Ray
    keeps it (a runtime on loopback could not join a cluster serving on the machine's outward address)."""
    tmp = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or tempfile.gettempdir()
    return os.path.exists(os.path.join(tmp, "ray", "ray_current_cluster"))


@contextmanager
def _no_usage_probe(ray: Any) -> Iterator[None]:
    """Start a local runtime without its dashboard process. Without the dashboard (``include_dashboard=False``)
    Ray still starts that process for its usage-stats module alone, which asks cloud metadata servers
    (169.254.169.254, metadata.google.internal) which cloud it runs on even when usage stats are off."""
    services = getattr(getattr(ray, "_private", None), "services", None)
    real = getattr(services, "start_api_server", None)
    if real is None:  # another Ray: nothing to skip (tests/test_no_network.py notices if it probes)
        yield
        return
    assert services is not None  # it holds ``real``

    def start_api_server(include_dashboard: bool | None, *args: Any, **kwargs: Any) -> Any:
        if include_dashboard is False:
            return None, None  # (dashboard URL, process): none started
        return real(include_dashboard, *args, **kwargs)

    services.start_api_server = start_api_server
    try:
        yield
    finally:
        services.start_api_server = real


def _shard_rows(names: dict[str, str], done: set[str]) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    """Ray Data ``flat_map``: a shard file (``bytes``, ``path``) to one row per non-blank line, numbered as the
    local engine numbers them; lines of ids in ``done`` become skip rows (counted, never checked)."""

    def rows(record: dict[str, Any]) -> list[dict[str, Any]]:
        path = str(record["path"])
        name = names.get(path) or names.get(os.path.abspath(path)) or path
        data = bytes(record["bytes"])
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8", errors="surrogateescape")
        base = str(Path(path).parent)
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            fallback = f"{Path(name).name}:{n}"
            ident = line_id(line, fallback)
            out.append({"shard": name, "base": base, "n": n, "line": line, "id": ident, "skip": ident in done})
        return out

    return rows


class CheckActor:
    """Ray Data actor: builds the Linter and loads its models once, then checks batches of rows into output
    lines. A row that cannot be parsed or checked becomes an error line; a dead actor is Ray's to restart."""

    def __init__(self, config: Any, allow_no_context: bool) -> None:
        from faithlint.pipeline.linter import Linter

        start = time.monotonic()
        self.linter = Linter(config)
        self.linter.load()
        self.load_s = time.monotonic() - start
        self.reported = False
        self.allow_no_context = allow_no_context

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        ids = [str(x) for x in batch["id"]]
        _maybe_die(ids)
        lines, errors, failing = [], [], []
        for i, ident in enumerate(ids):
            if bool(batch["skip"][i]):
                lines.append("")
                errors.append(False)
                failing.append(False)
                continue
            where = f"{batch['shard'][i]}: line {int(batch['n'][i])}"
            line = str(batch["line"][i])
            try:
                if any("\udc80" <= ch <= "\udcff" for ch in line):  # surrogateescape: bytes not UTF-8
                    raise InputError(f"{where}: invalid UTF-8")
                item = parse_pair(line, where, Path(str(batch["base"][i])), self.linter.config.max_file_size,
                                  self.allow_no_context)
                out, fails = check_line(item, self.linter)
                lines.append(out)
                errors.append(False)
                failing.append(fails)
            except InputError as exc:
                lines.append(error_line(ident, str(exc)))
                errors.append(True)
                failing.append(False)
            except Exception as exc:  # a bug or a model failure on this row: the row fails, the job goes on
                lines.append(error_line(ident, f"{where} (id {ident!r}): checking failed: {one_line(exc)}"))
                errors.append(True)
                failing.append(False)
        load = [0.0] * len(ids)
        if not self.reported and ids:
            load[0] = self.load_s
            self.reported = True
        return {"id": ids, "out": lines, "error": errors, "failing": failing,
                "skip": [bool(x) for x in batch["skip"]], "load_s": load}


def _actor_class(config: Any, allow_no_context: bool) -> type:
    """:class:`CheckActor` with its settings as class attributes: they travel with the class (Ray keeps
    it), not as constructor arguments in the object store, so a restarted actor always finds them."""
    settings = config.model_dump_json()

    class Actor(CheckActor):
        def __init__(self) -> None:
            from faithlint.config import Config
            from faithlint.rules.registry import RULES

            super().__init__(Config.model_validate_json(settings, context={"rules": RULES}), allow_no_context)

    Actor.__name__ = Actor.__qualname__ = "CheckActor"
    return Actor


def _maybe_die(ids: Sequence[str]) -> None:
    hook = os.environ.get(KILL_HOOK_ENV)
    if not hook or not os.path.exists(hook):
        return
    try:
        target = Path(hook).read_text(encoding="utf-8").strip()
    except OSError:
        return
    if target in ids:
        try:
            os.rename(hook, hook + ".claimed")  # only one actor, once: the retried batch goes through
        except OSError:
            return
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def check_ray(paths: Sequence[str], output: Path, cfg: Any, done: set[str], *, address: str | None,
               workers: int | None, gpus: float, cpus: float, progress: bool, allow_no_context: bool,
               batch_size: int, on_line: Callable[[str], None] | None) -> Summary:
    ray = import_ray(local=not address)
    import logging

    started_here = False
    if not ray.is_initialized():
        with _no_usage_probe(ray):
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False,
                     **({} if address else {"include_dashboard": False}))
        started_here = True
    elif address:
        pass  # already connected (e.g. a notebook that ran ray.init): use that cluster
    try:
        from ray.data import DataContext

        ctx = DataContext.get_current()
        ctx.execution_options.preserve_order = True  # output in input order: shards sorted, lines in file order
        ctx.enable_progress_bars = False  # ours counts rows, with rows/s and ETA
        # a shard is read as one block; its rows must reach the actors in many small blocks, or one actor gets
        # them all. Blocks are cut by bytes: about batch_size rows each (a row-count repartition would be a
        # task needing a CPU slot of its own, which busy actors holding every CPU never leave free)
        row_bytes = mean_row_bytes(paths)
        ctx.target_max_block_size = int(min(max(row_bytes * batch_size, 1024), 64 << 20))
        if hasattr(ctx, "target_min_block_size"):
            ctx.target_min_block_size = min(ctx.target_min_block_size, ctx.target_max_block_size)
        if hasattr(ctx, "print_on_execution_start"):
            ctx.print_on_execution_start = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # "progress bars disabled": ours are on
        resources = ray.cluster_resources()
        if workers is None:
            per, have = (gpus, resources.get("GPU", 0)) if gpus else (cpus, resources.get("CPU", 1))
            workers = max(1, int(have // per)) if per else 1
        names = {os.path.abspath(p) if not is_remote(p) else p: p for p in paths}
        # reading and splitting shards is light: it takes no CPU slot, so actors holding every CPU cannot starve it
        ds = ray.data.read_binary_files([os.path.abspath(p) if not is_remote(p) else p for p in paths],
                                        include_paths=True, num_cpus=0)
        ds = ds.flat_map(_shard_rows(names, done), num_cpus=0)
        # Ray Data restarts a dead actor (max_restarts=-1) and retries its batch (max_task_retries=-1) by default
        ds = ds.map_batches(_actor_class(cfg, allow_no_context), batch_size=batch_size,
                            compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=cpus, num_gpus=gpus or None)
        total = count_rows(paths, done)
        return _write(ds, output, done, total, progress, on_line)
    finally:
        if started_here:
            ray.shutdown()


def _write(ds: Any, output: Path, done: set[str], total: int | None, progress: bool,
           on_line: Callable[[str], None] | None) -> Summary:
    summary = Summary()
    prog = Progress(total, progress)
    written: set[str] = set()
    start = time.monotonic()
    batches = iter(ds.iter_batches(batch_size=None, batch_format="numpy"))
    try:
        with open(output, "a" if done else "w", encoding="utf-8") as out:
            for batch in batches:
                rows = 0
                for ident, line, err, failing, skip, load in zip(batch["id"], batch["out"], batch["error"],
                                                                 batch["failing"], batch["skip"], batch["load_s"]):
                    if load:
                        summary.loads.append(float(load))
                    if skip:
                        summary.skipped += 1
                        continue
                    ident, line = str(ident), str(line)
                    if ident in written:  # the same id twice in the input: the later line is an error line
                        line, err, failing = error_line(ident, f"duplicate id {ident!r}"), True, False
                    written.add(ident)
                    out.write(line + "\n")
                    summary.failed += bool(err)
                    summary.checked += not err
                    summary.failing += bool(failing)
                    rows += 1
                    if on_line:
                        on_line(line)
                out.flush()
                prog.advance(rows)
    finally:
        prog.stop()
        close = getattr(batches, "close", None)
        if close is not None:  # interrupted: stop the streaming executor now, freeing the actors' CPUs
            close()
    summary.seconds = time.monotonic() - start
    if not summary.checked and not summary.failed and not summary.skipped:
        raise InputError(f"{output}: no pairs to check (the input has no JSON lines)")
    return summary
