"""User-facing errors: one line, naming the file/key/offset, never a traceback."""

from __future__ import annotations


def first_line(exc: BaseException) -> str:
    """An exception's message cut to its first non-blank line (library errors run to pages), or its type's name
    when it has no message: the detail of a one-line error."""
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)


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
