"""Small fakes for unit tests (end-to-end tests use the real models)."""

from __future__ import annotations

from fixtures.server.fake_models import KeywordChecker as _ServerKeywordChecker


class KeywordChecker(_ServerKeywordChecker):
    """Verdicts from keywords in the sentence: CONTRA, UNSUP, WEAK; anything else is entailed."""

    keywords = ("CONTRA", "UNSUP", "WEAK")
