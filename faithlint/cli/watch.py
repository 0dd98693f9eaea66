"""The ``faithlint watch`` command: its own options and the entry point the CLI calls."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Any

from faithlint.cli.options import cli_overrides
from faithlint.errors import FaithlintError
from faithlint.watch.state import WatchOptions
from faithlint.watch.watcher import Watcher


def add_arguments(w: Any) -> None:
    """The ``faithlint watch`` options of its own (the shared ones: :func:`faithlint.cli.options.shared_options`)."""
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
