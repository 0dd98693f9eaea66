"""Chat-model backends: the LLM claim extractor, the LLM checker, RAC's rewrite and FOD's regeneration use them.

Two backends, one interface:

* :class:`HFGenerator`: a local Hugging Face causal LM, by default the bundled SmolLM2-135M-Instruct (offline);
* :class:`EndpointGenerator`: an OpenAI-compatible ``/v1/chat/completions`` server.

Both offer ``chat(messages, max_new_tokens)`` (one greedy answer) and ``sample(messages, prefix, n, ...)``
(continuations of an assistant answer that already starts with ``prefix``, cut at their first sentence end).
Both take an optional ``cancel`` (a :class:`threading.Event`: raises :class:`~faithlint.errors.Cancelled`) and
``deadline`` (a :func:`time.monotonic` time: raises a one-line :class:`~faithlint.errors.ModelError` naming
``llm_timeout``); without a deadline, the generator's own ``timeout`` (``llm_timeout`` for
:func:`generator_for`) bounds each call.

:func:`generator_for` builds the generator a config names (``llm_endpoint`` first, else ``llm_model`` or the
bundled SmolLM2).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol

from faithlint.errors import Cancelled, ConfigError, ModelError

__all__ = [
    "EndpointGenerator",
    "GenerationError",
    "Generator",
    "HFGenerator",
    "Sampler",
    "first_sentence",
    "generator_for",
]

MAX_NOTE = 60  # characters of a generated string quoted in a note
CONTINUE_PROMPT = "Continue this answer with its next sentence only. Write that sentence and nothing else."

# a sentence end: ., ! or ? (closing quotes/brackets after it) before whitespace or the end of the text
_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*(?=\s|$)")
# words whose period never ends a sentence ("Dr. Okafor"); "e.g." and "a.m." are known by the lowercase word after
_TITLES = frozenset("mr mrs ms dr prof st sr jr vs approx fig figs".split())


class GenerationError(Exception):
    """A model answer that cannot be used (bad JSON, missing fields): noted on the extraction, never raised."""


class Generator(Protocol):
    """A chat model: the extractor only needs one greedy answer to a list of chat messages."""

    name: str

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str: ...


class Sampler(Generator, Protocol):
    """A chat model that also continues a started answer (FOD)."""

    def sample(self, messages: list[dict[str, str]], prefix: str, n: int, max_new_tokens: int,
               temperature: float, seed: int, stop_at_sentence: bool = True,
               cancel: threading.Event | None = None, deadline: float | None = None,
               greedy: bool = False) -> list[str]: ...


# ---------------------------------------------------------------------------------------------------- sentences
def sentence_end(text: str, final: bool = True) -> int | None:
    """The end offset of the first sentence of ``text`` (after its closing punctuation), or None.

    ``$12.5`` and ``e.g. the`` do not end a sentence (no space after the period; a lowercase word or a digit
    after it); a line break ends one anyway. With ``final=False`` (generation still running) a sentence end at
    the very end of the text is not trusted yet: the next token may be "5" of "$12.5" or "m." of "a.m.".
    """
    for m in _END.finditer(text):
        end = m.end()
        rest = text[end:]
        if not rest.strip():
            if final:
                return end
            if "\n" in rest:
                return end
            continue
        if "\n" in rest[: len(rest) - len(rest.lstrip())]:
            return end
        nxt = rest.lstrip()[0]
        if nxt.islower() or nxt.isdigit():
            continue
        word = re.search(r"(\S+)$", text[: m.start() + 1])
        token = word.group(1) if word else ""
        if token[:-1].lower().lstrip("(\"'") in _TITLES:
            continue
        return end
    return None


def first_sentence(text: str) -> str:
    """``text`` cut after its first sentence (and at its first line break), whitespace collapsed."""
    text = text.lstrip()
    line = text.split("\n", 1)[0]
    end = sentence_end(line)
    return " ".join((line[:end] if end is not None else line).split())


def _strip_prefix(answer: str, prefix: str) -> str:
    """A chat model asked to continue an answer sometimes repeats it first: drop that repetition."""
    a, p = " ".join(answer.split()), " ".join(prefix.split())
    if p and a.startswith(p):
        return a[len(p):].lstrip()
    return answer


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("the generation was cancelled")


def _secs(seconds: float) -> str:
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.2g}"


def _timed_out(name: str, seconds: float) -> ModelError:
    return ModelError(f"LLM {name}: no answer within {_secs(seconds)} s (llm_timeout)")


# ---------------------------------------------------------------------------------------------------- backends
class HFGenerator:
    """A local Hugging Face causal LM, by default the bundled SmolLM2-135M-Instruct: offline, no server to run.

    Loaded through the monitor's surrogate loader, so both share one copy of the weights, the GGUF conversion cache
    and its offline rules (hub ids only when cached, unless ``FAITHLINT_ALLOW_DOWNLOADS=1``). ``timeout``: seconds
    one call may take when the caller gives no deadline (None: unbounded).
    """

    def __init__(self, model: str | None = None, device: str = "auto", timeout: float | None = None) -> None:
        self.model = model
        self.device = device
        self.timeout = timeout
        self.name = f"hf:{model or 'smollm2-135m-instruct'}"
        self._lm: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._lm is None:
            from faithlint.models.checkers.surrogate import load_surrogate

            self._lm = load_surrogate(self.model, self.device)
        return self._lm

    def _deadline(self, deadline: float | None) -> tuple[float | None, float]:
        """(absolute deadline or None, its length in seconds, for the message)."""
        now = time.monotonic()
        if deadline is None:
            return (now + self.timeout, self.timeout) if self.timeout else (None, 0.0)
        return deadline, max(0.0, deadline - now)

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int, *, cancel: threading.Event | None = None,
             deadline: float | None = None) -> str:
        import torch

        _check_cancel(cancel)
        deadline, seconds = self._deadline(deadline)
        with self._lock:
            lm = self._load()
            tok = lm.tokenizer
            inputs = _chat_inputs(lm, messages)
            kwargs: dict[str, Any] = {}
            stop = _Interrupt(cancel, deadline) if cancel is not None or deadline is not None else None
            if stop is not None:
                stop.check(self.name, seconds)
                kwargs["stopping_criteria"] = _criteria(stop)
            with torch.inference_mode():
                out = lm.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                                        temperature=None, top_p=None, top_k=None, pad_token_id=tok.eos_token_id,
                                        **kwargs)
            if stop is not None:
                stop.check(self.name, seconds)
            return tok.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)

    def sample(self, messages: list[dict[str, str]], prefix: str, n: int, max_new_tokens: int,
               temperature: float, seed: int, stop_at_sentence: bool = True,
               cancel: threading.Event | None = None, deadline: float | None = None,
               greedy: bool = False) -> list[str]:
        """``n`` continuations of an answer to ``messages`` that starts with ``prefix`` (the prefix not repeated),
        each cut at its first sentence end when ``stop_at_sentence``. Seeded: the same call gives the same texts
        (on the same device). ``greedy`` or ``temperature == 0``: one greedy continuation."""
        import torch

        _check_cancel(cancel)
        greedy = greedy or temperature <= 0
        n = 1 if greedy else max(1, n)
        deadline, seconds = self._deadline(deadline)
        with self._lock:
            lm = self._load()
            tok = lm.tokenizer
            inputs = _chat_inputs(lm, messages, prefix)
            start = inputs["input_ids"].shape[1]
            stop = _Interrupt(cancel, deadline)
            stop.check(self.name, seconds)
            criteria: list[Any] = [stop]
            if stop_at_sentence:
                criteria.append(_SentenceStop(tok, start))
            sampling: dict[str, Any] = (
                {"do_sample": False, "temperature": None, "top_p": None, "top_k": None} if greedy
                else {"do_sample": True, "temperature": temperature, "top_p": None, "top_k": None,
                      "num_return_sequences": n})
            devices = [lm.model.device] if lm.model.device.type == "cuda" else []
            with torch.inference_mode(), torch.random.fork_rng(devices=devices):
                torch.manual_seed(seed)
                if n > 1:  # read the prompt once, not once per sample: most of a sample's cost on a CPU
                    inputs, sampling = _shared_prompt(lm.model, inputs, n, sampling)
                out = lm.model.generate(**inputs, max_new_tokens=max_new_tokens, pad_token_id=tok.eos_token_id,
                                        stopping_criteria=_criteria(*criteria), **sampling)
            stop.check(self.name, seconds)
            texts = [tok.decode(row[start:], skip_special_tokens=True) for row in out]
        return [first_sentence(t) if stop_at_sentence else t.strip() for t in texts]

    def next_token_logprobs(self, messages: list[dict[str, str]], words: Sequence[str]) -> dict[str, tuple[int, float]]:
        """For each of ``words``: (id, log-probability) of its first token as the answer's first token (one
        forward pass, no generation); the LLM checker reads label probabilities this way."""
        import torch

        with self._lock:
            lm = self._load()
            inputs = _chat_inputs(lm, messages)
            with torch.inference_mode():
                logits = lm.model(**inputs, logits_to_keep=1).logits[0, -1].float()
            logp = logits.log_softmax(-1).cpu()
            out = {}
            for word in words:
                ids = lm.tokenizer(word, add_special_tokens=False)["input_ids"]
                if ids:
                    out[word] = (int(ids[0]), float(logp[ids[0]]))
            return out


def _shared_prompt(model: Any, inputs: Any, n: int, sampling: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Inputs for ``n`` samples that share one pass over the prompt: its key/value cache is computed once and
    repeated ``n`` times (``num_return_sequences`` would read the prompt ``n`` times). Models whose cache cannot
    be repeated keep the plain inputs."""
    import torch

    try:
        from transformers import DynamicCache

        ids = inputs["input_ids"]
        mask = inputs.get("attention_mask")
        mask = torch.ones_like(ids) if mask is None else mask
        cache = DynamicCache()
        model(input_ids=ids[:, :-1], attention_mask=mask[:, :-1], past_key_values=cache, use_cache=True)
        cache.batch_repeat_interleave(n)
    except (ImportError, AttributeError, TypeError, ValueError):
        return inputs, sampling
    shared = {"input_ids": ids.repeat(n, 1), "attention_mask": mask.repeat(n, 1), "past_key_values": cache}
    return shared, {k: v for k, v in sampling.items() if k != "num_return_sequences"}


class _Interrupt:
    """Stops generation when ``cancel`` is set or ``deadline`` (time.monotonic) has passed; ``check`` raises."""

    def __init__(self, cancel: threading.Event | None, deadline: float | None) -> None:
        self.cancel = cancel
        self.deadline = deadline

    def fired(self) -> bool:
        return (self.cancel is not None and self.cancel.is_set()) or (
            self.deadline is not None and time.monotonic() >= self.deadline)

    def check(self, name: str, seconds: float) -> None:
        _check_cancel(self.cancel)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _timed_out(name, seconds)

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        return torch.full((input_ids.shape[0],), self.fired(), dtype=torch.bool, device=input_ids.device)


class _SentenceStop:
    """Marks a sequence finished once its continuation holds a complete first sentence (or a line break)."""

    def __init__(self, tokenizer: Any, start: int) -> None:
        self.tokenizer = tokenizer
        self.start = start

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        done = []
        for row in input_ids:
            text = self.tokenizer.decode(row[self.start:], skip_special_tokens=True).lstrip()
            done.append(bool(text) and ("\n" in text or sentence_end(text, final=False) is not None))
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


def _criteria(*criteria: Any) -> Any:
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _Wrapped(StoppingCriteria):
        def __init__(self, fn: Any) -> None:
            self.fn = fn

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return self.fn(input_ids, scores, **kwargs)

    return StoppingCriteriaList([_Wrapped(c) for c in criteria])


def _chat_inputs(lm: Any, messages: list[dict[str, str]], prefix: str = "") -> Any:
    """The model inputs of a chat, ending where the assistant's answer starts (after ``prefix``, when given: the
    answer so far, which the model continues)."""
    tok = lm.tokenizer
    prefix = prefix.rstrip()
    if getattr(tok, "chat_template", None):
        if not prefix:
            inputs = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                             return_dict=True)
        else:
            prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            inputs = tok(prompt + prefix, return_tensors="pt", add_special_tokens=False)
    else:  # a base model: plain text turns
        inputs = tok(_plain_chat(messages) + (f" {prefix}" if prefix else ""), return_tensors="pt")
    return inputs.to(lm.device)


def _plain_chat(messages: list[dict[str, str]]) -> str:
    turns = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
    return "\n\n".join([*turns, "Assistant:"])


class EndpointGenerator:
    """An OpenAI-compatible ``/v1/chat/completions`` server (vLLM, llama.cpp, `transformers serve`, OpenAI).

    ``base_url`` may end in ``/v1`` or not. The API key comes from the environment variable ``api_key_env``
    and is optional: local servers need none. ``timeout``: seconds one request may take (``llm_timeout``).
    """

    def __init__(self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 60) -> None:
        base = base_url.rstrip("/")
        self.url = f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.name = f"endpoint:{model}@{base}"
        self._n_ok = True  # the server honours "n" (until it answers fewer choices or rejects it)

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int, *, cancel: threading.Event | None = None,
             deadline: float | None = None) -> str:
        return _content(self.url, self.request(messages, max_new_tokens, cancel=cancel, deadline=deadline))

    def sample(self, messages: list[dict[str, str]], prefix: str, n: int, max_new_tokens: int,
               temperature: float, seed: int, stop_at_sentence: bool = True,
               cancel: threading.Event | None = None, deadline: float | None = None,
               greedy: bool = False) -> list[str]:
        """``n`` next sentences of an answer that starts with ``prefix``. A partial assistant message is not
        portable across servers, so the prefix goes into the user turn ("Continue this answer ..."). One request
        with ``n``; when the server ignores or rejects ``n``, sequential requests (seeds ``seed``, ``seed + 1``,
        ...), ``cancel`` checked between them."""
        greedy = greedy or temperature <= 0
        n = 1 if greedy else max(1, n)
        msgs = [dict(m) for m in messages]
        if prefix.strip():
            turn = f"The answer so far:\n{prefix.strip()}\n\n{CONTINUE_PROMPT}"
            if msgs and msgs[-1].get("role") == "user":
                msgs[-1]["content"] = f"{msgs[-1]['content']}\n\n{turn}"
            else:
                msgs.append({"role": "user", "content": turn})
        extra: dict[str, Any] = {"temperature": 0 if greedy else temperature, "seed": seed}
        if stop_at_sentence:
            extra["stop"] = ["\n\n"]
        answers: list[str] = []
        if n > 1 and self._n_ok:
            try:
                body = self.request(msgs, max_new_tokens, cancel=cancel, deadline=deadline, n=n, **extra)
            except ModelError as exc:
                if "HTTP 4" not in str(exc):
                    raise
                self._n_ok = False  # a server that rejects "n": one request per sample from now on
            else:
                answers = _contents(self.url, body)
                if len(answers) < n:
                    self._n_ok = False
        i = len(answers)
        while len(answers) < n:
            _check_cancel(cancel)
            body = self.request(msgs, max_new_tokens, cancel=cancel, deadline=deadline,
                                **{**extra, "seed": seed + i})
            answers.extend(_contents(self.url, body)[:1])
            i += 1
        texts = [_strip_prefix(a, prefix) for a in answers[:n]]
        return [first_sentence(t) if stop_at_sentence else t.strip() for t in texts]

    def request(self, messages: list[dict[str, str]], max_new_tokens: int, *, cancel: threading.Event | None = None,
                deadline: float | None = None, **extra: Any) -> str:
        """The response body of one chat completion, greedy unless ``extra`` says otherwise (``temperature``,
        ``n``, ``logprobs``, ...). Waits at most ``timeout`` seconds, or until ``deadline``; ``cancel`` stops the
        wait (the request itself finishes in the background)."""
        import httpx

        _check_cancel(cancel)
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "").strip() if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {"model": self.model, "messages": messages, "max_tokens": max_new_tokens, "temperature": 0,
                "stream": False, **extra}
        timeout = self.timeout
        if deadline is not None:
            timeout = min(timeout, deadline - time.monotonic())
            if timeout <= 0:
                raise ModelError(f"LLM endpoint {self.url}: no answer within {_secs(self.timeout)} s (llm_timeout)")

        def post() -> Any:
            return httpx.post(self.url, json=body, headers=headers, timeout=timeout)

        try:
            resp = post() if cancel is None else _waiting(post, cancel)
        except httpx.TimeoutException as exc:
            raise ModelError(f"LLM endpoint {self.url}: no answer within {_secs(timeout)} s (llm_timeout)") from exc
        except httpx.HTTPError as exc:
            raise ModelError(f"LLM endpoint {self.url}: cannot connect ({_one_line(exc)})") from exc
        if resp.status_code >= 400:
            raise ModelError(f"LLM endpoint {self.url}: HTTP {resp.status_code} {resp.reason_phrase}"
                             f"{_error_detail(resp.text)}")
        return resp.text


def _waiting(call: Any, cancel: threading.Event, poll: float = 0.05) -> Any:
    """Run ``call`` in a daemon thread, raising :class:`Cancelled` as soon as ``cancel`` is set."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="faithlint-llm-request", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(poll)
        _check_cancel(cancel)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _content(url: str, text: str) -> str:
    """The answer text of a chat-completions response body."""
    return _contents(url, text)[0]


def _contents(url: str, text: str) -> list[str]:
    """The answer text of every choice of a chat-completions response body."""
    try:
        choices = json.loads(text)["choices"]
        contents = [c["message"]["content"] for c in choices]
        if not contents:
            raise IndexError("no choices")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise GenerationError(f"{url} answered {_quote(text)}, not a chat completion") from exc
    if not all(isinstance(c, str) for c in contents):
        raise GenerationError(f"{url} answered no message content")
    return contents


def _error_detail(text: str) -> str:
    try:
        err = json.loads(text).get("error")
        msg = err.get("message") if isinstance(err, dict) else err
    except (ValueError, AttributeError):
        msg = None
    return f": {_one_line(msg)}" if isinstance(msg, str) and msg.strip() else ""


def _one_line(value: object) -> str:
    return " ".join(str(value).split())[:200]


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= MAX_NOTE else text[: MAX_NOTE - 1] + "…")


# ---------------------------------------------------------------------------------------------------- factory
def make_generator(model: str | None = None, device: str = "auto", endpoint: str | None = None,
                   endpoint_model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                   timeout: float | None = None) -> HFGenerator | EndpointGenerator:
    """The endpoint backend when ``endpoint`` is set, else a local Hugging Face model (default SmolLM2)."""
    if endpoint:
        name = endpoint_model or model
        if not name:
            raise ConfigError(f"LLM endpoint {endpoint}: a model name is needed (endpoint_model)")
        return EndpointGenerator(endpoint, name, api_key_env, **({"timeout": timeout} if timeout else {}))
    return HFGenerator(model, device, timeout=timeout)


def generator_for(config: Any) -> HFGenerator | EndpointGenerator:
    """The generator ``config`` names: ``llm_endpoint`` (+ ``llm_endpoint_model``, ``llm_api_key_env``), else
    ``llm_model`` on ``device`` (the bundled SmolLM2 when unset); each call bounded by ``llm_timeout``."""
    c = config
    return make_generator(c.llm_model, c.device, c.llm_endpoint, c.llm_endpoint_model, c.llm_api_key_env,
                          timeout=c.llm_timeout)
