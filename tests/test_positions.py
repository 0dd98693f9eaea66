"""LineIndex: line breaks of every kind, code-point vs UTF-16 columns, and round trips."""

from __future__ import annotations

import time

import pytest

from faithlint.document.positions import LineIndex


def test_lf_lines_and_last_line_without_newline() -> None:
    text = "ab\ncd\nef"
    idx = LineIndex(text)
    assert idx.line_count == 3
    assert idx.position(0) == (0, 0)
    assert idx.position(2) == (0, 2)  # the "\n" itself: end of line 0
    assert idx.position(3) == (1, 0)
    assert idx.position(7) == (2, 1)
    assert idx.position(len(text)) == (2, 2)  # end of a last line that has no newline
    assert idx.line_text(2) == "ef"


def test_trailing_newline_opens_empty_line() -> None:
    idx = LineIndex("ab\n")
    assert idx.line_count == 2
    assert idx.position(3) == (1, 0)
    assert idx.line_text(1) == ""


def test_crlf_is_one_break() -> None:
    text = "ab\r\ncd\r\n\r\nef"
    idx = LineIndex(text)
    assert idx.line_count == 4
    assert idx.position(text.index("c")) == (1, 0)
    assert idx.position(text.index("e")) == (3, 0)
    assert idx.line_text(0) == "ab"
    assert idx.line_text(2) == ""
    assert idx.line_end(0) == 2 and idx.line_start(1) == 4


def test_lone_cr_is_a_break() -> None:
    text = "ab\rcd\n\ref"
    idx = LineIndex(text)
    assert idx.line_count == 4
    assert idx.position(text.index("c")) == (1, 0)
    assert idx.position(text.index("e")) == (3, 0)
    assert idx.line_text(2) == ""


def test_offsets_at_line_ends() -> None:
    text = "ab\r\ncd\nef"
    idx = LineIndex(text)
    assert idx.position(2) == (0, 2)  # on the "\r"
    assert idx.position(4) == (1, 0)  # just after "\r\n"
    assert idx.position(6) == (1, 2)  # on the "\n"
    assert idx.utf16_position(6) == (1, 2)


def test_out_of_range_offsets_are_clamped() -> None:
    idx = LineIndex("ab\ncd")
    assert idx.position(-5) == (0, 0)
    assert idx.position(99) == (1, 2)
    assert idx.offset_of_utf16(99, 0) == 5
    assert idx.offset_of_utf16(0, 99) == 2
    assert idx.offset_of_utf16(0, -1) == 0


def test_emoji_counts_two_utf16_units() -> None:
    text = "a😀b👍🏽c"  # 😀 is astral; 👍🏽 is two astral code points (thumb + skin tone)
    idx = LineIndex(text)
    assert len(text) == 6
    b, c = text.index("b"), text.index("c")
    assert idx.position(b) == (0, 2)
    assert idx.utf16_position(b) == (0, 3)
    assert idx.position(c) == (0, 5)
    assert idx.utf16_position(c) == (0, 8)
    assert idx.utf16_position(len(text)) == (0, 9)
    assert len(text[:c].encode("utf-16-le")) // 2 == 8


def test_cjk_counts_one_utf16_unit() -> None:
    text = "中文字\n漢字x"
    idx = LineIndex(text)
    x = text.index("x")
    assert idx.position(x) == (1, 2)
    assert idx.utf16_position(x) == (1, 2)
    assert idx.offset_of_utf16(1, 2) == x


def test_astral_only_on_other_lines_does_not_shift() -> None:
    text = "😀😀\nabc"
    idx = LineIndex(text)
    assert idx.utf16_position(text.index("c")) == (1, 2)
    assert idx.utf16_position(2) == (0, 4)


def test_offset_of_utf16_inside_surrogate_pair_maps_to_char_start() -> None:
    text = "a😀b"
    idx = LineIndex(text)
    assert idx.offset_of_utf16(0, 1) == 1  # start of 😀
    assert idx.offset_of_utf16(0, 2) == 1  # between the surrogates -> still the emoji's start
    assert idx.offset_of_utf16(0, 3) == 2  # "b"
    assert idx.offset_of_utf16(0, 4) == 3  # line end
    assert idx.offset_of_utf16(0, 50) == 3


@pytest.mark.parametrize("text", [
    "plain ascii\nsecond line",
    "a😀b👍🏽c\r\n中文😀\rlast",
    "\r\n\r\n😀\n",
    "",
    "x\u00e9\u0301y 🇫🇷 flag\nz",
])
def test_round_trip_every_offset(text: str) -> None:
    idx = LineIndex(text)
    for offset in range(len(text) + 1):
        # Offsets inside a CRLF pair are not addressable positions (they sit after line end).
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            continue
        line, char = idx.utf16_position(offset)
        assert idx.offset_of_utf16(line, char) == offset, (text, offset)
        line, col = idx.position(offset)
        assert idx.offset_of(line, col) == offset, (text, offset)
        # The UTF-16 column equals what an editor would count.
        prefix = text[idx.line_start(line):offset]
        assert char == len(prefix.encode("utf-16-le")) // 2


def test_lsp_range_shape() -> None:
    text = "😀 hi\r\nthere"
    idx = LineIndex(text)
    start, end = text.index("hi"), text.index("there") + 5
    assert idx.lsp_range(start, end) == {"start": {"line": 0, "character": 3},
                                         "end": {"line": 1, "character": 5}}


def test_large_document_is_fast() -> None:
    line = "Der Umsatz stieg um 12 % 😀 auf 4,5 Mrd. Euro im Jahr 2023; 中文 text.\r\n"
    text = line * 10_000
    t0 = time.perf_counter()
    idx = LineIndex(text)
    step = max(1, len(text) // 20_000)
    for offset in range(0, len(text), step):
        line_no, char = idx.utf16_position(offset)
        idx.offset_of_utf16(line_no, char)
        idx.position(offset)
    elapsed = time.perf_counter() - t0
    assert idx.line_count == 10_001
    assert elapsed < 2.0, elapsed
