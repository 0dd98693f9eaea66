"""An edit re-checks only what it changed: per-block Markdown results, per-unit evidence, token counts, verdicts and
FL400 analyses are reused, and the result is exactly the full check's (real models, no fakes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from faithlint.config import Config
from faithlint.document import markdown
from faithlint.document.markdown import extract
from faithlint.inputs.context import load_context
from faithlint.pipeline.linter import Linter

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag-answer"

DRAFT = """---
title: "Notes"
---
# Notes on the *library* 📚

The library reopened on March 4, 2024 &amp; cost `$25m` in total.\r
It has a café ☕ and a maker space.

- 图书馆 reopened in 2024。 It has 3D printers.
- A <b>rooftop</b> garden; see [the plan](https://x.example "t").

| year | cost |
|------|------|
| 2024 | $25 million |

```
code 2019 is not checked
```

<!-- faithlint-disable-next-line FL400 -->
Visitors doubled to 1,200 a day 🎉 since 2024.
"""

EDITS = [
    ("2024 &amp;", "2023 &amp;"),                                   # a value inside a line with an entity
    ("It has a café", "It has a café 😀 and 書店"),                 # emoji and CJK grow the line
    ("\n\n- 图书馆", "\n\nA new paragraph 🚀 was inserted here.\r\n\r\n- 图书馆"),  # a paragraph inserted, CRLF
    ("A new paragraph 🚀 was inserted here.\r\n\r\n", ""),          # and deleted again
    ("\r\nIt has", "\nIt has"),                                     # CRLF -> LF
    ("# Notes", "Intro line.\n\n# Notes"),                          # everything below shifts
]


def _blocks(text: str):
    ex = extract(text)
    return [(b.text, b.map, b.kind) for b in ex.blocks], ex.suppressions, ex.front_matter


def test_markdown_blocks_reused_across_edits_equal_a_fresh_parse():
    text = DRAFT
    for old, new in [("", ""), *EDITS]:
        assert old in text
        text = text.replace(old, new, 1)
        warm = _blocks(text)
        markdown._BLOCKS.clear()
        cold = _blocks(text)
        assert warm[0] == cold[0]
        assert warm[1].directives == cold[1].directives and warm[2] == cold[2]
        for b_text, b_map, _ in warm[0]:  # exact offsets: each plain character sits on its source character
            assert len(b_map) == len(b_text) + 1
            assert all(text[m] == c for c, m in zip(b_text, b_map) if not c.isspace() and c != "&")


def _findings(result):
    return [(f.code, f.severity, f.start, f.end, f.message, f.label,
             (f.evidence.source, f.evidence.start, f.evidence.end) if f.evidence else None) for f in result.findings]


def _sentences(result):
    return [(s.start, s.end, s.text, s.label) for s in result.sentences]


@pytest.mark.slow
def test_an_edit_sequence_gives_the_full_checks_results():
    ctx = load_context([EXAMPLE / "answer.context.md"], 10**6)
    base = (EXAMPLE / "answer.md").read_text().replace("\n", "\r\n", 3)  # front matter lines end in CRLF
    base += "\n" + DRAFT.split("---\n", 2)[2]
    edits = [
        ("$25 million", "$26 million"),
        ("A rooftop café", "A rooftop café 😀 (屋上カフェ)"),
        ("daily visitor", "Since 2024 the library has a new entrance.\n\nDaily visitor"),
        ("Since 2024 the library has a new entrance.\n\n", ""),
        ("The library is closed on Sundays.", "The library is closed on Sundays and Mondays."),
        ("\n\n", "\r\n\r\n"),
    ]
    query = "What changed at the Riverside Public Library?"
    inc = Linter(Config())
    text = base
    first = inc.check(text, ctx, query=query)
    assert first.findings and inc.stats.stage_ms["checker"] > 0
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
        got = inc.check(text, ctx, query=query)
        assert inc.stats.last["sentences_rescored"] <= 2  # the others' evidence and verdicts were reused
        markdown._BLOCKS.clear()
        full = Linter(inc.config, checker=inc.checker, relevance=inc.relevance, splitter=inc.splitter,
                      values=inc.values).check(text, ctx, query=query)  # the same models, empty caches
        assert _sentences(got) == _sentences(full)
        # the same premises: the scores differ at most by the checker's batch padding (float noise)
        assert [s.score for s in got.sentences] == pytest.approx([s.score for s in full.sentences], abs=1e-3)
        assert _findings(got) == _findings(full)
        for f in got.findings:
            assert 0 <= f.start < f.end <= len(text)
