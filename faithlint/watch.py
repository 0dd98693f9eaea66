"""``faithlint watch``: keep checking draft folders while you (or an LLM pipeline) edit them.

How it works
------------
* Drafts are found like ``faithlint check FOLDER`` finds them (``.md``/``.markdown``/``.mdx``/``.txt``, not
  context files, not hidden, not inside ``*.context/`` or ``*.sources/``), narrowed by ``--include`` /
  ``--exclude`` globs (relative to the watched folder, ``**`` spans folders) and by ``.gitignore`` files.
* Each draft is paired with its context exactly as the CLI pairs it (:func:`faithlint.drafts.prepare_draft`, built on
  :func:`faithlint.pairing.resolve_pairing`), and the watcher remembers which files and folders that pairing
  read (plus every sibling that *could* pair with it, and the config file).
* A watchdog observer only records which paths were touched. The main loop waits until the file system has
  been quiet for ``debounce`` seconds (at most ``max_delay`` after the first event), then looks at the disk as
  it is *now*: that coalesces editor atomic saves (temp file + rename), a ``git checkout`` touching hundreds
  of files and a file rewritten several times a second into one check per affected draft.
* Before checking, a signature of everything the check depends on (draft text, query, context texts,
  settings) is compared with the last one, so a touched-but-unchanged file costs a read, not a check.
* Problems with one file (unreadable, binary, missing context, a context folder that vanished) are shown once
  per distinct message; the draft is retried when something it depends on changes again.
* With ``--report-dir`` one JSON report per draft (and optionally SARIF and HTML) is kept up to date, written
  atomically (temp file + :func:`os.replace`); a deleted draft's reports are removed. Drafts are only read.

The :class:`Watcher` takes a ``linter_factory`` (``Config -> Linter``-like object with ``check``) so tests can
run the real watcher with a cheap fake linter.
"""

from __future__ import annotations

import hashlib
import os
import queue
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faithlint.drafts import PreparedDraft, prepare_draft
from faithlint.errors import FaithlintError, InputError, ModelError
from faithlint.files import non_regular_kind
from faithlint.options import SEVERITY_RANK, cli_overrides, fails

if TYPE_CHECKING:  # the CLI imports this module for its options: keep pydantic & co. out of that path
    from faithlint.config import Config
    from faithlint.pairing import Pairing
    from faithlint.types import DraftResult

DRAFT_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".mdx", ".txt")  # as `faithlint check FOLDER`
CONFIG_NAMES: tuple[str, ...] = ("faithlint.toml", "pyproject.toml")
# Editor and tool scratch files: never drafts, and their events alone never matter.
_TEMP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".temp", ".bak", ".orig", ".crswap", "~", ".part",
                  "___jb_tmp___", "___jb_old___")


# --------------------------------------------------------------------------------------------- helpers


def display_path(path: Path) -> str:
    from faithlint.context import display_path as _display_path

    return _display_path(path)


def _norm(path: str | os.PathLike[str]) -> Path:
    """Absolute, normalised, symlinks kept (events arrive under the path we scheduled)."""
    return Path(os.path.normpath(os.path.abspath(os.fspath(path))))


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _git_internal(path: str) -> bool:
    """Inside a ``.git`` folder (git's index and lock files churn on every status): only ``info/exclude`` counts."""
    parts = Path(path).parts
    return ".git" in parts and parts[-3:] != (".git", "info", "exclude")


def _is_temp_name(name: str) -> bool:
    return (name.startswith((".#", "#", ".~")) or name.endswith(_TEMP_SUFFIXES) or name == "4913"
            or ".tmp" in name.split(".")[1:] and not name.endswith(DRAFT_SUFFIXES))


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# --------------------------------------------------------------------------------------------- .gitignore


class IgnoreRules:
    """``.gitignore`` semantics (nested files, negation, ``.git/info/exclude``) via ``pathspec``.

    Without ``pathspec`` installed nothing is ignored (a warning says so once).
    """

    def __init__(self, roots: Sequence[Path], enabled: bool = True) -> None:
        self.enabled = enabled
        self.available = True
        try:
            import pathspec  # noqa: F401
        except ImportError:
            self.available = False
        self.roots = list(roots)
        self._tops = {root: self._git_top(root) for root in self.roots}
        self._specs: dict[Path, Any] = {}
        self._dir_cache: dict[Path, bool] = {}

    @property
    def active(self) -> bool:
        return self.enabled and self.available

    @staticmethod
    def _git_top(root: Path) -> Path:
        for folder in (root, *root.parents):
            if (folder / ".git").exists():
                return folder
        return root

    def reload(self) -> None:
        self._specs.clear()
        self._dir_cache.clear()

    def _spec(self, folder: Path, top: Path) -> Any:
        if folder in self._specs:
            return self._specs[folder]
        import pathspec

        lines: list[str] = []
        sources = [folder / ".gitignore"]
        if folder == top:
            sources.insert(0, folder / ".git" / "info" / "exclude")
        for src in sources:
            try:
                if non_regular_kind(src) is None:  # a FIFO named .gitignore must not block the watcher
                    lines += src.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                pass
        spec = pathspec.GitIgnoreSpec.from_lines(lines) if any(x.strip() for x in lines) else None
        self._specs[folder] = spec
        return spec

    def _top_for(self, path: Path) -> Path | None:
        for root in self.roots:
            if _under(path, root):
                return self._tops[root]
        return None

    def _decide(self, path: Path, top: Path, is_dir: bool) -> bool:
        verdict: bool | None = None
        folder = top
        chain = [top, *[p for p in reversed(path.parents) if top in p.parents]]
        for folder in chain:
            spec = self._spec(folder, top)
            if spec is None:
                continue
            rel = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            if hasattr(spec, "check_file"):  # pathspec >= 0.12: knows which pattern decided, negations included
                res = spec.check_file(rel)
                if res.include is not None:
                    verdict = res.include
            elif spec.match_file(rel):
                verdict = True
        return bool(verdict)

    def ignored(self, path: Path, is_dir: bool = False) -> bool:
        if not self.active:
            return False
        if path.name == ".git" or ".git" in path.parts:
            return True
        top = self._top_for(path)
        if top is None or path == top:
            return False
        for parent in reversed(path.parents):  # an ignored folder's contents cannot be re-included
            if parent == top or top not in parent.parents:
                continue
            hit = self._dir_cache.get(parent)
            if hit is None:
                hit = self._decide(parent, top, True)
                self._dir_cache[parent] = hit
            if hit:
                return True
        return self._decide(path, top, is_dir)


# --------------------------------------------------------------------------------------------- state


@dataclass
class WatchOptions:
    dirs: list[Path] = field(default_factory=lambda: [Path(".")])
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    report_dir: Path | None = None
    sarif: bool = False
    html: bool = False
    config: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)  # model / select / ignore / fail_on
    context: list[Path] = field(default_factory=list)
    query: str | None = None
    allow_no_context: bool = False
    gitignore: bool = True
    debounce: float = 0.3
    max_delay: float = 5.0  # a file written to continuously is still checked this often
    once: bool = False
    live: bool | None = None  # None: a rich live table when stdout is a terminal


@dataclass
class DraftState:
    path: Path
    root: Path
    display: str
    signature: str | None = None
    deps: set[Path] = field(default_factory=set)
    how: str = ""
    result: DraftResult | None = None
    error: str | None = None
    checks: int = 0
    checked_at: float = 0.0
    contexts: dict[str, str] = field(default_factory=dict)  # source -> text, for SARIF evidence regions


class Display:
    """Live rich table on a terminal, one plain line per event otherwise (logs, CI, tests)."""

    def __init__(self, console: Any = None, live: bool | None = None) -> None:
        from rich.console import Console

        if console is None:
            console = Console(highlight=False, soft_wrap=True)
            if not console.is_terminal and "COLUMNS" not in os.environ:
                console.width = 160  # logs and pipes: don't fold paths at 80 columns
        self.console = console
        self.live_enabled = self.console.is_terminal if live is None else live
        self._live: Any = None
        self._table_source: Callable[[], Any] | None = None

    def start(self, table: Callable[[], Any]) -> None:
        self._table_source = table
        if self.live_enabled:
            from rich.live import Live

            self._live = Live(table(), console=self.console, refresh_per_second=4, transient=False,
                              redirect_stdout=False, redirect_stderr=False)
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            try:
                if self._table_source:
                    self._live.update(self._table_source(), refresh=True)
            finally:
                self._live.stop()
                self._live = None

    def refresh(self) -> None:
        if self._live is not None and self._table_source:
            self._live.update(self._table_source(), refresh=True)

    def log(self, message: str, style: str = "") -> None:
        from rich.text import Text

        line = Text(time.strftime("%H:%M:%S "), style="dim") + Text(message, style=style)
        (self._live.console if self._live is not None else self.console).print(line)

    def print(self, renderable: Any) -> None:
        self.console.print(renderable)


class Watcher:
    """Watches draft folders and keeps their checks (and reports) current. See the module docstring."""

    def __init__(self, options: WatchOptions, *, linter_factory: Callable[[Config], Any] | None = None,
                 console: Any = None) -> None:
        self.opts = options
        self.roots: list[Path] = []
        for d in options.dirs:
            p = _norm(d)
            if not p.exists():
                raise InputError(f"{d}: no such file or directory")
            if not p.is_dir():
                raise InputError(f"{d}: not a folder (faithlint watch takes folders; use faithlint check for files)")
            if not any(_under(p, r) for r in self.roots):
                self.roots = [r for r in self.roots if not _under(r, p)] + [p]
        self.report_dir = _norm(options.report_dir) if options.report_dir else None
        if (options.sarif or options.html) and self.report_dir is None:
            raise FaithlintError("--sarif and --html need --report-dir DIR")
        self._factory = linter_factory or _default_factory
        self.display = Display(console, options.live)
        self.ignore = IgnoreRules(self.roots, options.gitignore)
        self.drafts: dict[Path, DraftState] = {}
        self.config, self.config_path = self._load_config()
        self.linter = self._factory(self.config)
        self._config_error: str | None = None
        self._events: queue.Queue[tuple[list[str], bool]] = queue.Queue()
        self._stop = threading.Event()
        self._observer: Any = None
        self._root_watches: list[Any] = []
        self._extra_watches: dict[tuple[Path, bool], Any] = {}
        self._reported: set[str] = set()  # one-time messages (unreadable folders, watch failures)
        self.batches = 0
        self.checks = 0
        self.ready = threading.Event()  # set once the first full check is done and the observer runs
        self.started = time.time()

    # -- config -----------------------------------------------------------------------------------------

    def _load_config(self) -> tuple[Config, Path | None]:
        from faithlint.config import load_config, merge_overrides
        from faithlint.files import require_regular

        if self.opts.config is not None:
            require_regular(self.opts.config, "config file")
        config, path = load_config(self.opts.config, start=self.roots[0] if self.roots else Path.cwd())
        if self.opts.overrides:
            config = merge_overrides(config, self.opts.overrides, "command line")
        return config, (_norm(path) if path else None)

    def _config_touched(self, paths: Iterable[Path]) -> bool:
        for p in paths:
            if p.name not in CONFIG_NAMES:
                continue
            if self.config_path is not None and p == self.config_path:
                return True
            if self.opts.config is None and any(_under(r, p.parent) for r in self.roots):
                return True  # a nearer config appeared (or the discovered one went away)
        return False

    def _reload_config(self) -> bool:
        try:
            config, path = self._load_config()
        except FaithlintError as exc:
            msg = str(exc)
            if msg != self._config_error:
                self.display.log(f"config error (keeping the previous settings): {msg}", "bold red")
            self._config_error = msg
            return False
        self._config_error = None
        if path == self.config_path and config == self.config:
            return False
        self.config, self.config_path = config, path
        self.linter = self._factory(config)
        self.display.log(f"settings reloaded from {display_path(path) if path else 'defaults'}", "cyan")
        return True

    # -- discovery --------------------------------------------------------------------------------------

    def _root_of(self, path: Path) -> Path | None:
        for r in self.roots:
            if _under(path, r):
                return r
        return None

    def _in_report_dir(self, path: Path) -> bool:
        return self.report_dir is not None and _under(path, self.report_dir)

    def _skip_dir(self, folder: Path, root: Path) -> bool:
        if folder == root:
            return False
        name = folder.name
        return (name.startswith(".") or name.endswith((".context", ".sources")) or self._in_report_dir(folder)
                or self.ignore.ignored(folder, is_dir=True))

    def is_draft(self, path: Path) -> bool:
        """Would ``path`` (existing or not) be watched as a draft? A path test (plus cached .gitignore reads)."""
        from faithlint.pairing import is_context_file, match_glob

        root = self._root_of(path)
        if root is None or path == root or self._in_report_dir(path):
            return False
        if path.suffix.lower() not in DRAFT_SUFFIXES or _is_temp_name(path.name):
            return False
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or is_context_file(rel):
            return False
        if any(part.endswith((".context", ".sources")) for part in rel.parts[:-1]):
            return False
        posix = rel.as_posix()

        def matches(glob: str) -> bool:  # like .gitignore: a glob without "/" matches the name at any depth
            return match_glob(posix, glob) if "/" in glob.rstrip("/") else match_glob(rel.name, glob)

        if self.opts.include and not any(matches(g) for g in self.opts.include):
            return False
        if any(matches(g) for g in self.opts.exclude):
            return False
        return not self.ignore.ignored(path)

    def _once(self, key: str, message: str, style: str = "yellow") -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.display.log(message, style)

    def scan(self) -> set[Path]:
        """Every draft below the roots now (symlinked folders are not followed: no loops)."""
        found: set[Path] = set()
        def onerror(exc: OSError) -> None:
            where = exc.filename or "?"
            why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
            self._once(f"walk:{where}", f"cannot read folder {display_path(Path(where))}: {why} (skipped)")

        for root in self.roots:
            for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
                folder = Path(dirpath)
                dirnames[:] = sorted(d for d in dirnames if not self._skip_dir(folder / d, root))
                for name in filenames:
                    p = folder / name
                    if self.is_draft(p) and os.path.isfile(p):
                        found.add(p)
        return found

    # -- reports ----------------------------------------------------------------------------------------

    def report_paths(self, draft: Path) -> dict[str, Path]:
        """Where ``draft``'s reports live: the draft's path below its root, plus ``.json``/``.sarif``/``.html``."""
        assert self.report_dir is not None
        root = self._root_of(draft) or draft.parent
        rel = draft.relative_to(root)
        if len(self.roots) > 1:
            rel = Path(self._root_label(root)) / rel
        base = self.report_dir / rel
        return {ext: base.with_name(base.name + "." + ext) for ext in ("json", "sarif", "html")}

    def _root_label(self, root: Path) -> str:
        names = [r.name or "root" for r in self.roots]
        i = self.roots.index(root)
        return names[i] if names.count(names[i]) == 1 else f"{names[i]}-{i + 1}"

    def _protected(self, target: Path) -> bool:
        """Never overwrite a draft or something a draft reads, whatever --report-dir says."""
        if target in self.drafts:
            return True
        return any(target == dep or _under(target, dep) and dep.is_dir() for st in self.drafts.values()
                   for dep in st.deps)

    def _write_reports(self, st: DraftState) -> None:
        if self.report_dir is None:
            return
        from faithlint.formats import render

        paths = self.report_paths(st.path)
        wanted: dict[str, str | None] = {}
        if st.result is not None:
            wanted["json"] = render([st.result], "json")
            wanted["sarif"] = render([st.result], "sarif", contexts=st.contexts) if self.opts.sarif else None
            wanted["html"] = (render([st.result], "html", contexts=st.contexts) if self.opts.html else None)
        else:
            import json

            wanted["json"] = json.dumps({"version": 1, "tool": "faithlint", "path": st.display, "error": st.error,
                                         "results": []}, indent=2, ensure_ascii=False) + "\n"
            wanted["sarif"] = wanted["html"] = None  # a stale report would claim results we no longer have
        for kind, text in wanted.items():
            target = paths[kind]
            try:
                if text is None:
                    target.unlink(missing_ok=True)
                elif self._protected(target):
                    self._once(f"protect:{target}", f"not writing {display_path(target)}: it is a draft or context "
                               "file (choose another --report-dir)", "bold red")
                else:
                    atomic_write(target, text)
            except OSError as exc:
                self._once(f"report:{target}:{exc.strerror}",
                           f"cannot write report {display_path(target)}: {exc.strerror or exc}", "bold red")

    def _remove_reports(self, draft: Path) -> None:
        if self.report_dir is None:
            return
        paths = self.report_paths(draft)
        for target in paths.values():
            try:
                target.unlink(missing_ok=True)
            except OSError:
                pass
        folder = paths["json"].parent
        while folder != self.report_dir and _under(folder, self.report_dir):  # prune empty report folders
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent

    # -- checking ---------------------------------------------------------------------------------------

    def _display_name(self, path: Path) -> str:
        try:
            return path.relative_to(Path.cwd().resolve()).as_posix()
        except ValueError:
            try:
                return path.relative_to(_norm(Path.cwd())).as_posix()
            except ValueError:
                return str(path)

    def _signature(self, prep: PreparedDraft) -> str:
        h = hashlib.sha256()
        for part in (prep.text, prep.pairing.query or "", self.config.model_dump_json(),
                     str(self.opts.allow_no_context)):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        for doc in prep.context:
            h.update(doc.source.encode("utf-8", "surrogatepass") + b"\x01" + doc.text.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        return h.hexdigest()

    def _deps(self, draft: Path, pairing: Pairing | None) -> set[Path]:
        from faithlint.pairing import context_candidates

        deps = {draft, *(_norm(c) for c in context_candidates(draft))}
        real = Path(os.path.realpath(draft))
        if real != draft:  # a symlinked draft: its target's folder must be watched too
            deps.add(real)
        if self.config_path is not None:
            deps.add(self.config_path)
        if pairing is not None:
            for c in pairing.context:
                p = _norm(c)
                deps.add(p)
                deps.add(Path(os.path.realpath(p)))
        return deps

    def check_draft(self, path: Path, *, force: bool = False) -> bool:
        """(Re-)check one draft if anything it depends on changed; returns True when a check ran."""
        st = self.drafts.get(path)
        if st is None:
            root = self._root_of(path) or path.parent
            st = self.drafts[path] = DraftState(path, root, self._display_name(path))
        # read through the display path when it is relative, so messages and sources read like `check`'s
        read_as = Path(st.display) if not Path(st.display).is_absolute() else path
        try:
            prep = prepare_draft(read_as, self.config, self.config_path, cli_context=self.opts.context,
                                 cli_query=self.opts.query, allow_no_context=self.opts.allow_no_context,
                                 display=st.display)
        except FaithlintError as exc:
            self._fail(st, str(exc))
            return False
        except OSError as exc:  # races with the file system the core did not anticipate
            self._fail(st, f"{st.display}: {exc.strerror or exc}")
            return False
        st.deps = self._deps(path, prep.pairing)
        st.how = prep.pairing.how
        sig = self._signature(prep)
        if not force and sig == st.signature and st.error is None:
            return False
        try:
            result = self.linter.check(prep.text, prep.context, path=st.display, query=prep.pairing.query,
                                       markdown=prep.markdown)
        except ModelError:
            raise  # the model cannot load: nothing else will work either
        except FaithlintError as exc:
            self._fail(st, str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - a bug on one draft must not stop the watcher
            self._fail(st, f"{st.display}: internal error while checking: {type(exc).__name__}: {exc}")
            return False
        from faithlint.context import evidence_in_source, source_texts

        st.result, st.signature, st.error = evidence_in_source(result, prep.context), sig, None
        st.contexts = source_texts(prep.context)  # evidence ranges index the context files (JSON/YAML/CSV too)
        st.checks += 1
        st.checked_at = time.time()
        self.checks += 1
        self._write_reports(st)
        self.display.log(self._check_line(st), self._style(st))
        return True

    def _fail(self, st: DraftState, message: str) -> None:
        if not st.deps:
            st.deps = self._deps(st.path, None)
        if message == st.error:
            return  # reported once; retried when something it depends on changes
        st.error, st.result, st.signature = message, None, None
        st.checked_at = time.time()
        self._write_reports(st)
        self.display.log(message, "bold red")

    def forget(self, path: Path) -> None:
        st = self.drafts.pop(path, None)
        self._remove_reports(path)
        if st is not None:
            self.display.log(f"{st.display}: removed (reports deleted)" if self.report_dir
                             else f"{st.display}: removed", "dim")

    @staticmethod
    def _style(st: DraftState) -> str:
        if st.error:
            return "bold red"
        worst = max((SEVERITY_RANK.get(f.severity, 0) for f in st.result.findings), default=-1) if st.result else -1
        return {2: "red", 1: "yellow", 0: "cyan"}.get(worst, "green")

    @staticmethod
    def _check_line(st: DraftState) -> str:
        r = st.result
        assert r is not None
        codes = Counter(f.code for f in r.findings)
        mean = r.score.get("mean") if r.score else None
        score = f", mean score {mean:.2f}" if isinstance(mean, float) and mean == mean else ""
        if not r.findings:
            return f"{st.display}: ok ({len(r.sentences)} sentences{score})"
        detail = ", ".join(f"{c} \u00d7{n}" for c, n in sorted(codes.items()))
        n = len(r.findings)
        return f"{st.display}: {n} finding{'s' if n != 1 else ''} ({detail}){score}"

    # -- events -----------------------------------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return  # our own reads; reacting to them would loop
        if event.is_directory and kind == "modified":
            return  # the child events say what changed
        paths = [os.fsdecode(event.src_path)]
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(os.fsdecode(dest))
        paths = [p for p in paths if not self._in_report_dir(_norm(p)) and not _git_internal(p)]
        if paths:
            self._events.put((paths, kind in ("created", "deleted", "moved") or bool(event.is_directory)))

    def _collect(self, wait: float = 0.2) -> tuple[set[Path], bool] | None:
        try:
            paths, structural = self._events.get(timeout=wait)
        except queue.Empty:
            return None
        touched = {_norm(p) for p in paths}
        deadline = time.monotonic() + self.opts.max_delay
        while not self._stop.is_set():
            remaining = min(self.opts.debounce, deadline - time.monotonic())
            if remaining <= 0:
                break
            try:
                paths, more = self._events.get(timeout=remaining)
            except queue.Empty:
                break
            touched.update(_norm(p) for p in paths)
            structural = structural or more
        return touched, structural

    def _affected(self, touched: set[Path], structural: bool) -> set[Path]:
        index: dict[Path, set[Path]] = {}  # dep -> drafts reading it
        below: dict[Path, set[Path]] = {}  # folder -> drafts reading something inside it
        for d, st in self.drafts.items():
            for dep in st.deps or self._deps(d, None):
                index.setdefault(dep, set()).add(d)
                if structural:
                    for folder in dep.parents[:-1]:
                        below.setdefault(folder, set()).add(d)
        out: set[Path] = set()
        for p in touched:
            for candidate in (p, *p.parents):  # the path itself or a folder a draft reads
                hit = index.get(candidate)
                if hit:
                    out |= hit
            if structural:  # a folder moved or deleted: drafts reading anything below it
                out |= below.get(p, set())
        return out

    def process(self, touched: set[Path], structural: bool) -> int:
        """Handle one coalesced batch of touched paths; returns the number of checks run."""
        self.batches += 1
        if any(p.name == ".gitignore" or p.parts[-3:] == (".git", "info", "exclude") for p in touched):
            self.ignore.reload()
            structural = True
        forced = self._reload_config() if self._config_touched(touched) else False
        dirty: set[Path] = set(self.drafts) if forced else set()
        if structural:
            current = self.scan()
            for gone in sorted(set(self.drafts) - current):
                self.forget(gone)
            dirty |= current - set(self.drafts)
            # globs in front matter or [[pair]] rules may match new files; missing context may have appeared
            dirty |= {d for d, st in self.drafts.items() if st.error or st.how in ("front-matter", "config", "none")}
        else:
            for p in touched:
                if p not in self.drafts and self.is_draft(p) and os.path.isfile(p):
                    dirty.add(p)
        dirty |= self._affected(touched, structural)
        ran = 0
        for d in sorted(dirty):
            if self._stop.is_set():
                break
            if not os.path.lexists(d) or (d in self.drafts and not os.path.isfile(d) and not self._broken(d)):
                if d in self.drafts:
                    self.forget(d)
                continue
            if d not in self.drafts and not self.is_draft(d):
                continue
            ran += self.check_draft(d)
        self._sync_watches()
        self.display.refresh()
        return ran

    @staticmethod
    def _broken(path: Path) -> bool:
        """A symlink that exists but cannot be followed (dangling, loop): keep it and report it."""
        return os.path.islink(path)

    # -- observer ---------------------------------------------------------------------------------------

    def _start_observer(self) -> None:
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            raise FaithlintError("faithlint watch needs watchdog: pip install 'faithlint[watch]'") from None

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                try:
                    watcher._on_event(event)
                except Exception:  # noqa: BLE001 - never kill the observer thread
                    pass

        self._handler = Handler()
        self._observer = Observer()
        for root in self.roots:
            try:
                self._root_watches.append(self._observer.schedule(self._handler, str(root), recursive=True))
            except OSError as exc:
                raise FaithlintError(f"{display_path(root)}: cannot watch ({exc.strerror or exc})") from None
        self._observer.daemon = True
        self._observer.start()
        self._sync_watches()

    def _watch_target(self, dep: Path) -> tuple[Path, bool] | None:
        if self._root_of(dep) is not None:
            return None  # the recursive root watch sees it
        try:
            if dep.is_dir():
                return dep, True
            if dep.exists() or dep.parent.is_dir():
                return dep.parent, False
        except OSError:
            pass
        for folder in dep.parents:  # gone: watch the nearest folder that exists, to see it come back
            try:
                if folder.is_dir():
                    return (folder, False) if self._root_of(folder) is None else None
            except OSError:
                continue
        return None

    def _sync_watches(self) -> None:
        """Watch context files, folders and the config file that live outside the watched folders."""
        if self._observer is None:
            return
        deps: set[Path] = set()
        for st in self.drafts.values():
            deps |= {d for d in st.deps if d != st.path}
        if self.config_path is not None:
            deps.add(self.config_path)
        needed = {t for t in (self._watch_target(d) for d in deps) if t is not None}
        for key in set(self._extra_watches) - needed:
            try:
                self._observer.unschedule(self._extra_watches.pop(key))
            except Exception:  # noqa: BLE001 - already gone with its folder
                pass
        for key in sorted(needed - set(self._extra_watches)):
            folder, recursive = key
            try:
                self._extra_watches[key] = self._observer.schedule(self._handler, str(folder), recursive=recursive)
            except OSError as exc:
                self._once(f"watch:{folder}", f"cannot watch {display_path(folder)}: {exc.strerror or exc}")

    # -- summary ----------------------------------------------------------------------------------------

    def table(self) -> Any:
        from rich.table import Table
        from rich.text import Text

        states = sorted(self.drafts.values(), key=lambda s: (s.error is None, -self._worst(s), s.display))
        findings = [f for s in states if s.result for f in s.result.findings]
        sev = Counter(f.severity for f in findings)
        errors = sum(1 for s in states if s.error)
        title = (f"faithlint watch \u00b7 {len(states)} draft{'s' if len(states) != 1 else ''} \u00b7 "
                 f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({sev.get('error', 0)} errors, "
                 f"{sev.get('warning', 0)} warnings, {sev.get('info', 0)} infos)"
                 + (f" \u00b7 {errors} unreadable" if errors else ""))
        t = Table(title=title, title_justify="left", expand=False)
        longest = max((len(s.display) for s in states), default=5)
        t.add_column("draft", overflow="fold", min_width=min(longest, 60))
        t.add_column("status")
        t.add_column("mean", justify="right")
        t.add_column("min", justify="right")
        for code in ("FL100", "FL200", "FL300", "FL400"):
            t.add_column(code, justify="right")
        t.add_column("checked", justify="right")
        limit = max(5, (self.display.console.height or 30) - 10) if self.display.live_enabled else len(states)
        for s in states[:limit]:
            when = time.strftime("%H:%M:%S", time.localtime(s.checked_at)) if s.checked_at else ""
            if s.error or s.result is None:
                name = Text(s.display)
                if s.error:
                    name.append("\n" + s.error.removeprefix(s.display + ": ")[:160], style="dim")
                t.add_row(name, "[bold red]error[/]", "", "", "", "", "", "", when)
                continue
            codes = Counter(f.code for f in s.result.findings)
            sc = s.result.score or {}
            mean, mn = sc.get("mean"), sc.get("min")
            status = "[green]ok[/]" if not s.result.findings else f"[{self._style(s)}]{len(s.result.findings)}[/]"
            t.add_row(Text(s.display), status, _f(mean), _f(mn), *(str(codes.get(c, "")) for c in
                                                               ("FL100", "FL200", "FL300", "FL400")), when)
        if len(states) > limit:
            t.caption = f"\u2026 and {len(states) - limit} more"
        elif not self.opts.once:
            t.caption = "watching " + ", ".join(display_path(r) for r in self.roots) + " \u00b7 Ctrl-C to stop"
        return t

    @staticmethod
    def _worst(st: DraftState) -> int:
        if not st.result:
            return 3
        return max((SEVERITY_RANK.get(f.severity, 0) for f in st.result.findings), default=-1)

    def exit_code(self) -> int:
        if any(s.error for s in self.drafts.values()):
            return 2
        return 1 if fails((f for s in self.drafts.values() if s.result for f in s.result.findings),
                          self.config.fail_on) else 0

    # -- main loop --------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask :meth:`run` to return (thread-safe)."""
        self._stop.set()

    def close(self) -> None:
        self._stop.set()
        if self._observer is not None:
            try:
                self._observer.stop()
                self._observer.join(timeout=5)
            except Exception:  # noqa: BLE001
                pass
            self._observer = None
        self.display.stop()

    def run(self) -> int:
        """Check everything, then (unless ``once``) watch until :meth:`stop` or Ctrl-C. Returns an exit code."""
        try:
            if not self.opts.once:
                self._start_observer()  # before the first scan, so nothing edited meanwhile is missed
            self.display.start(self.table)
            for d in sorted(self.scan()):
                if self._stop.is_set():
                    break
                self.check_draft(d)
            self._sync_watches()
            if not self.drafts:
                self.display.log("no drafts found yet in " + ", ".join(display_path(r) for r in self.roots), "dim")
            if self.opts.once:
                was_live = self.display.live_enabled
                self.display.stop()  # a live table stays on screen with its final state
                if not was_live:
                    self.display.print(self.table())
                return self.exit_code()
            self.display.refresh()
            self.display.log("watching " + ", ".join(display_path(r) for r in self.roots) + " (Ctrl-C to stop)",
                             "dim")
            self.ready.set()
            while not self._stop.is_set():
                batch = self._collect()
                if batch is not None:
                    self.process(*batch)
            return 0
        finally:
            self.ready.set()
            self.close()


def _f(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) and value == value else ""


def _default_factory(config: Config) -> Any:
    from faithlint.linter import Linter

    return Linter(config)


# --------------------------------------------------------------------------------------------- CLI


def add_arguments(w: Any) -> None:
    """The ``faithlint watch`` options of its own (the shared ones: :func:`faithlint.options.shared_options`)."""
    w.add_argument("dirs", nargs="*", type=Path, default=[Path(".")], metavar="DIR",
                   help="draft folders to watch (default: the current folder)")
    w.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="only drafts matching this glob (repeatable); with a '/' it matches the path below the "
                        "folder (** spans folders), without one the file name")
    w.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip drafts matching (repeatable)")
    w.add_argument("--no-gitignore", action="store_true", help="also watch drafts that .gitignore ignores")
    w.add_argument("--report-dir", type=Path, metavar="DIR",
                   help="keep one JSON report per draft here (DIR/<draft path>.json), updated atomically")
    w.add_argument("--sarif", action="store_true", help="with --report-dir: also keep a SARIF report per draft")
    w.add_argument("--html", action="store_true", help="with --report-dir: also keep an HTML report per draft")
    w.add_argument("--debounce", type=float, default=0.3, metavar="SECONDS",
                   help="wait until files were quiet this long before checking (default 0.3)")
    w.add_argument("--once", action="store_true", help="check everything once, print the summary and exit")
    w.add_argument("--no-live", action="store_true", help="print one line per check instead of a live table")


def run_from_args(args: Any) -> int:
    """``faithlint watch``: exit 0 on Ctrl-C/SIGTERM; with ``--once`` 0/1 like ``check`` (2 if a draft failed)."""
    overrides = cli_overrides(args)
    if args.debounce < 0:
        raise FaithlintError("--debounce must not be negative")
    opts = WatchOptions(dirs=list(args.dirs) or [Path(".")], include=args.include, exclude=args.exclude,
                        report_dir=args.report_dir, sarif=args.sarif, html=args.html, config=args.config,
                        overrides=overrides, context=list(args.context), query=args.query,
                        allow_no_context=args.allow_no_context, gitignore=not args.no_gitignore,
                        debounce=args.debounce, max_delay=max(5.0, args.debounce * 10), once=args.once,
                        live=False if args.no_live else None)
    watcher = Watcher(opts)
    if watcher.ignore.enabled and not watcher.ignore.available:
        watcher.display.log("pathspec is not installed: .gitignore files are not honoured "
                            "(pip install 'faithlint[watch]')", "yellow")
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, lambda *_: watcher.stop())
    try:
        code = watcher.run()
    except KeyboardInterrupt:
        code = 0
    finally:
        watcher.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if not opts.once:
        print("faithlint watch: stopped", file=sys.stderr)
    return code
