"""The triplet extractor the settings name: spaCy rules (default) or an LLM (local model or endpoint)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from faithlint.claims.base import TripletExtractor

if TYPE_CHECKING:
    from faithlint.config import Config

_EXTRACTORS: dict[tuple, Any] = {}
_LOCK = threading.Lock()


def extractor_settings(config: Config) -> tuple[Any, ...]:
    """The settings that decide which extractor a check uses: a change of any of them builds another."""
    return (config.claim_extractor, config.llm_model, config.llm_endpoint, config.llm_endpoint_model,
            config.llm_api_key_env)


def warm_up(extractor: TripletExtractor) -> None:
    """Load the extractor's model now (an LLM takes seconds), by extracting from one sentence."""
    extractor.extract_sentences(["faithlint loads its claim extractor."])


def extractor_for(config: Config, nlp: Any = None) -> TripletExtractor:
    """One extractor per process and settings, so a loaded LLM is shared by the linter, server and batch runs."""
    if config.claim_extractor == "spacy":
        from faithlint.claims.triplets import SpacyTripletExtractor

        return SpacyTripletExtractor(nlp=nlp)
    key = (config.llm_model, config.device, config.llm_endpoint, config.llm_endpoint_model,
           config.llm_api_key_env)
    with _LOCK:
        if key not in _EXTRACTORS:
            from faithlint.claims.llm import llm_extractor

            _EXTRACTORS[key] = llm_extractor(*key)
        return _EXTRACTORS[key]
