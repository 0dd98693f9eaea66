"""The server's idle warm-up (faithlint.evidence.warm_up) with the real models: it fills the caches a later edit reads,
and changes no result."""

from __future__ import annotations

from faithlint.config import Config
from faithlint.evidence.index import doc_key
from faithlint.evidence.warm_up import steps
from faithlint.pipeline.linter import Linter
from faithlint.types import ContextDoc

FACTS = [f"In {1990 + i}, the {thing} of {town} spent ${i + 2}.{i % 10} million on {i + 3} projects."
         for i, (thing, town) in enumerate(zip(["library", "bridge", "clinic", "school", "park", "museum"] * 5,
                                               ["Riverside", "Northgate", "Atlas", "Marlow", "Finch", "Ortiz"] * 5))]
CONTEXT = ContextDoc("report.context.md", "\n\n".join(" ".join(FACTS[i:i + 3]) for i in range(0, len(FACTS), 3)))
DRAFT = "The museum of Ortiz spent $7.5 million on 8 projects in 1995. The clinic of Atlas closed in 2001."


def _embedded(linter: Linter) -> list[str]:
    seen: list[str] = []
    embed = linter.relevance._embed

    def spy(texts, batch_size):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return embed(texts, batch_size)

    linter.relevance._embed = spy
    return seen


def test_warm_up_reads_every_piece_ahead_and_changes_no_result() -> None:
    cfg = Config(cache_dir="off")
    warm, cold = Linter(cfg), Linter(cfg)
    pieces = [p.text for p in warm.index.pieces(CONTEXT, 0, doc_key(CONTEXT))[0]]
    assert sum(warm.checker.count_tokens(pieces)) > cfg.max_length  # a context that is ranked, not whole
    done = list(steps(warm, [CONTEXT], chunk=4))
    assert done[-1] == len(set(pieces)) and len(done) == -(-len(set(pieces)) // 4)
    assert warm.relevance.known(pieces) == len(pieces)
    assert all(t in warm.values._cache for t in pieces)

    embedded = _embedded(warm)
    got = warm.check(DRAFT, [CONTEXT])
    assert not set(embedded) & set(pieces)  # the check embedded its sentences only: every piece was ready
    want = cold.check(DRAFT, [CONTEXT])
    assert [(s.start, s.end, s.probs) for s in got.sentences] == [(s.start, s.end, s.probs) for s in want.sentences]
    assert [(f.code, f.start, f.end, f.message) for f in got.findings] == \
        [(f.code, f.start, f.end, f.message) for f in want.findings]


def test_nothing_to_warm_where_nothing_is_read_ahead() -> None:
    short = ContextDoc("short.md", "The library reopened in 2024.")
    assert list(steps(Linter(Config(cache_dir="off", ignore=["FL400"])), [short])) == []  # fits whole, no FL400
    assert list(steps(Linter(Config(cache_dir="off", evidence="windows")), [CONTEXT])) == []
    assert list(steps(Linter(Config(cache_dir="off")), [])) == []
