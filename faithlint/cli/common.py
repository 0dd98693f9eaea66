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

__all__ = ["_checked", "_config", "_configs", "_display", "_draft_error", "_drafts", "_emit", "_exit_code",
           "_one_line", "_read_pairs", "_refuse_input_as_output"]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _checked(checker: Any, where: str, *args: Any, method: str = "check", **kwargs: Any) -> Any:
    """``checker.check`` (the API or a linter) naming the draft when it fails unexpectedly (exit 2, one line,
    never a traceback)."""
    try:
        return getattr(checker, method)(*args, **kwargs)
    except (FaithlintError, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("FAITHLINT_DEBUG"):
            raise
        raise FaithlintError(f"{where}: checking failed: {_one_line(exc)}") from exc


def _config(args: argparse.Namespace, start: Path) -> Any:
    """(config, its file or None) for the folder ``start``: ``--config`` or the nearest file, flags on top."""
    return _configs(args).of_folder(start)


def _configs(args: argparse.Namespace) -> DraftConfigs:
    """Each draft's settings for this command line: ``--config`` or the nearest file, the flags on top."""
    return DraftConfigs(args.config, cli_overrides(args))


def _drafts(paths: Sequence[Path], config: Any = None) -> list[Path]:
    """The drafts ``paths`` name (:func:`faithlint.inputs.discovery.find_drafts`: hidden names, context files and what
    ``.gitignore`` ignores skipped below each folder; files named are always checked)."""
    from faithlint.inputs.discovery import find_drafts

    return find_drafts(paths)


def _draft_error(draft: Path, exc: BaseException) -> None:
    """The one line of a draft that could not be checked (the run goes on): ``faithlint: error: DRAFT: why``."""
    name = _display(draft)
    message = str(exc) if isinstance(exc, FaithlintError) else _one_line(exc)
    if not message.startswith((f"{name}: ", f"{draft}: ")):
        message = f"{name}: {message}"
    print(f"faithlint: error: {message}", file=sys.stderr)


def _refuse_input_as_output(output: Path, inputs: Sequence[Path]) -> None:
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


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _emit(text: str, output: Path | None) -> None:
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")


def _exit_code(results: Sequence[Any], fail_on: str) -> int:
    return 1 if fails((f for r in results for f in r.findings), fail_on) else 0


def _read_pairs(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    from faithlint.batch.engine import read_items

    return read_items(Path(path), max_bytes, allow_no_context=True)  # fix --pairs checks context itself
