"""What the command-line commands share: reading the config and the draft paths, the pairs file of ``--pairs``,
one-line errors naming the draft, output and exit codes.

Kept out of :mod:`faithlint.cli` so the commands that live in their own modules (:mod:`faithlint.cli_fix`) need
not import the CLI (which imports them).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from faithlint.errors import FaithlintError, InputError
from faithlint.options import cli_overrides, fails

__all__ = ["_Configs", "_checked", "_config", "_display", "_draft_error", "_drafts", "_emit", "_exit_code",
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
    return _Configs.from_args(args).of_folder(start)


class _Configs:
    """Each draft's settings, found as ruff finds its own: the nearest ``faithlint.toml`` (or ``pyproject.toml``
    with ``[tool.faithlint]``) in the draft's folder or above it, or ``config_file`` (``--config``) for every
    draft; ``overrides`` (the command line's flags) on top. Each folder is looked up and each file read once
    (:meth:`clear` forgets them: ``watch`` after a config file changed)."""

    def __init__(self, config_file: Path | None, overrides: dict[str, Any]) -> None:
        from faithlint.files import require_regular

        self.config_file = config_file
        self.overrides = overrides
        self._files: dict[Path | None, tuple[Any, Path | None]] = {}
        self._folders: dict[Path, Path | None] = {}
        if config_file is not None:
            require_regular(config_file, "config file")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> _Configs:
        return cls(args.config, cli_overrides(args))

    def clear(self) -> None:
        self._files.clear()
        self._folders.clear()

    def of(self, draft: Path) -> tuple[Any, Path | None]:
        """(config, its absolute file or None) for ``draft``; raises :class:`~faithlint.errors.ConfigError` naming
        the file."""
        return self.of_folder(Path(os.path.abspath(draft)).parent)

    def of_folder(self, folder: Path) -> tuple[Any, Path | None]:
        """(config, its absolute file or None) for the drafts in ``folder``."""
        from faithlint.config import find_config

        folder = Path(os.path.abspath(folder))
        if self.config_file is not None:
            found: Path | None = self.config_file
        else:
            if folder not in self._folders:
                self._folders[folder] = find_config(folder)
            found = self._folders[folder]
        if found not in self._files:
            self._files[found] = self._load(found)
        return self._files[found]

    def _load(self, path: Path | None) -> tuple[Any, Path | None]:
        from faithlint.config import Config, load_config, merge_overrides

        config, found = load_config(path) if path is not None else (Config(), None)
        if self.overrides:
            config = merge_overrides(config, self.overrides, "command line")
        return config, found


def _drafts(paths: Sequence[Path], config: Any = None) -> list[Path]:
    """The drafts ``paths`` name (:func:`faithlint.discovery.find_drafts`: hidden names, context files and what
    ``.gitignore`` ignores skipped below each folder; files named are always checked)."""
    from faithlint.discovery import find_drafts

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
    from faithlint.batch import read_items

    return read_items(Path(path), max_bytes, allow_no_context=True)  # fix --pairs checks context itself
