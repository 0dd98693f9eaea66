"""Each draft's settings, found next to the draft: what ``check``, ``fix`` and ``watch`` share."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["DraftConfigs"]


class DraftConfigs:
    """Each draft's settings, found as ruff finds its own: the nearest ``faithlint.toml`` (or ``pyproject.toml``
    with ``[tool.faithlint]``) in the draft's folder or above it, or ``config_file`` (``--config``) for every
    draft; ``overrides`` (the command line's flags) on top. Each folder is looked up and each file read once
    (:meth:`clear` forgets them: ``watch`` after a config file changed)."""

    def __init__(self, config_file: Path | None, overrides: dict[str, Any]) -> None:
        from faithlint.inputs.files import require_regular

        self.config_file = config_file
        self.overrides = overrides
        self._files: dict[Path | None, tuple[Any, Path | None]] = {}
        self._folders: dict[Path, Path | None] = {}
        if config_file is not None:
            require_regular(config_file, "config file")

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
        from faithlint.rules.registry import RULES  # settings may name every registered rule, plugins' too

        config, found = load_config(path, rules=RULES) if path is not None else (Config(), None)
        if self.overrides:
            config = merge_overrides(config, self.overrides, "command line", rules=RULES)
        return config, found
