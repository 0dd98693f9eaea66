"""Reading drafts and context files safely, with one-line errors instead of tracebacks.

Text is decoded from bytes without newline translation so that offsets computed on it match
the file on disk (CRLF included), which the editor integrations rely on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from faithlint.errors import InputError
from faithlint.types import ContextDoc, DraftResult, Evidence

CONTEXT_EXTENSIONS: tuple[str, ...] = (".txt", ".md", ".markdown", ".json", ".yaml", ".yml", ".csv", ".tsv")
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def display_path(path: Path) -> str:
    """The path as given; absolute paths below the cwd become relative (shorter, still clickable)."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except (ValueError, OSError):
            return str(path)
    return str(path)


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.1f} kB"
    return f"{n} bytes"


def read_text(path: Path, max_bytes: int) -> str:
    """UTF-8 text of ``path`` (BOM stripped, newlines untouched) or an InputError naming the problem."""
    name = str(path)
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{name}: no such file") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if path.is_dir():
        raise InputError(f"{name}: is a directory")
    too_big = f"over the {_size(max_bytes)} limit (max_file_size)"
    if st.st_size > max_bytes:
        raise InputError(f"{name}: file is {_size(st.st_size)}, {too_big}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)  # bounded even if the file grows or is a device
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise InputError(f"{name}: file is {too_big}")
    if data.startswith(_UTF16_BOMS):
        raise InputError(f"{name}: UTF-16 text (byte order mark at offset 0); save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(f"{name}: binary file (NUL byte at offset {nul})")
    skip = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: invalid UTF-8 at byte offset {exc.start + skip}") from None


# --- JSON -> text -----------------------------------------------------------------------------------

def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # Keep one key per line: a multi-line string value would otherwise read as new keys.
        return re.sub(r"\s*[\r\n]+\s*", " ", value).strip()
    return str(value)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _line(key: str, text: str) -> str:
    return (f"{key}: {text}" if key else text).rstrip() + "\n"


def _lines(value: Any, key: str) -> Iterator[str]:
    if isinstance(value, dict):
        if not value and key:
            yield _line(key, "(empty)")
        for k, v in value.items():
            yield from _lines(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, list):
        if not value:
            if key:
                yield _line(key, "(empty)")
        elif all(_is_scalar(v) for v in value) and key:
            yield _line(key, ", ".join(_scalar(v) for v in value))
        else:
            for i, item in enumerate(value):
                yield from _lines(item, f"{key}[{i}]" if key else ("" if _is_scalar(item) else f"[{i}]"))
    else:
        yield _line(key, _scalar(value))


def flatten_json(obj: Any) -> str:
    """Readable ``key.path: value`` lines (v0.1's form of JSON context; context files are now verbalised
    into sentences by :mod:`faithlint.inputs.structured` instead).

    A top-level list of records becomes one block per record, separated by blank lines.
    """
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        blocks = ["".join(_lines(record, "")) for record in obj]
        return "\n".join(block for block in blocks if block)
    return "".join(_lines(obj, ""))


# --- context loading --------------------------------------------------------------------------------

def expand_folder(folder: Path) -> list[Path]:
    """Context files below ``folder``, sorted, hidden files and folders skipped."""

    def fail(exc: OSError) -> None:
        raise InputError(f"{exc.filename or folder}: permission denied" if isinstance(exc, PermissionError)
                         else f"{exc.filename or folder}: cannot read ({exc.strerror or exc})")

    found: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=fail):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for fname in files:
            if not fname.startswith(".") and os.path.splitext(fname)[1].lower() in CONTEXT_EXTENSIONS:
                found.append(Path(root) / fname)
    found.sort(key=lambda p: p.relative_to(folder).parts)
    if not found:
        raise InputError(f"{folder}: folder has no context files ({', '.join(CONTEXT_EXTENSIONS)})")
    return found


def _load_one(path: Path, max_bytes: int) -> ContextDoc:
    """One context file; JSON, YAML and CSV are verbalised (faithlint.inputs.structured) with offsets to the file."""
    from faithlint.inputs.structured import STRUCTURED_EXTENSIONS, structured_doc

    text = read_text(path, max_bytes)
    source = display_path(path)
    if path.suffix.lower() in STRUCTURED_EXTENSIONS:
        return structured_doc(source, text, path.suffix)
    return ContextDoc(source=source, text=text)


def load_context(paths: list[Path], max_bytes: int) -> list[ContextDoc]:
    """Context documents for ``paths`` (files or folders), each file once, in the order given."""
    docs: list[ContextDoc] = []
    seen: set[Path] = set()
    for given in paths:
        given = Path(given)
        files = expand_folder(given) if given.is_dir() else [given]
        for path in files:
            try:
                key = path.resolve()
            except OSError:
                key = path.absolute()
            if key in seen:
                continue
            seen.add(key)
            docs.append(_load_one(path, max_bytes))
    return docs


# --- evidence positions for users -------------------------------------------------------------------

def evidence_in_source(result: DraftResult, docs: Sequence[ContextDoc]) -> DraftResult:
    """``result`` with every evidence range moved from the text the checker read into its source file.

    For verbalised JSON/YAML/CSV context, evidence ``start``/``end`` become the range of the values the
    evidence was written from (its ``text`` stays what the checker read); other context is unchanged.
    Returns a copy: ``result`` itself (which caches may hold) is left as it is.
    """
    maps = {d.source: d for d in docs if d.offsets is not None}
    if not maps:
        return result

    def move(ev: Evidence | None) -> Evidence | None:
        doc = maps.get(ev.source) if ev is not None else None
        if ev is None or doc is None:
            return ev
        start, end = doc.to_source(ev.start, ev.end)
        return replace(ev, start=start, end=end)

    sentences = [replace(s, evidence=move(s.evidence), windows=[move(w) for w in s.windows])  # type: ignore[misc]
                 for s in result.sentences]
    findings = [replace(f, evidence=move(f.evidence)) for f in result.findings]
    return replace(result, sentences=sentences, findings=findings)


def source_texts(docs: Sequence[ContextDoc]) -> dict[str, str]:
    """source -> the text of the file that :func:`evidence_in_source` ranges index (for reports)."""
    return {d.source: d.source_text for d in docs}
