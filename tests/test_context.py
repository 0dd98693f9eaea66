"""Reading files safely: every error is one line naming the file; JSON context is verbalised (test_structured)."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from faithlint.errors import InputError
from faithlint.inputs.context import flatten_json, load_context, read_text

LIMIT = 2_000_000


def read_error(path: Path, max_bytes: int = LIMIT) -> str:
    with pytest.raises(InputError) as info:
        read_text(path, max_bytes)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- read_text ------------------------------------------------------------------------------------

def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.md"
    assert read_error(path) == f"{path}: no such file"
    assert read_error(tmp_path / "a.txt" / "b.md").endswith(": no such file")


def test_directory(tmp_path: Path) -> None:
    assert read_error(tmp_path) == f"{tmp_path}: is a directory"


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.md"
    path.write_text("hidden")
    if os.geteuid() == 0:  # root ignores file modes: simulate the failure instead
        real_open = builtins.open

        def deny(file, *args, **kwargs):  # type: ignore[no-untyped-def]
            if Path(file) == path:
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", deny)
    else:
        path.chmod(0)
    try:
        assert read_error(path) == f"{path}: permission denied"
    finally:
        path.chmod(0o644)


def test_too_big(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"a" * 3_200_000)
    assert read_error(path) == f"{path}: file is 3.2 MB, over the 2.0 MB limit (max_file_size)"
    assert read_error(path, 1000) == f"{path}: file is 3.2 MB, over the 1.0 kB limit (max_file_size)"


def test_binary(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"x" * 123 + b"\x00\x01\x02")
    assert read_error(path) == f"{path}: binary file (NUL byte at offset 123)"


def test_utf16_is_named(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes("hello".encode("utf-16"))
    assert "UTF-16" in read_error(path)


def test_invalid_utf8_offset_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"a" * 57 + "é".encode("latin-1") + b"tail")
    assert read_error(path) == f"{path}: invalid UTF-8 at byte offset 57"
    # The offset counts bytes in the file, BOM included; multi-byte characters before it count fully.
    path.write_bytes(b"\xef\xbb\xbf" + "ü".encode() + b"\xff")
    assert read_error(path) == f"{path}: invalid UTF-8 at byte offset 5"


def test_bom_stripped_and_crlf_kept(tmp_path: Path) -> None:
    path = tmp_path / "win.md"
    path.write_bytes(b"\xef\xbb\xbfline one\r\nline two\r\n\rlast")
    assert read_text(path, LIMIT) == "line one\r\nline two\r\n\rlast"


def test_exact_limit_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "edge.txt"
    path.write_bytes(b"abcd")
    assert read_text(path, 4) == "abcd"
    assert "over the 3 bytes limit" in read_error(path, 3)


# --- flatten_json ---------------------------------------------------------------------------------

def test_flatten_nested_and_lists() -> None:
    data = {"team": {"name": "Ajax", "founded": 1900, "active": True, "coach": None},
            "players": [{"name": "Tadić", "goals": 13}, {"name": "Klaassen"}],
            "tags": ["football", "Amsterdam", 3], "bench": [], "note": "two\nlines"}
    assert flatten_json(data) == (
        "team.name: Ajax\n"
        "team.founded: 1900\n"
        "team.active: true\n"
        "team.coach: null\n"
        "players[0].name: Tadić\n"
        "players[0].goals: 13\n"
        "players[1].name: Klaassen\n"
        "tags: football, Amsterdam, 3\n"
        "bench: (empty)\n"
        "note: two lines\n"
    )


def test_flatten_top_level_records_are_blocks() -> None:
    records = [{"id": 1, "city": "Paris"}, {"id": 2, "meta": {"rank": 5}}]
    assert flatten_json(records) == "id: 1\ncity: Paris\n\nid: 2\nmeta.rank: 5\n"


def test_flatten_scalars_and_nested_lists() -> None:
    assert flatten_json("just text") == "just text\n"
    assert flatten_json([1, "two"]) == "1\ntwo\n"
    assert flatten_json({"grid": [[1, 2], [3]]}) == "grid[0]: 1, 2\ngrid[1]: 3\n"
    assert flatten_json({"mix": [1, {"a": 2}]}) == "mix[0]: 1\nmix[1].a: 2\n"
    assert not any(line.endswith(".") for line in flatten_json({"a": 1.5, "b": {"c": 2}}).splitlines())


# --- load_context ---------------------------------------------------------------------------------

def test_load_files_and_json(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Alpha.")
    (tmp_path / "b.json").write_text('{"team": {"name": "Ajax"}}')
    (tmp_path / "c.rst").write_text("Other text.")
    docs = load_context([tmp_path / "a.txt", tmp_path / "b.json", tmp_path / "c.rst"], LIMIT)
    assert [d.text for d in docs] == ["Alpha.", "The team is Ajax.", "Other text."]  # JSON is verbalised
    assert docs[0].source == str(tmp_path / "a.txt")


def test_sources_relative_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.md").write_text("A")
    assert load_context([tmp_path / "src" / "a.md"], LIMIT)[0].source == os.path.join("src", "a.md")
    assert load_context([Path("src")], LIMIT)[0].source == os.path.join("src", "a.md")


def test_folder_expansion_sorted_recursive_skips_hidden(tmp_path: Path) -> None:
    root = tmp_path / "sources"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "b.md").write_text("B")
    (root / "a.txt").write_text("A")
    (root / "sub" / "c.markdown").write_text("C")
    (root / "sub" / "d.JSON").write_text("[1]")
    (root / "image.png").write_bytes(b"\x00")
    (root / ".hidden.md").write_text("H")
    (root / ".git" / "x.md").write_text("G")
    docs = load_context([root], LIMIT)
    assert [Path(d.source).relative_to(root).as_posix() for d in docs] == ["a.txt", "b.md", "sub/c.markdown",
                                                                           "sub/d.JSON"]
    assert docs[-1].text == "1"


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "x.png").write_bytes(b"png")
    with pytest.raises(InputError, match="folder has no context files"):
        load_context([tmp_path / "empty"], LIMIT)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": 1,\n  "b": }\n')
    with pytest.raises(InputError) as info:
        load_context([path], LIMIT)
    assert str(info.value).startswith(f"{path}: invalid JSON at line 3, column 8: ")


def test_duplicates_loaded_once(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.md").write_text("A")
    (tmp_path / "src" / "b.md").write_text("B")
    docs = load_context([tmp_path / "src" / "a.md", tmp_path / "src", tmp_path / "src" / ".." / "src" / "a.md"], LIMIT)
    assert [d.text for d in docs] == ["A", "B"]


def test_missing_context_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_context([tmp_path / "missing.md"], LIMIT)
