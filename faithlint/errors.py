"""User-facing errors: one line, naming the file/key/offset, never a traceback."""

from __future__ import annotations


class FaithlintError(Exception):
    """An error caused by the user's input or setup; the CLI prints it and exits 2."""


class ConfigError(FaithlintError):
    """Invalid configuration: the message names the file, the key and the reason."""


class InputError(FaithlintError):
    """A draft or context file that cannot be used (missing, binary, bad UTF-8, too big)."""


class ModelError(FaithlintError):
    """A checker model that cannot be loaded or is not an NLI classifier."""


class Cancelled(FaithlintError):
    """The user cancelled a long operation (a correction in the editor); nothing was changed."""
