"""Settings for the language server.

Precedence, lowest first (each layer only overrides the keys it sets):

1. built-in defaults (:class:`faithlint.config.Config`);
2. the nearest ``faithlint.toml`` (or ``[tool.faithlint]`` in ``pyproject.toml``) found upwards
   from each draft -- the same discovery the CLI uses, so ``faithlint check`` and the editor
   agree;
3. ``initializationOptions`` sent by the client at start (flat, or nested under ``"faithlint"``);
4. ``workspace/configuration`` section ``faithlint`` (user/workspace settings in the editor),
   re-read on ``workspace/didChangeConfiguration``.

Keys are accepted in snake_case, kebab-case or camelCase (``top_p``/``top-p``/``topP``). Every key of
``faithlint.toml`` is a setting here too, the claim ones included (``unit``, ``claimAggregation``,
``claimExtractor``, ``llmModel``, ``llmEndpoint``, ...): a change re-checks the open drafts, and the
linter builds the claim extractor the new settings name (nothing here caches per setting).
Server-only keys, which the CLI has no use for, are handled here and never reach ``Config``:

* ``debounce`` -- milliseconds to wait after the last edit before checking (default 300).

An editor must keep working with a typo in its settings: every invalid key falls back to its
default (or to the lower layer) and the user is told once, with a ``window/showMessage`` naming
the source, the key and the reason. An unreadable ``faithlint.toml`` is reported the same way and
the defaults are used instead.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faithlint.config import Config, load_config, validate_settings
from faithlint.errors import FaithlintError
from faithlint.rules.registry import RULES

DEFAULT_DEBOUNCE_MS = 300
SECTION = "faithlint"
SERVER_KEYS = {"debounce": "debounce", "debounce_ms": "debounce", "debounceMs": "debounce",
               "debounce-ms": "debounce"}


@dataclass
class ServerOptions:
    """Settings only the server uses."""

    debounce_ms: int = DEFAULT_DEBOUNCE_MS


@dataclass
class Resolved:
    """The effective settings for one draft, and any messages to show the user once."""

    config: Config
    config_path: Path | None
    messages: list[str] = field(default_factory=list)


def _unwrap(data: Any) -> Any:
    """Accept ``{"faithlint": {...}}`` as well as a flat object (clients differ)."""
    if isinstance(data, dict) and set(data) == {SECTION} and isinstance(data[SECTION], dict):
        return data[SECTION]
    return data


def split_server_keys(data: Any, source: str) -> tuple[Any, dict[str, Any], list[str]]:
    """Separate server-only keys from ``Config`` keys; returns (config data, server options, messages)."""
    if not isinstance(data, dict):
        return data, {}, []
    rest: dict[str, Any] = {}
    server: dict[str, Any] = {}
    messages: list[str] = []
    for key, value in data.items():
        name = SERVER_KEYS.get(key)
        if name is None:
            rest[key] = value
            continue
        if value is None:
            continue
        if name == "debounce":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value > 60_000:
                messages.append(f"{source}: {key}: must be a number of milliseconds between 0 and 60000 "
                                f"(got {value!r}) (ignored)")
                continue
            server["debounce_ms"] = int(value)
    return rest, server, messages


class Settings:
    """Holds the client-supplied layers and resolves the effective ``Config`` per draft.

    Read from the worker thread, written from the protocol thread: layers are replaced whole,
    never mutated, so a reader sees either the old or the new value.
    """

    def __init__(self) -> None:
        self.init_options: Any = None
        self.client: Any = None
        self._files: dict[Path, tuple[Config, Path | None, str | None]] = {}
        self._lock = threading.Lock()

    # -- layers -------------------------------------------------------------------------------------

    def set_init_options(self, data: Any) -> None:
        self.init_options = _unwrap(data)

    def set_client(self, data: Any) -> None:
        self.client = _unwrap(data)

    def invalidate_files(self) -> None:
        """Forget cached ``faithlint.toml`` lookups (a config file changed on disk)."""
        with self._lock:
            self._files.clear()

    # -- resolution ---------------------------------------------------------------------------------

    def server_options(self) -> tuple[ServerOptions, list[str]]:
        opts = ServerOptions()
        messages: list[str] = []
        for source, data in (("initializationOptions", self.init_options), ("workspace/configuration", self.client)):
            _, server, msgs = split_server_keys(data, source)
            messages += msgs
            if "debounce_ms" in server:
                opts.debounce_ms = server["debounce_ms"]
        return opts, messages

    def file_config(self, start: Path | None) -> tuple[Config, Path | None, str | None]:
        """The config file layer for a draft's folder (cached per folder)."""
        folder = (start if start is not None else Path.cwd()).resolve()
        with self._lock:
            hit = self._files.get(folder)
        if hit is not None:
            return hit
        try:
            config, path = load_config(None, start=folder, rules=RULES)
            hit = (config, path, None)
        except FaithlintError as exc:
            hit = (Config(), None, f"{exc} (using the default settings)")
        except OSError as exc:  # e.g. an unreadable parent folder while discovering
            hit = (Config(), None, f"cannot look for faithlint.toml: {exc} (using the default settings)")
        with self._lock:
            self._files[folder] = hit
        return hit

    def resolve(self, draft: Path | None) -> Resolved:
        """Effective settings for ``draft`` (None: an unsaved buffer; its folder is the cwd)."""
        base, path, error = self.file_config(draft.parent if draft is not None else None)
        messages = [error] if error else []
        config = base
        for source, data in (("initializationOptions", self.init_options), ("workspace/configuration", self.client)):
            rest, _, _ = split_server_keys(data, source)
            config, msgs = validate_settings(rest, source, base=config, rules=RULES)
            messages += msgs
        return Resolved(config, path, messages)
