"""Tests for faithlint.document.markdown: block texts, the offset-map invariant, front matter, suppressions."""

from __future__ import annotations

import random
import re

import pytest

import faithlint.document.markdown_positions as positions
from faithlint.document.markdown import Block, Extracted, extract, line_of
from faithlint.document.suppressions import Suppressions

GREEDY = positions._greedy_map  # the real one, before the fixture replaces it
ENTITY = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});")


@pytest.fixture(autouse=True)
def _no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirrored markdown-it positions must be exact: the greedy fallback must never run."""

    def boom(*_: object) -> list[int]:
        raise AssertionError("greedy fallback alignment used")

    monkeypatch.setattr(positions, "_greedy_map", boom)


def entity_positions(source: str) -> set[int]:
    """Source offsets inside HTML entities (decoded chars sit there and differ from the source)."""
    out: set[int] = set()
    for m in ENTITY.finditer(source):
        out.update(range(m.start(), m.end()))
    return out


def check(ex: Extracted) -> list[tuple[str, str]]:
    """Assert the offset-map invariants for every block; return (kind, text) pairs."""
    src = ex.source
    ents = entity_positions(src)
    for b in ex.blocks:
        assert b.text, "empty blocks must not be emitted"
        assert b.text == b.text.strip(), "blocks are trimmed"
        assert len(b.map) == len(b.text) + 1
        assert all(b.map[i] < b.map[i + 1] for i in range(len(b.map) - 1)), "map strictly increasing"
        assert b.map[-1] == b.map[-2] + 1
        assert 0 <= b.map[0] and b.map[-1] <= len(src)
        for i, ch in enumerate(b.text):
            s = src[b.map[i]]
            if ch == s:
                continue
            synthetic_space = ch == " "
            assert synthetic_space or b.map[i] in ents or (ch == "\ufffd" and s == "\x00"), (b, i, ch, s)
    return [(b.kind, b.text) for b in ex.blocks]


def texts(source: str, markdown: bool = True) -> list[str]:
    return [t for _, t in check(extract(source, markdown=markdown))]


def kinds(source: str, markdown: bool = True) -> list[tuple[str, str]]:
    return check(extract(source, markdown=markdown))


def block_with(ex: Extracted, needle: str) -> Block:
    return next(b for b in ex.blocks if needle in b.text)


# ----------------------------------------------------------------------------- block structure


def test_headings() -> None:
    src = "# Title #\n\n## Sub *em* ##   \n\nSetext one\n===\n\nSetext\ntwo\n---\n\n#NotAHeading\n"
    assert kinds(src) == [
        ("heading", "Title"),
        ("heading", "Sub em"),
        ("heading", "Setext one"),
        ("heading", "Setext two"),
        ("paragraph", "#NotAHeading"),
    ]
    ex = extract(src)
    assert ex.blocks[0].map[0] == src.index("Title")


def test_heading_in_containers() -> None:
    assert kinds("> # Quoted heading\n\n- ## Listed heading\n") == [
        ("heading", "Quoted heading"),
        ("heading", "Listed heading"),
    ]


def test_nested_and_ordered_lists() -> None:
    src = "- one\n- two\n  - nested *a*\n    - deeper\n- three\n\n1. first\n2) second\n10. tenth\n"
    assert kinds(src) == [
        ("list_item", "one"),
        ("list_item", "two"),
        ("list_item", "nested a"),
        ("list_item", "deeper"),
        ("list_item", "three"),
        ("list_item", "first"),
        ("list_item", "second"),
        ("list_item", "tenth"),
    ]


def test_loose_list_paragraphs_are_separate_blocks() -> None:
    src = "- First para\n  wraps here.\n\n  Second para.\n- Next item.\nPlain lazy.\n"
    assert texts(src) == ["First para wraps here.", "Second para.", "Next item. Plain lazy."]


def test_blockquotes() -> None:
    src = "> quoted line\nlazy continuation\n>\n> second para\n> > nested\n\n> - item in quote\n"
    assert kinds(src) == [
        ("blockquote", "quoted line lazy continuation"),
        ("blockquote", "second para"),
        ("blockquote", "nested"),
        ("list_item", "item in quote"),
    ]


def test_tables() -> None:
    src = (
        "| Name | Value |\n"
        "|:-----|------:|\n"
        "| a \\| b | 42 😀 |\n"
        "| only |\n"
        "c | d\n"
    )
    assert kinds(src) == [
        ("table_cell", "Name"),
        ("table_cell", "Value"),
        ("table_cell", "a | b"),
        ("table_cell", "42 😀"),
        ("table_cell", "only"),
        ("table_cell", "c"),
        ("table_cell", "d"),
    ]
    ex = extract(src)
    pipe = block_with(ex, "a | b")
    assert src[pipe.map[2]] == "|" and src[pipe.map[2] - 1] == "\\"


def test_table_in_blockquote_and_inline_markup_in_cells() -> None:
    src = "> | *x* | `y` z |\n> |---|---|\n> | [l](u) | **b** |\n"
    assert kinds(src) == [("table_cell", "x"), ("table_cell", "z"), ("table_cell", "l"), ("table_cell", "b")]


def test_code_blocks_are_dropped() -> None:
    src = (
        "Before.\n\n```python\nx = 1  # Not prose.\n```\n\n~~~\ntilde fence\n~~~\n\n"
        "    indented code\n    more code\n\nAfter.\n"
    )
    assert texts(src) == ["Before.", "After."]


def test_unclosed_fence_drops_rest() -> None:
    assert texts("Text.\n\n```\ncode forever\n") == ["Text."]


def test_inline_code_does_not_glue_words() -> None:
    src = "use `foo` now"
    ex = extract(src)
    assert check(ex) == [("paragraph", "use now")]
    assert texts("`lead` word and tail `x`") == ["word and tail"]
    assert texts("a`b`c") == ["a c"]
    synthetic = extract("a`b`c").blocks[0]
    assert synthetic.map[1] == 1  # the space stands on the removed code's first char


def test_links_images_autolinks() -> None:
    src = (
        'See [the *docs*](https://e.com "Title") and [ref link][r] or [r].\n'
        "An image ![alt text](img.png \"t\") here, <https://auto.link> and <me@x.org>.\n"
        "Bare https://bare.example stays.\n\n"
        "[r]: https://ref.example 'ref title'\n"
    )
    assert texts(src) == [
        "See the docs and ref link or r. An image here, and . Bare https://bare.example stays."
    ]


def test_html_is_dropped() -> None:
    src = (
        "<div>\nblock html\n</div>\n\n"
        "Text <!-- note --> more. H<sub>2</sub>O and a<br>b.\n\n<!-- comment\nblock -->\n"
    )
    assert texts(src) == ["Text more. H2O and a b."]


def test_emphasis_markers() -> None:
    src = "*em* _em_ **strong** __strong__ ***both*** ~~gone~~ a*b 2 * 3 snake_case_name"
    assert texts(src) == ["em em strong strong both gone a*b 2 * 3 snake_case_name"]


def test_escapes_keep_the_escaped_char() -> None:
    src = r"\*not em\* \[x\] \\ \a 1\. done"
    ex = extract(src)
    assert check(ex) == [("paragraph", r"*not em* [x] \ \a 1. done")]
    b = ex.blocks[0]
    assert b.map[0] == 1  # the "*", not the backslash
    assert src[b.map[b.text.index("\\a")]] == "\\"  # not an escape: kept verbatim


def test_entities_decode_and_map_to_ampersand() -> None:
    src = "Tom &amp; Jerry &copy; &#169; &#x1F600; &NotEqualTilde; &bogus; &amp"
    ex = extract(src)
    assert check(ex) == [("paragraph", "Tom & Jerry © © 😀 ≂̸ &bogus; &amp")]
    b = ex.blocks[0]
    assert b.map[4] == src.index("&amp;")
    two = b.text.index("≂̸")
    assert b.map[two] == src.index("&NotEqualTilde;") and b.map[two + 1] == b.map[two] + 1


def test_soft_and_hard_breaks() -> None:
    src = "one\n   two  \nthree\\\nfour"
    ex = extract(src)
    assert check(ex) == [("paragraph", "one two three four")]
    b = ex.blocks[0]
    assert [src[b.map[i]] for i, ch in enumerate(b.text) if ch == " "] == ["\n", "\n", "\n"]


def test_thematic_breaks_and_reference_definitions_only() -> None:
    assert texts("***\n\n---\n\n[a]: http://x\n") == []


# ----------------------------------------------------------------------------- front matter


def test_front_matter_valid() -> None:
    src = "---\ntitle: Report\ncontext: [a.md, b.md]\n---\n# Heading\n\nBody text.\n"
    ex = extract(src)
    assert ex.front_matter == {"title": "Report", "context": ["a.md", "b.md"]}
    assert ex.front_matter_error is None
    assert check(ex) == [("heading", "Heading"), ("paragraph", "Body text.")]
    assert ex.blocks[0].map[0] == src.index("Heading")


def test_front_matter_invalid_is_reported_not_raised() -> None:
    src = "---\ntitle: ok\nbad: [unclosed\n---\nBody.\n"
    ex = extract(src)
    assert ex.front_matter is None
    assert ex.front_matter_error is not None and ex.front_matter_error.startswith("front matter line ")
    assert texts(src) == ["Body."]


def test_front_matter_error_line_number() -> None:
    ex = extract("---\na: 1\nb: : :\n---\n")
    assert ex.front_matter_error is not None and ex.front_matter_error.startswith("front matter line 3:")


def test_front_matter_variants() -> None:
    only = extract("---\na: 1\n---")
    assert only.front_matter == {"a": 1} and only.blocks == []
    assert extract("---\n---\nText").front_matter == {}
    assert extract("---\n- a\n---\n").front_matter_error is not None
    dots = extract("---\na: 1\n...\nText.\n")
    assert dots.front_matter == {"a": 1} and texts("---\na: 1\n...\nText.\n") == ["Text."]
    crlf = "\ufeff---\r\nk: v\r\n---\r\nBody\r\n"
    ex = extract(crlf)
    assert ex.front_matter == {"k": "v"} and check(ex) == [("paragraph", "Body")]
    assert ex.blocks[0].map[0] == crlf.index("Body")
    # No closing fence: "---" is a thematic break and everything is prose.
    unclosed = extract("---\nNot front matter.\n")
    assert unclosed.front_matter is None and check(unclosed) == [("paragraph", "Not front matter.")]
    # Not at the very start: not front matter.
    assert extract("Text\n---\na: 1\n---\n").front_matter is None


# ----------------------------------------------------------------------------- unicode and line endings


def test_emoji_are_single_code_points() -> None:
    src = "Thumbs 👍🏽 up 😀 here.\n\nNext 😀."
    ex = extract(src)
    assert check(ex) == [("paragraph", "Thumbs 👍🏽 up 😀 here."), ("paragraph", "Next 😀.")]
    b = ex.blocks[1]
    assert b.map[0] == src.index("Next")
    assert b.to_source(0, len(b.text)) == (src.index("Next"), len(src))


def test_cjk() -> None:
    src = "# 标题\n\n中文句子。第二句！\n\n- 列表项"
    ex = extract(src)
    assert check(ex) == [("heading", "标题"), ("paragraph", "中文句子。第二句！"), ("list_item", "列表项")]
    b = ex.blocks[1]
    assert b.to_source(0, 5) == (src.index("中文"), src.index("第二"))


def test_crlf() -> None:
    src = "# Head\r\n\r\nLine one\r\nline two.\r\n\r\n- item\r\n"
    ex = extract(src)
    assert check(ex) == [("heading", "Head"), ("paragraph", "Line one line two."), ("list_item", "item")]
    b = ex.blocks[1]
    assert src[b.map[8]] == "\r"  # soft break maps to the CR of the CRLF
    assert b.to_source(9, 18) == (src.index("line two."), src.index("line two.") + 9)


def test_lone_cr() -> None:
    src = "First\rsecond.\r\rThird."
    ex = extract(src)
    assert check(ex) == [("paragraph", "First second."), ("paragraph", "Third.")]
    assert ex.blocks[1].map[0] == src.index("Third")


def test_tabs() -> None:
    src = "-\tfoo\n\tbar\n\n>\tquoted\n\n\tcode\n\nTab\tinside."
    assert kinds(src) == [("list_item", "foo bar"), ("blockquote", "quoted"), ("paragraph", "Tab\tinside.")]


def test_edge_files() -> None:
    assert extract("").blocks == []
    assert extract("", markdown=False).blocks == []
    assert texts("   \n\n\t\n") == []
    assert texts("No trailing newline") == ["No trailing newline"]
    ex = extract("x")
    assert ex.blocks[0].map == [0, 1]


def test_nul_is_replacement_char() -> None:
    assert texts("a\x00b") == ["a\ufffdb"]


# ----------------------------------------------------------------------------- plain text


def test_plain_text_mode() -> None:
    src = "  First *para*\r\n   continues `here`.\r\n\r\n# Not a heading\rLine\n\n\n<b>raw</b>"
    ex = extract(src, markdown=False)
    assert check(ex) == [
        ("text", "First *para* continues `here`."),
        ("text", "# Not a heading Line"),
        ("text", "<b>raw</b>"),
    ]
    assert ex.front_matter is None
    assert src[ex.blocks[0].map[12]] == "\r"


def test_plain_text_removes_suppression_comments_only() -> None:
    src = "Keep <!-- other --> this <!-- faithlint-disable-line FL200 --> text.\n<!-- faithlint-disable -->\nNext para."
    ex = extract(src, markdown=False)
    assert check(ex) == [("text", "Keep <!-- other --> this text."), ("text", "Next para.")]
    assert ex.suppressions.is_suppressed("FL200", 0)
    assert ex.suppressions.is_suppressed("FL100", 2)
    assert not ex.suppressions.is_suppressed("FL100", 0)


def test_plain_text_front_matter_is_text() -> None:
    ex = extract("---\na: 1\n---\n", markdown=False)
    assert ex.front_matter is None and texts("---\na: 1\n---\n", markdown=False) == ["--- a: 1 ---"]


# ----------------------------------------------------------------------------- to_source and line_of


def test_to_source() -> None:
    src = "Say **hello** to `x` the world."
    b = extract(src).blocks[0]
    assert b.text == "Say hello to the world."
    s, e = b.to_source(4, 9)
    assert src[s:e] == "hello"
    s, e = b.to_source(0, len(b.text))
    assert (s, e) == (0, len(src))
    s, e = b.to_source(10, 16)  # "to the" spans the removed code
    assert src[s:e] == "to `x` the"
    assert b.to_source(3, 3) == (3, 3)
    assert b.to_source(-5, 999) == (0, len(src))


def test_line_of() -> None:
    src = "a\r\nb\rc\nd"
    assert [line_of(src, i) for i in range(len(src) + 1)] == [0, 0, 0, 1, 1, 2, 2, 3, 3]
    assert line_of(src, -1) == 0 and line_of(src, 99) == 3
    assert line_of("", 0) == 0
    assert line_of("😀\n😀", 2) == 1


# ----------------------------------------------------------------------------- suppressions


def sup(source: str, markdown: bool = True) -> Suppressions:
    return extract(source, markdown=markdown).suppressions


def test_disable_enable_ranges() -> None:
    src = "l0\n<!-- faithlint-disable -->\nl2\n<!-- faithlint-enable -->\nl4\n"
    s = sup(src)
    assert not s.is_suppressed("FL200", 0)
    assert s.is_suppressed("FL200", 1) and s.is_suppressed("FL100", 2)
    assert not s.is_suppressed("FL200", 3) and not s.is_suppressed("FL200", 4)


def test_disable_specific_codes_spaces_and_commas() -> None:
    s = sup("<!-- faithlint-disable FL200 FL400 -->\n\ntext\n\n<!-- faithlint-disable FL100,FL300 -->\n\nmore\n")
    assert s.is_suppressed("FL200", 2) and s.is_suppressed("FL400", 2)
    assert not s.is_suppressed("FL100", 2)
    assert s.is_suppressed("FL100", 6) and s.is_suppressed("FL300", 6) and s.is_suppressed("FL200", 6)


def test_enable_one_code_after_disable_all() -> None:
    s = sup("<!-- faithlint-disable -->\na\n<!-- faithlint-enable FL200 -->\nb\n<!-- faithlint-disable FL2 -->\nc\n")
    assert s.is_suppressed("FL200", 1) and s.is_suppressed("FL100", 1)
    assert not s.is_suppressed("FL200", 3) and s.is_suppressed("FL100", 3)
    assert s.is_suppressed("FL200", 5)


def test_prefix_matching() -> None:
    s = sup("<!-- faithlint-disable fl2 -->\ntext\n")
    assert s.is_suppressed("FL200", 1) and s.is_suppressed("FL299", 1)
    assert not s.is_suppressed("FL300", 1) and not s.is_suppressed("FL100", 1)
    s = sup("<!-- faithlint-disable FL -->\ntext\n")
    assert s.is_suppressed("FL100", 1) and s.is_suppressed("FL400", 1)
    s = sup("<!-- faithlint-disable FL2 -->\n<!-- faithlint-enable FL201 -->\ntext\n")
    assert s.is_suppressed("FL200", 2) and not s.is_suppressed("FL201", 2)


def test_reason_after_double_dash_is_ignored() -> None:
    s = sup("<!-- faithlint-disable-next-line FL200 -- quoted from the press release -->\nA claim.\n")
    assert s.is_suppressed("FL200", 1) and not s.is_suppressed("FL100", 1)


def test_disable_next_line() -> None:
    src = "<!-- faithlint-disable-next-line FL400 -->\n\n\nTarget line.\nNot target.\n"
    s = sup(src)
    assert s.is_suppressed("FL400", 3)
    assert not s.is_suppressed("FL400", 4) and not s.is_suppressed("FL200", 3)
    assert not s.is_suppressed("FL400", 0)
    s = sup("Text <!-- faithlint-disable-next-line -->\nnext\nafter\n")
    assert s.is_suppressed("FL100", 1) and not s.is_suppressed("FL100", 0) and not s.is_suppressed("FL100", 2)


def test_disable_next_line_crlf_and_cr() -> None:
    for nl in ("\r\n", "\r"):
        src = nl.join(["Intro.", "<!-- faithlint-disable-next-line FL200 -->", "", "Claim here.", "", "Other."])
        ex = extract(src)
        b = block_with(ex, "Claim")
        start, _ = b.to_source(0, 5)
        assert line_of(src, start) == 3
        assert ex.suppressions.is_suppressed("FL200", line_of(src, start))
        other = block_with(ex, "Other").to_source(0, 1)[0]
        assert line_of(src, other) == 5
        assert not ex.suppressions.is_suppressed("FL200", line_of(src, other))


def test_stacked_next_line_comments() -> None:
    src = "<!-- faithlint-disable-next-line FL200 -->\n<!-- faithlint-disable-next-line FL400 -->\nClaim.\n"
    s = sup(src)
    assert s.is_suppressed("FL200", 2) and s.is_suppressed("FL400", 2)
    assert not s.is_suppressed("FL100", 2)


def test_disable_next_line_at_end_of_file() -> None:
    s = sup("Text.\n<!-- faithlint-disable-next-line -->\n\n")
    assert not any(s.is_suppressed("FL100", n) for n in range(4))


def test_disable_line() -> None:
    src = "First claim. <!-- faithlint-disable-line FL200 -->\nSecond claim."
    ex = extract(src)
    assert check(ex) == [("paragraph", "First claim. Second claim.")]
    s = ex.suppressions
    assert s.is_suppressed("FL200", 0) and not s.is_suppressed("FL100", 0)
    assert not s.is_suppressed("FL200", 1)


def test_comments_in_code_and_front_matter_are_not_directives() -> None:
    src = (
        "---\nnote: <!-- faithlint-disable -->\n---\n"
        "```md\n<!-- faithlint-disable -->\n```\n\n"
        "    <!-- faithlint-disable -->\n\n"
        "Write `<!-- faithlint-disable -->` to silence.\n"
    )
    ex = extract(src)
    assert ex.suppressions.directives == []
    assert not ex.suppressions.is_suppressed("FL200", 12)
    assert texts(src) == ["Write to silence."]


def test_not_a_directive() -> None:
    assert sup("<!-- faithlint-disabled -->\n<!-- faithlint-disable-foo -->\n<!-- fl-disable -->\n").directives == []


def test_multiline_directive_comment() -> None:
    s = sup("a\n<!--\n  faithlint-disable FL200\n-->\nb\n")
    assert not s.is_suppressed("FL200", 0) and s.is_suppressed("FL200", 4)


def test_directive_offsets_are_source_offsets() -> None:
    src = "\ufeffx\r\n<!-- faithlint-disable -->\n"
    d = extract(src).suppressions.directives[0]
    assert src[d.offset:d.offset + 4] == "<!--" and d.line == 1


def test_empty_suppressions() -> None:
    assert not Suppressions().is_suppressed("FL100", 0)


# ----------------------------------------------------------------------------- robustness


def test_greedy_map_unit() -> None:
    assert GREEDY("ac", "xaxbc", 0, 5) == [1, 4]
    assert GREEDY("az", "abc", 0, 3) == [0, -1]


def test_deep_nesting_does_not_crash() -> None:
    src = "*" * 60 + "a" + "*" * 60 + " " + "[" * 80 + "x" + "]" * 80 + " " + "> " * 40 + "q"
    check(extract(src))


PIECES = [
    "a", "b", " ", " ", "\n", "\n\n", "\t", "*", "_", "~~", "`", "[", "]", "(", ")", "!", "<", ">", "#", "- ", "1. ",
    "|", "\\", "&amp;", "&copy;", "😀", "中", "\r\n", "\r", "    ", "> ", "```", "<!-- c -->", "http://a.b", "\u00a0",
    "| a | b |\n|---|---|\n", "---", "===", "[x]: /u\n", "[x]", "![i](j)", "<b>", "</sup>", "  \n",
]


@pytest.mark.parametrize("markdown", [True, False])
def test_random_documents_keep_the_invariants(markdown: bool) -> None:
    """Random Markdown soup; letters are made unique so a right char proves the exact right position."""
    rng = random.Random(1234)
    for _ in range(250):
        src = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        unique = iter(chr(c) for c in range(0x4E00, 0x9FFF))
        src = "".join(next(unique) if ch in "ab" else ch for ch in src)
        check(extract(src, markdown=markdown))
