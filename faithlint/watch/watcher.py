"""The :class:`Watcher`: the main loop of ``faithlint watch``, tying discovery, checks, reports and the observer.

Problems with one file (unreadable, binary, missing context, a context folder that vanished) are shown once
per distinct message; the draft is retried when something it depends on changes again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faithlint.api import check_prepared
from faithlint.errors import FaithlintError, InputError, ModelError
from faithlint.inputs.configs import DraftConfigs
from faithlint.inputs.context import display_path, source_texts
from faithlint.inputs.discovery import IgnoreRules
from faithlint.inputs.drafts import prepare_draft
from faithlint.pipeline.registry import models_key
from faithlint.types import fails
from faithlint.watch.dependencies import affected, config_touched, dependencies, signature
from faithlint.watch.discovery import DraftFinder
from faithlint.watch.display import Display, check_line, severity_style, summary_table
from faithlint.watch.observer import EventSource
from faithlint.watch.paths import draft_display, norm, root_of, under
from faithlint.watch.reports import ReportWriter
from faithlint.watch.state import DraftState, WatchOptions

if TYPE_CHECKING:  # annotations only
    from faithlint.config import Config


class Watcher:
    """Watches draft folders and keeps their checks (and reports) current. See :mod:`faithlint.watch`."""

    def __init__(self, options: WatchOptions, *, linter_factory: Callable[[Config], Any] | None = None,
                 console: Any = None) -> None:
        self.opts = options
        self.roots: list[Path] = []
        for d in options.dirs:
            p = norm(d)
            if not p.exists():
                raise InputError(f"{d}: no such file or directory")
            if not p.is_dir():
                raise InputError(f"{d}: not a folder (faithlint watch takes folders; use faithlint check for files)")
            if not any(under(p, r) for r in self.roots):
                self.roots = [r for r in self.roots if not under(r, p)] + [p]
        self.report_dir = norm(options.report_dir) if options.report_dir else None
        if (options.sarif or options.html) and self.report_dir is None:
            raise FaithlintError("--sarif and --html need --report-dir DIR")
        self._factory = linter_factory or _default_factory
        self.display = Display(console, options.live)
        self.ignore = IgnoreRules(self.roots, options.gitignore)
        self.drafts: dict[Path, DraftState] = {}
        self.configs = DraftConfigs(options.config, options.overrides)
        # the watched folder's settings: a broken config stops the start; each draft reads its own (_settings)
        self.config, self.config_path = self._load_config()
        self._linters: dict[tuple[Any, ...], Any] = {}  # one per model setting, shared by drafts' configs
        self._config_errors: set[str] = set()
        self._stop = threading.Event()
        self._reported: set[str] = set()  # one-time messages (unreadable folders, watch failures)
        self.finder = DraftFinder(self.roots, self.report_dir, self.ignore, include=options.include,
                                  exclude=options.exclude, once=self._once)
        self.reports = (ReportWriter(self.report_dir, self.roots, sarif=options.sarif, html=options.html,
                                     once=self._once) if self.report_dir is not None else None)
        self.events = EventSource(self.roots, self.report_dir, debounce=options.debounce,
                                  max_delay=options.max_delay, stop=self._stop, once=self._once)
        self.batches = 0
        self.checks = 0
        self.ready = threading.Event()  # set once the first full check is done and the observer runs
        self.started = time.time()

    # -- config -----------------------------------------------------------------------------------------

    def _load_config(self) -> tuple[Config, Path | None]:
        config, path = self.configs.of_folder(self.roots[0] if self.roots else Path.cwd())
        return config, (norm(path) if path else None)

    def _settings(self, path: Path) -> tuple[Config, Path | None]:
        """``path``'s config, as ``check`` finds it (the nearest file, or ``--config``; flags on top). A config that
        does not load is logged once, and the draft keeps the settings it had (a new draft cannot be checked)."""
        try:
            config, found = self.configs.of(path)
        except FaithlintError as exc:
            msg = str(exc)
            if msg not in self._config_errors:
                self._config_errors.add(msg)
                self.display.log(f"config error (keeping the previous settings): {msg}", "bold red")
            st = self.drafts.get(path)
            if st is not None and st.config is not None:
                return st.config, st.config_path
            raise
        return config, (norm(found) if found else None)

    def _reload_configs(self) -> set[Path]:
        """Read the config files again; the drafts whose settings changed (each changed file logged once)."""
        self.configs.clear()
        self._config_errors.clear()
        changed: set[Path] = set()
        reloaded: set[str] = set()
        for d, st in self.drafts.items():
            try:
                config, path = self._settings(d)
            except FaithlintError:
                continue
            if (config, path) != (st.config, st.config_path):
                changed.add(d)
                reloaded.add(display_path(path) if path else "defaults")
        try:
            self.config, self.config_path = self._load_config()
        except FaithlintError:
            pass  # logged by the drafts under it; the folder keeps its settings
        for where in sorted(reloaded):
            self.display.log(f"settings reloaded from {where}", "cyan")
        return changed

    def _linter(self, config: Config) -> Any:
        """The linter for ``config``'s models (:func:`faithlint.pipeline.registry.models_key`); each check passes
        its draft's own settings."""
        key = models_key(config)
        if key not in self._linters:
            self._linters[key] = self._factory(config)
        return self._linters[key]

    # -- discovery and reports --------------------------------------------------------------------------

    def is_draft(self, path: Path) -> bool:
        """Would ``path`` (existing or not) be watched as a draft? A path test (plus cached .gitignore reads)."""
        return self.finder.is_draft(path)

    def scan(self) -> set[Path]:
        """Every draft below the roots now (symlinked folders are not followed: no loops)."""
        return self.finder.scan()

    def _once(self, key: str, message: str, style: str = "yellow") -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.display.log(message, style)

    def report_paths(self, draft: Path) -> dict[str, Path]:
        """Where ``draft``'s reports live: the draft's path below its root, plus ``.json``/``.sarif``/``.html``."""
        assert self.reports is not None
        return self.reports.paths(draft)

    def _write_reports(self, st: DraftState) -> None:
        if self.reports is not None:
            self.reports.write(st, self.drafts)

    # -- checking ---------------------------------------------------------------------------------------

    def check_draft(self, path: Path, *, force: bool = False) -> bool:
        """(Re-)check one draft if anything it depends on changed; returns True when a check ran."""
        st = self.drafts.get(path)
        if st is None:
            root = root_of(path, self.roots) or path.parent
            st = self.drafts[path] = DraftState(path, root, draft_display(path))
        # read through the display path when it is relative, so messages and sources read like `check`'s
        read_as = Path(st.display) if not Path(st.display).is_absolute() else path
        try:
            config, config_path = self._settings(path)
            prep = prepare_draft(read_as, config, config_path, cli_context=self.opts.context,
                                 cli_query=self.opts.query, allow_no_context=self.opts.allow_no_context,
                                 display=st.display)
        except FaithlintError as exc:
            self._fail(st, str(exc))
            return False
        except OSError as exc:  # races with the file system the core did not anticipate
            self._fail(st, f"{st.display}: {exc.strerror or exc}")
            return False
        st.config, st.config_path = config, config_path
        st.deps = dependencies(path, prep.pairing, config_path)
        st.how = prep.pairing.how
        sig = signature(prep, config, self.opts.allow_no_context)
        if not force and sig == st.signature and st.error is None:
            return False
        try:
            result = check_prepared(prep, linter=self._linter(config), path=st.display, config=config)
        except ModelError:
            raise  # the model cannot load: nothing else will work either
        except FaithlintError as exc:
            self._fail(st, str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - a bug on one draft must not stop the watcher
            self._fail(st, f"{st.display}: internal error while checking: {type(exc).__name__}: {exc}")
            return False
        st.result, st.signature, st.error = result, sig, None
        st.contexts = source_texts(prep.context)  # evidence ranges index the context files (JSON/YAML/CSV too)
        st.checks += 1
        st.checked_at = time.time()
        self.checks += 1
        self._write_reports(st)
        self.display.log(check_line(st), severity_style(st))
        return True

    def _fail(self, st: DraftState, message: str) -> None:
        if not st.deps:
            st.deps = dependencies(st.path, None, st.config_path or self.config_path)
        if message == st.error:
            return  # reported once; retried when something it depends on changes
        st.error, st.result, st.signature = message, None, None
        st.checked_at = time.time()
        self._write_reports(st)
        self.display.log(message, "bold red")

    def forget(self, path: Path) -> None:
        st = self.drafts.pop(path, None)
        if self.reports is not None:
            self.reports.remove(path)
        if st is not None:
            self.display.log(f"{st.display}: removed (reports deleted)" if self.report_dir
                             else f"{st.display}: removed", "dim")

    # -- events -----------------------------------------------------------------------------------------

    def process(self, touched: set[Path], structural: bool) -> int:
        """Handle one coalesced batch of touched paths; returns the number of checks run."""
        self.batches += 1
        if any(p.name == ".gitignore" or p.parts[-3:] == (".git", "info", "exclude") for p in touched):
            self.ignore.reload()
            structural = True
        dirty: set[Path] = set()
        if config_touched(touched, self._config_paths(), self.opts.config is not None, self.roots):
            dirty |= self._reload_configs()
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
        dirty |= affected(self.drafts, touched, structural, self.config_path)
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

    def _sync_watches(self) -> None:
        """Watch context files, folders and the config file that live outside the watched folders."""
        if not self.events.running:
            return
        deps: set[Path] = set()
        for st in self.drafts.values():
            deps |= {d for d in st.deps if d != st.path}
        deps |= self._config_paths()
        self.events.sync(deps)

    def _config_paths(self) -> set[Path]:
        """The config files in use: the watched folder's and each draft's."""
        return {p for p in (self.config_path, *(st.config_path for st in self.drafts.values())) if p is not None}

    # -- summary ----------------------------------------------------------------------------------------

    def table(self) -> Any:
        return summary_table(self.drafts.values(), self.display, self.roots, self.opts.once)

    def exit_code(self) -> int:
        if any(s.error for s in self.drafts.values()):
            return 2
        return 1 if any(s.result and fails(s.result.findings, (s.config or self.config).fail_on)
                        for s in self.drafts.values()) else 0

    # -- main loop --------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask :meth:`run` to return (thread-safe)."""
        self._stop.set()

    def close(self) -> None:
        self._stop.set()
        self.events.close()
        self.display.stop()

    def run(self) -> int:
        """Check everything, then (unless ``once``) watch until :meth:`stop` or Ctrl-C. Returns an exit code."""
        try:
            if not self.opts.once:
                self.events.start()  # before the first scan, so nothing edited meanwhile is missed
                self._sync_watches()
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
                batch = self.events.collect()
                if batch is not None:
                    self.process(*batch)
            return 0
        finally:
            self.ready.set()
            self.close()


def _default_factory(config: Config) -> Any:
    from faithlint.pipeline.linter import Linter

    return Linter(config)
