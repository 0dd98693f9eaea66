"""One cache key for long texts, shared by every cache that keys on them (verdicts, values, monitor prefixes and
features): a short, stable digest instead of the texts themselves."""

from __future__ import annotations

import hashlib


def digest(*parts: str) -> bytes:
    """SHA-1 of the parts joined by NUL (no part contains NUL, so different splits give different keys)."""
    return hashlib.sha1("\x00".join(parts).encode("utf-8")).digest()
