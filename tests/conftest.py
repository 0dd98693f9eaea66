"""Test-session settings shared by every test file."""

from __future__ import annotations

import os
import tempfile

# The on-disk context cache goes to a fresh folder per test session (subprocesses inherit it), never to the
# user's cache directory: tests neither read what another run left nor leave anything behind there.
os.environ.setdefault("FAITHLINT_CACHE_DIR", tempfile.mkdtemp(prefix="faithlint-test-cache-"))
