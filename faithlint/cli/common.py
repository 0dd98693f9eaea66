"""What the command-line commands share: reading the config and the draft paths, the pairs file of ``--pairs``,
one-line errors naming the draft, output and exit codes.

Kept out of :mod:`faithlint.cli.app` so the commands that live in their own modules (:mod:`faithlint.cli.fix`) need
not import the CLI (which imports them).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from faithlint.cli.options import cli_overrides
from faithlint.errors import FaithlintError, InputError
from faithlint.inputs.configs import DraftConfigs
from faithlint.types import fails

__all__ = ["checked", "config_for", "draft_configs", "display_path", "draft_error", "draft_paths", "emit", "exit_code",
           "one_line", "read_pairs", "refuse_input_as_output"]


def one_line(exc: BaseException) -> str:
    """An unexpected exception as one short line: its type and message, whitespace collapsed."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def checked(checker: Any, where: str, *args: Any, method: str = "check", **kwargs: Any) -> Any:
    """``checker.check`` (the API or a linter) naming the draft when it fails unexpectedly (exit 2, one line,
    never a traceback)."""
    try:
        return getattr(checker, method)(*args, **kwargs)
    except (FaithlintError, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("FAITHLINT_DEBUG"):
            raise
        raise FaithlintError(f"{where}: checking failed: {one_line(exc)}") from exc


def config_for(args: argparse.Namespace, start: Path) -> Any:
    """(config, its file or None) for the folder ``start``: ``--config`` or the nearest file, flags on top."""
    return draft_configs(args).of_folder(start)


def draft_configs(args: argparse.Namespace) -> DraftConfigs:
    """Each draft's settings for this command line: ``--config`` or the nearest file, the flags on top."""
    return DraftConfigs(args.config, cli_overrides(args))


def draft_paths(paths: Sequence[Path], config: Any = None) -> list[Path]:
    """The drafts ``paths`` name (:func:`faithlint.inputs.discovery.find_drafts`: hidden names, context files and what
    ``.gitignore`` ignores skipped below each folder; files named are always checked)."""
    from faithlint.inputs.discovery import find_drafts

    return find_drafts(paths)


def draft_error(draft: Path, exc: BaseException) -> None:
    """The one line of a draft that could not be checked (the run goes on): ``faithlint: error: DRAFT: why``."""
    name = display_path(draft)
    message = str(exc) if isinstance(exc, FaithlintError) else one_line(exc)
    if not message.startswith((f"{name}: ", f"{draft}: ")):
        message = f"{name}: {message}"
    print(f"faithlint: error: {message}", file=sys.stderr)


def refuse_input_as_output(output: Path, inputs: Sequence[Path]) -> None:
    """``-o`` must never overwrite a draft or a context file (symlinks and hard links resolved)."""
    target = output.resolve()
    for given in inputs:
        files = [f for f in Path(given).rglob("*") if f.is_file()] if Path(given).is_dir() else [Path(given)]
        for f in files:
            same = f.resolve() == target
            if not same and output.exists():
                try:
                    same = os.path.samefile(f, output)
                except OSError:
                    same = False
            if same:
                raise InputError(f"{output}: the output file is an input ({f}); faithlint never "
                                 "overwrites a draft or its context: choose another -o path")


def display_path(path: Path) -> str:
    """``path`` as messages and reports name it: relative to the current folder when below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def emit(text: str, output: Path | None) -> None:
    """Write a report to ``-o FILE``, else to stdout ending in a newline."""
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")


def exit_code(results: Sequence[Any], fail_on: str) -> int:
    """1 when a finding is at or above ``fail_on``, else 0."""
    return 1 if fails((f for r in results for f in r.findings), fail_on) else 0


def read_pairs(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The items of a ``--pairs`` file, a context not required (``fix`` checks it per item)."""
    from faithlint.batch.engine import read_items

    return read_items(Path(path), max_bytes, allow_no_context=True)  # fix --pairs checks context itself
