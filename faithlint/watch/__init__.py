"""``faithlint watch``: keep checking draft folders while you (or an LLM pipeline) edit them.

How it works
------------
* Drafts are found like ``faithlint check FOLDER`` finds them (``.md``/``.markdown``/``.mdx``/``.txt``, not
  context files, not hidden, not inside ``*.context/`` or ``*.sources/``), narrowed by ``--include`` /
  ``--exclude`` globs (relative to the watched folder, ``**`` spans folders) and by ``.gitignore`` files.
* Each draft is paired with its context exactly as the CLI pairs it
  (:func:`faithlint.inputs.drafts.prepare_draft`, built on
  :func:`faithlint.inputs.pairing.resolve_pairing`), and the watcher remembers which files and folders that pairing
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

Modules
-------
``paths`` (path tests and names), ``discovery`` (which files are drafts: :mod:`faithlint.inputs.discovery`'s, narrowed),
``state`` (:class:`WatchOptions`, :class:`DraftState`), ``dependencies`` (what a check reads, which drafts a
change affects), ``reports`` (``--report-dir``), ``display`` (live table and log lines), ``observer``
(watchdog and debouncing), ``watcher`` (:class:`Watcher`, the main loop). The ``watch`` command's options and
entry point are in :mod:`faithlint.cli.watch`.
"""

from faithlint.inputs.context import display_path
from faithlint.inputs.discovery import IgnoreRules
from faithlint.watch.display import Display
from faithlint.watch.paths import CONFIG_NAMES, DRAFT_SUFFIXES
from faithlint.watch.reports import atomic_write
from faithlint.watch.state import DraftState, WatchOptions
from faithlint.watch.watcher import Watcher

__all__ = [
    "CONFIG_NAMES",
    "DRAFT_SUFFIXES",
    "Display",
    "DraftState",
    "IgnoreRules",
    "WatchOptions",
    "Watcher",
    "atomic_write",
    "display_path",
]
