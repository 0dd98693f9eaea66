"""An LLM as the checker: RefChecker's checking prompt, for users who configure a capable model.

``checker = "llm"`` asks a chat model, for every (premise, hypothesis) pair, whether the reference (the premise)
entails, contradicts or says nothing about the claim (the hypothesis). The model is the one the LLM claim
extractor uses (``llm_model``, or ``llm_endpoint`` + ``llm_endpoint_model``), built by :func:`faithlint.pipeline.linter.
load_checker`; this module only needs its ``generator`` (see :mod:`faithlint.claims.llm`).

Probabilities, per backend:

* a local Hugging Face model (the generator has ``next_token_logprobs``): one forward pass per pair, no
  generation; the log-probabilities of the label words' first tokens at the answer's first position (spellings
  "Entailment", " entailment", ... pooled per label), softmax over the three labels;
* an OpenAI-compatible endpoint (``request``): the answer is asked with ``logprobs``/``top_logprobs``; the first
  answer token's top alternatives that begin a label word give the distribution. A server that rejects the
  fields (HTTP 4xx) is asked again without them, and not asked for them again;
* otherwise, or when the logprobs name no label: the answer text is parsed, one label -> 0.9 (0.05 for the
  others); an answer naming no label, or several, -> 0.2 / 0.6 / 0.2. Bad answers never raise; an endpoint that
  cannot be reached raises the generator's one-line `ModelError`.

Tokens are approximated as words and punctuation marks (a regex, no tokenizer to load): the linter sizes
evidence windows with `count_tokens`/`token_offsets`, and a subword tokenizer counts about 1.3 times more, well
within `max_length`.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from faithlint.errors import ModelError
from faithlint.models.checkers.base import CheckerBase

__all__ = ["CHECKING_PROMPT", "INSTRUCTION", "LLMChecker", "parse_label"]

# RefChecker's checking prompt (refchecker/checker/llm_checker.py), with the claim a sentence instead of a triplet.
CHECKING_PROMPT = (
    "I have a claim that made by a language model, please help me for checking whether the claim can be entailed "
    "according to the provided reference.\n"
    "If the claim is supported by the reference, answer 'Entailment'.\n"
    "If the reference does not entail the claim, and the claim is contradicted by the reference, answer "
    "'Contradiction'.\n"
    "If the reference neither entails nor contradicts the claim, or does not contain information to verify the "
    "claim, answer 'Neutral'.\n"
    "Please DO NOT use your own knowledge for the judgement, just compare the reference and the claim to get the "
    "answer.\n\n"
    "### Reference:\n{reference}\n\n"
    "### Claim:\n{claim}\n\n"
    "Your answer should always be only a single word in ['Entailment', 'Neutral', 'Contradiction']."
)
INSTRUCTION = "Answer with one word: Entailment, Neutral or Contradiction."
LABEL_WORDS = ("Entailment", "Neutral", "Contradiction")  # in faithlint.types.LABELS order
SURE = 0.9  # probability of a label read from the answer text (0.05 each for the others)
UNSURE = np.array([0.2, 0.6, 0.2])  # an answer naming no label
MAX_NEW_TOKENS = 8  # enough for "The answer is: Contradiction."
TOP_LOGPROBS = 20  # the most OpenAI accepts
FLOOR = 1e-4  # probability of a label missing from the endpoint's top alternatives

_TOKEN = re.compile(r"\w+|[^\w\s]")
_LABEL = re.compile(r"\b(entail\w*|neutral\w*|contradict\w*)\b", re.IGNORECASE)
_REJECTED = re.compile(r": HTTP 4\d\d\b")


def parse_label(answer: str) -> int | None:
    """The label index an answer names: its first word if that is a label, else the only label it mentions;
    None for no label, or all three (the choices echoed)."""
    found = [m.group(1).lower() for m in _LABEL.finditer(answer or "")]
    kinds = [next(i for i, w in enumerate(LABEL_WORDS) if f.startswith(w.lower()[:6])) for f in found]
    if not kinds or len(set(kinds)) == 3:  # none, or the list of choices echoed
        return None
    head = re.match(r"[\W_]*(\w+)", answer)
    if head and _LABEL.fullmatch(head.group(1)):
        return kinds[0]
    return kinds[0] if len(set(kinds)) == 1 else None


def text_probs(answer: str) -> np.ndarray:
    label = parse_label(answer)
    if label is None:
        return UNSURE.copy()
    out = np.full(3, (1 - SURE) / 2)
    out[label] = SURE
    return out


def _label_of_token(token: str) -> int | None:
    """Which label word a first answer token begins ("Ent", " neutral", "Contr"), if any."""
    t = token.strip().strip("'\"*`").lower()
    for i, word in enumerate(LABEL_WORDS):
        w = word.lower()
        if (len(t) >= 2 and w.startswith(t)) or (t.startswith(w)):
            return i
    return None


def _normalized(mass: Sequence[float]) -> np.ndarray:
    p = np.maximum(np.asarray(mass, dtype=float), FLOOR)
    return p / p.sum()


class LLMChecker(CheckerBase):
    """A chat model behind the :class:`~faithlint.models.checkers.base.Checker` interface (RefChecker's prompt)."""

    def __init__(self, generator: Any, max_length: int = 1024) -> None:
        self.generator = generator
        self.name = f"llm:{generator.name}"  # the verdict cache keys on it: backend and model
        self.max_length = max_length
        self.model_max = max_length
        self._logprobs = True  # the endpoint accepts logprobs (until it says otherwise)
        self._lock = threading.Lock()

    @staticmethod
    def messages(premise: str, hypothesis: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": INSTRUCTION},
                {"role": "user", "content": CHECKING_PROMPT.format(reference=premise.strip(),
                                                                   claim=hypothesis.strip())}]

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(premises), 3), dtype=np.float32)
        for i, (p, h) in enumerate(zip(premises, hypotheses)):
            out[i] = self.score_pair(p, h)
        return out

    def score_pair(self, premise: str, hypothesis: str) -> np.ndarray:
        messages = self.messages(premise, hypothesis)
        gen = self.generator
        if hasattr(gen, "next_token_logprobs"):
            return self._hf_probs(messages)
        if hasattr(gen, "request"):
            return self._endpoint_probs(messages)
        try:
            return text_probs(gen.chat(messages, MAX_NEW_TOKENS))
        except ModelError:
            raise
        except Exception:  # a model failing on one pair must not break the check
            return UNSURE.copy()

    # ------------------------------------------------------------------ backends
    def _hf_probs(self, messages: list[dict[str, str]]) -> np.ndarray:
        """Softmax over the labels' pooled first-token log-probabilities; a token id counts once, for the first
        label whose spelling gives it."""
        spellings = [v for w in LABEL_WORDS for v in (w, " " + w, w.lower(), " " + w.lower())]
        got = self.generator.next_token_logprobs(messages, spellings)
        pooled = [-math.inf] * 3
        owner: dict[int, int] = {}
        for word, (token, logp) in got.items():
            label = [w.lower() for w in LABEL_WORDS].index(word.strip().lower())
            if token in owner or not math.isfinite(logp):
                continue
            owner[token] = label
            pooled[label] = float(np.logaddexp(pooled[label], logp))
        if all(p == -math.inf for p in pooled):
            return UNSURE.copy()
        z = np.array(pooled) - max(pooled)
        e = np.exp(z)
        return e / e.sum()

    def _endpoint_probs(self, messages: list[dict[str, str]]) -> np.ndarray:
        body = None
        if self._logprobs:
            try:
                body = self.generator.request(messages, MAX_NEW_TOKENS, logprobs=True, top_logprobs=TOP_LOGPROBS)
            except ModelError as exc:
                if not _REJECTED.search(str(exc)):
                    raise  # cannot connect, timeout, server error: the user's server is down
                with self._lock:
                    self._logprobs = False
        if body is None:
            body = self.generator.request(messages, MAX_NEW_TOKENS)
        try:
            choice = json.loads(body)["choices"][0]
            answer = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return UNSURE.copy()
        probs = _logprob_probs(choice.get("logprobs") if isinstance(choice, dict) else None)
        return probs if probs is not None else text_probs(answer if isinstance(answer, str) else "")

    # ------------------------------------------------------------------ tokens (approximate: words and marks)
    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_TOKEN.findall(t)) for t in texts]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _TOKEN.finditer(text)]


def _logprob_probs(logprobs: Any) -> np.ndarray | None:
    """The label distribution of the first answer token's top alternatives (OpenAI's ``logprobs.content``)."""
    try:
        first = logprobs["content"][0]
        alternatives = first.get("top_logprobs") or [first]
        mass = [0.0, 0.0, 0.0]
        seen = set()
        for alt in alternatives:
            token, logp = alt["token"], float(alt["logprob"])
            label = _label_of_token(token)
            if label is not None and token not in seen and math.isfinite(logp):
                seen.add(token)
                mass[label] += math.exp(logp)
    except (TypeError, KeyError, IndexError, ValueError, AttributeError):
        return None
    return _normalized(mass) if sum(mass) > 0 else None
