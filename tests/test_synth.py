"""faithlint synth: every kind of example issue 11 lists, with the right label, kind and changed span."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from faithlint.inputs.structured import parse_structured
from faithlint.train.synth import KINDS, Synthesizer, make_examples
from faithlint.train.synth_kinds import data_to_text, number_variants, records

PROSE = (
    "Acme Corp was founded by Jane Doe in 1990. Jane Doe leads the company from Boston. "
    "In 2019, the board approved a new plan for the factory. The board bought two warehouses near the port. "
    "The new plan cost 12.5 million dollars and took three years. Sales grew 5% in the first quarter. "
    "The factory employs 1,200,000 people across the region, which is a big number. "
    "The warehouses store spare parts for the machines. The company started a training program in March. "
    "Its engineers built a large robot for the assembly line."
)
OTHER = ("The museum opened a new wing in May. Visitors can see paintings from the nineteenth century there. "
         "The wing was designed by a local architect. Tickets cost twelve dollars for adults.")
RECORDS = [
    {"name": "Luigi's", "rating": 4.5, "opens": "11:00", "city": "Turin", "cuisine": "Italian",
     "days": ["Tue", "Wed"], "price_range": "$$"},
    {"name": "Chez Anne", "rating": 3.5, "opens": "18:00", "city": "Lyon", "cuisine": "French"},
    {"name": "Sakura", "rating": 4.1, "opens": "12:00", "city": "Osaka", "cuisine": "Japanese"},
]
FAMILIES = {
    "entailed": {"verbatim", "drop_detail", "fusion", "split"},
    "intrinsic": {"negation", "antonym", "role_swap", "swap_number"},
    "extrinsic": {"foreign_clause", "added_detail", "wrong_window", "far_sentence"},
}
LABEL = {"paraphrase": "entailment", "fusion": "entailment", "mixed": "neutral", "entailed": "entailment",
         "intrinsic": "contradiction", "extrinsic": "neutral"}


@pytest.fixture(scope="module")
def nlp():  # type: ignore[no-untyped-def]
    from faithlint.document.sentences import load_spacy

    model = load_spacy()
    if model is None:
        pytest.skip("spaCy pipeline not installed")
    return model


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) + 2 for t in texts]


def make(nlp, kinds: list[str] | None, seed: int = 3, per_doc: int = 60):  # type: ignore[no-untyped-def]
    synth = Synthesizer(words, max_length=96, seed=seed, kinds=kinds)  # windows of ~48 words: some sentences are far
    root = parse_structured(json.dumps(RECORDS), "places.json", ".json")
    return make_examples([("acme.txt", PROSE), ("museum.txt", OTHER)], nlp, synth, per_doc, [("places.json", root)])


def family(kind: str) -> str:
    if ":" in kind:
        return kind.split(":")[0]
    return next((f for f, names in FAMILIES.items() if kind in names or kind.startswith("swap_")
                 and f == "intrinsic"), kind)


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "data_to_text"])
def test_each_prose_kind_alone(nlp, kind: str) -> None:  # type: ignore[no-untyped-def]
    examples = make(nlp, [kind])
    assert examples, kind
    for ex in examples:
        assert family(ex.kind) == kind, ex.kind
        assert ex.label == LABEL[kind], (ex.kind, ex.hypothesis)
        assert ex.hypothesis.strip() and ex.premise.strip() and ex.doc_id in ("acme.txt", "museum.txt")
        if ex.changed:
            a, b = ex.changed
            assert 0 <= a < b <= len(ex.hypothesis)
        if kind in ("paraphrase", "fusion"):
            assert ex.changed == [] and ex.hypothesis not in ex.premise
    if kind in ("paraphrase", "fusion", "mixed"):  # the methods of the kind all show up
        methods = {ex.kind.split(":")[1] for ex in examples}
        expected = {"paraphrase": {"reorder", "voice", "synonym", "number"}, "fusion": {"and", "while", "relative"},
                    "mixed": {"far_sentence", "other_document"}}[kind]
        assert methods == expected, methods


def test_mixed_marks_the_unsupported_clause(nlp) -> None:  # type: ignore[no-untyped-def]
    for ex in make(nlp, ["mixed"]):
        a, b = ex.changed
        unsupported = ex.hypothesis[a:b]
        assert len(unsupported.split()) >= 4 and unsupported.lower() not in ex.premise.lower()
        supported = re.sub(r"^(and in addition|and|but|moreover)\b", "", (ex.hypothesis[:a] + ex.hypothesis[b:])
                           .strip(" ,.;")).strip(" ,")
        core = supported.split(",")[0].split(";")[0]
        assert core.lower().replace("the ", "")[:20] in ex.premise.lower().replace("the ", "")


def test_data_to_text_from_records(nlp) -> None:  # type: ignore[no-untyped-def]
    examples = make(nlp, ["data_to_text"], per_doc=80)
    assert examples and all(ex.doc_id == "places.json" for ex in examples)
    by_kind = {ex.kind for ex in examples}
    assert by_kind == {"data_to_text:entailed", "data_to_text:value_swap", "data_to_text:added_attribute"}
    labels = {"data_to_text:entailed": "entailment", "data_to_text:value_swap": "contradiction",
              "data_to_text:added_attribute": "neutral"}
    for ex in examples:
        assert ex.label == labels[ex.kind]
        assert ex.hypothesis.split(" ")[0] in {"Luigi's", "Chez", "Sakura"}
        subject = ex.hypothesis.split(" has ")[0].split(" opens ")[0].split(" is ")[0].split(" lists ")[0]
        assert f"{subject}: its" in ex.premise  # the premise verbalises the record the statement is about
        if ex.kind == "data_to_text:entailed":
            assert ex.changed == []
            continue
        a, b = ex.changed
        span = ex.hypothesis[a:b]
        own = ex.premise.split(f"{subject}: ")[1].split("\n\n")[0]
        assert span and span not in own, (ex.hypothesis, span)


def test_data_to_text_statements_read_from_the_record() -> None:
    root = parse_structured(json.dumps(RECORDS), "places.json", ".json")
    found = records(root)
    assert [r.items[0][2].text for r, _ in found] == ["Luigi's", "Chez Anne", "Sakura"]
    record, group = found[0]
    ex = data_to_text(record, group, random.Random(1), "entailed")
    assert ex.premise.startswith("Luigi's: its rating is 4.5. It opens at 11:00.")
    assert ex.hypothesis.startswith("Luigi's ") and ex.label == "entailment"
    swap = data_to_text(record, group, random.Random(2), "value_swap")
    a, b = swap.changed
    assert swap.hypothesis[a:b] in {"3.5", "4.1", "18:00", "12:00", "Lyon", "Osaka", "French", "Japanese"}
    assert swap.label == "contradiction"


def test_number_formats_both_ways() -> None:
    assert number_variants("It cost 12.5 million dollars.") == [(8, 20, "12,500,000")]
    assert number_variants("It cost 12,500,000 dollars.") == [(8, 18, "12.5 million")]
    assert number_variants("Up 5% and 7.5 percent.") == [(3, 5, "5 percent"), (10, 21, "7.5%")]
    assert number_variants("In 2019 it had 1,234 staff.") == []


def test_paraphrase_methods_on_known_sentences(nlp) -> None:  # type: ignore[no-untyped-def]
    from faithlint.train.synth_kinds import _passive, _relative, _reorder

    rng = random.Random(0)
    sent = next(nlp("The board approved the plan in 2019.").sents)
    assert _passive(sent, rng) == "The plan was approved by the board in 2019."
    sent = next(nlp("In 2019, the board approved the plan.").sents)
    assert _reorder(sent, rng) == "The board approved the plan in 2019."
    sent = next(nlp("The board approved the plan in 2019.").sents)
    assert _reorder(sent, rng) == "In 2019, the board approved the plan."
    first, second = list(nlp("Acme was founded by Jane Doe in 1990. Jane Doe leads the company from Boston.").sents)
    assert _relative(first, second) == "Acme was founded by Jane Doe, who leads the company from Boston, in 1990."


def test_deterministic_with_a_seed(nlp) -> None:  # type: ignore[no-untyped-def]
    one = [ex.to_dict() for ex in make(nlp, list(KINDS), seed=5, per_doc=20)]
    two = [ex.to_dict() for ex in make(nlp, list(KINDS), seed=5, per_doc=20)]
    other = [ex.to_dict() for ex in make(nlp, list(KINDS), seed=6, per_doc=20)]
    assert one == two and one != other
    assert {family(ex["kind"]) for ex in one} >= {"paraphrase", "fusion", "data_to_text", "mixed"}


def test_legacy_mix_is_unchanged_without_kinds(nlp) -> None:  # type: ignore[no-untyped-def]
    examples = make(nlp, None, per_doc=30)
    assert examples and not any(":" in ex.kind for ex in examples)  # training/build_data.py's mix, as before
    with pytest.raises(ValueError, match="unknown kinds"):
        Synthesizer(words, kinds=["paraphrase", "bogus"])


def test_cli_kinds_option(tmp_path: Path, nlp) -> None:  # type: ignore[no-untyped-def]
    from faithlint.cli import app as cli

    (tmp_path / "places.json").write_text(json.dumps(RECORDS))
    out = tmp_path / "synth.jsonl"
    assert cli.main(["synth", str(tmp_path / "places.json"), "-o", str(out), "--kinds", "data_to_text",
                     "--per-doc", "10"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["kind"].startswith("data_to_text:") for r in rows)
    assert set(rows[0]) == {"premise", "hypothesis", "label", "kind", "doc_id", "changed"}
    assert cli.main(["synth", str(tmp_path / "places.json"), "-o", str(out), "--kinds", "paraphrase,bogus"]) == 2
