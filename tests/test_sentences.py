"""Sentence splitting: spaCy pipeline and the rule-based fallback."""

from __future__ import annotations

import pytest

from faithlint.document.sentences import SentenceSplitter, split_rule_based

CASES = [
    ("Dr. Smith paid $3.50 for it. He left at 5 p.m. yesterday.", 2),
    ("The U.S. economy grew 2.5% in 2023. Growth slowed later.", 2),
    ('She said "it works." Then she left.', 2),
    ("Prices rose, e.g. for bread. Wages did not.", 2),
    ("Is it true? Yes! It is.", 3),
    ("中文句子。😀 Emoji sentence here. Another one.", 2),
]


@pytest.mark.parametrize("backend", ["rules", "parser", "senter"])
@pytest.mark.parametrize("text,n", CASES)
def test_split_offsets_exact(backend, text, n):
    splitter = SentenceSplitter(use_spacy=backend != "rules", component="senter" if backend == "senter" else "parser")
    if backend != "rules" and splitter.nlp is None:
        pytest.skip("spaCy pipeline not installed")
    spans = splitter.split(text) if backend != "rules" else split_rule_based(text)
    for s in spans:
        piece = text[s.start:s.end]
        assert piece == piece.strip() and piece
    if "中文" not in text:
        assert len(spans) == n, [text[s.start:s.end] for s in spans]
    assert spans[-1].end == len(text.rstrip())


def test_fallback_is_used_when_spacy_missing():
    s = SentenceSplitter(use_spacy=False)
    assert s.backend == "rules"
    assert len(s.split("One here. Two here.")) == 2


def _spacy(component):
    splitter = SentenceSplitter(component=component)
    if splitter.nlp is None:
        pytest.skip("spaCy pipeline not installed")
    return splitter


@pytest.mark.parametrize("component", ["parser", "senter"])
def test_split_many_is_split_of_each(component):
    """The batched path (context paragraphs) gives each text exactly what ``split`` gives it, cached or not."""
    texts = [c[0] for c in CASES] + ["", "   ", CASES[0][0], "Line one.\r\nLine two is here."]
    batched = _spacy(component).split_many(texts)
    assert batched == [_spacy(component).split(t) for t in texts]
    fresh = SentenceSplitter(component=component)
    assert [fresh.split(t) for t in texts] == fresh.split_many(texts)  # from its cache the second time


TOKENIZED = [  # lower-cased, tokenized sentence ends (older summarisers, transcripts) against real over-splits
    ("the club confirmed the deal on friday . the 39-year-old signed for three years . he starts in june .", 3),
    ("i love dogs . they are loyal ! do you have one ?", 3),
    ("He paused ... and then he left. It rained.", 2),
    ("Prices rose, e.g. for bread. Wages did not.", 2),
]


@pytest.mark.parametrize("component", ["parser", "senter"])
@pytest.mark.parametrize("text,n", TOKENIZED)
def test_a_free_standing_full_stop_ends_a_sentence(component, text, n):
    spans = _spacy(component).split(text)
    assert len(spans) == n, [text[s.start:s.end] for s in spans]
    assert spans[-1].end == len(text)


UNITS_AND_WORDS = [  # lower-case abbreviation look-alikes that end a sentence, against real abbreviations
    ("Latency fell from 820 ms to 310 ms. Four of the six VMs were retired.", 2),
    ("It weighs 5 kg. The box is small.", 2),
    ("He said no. Then he left.", 2),
    ("He finished 1st. Then he rested.", 2),
    ("We met Ms. Okafor at the library. She is the director.", 2),
    ("See No. 5 and fig. 3 for the details. They are long.", 2),
    ("The library reopened on Dec. 4, 2024. It was busy.", 2),
    ("It opened at 9 a.m. Monday was the busiest day.", 1),  # "a.m." stays an abbreviation
]


@pytest.mark.parametrize("backend", ["rules", "parser", "senter"])
@pytest.mark.parametrize("text,n", UNITS_AND_WORDS)
def test_units_and_lower_case_words_end_sentences_titles_do_not(backend, text, n):
    """"310 ms." is milliseconds, not the title "Ms.", and "no." is the word "no" unless a number follows."""
    spans = split_rule_based(text) if backend == "rules" else _spacy(backend).split(text)
    assert len(spans) == n, [text[s.start:s.end] for s in spans]
    assert [text[s.start:s.end] for s in spans] == [text[s.start:s.end].strip() for s in spans]
    assert spans[-1].end == len(text)


def test_senter_is_its_own_backend_and_resplits_run_on_text():
    """The senter names itself (cached splits are keyed by it); a run-on "sentence" it leaves longer than
    RESPLIT_TOKENS words is cut by the parser, so evidence pieces are not cut at arbitrary words."""
    from faithlint.document.sentences import RESPLIT_TOKENS

    senter, parser = _spacy("senter"), _spacy("parser")
    assert (senter.backend, parser.backend) == ("spacy-senter", "spacy")
    text = ("Brees has fun at NFC practice » Two vets ready to enhance Pro Bowl Photos: » Practices | Scene | "
            "cheerleaders 5. Jake Long, T, Miami Dolphins Long has allowed just two sacks all season and is the best "
            "left tackle in the league by a wide margin.")
    raw = list(senter._senter(senter.nlp.make_doc(text)).sents)
    assert len(raw) == 1 and len(raw[0]) > RESPLIT_TOKENS  # the case the re-split is for
    spans = senter.split(text)
    assert len(spans) > 1 and spans == parser.split(text)
    assert all(text[s.start:s.end] == text[s.start:s.end].strip() for s in spans)


def test_linter_settings_choose_the_splitters(tmp_path):
    """Drafts go through the senter by default and contexts through the parser (the senter lost 0.013-0.018
    WiCE AUROC on contexts); both settings move, and the splitters share one spaCy pipeline."""
    from faithlint.config import Config, load_config
    from faithlint.errors import ConfigError
    from faithlint.pipeline.linter import Linter

    if SentenceSplitter().nlp is None:
        pytest.skip("spaCy pipeline not installed")
    lt = Linter(Config())
    assert (lt.splitter.backend, lt.context_splitter.backend) == ("spacy-senter", "spacy")
    lt.config = Config(split="parser", context_split="rules")
    assert (lt.splitter.backend, lt.context_splitter.backend) == ("spacy", "rules")
    lt.config = Config(context_split="spacy")  # the earlier name of the parser
    assert lt.context_splitter.backend == "spacy" and lt.splitter.nlp is lt.context_splitter.nlp
    (tmp_path / "faithlint.toml").write_text('split = "fast"\n')
    bad = r"faithlint.toml: split: Input should be 'senter' or 'parser' \(got 'fast'\)$"
    with pytest.raises(ConfigError, match=bad):
        load_config(tmp_path / "faithlint.toml")


def test_blas_ops_change_no_annotation():
    """load_spacy's pipeline multiplies matrices through numpy's BLAS (faster than thinc's blis); sentence
    boundaries, the sentence tagger and entities come out exactly as with blis."""
    from faithlint.document.sentences import SPACY_MODEL, blas_ops, import_spacy, load_spacy

    fast = load_spacy()
    if fast is None:
        pytest.skip("spaCy pipeline not installed")
    from thinc.api import NumpyOps

    plain = import_spacy().load(SPACY_MODEL, exclude=["lemmatizer"])
    assert type(plain.get_pipe("parser").model.ops) is NumpyOps
    assert type(fast.get_pipe("parser").model.ops) is not NumpyOps  # load_spacy swapped them

    texts = [t for t, _ in CASES] + [
        "Helen Okafor of Atlas Labs said on Tuesday that the bridge, opened in 1998, cost $42.5 million. "
        "It carries 12,000 cars a day. Dr. Lena Ortiz disagreed; the county's figures differ.",
        "Revenue grew 14% to €3.2bn in Q3 2024 while Marlow & Finch cut 200 jobs in Riverside"]

    def annotations(nlp):
        docs = list(nlp.pipe(texts))
        senter = nlp.get_pipe("senter")
        return ([[(s.start_char, s.end_char) for s in d.sents] for d in docs],
                [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in docs],
                [[(s.start_char, s.end_char) for s in senter(nlp.make_doc(t)).sents] for t in texts],
                [d.to_array(["HEAD", "DEP", "TAG"]).tolist() for d in docs])

    assert annotations(fast) == annotations(plain)
    assert blas_ops(fast) is fast  # idempotent


def test_load_pipeline_skips_the_language_tokenizer_and_loads_the_same_pipeline():
    """load_pipeline starts from an empty tokenizer, which the pipeline's saved one fills (``spacy.load`` would
    first build English's own from its rules, then replace all of it): the same pipeline, byte for byte."""
    from faithlint.document.sentences import SPACY_MODEL, import_spacy, load_pipeline

    try:
        spacy = import_spacy()
        plain = spacy.load(SPACY_MODEL, exclude=["lemmatizer"])
    except (ImportError, OSError):
        pytest.skip("spaCy pipeline not installed")
    built = []
    language_tokenizer = spacy.registry.tokenizers.get("spacy.Tokenizer.v1")

    def counted() -> object:
        built.append(1)
        return language_tokenizer()

    spacy.registry.tokenizers.register("spacy.Tokenizer.v1", func=counted)
    try:
        fast = load_pipeline(exclude=["lemmatizer"])
        assert built == []  # the language's tokenizer was never built
        again = spacy.load(SPACY_MODEL, exclude=["lemmatizer"])
        assert built == [1]  # spacy.load builds it
    finally:
        spacy.registry.tokenizers.register("spacy.Tokenizer.v1", func=language_tokenizer)
    assert fast.to_bytes() == plain.to_bytes() == again.to_bytes()  # tokenizer rules, vocab, weights, config
    assert fast.config == plain.config  # saved with the language's tokenizer, as loaded
    texts = [t for t, _ in CASES] + ["Dr. Okafor's U.K.-based team (est. 1998) can't fix it -- e.g. the 3rd "
                                     "floor's 2,000 sq. ft.; see https://example.org/a?b=c at 9 a.m."]
    assert [[(t.idx, t.text) for t in fast.make_doc(x)] for x in texts] == \
        [[(t.idx, t.text) for t in plain.make_doc(x)] for x in texts]


def test_entry_point_index_answers_as_catalogue_would():
    """spaCy's registries find their entry points through the index import_spacy gives catalogue: the same
    entry points per group, other queries passed through."""
    from importlib.metadata import entry_points

    from faithlint.document.sentences import _EntryPointIndex, import_spacy

    try:
        import_spacy()
    except ImportError:
        pytest.skip("spaCy not installed")
    import catalogue

    assert isinstance(catalogue.AVAILABLE_ENTRY_POINTS, _EntryPointIndex)
    points = entry_points()
    index = _EntryPointIndex(points)
    groups = set(points.groups)
    assert "console_scripts" in groups
    for group in [*groups, "no-such-group"]:
        assert list(index.select(group=group)) == list(points.select(group=group))
    some = next(iter(points.select(group=next(iter(groups)))))
    assert list(index.select(group=some.group, name=some.name)) == [some]


def test_a_load_looks_srsly_decoders_up_once(monkeypatch):
    """srsly asks catalogue for its msgpack decoders before every message it reads (each of spaCy's weight
    files); inside load_pipeline they are looked up once, and afterwards srsly asks as before."""
    from faithlint.document.sentences import load_pipeline

    try:
        from srsly.msgpack import msgpack_decoders
    except ImportError:
        pytest.skip("srsly not installed")
    calls: list[object] = []
    real = type(msgpack_decoders).get_all

    def get_all(self: object) -> object:
        calls.append(self)
        return real(self)

    monkeypatch.setattr(type(msgpack_decoders), "get_all", get_all)
    try:
        nlp = load_pipeline(exclude=["lemmatizer"])
    except (ImportError, OSError):
        pytest.skip("spaCy pipeline not installed")
    assert calls.count(msgpack_decoders) == 1
    assert "get_all" not in vars(msgpack_decoders)  # srsly's own lookup again
    assert nlp.pipe_names
    import srsly

    assert srsly.msgpack_loads(srsly.msgpack_dumps({"a": 1})) == {"a": 1}
    assert calls.count(msgpack_decoders) == 2
