"""Structured files (JSON, YAML, CSV/TSV) parsed into :class:`Node` trees that keep each value's character range
in the file, so that :mod:`faithlint.inputs.structured` can map every verbalised word back to the value it came from."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from faithlint.errors import InputError, first_line

Src = tuple[int, int]


@dataclass
class Node:
    """A parsed value with its source range: ``kind`` is ``map`` (``items``: (key, key range, node)),
    ``list`` (``items``: nodes) or ``scalar`` (``value`` and its display ``text``)."""

    kind: str
    start: int
    end: int
    value: Any = None
    text: str = ""
    items: list[Any] = field(default_factory=list)

    @property
    def src(self) -> Src:
        return (self.start, self.end)


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _json_node(s: str, i: int) -> tuple[Node, int]:
    i = _WS.match(s, i).end()  # type: ignore[union-attr]
    c = s[i]
    if c == "{":
        node = Node("map", i, i)
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        members: dict[str, tuple[str, Src, Node]] = {}
        while s[i] != "}":
            key_start = i
            key, kend = json.decoder.scanstring(s, i + 1)  # type: ignore[attr-defined]
            colon = _WS.match(s, kend).end()  # type: ignore[union-attr]
            child, i = _json_node(s, colon + 1)
            members.pop(key, None)  # the last duplicate wins, as in json.loads
            members[key] = (key, (key_start, kend), child)
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if s[i] == ",":
                i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        node.items, node.end = list(members.values()), i + 1
        return node, i + 1
    if c == "[":
        node = Node("list", i, i)
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        while s[i] != "]":
            child, i = _json_node(s, i)
            node.items.append(child)
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if s[i] == ",":
                i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
        node.end = i + 1
        return node, i + 1
    value, end = _DECODER.raw_decode(s, i)
    text = s[i:end] if isinstance(value, (int, float)) and not isinstance(value, bool) else display(value)
    return Node("scalar", i, end, value, text), end


def parse_json(text: str, source: str) -> Node:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    return _json_node(text, 0)[0]


def _yaml_scalar(node: Any) -> Any:
    tag, raw = node.tag.rsplit(":", 1)[-1], node.value
    try:
        if tag == "int":
            return int(raw.replace("_", ""), 0) if not raw.lstrip("+-").startswith("0") or raw == "0" else int(raw)
        if tag == "float":
            return float(raw.replace("_", ""))
    except ValueError:
        return raw
    if tag == "bool":
        return raw.lower() in ("true", "yes", "on", "y")
    if tag == "null":
        return None
    return raw


def _yaml_node(node: Any) -> Node:
    start, end = node.start_mark.index, node.end_mark.index
    kind = type(node).__name__
    if kind == "MappingNode":
        members: dict[str, tuple[str, Src, Node]] = {}
        for k, v in node.value:
            key = str(k.value) if type(k).__name__ == "ScalarNode" else "key"
            if key == "<<":
                continue
            members.pop(key, None)
            members[key] = (key, (k.start_mark.index, k.end_mark.index), _yaml_node(v))
        return Node("map", start, end, items=list(members.values()))
    if kind == "SequenceNode":
        return Node("list", start, end, items=[_yaml_node(v) for v in node.value])
    value = _yaml_scalar(node)
    text = node.value if isinstance(value, (int, float)) and not isinstance(value, bool) else display(value)
    return Node("scalar", start, end, value, text)


def parse_yaml(text: str, source: str) -> Node:
    import yaml

    try:
        docs = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or first_line(exc)
        raise InputError(f"{source}: invalid YAML{where}: {problem}") from None
    if not docs:
        return Node("list", 0, len(text))
    if len(docs) == 1:
        return _yaml_node(docs[0])
    return Node("list", 0, len(text), "document", items=[_yaml_node(d) for d in docs])  # no list: no summary


def _csv_rows(text: str, delim: str, source: str) -> list[list[tuple[str, int, int]]]:
    """Rows of (cell, start, end); RFC 4180 quoting ("" inside quotes, newlines inside quoted cells)."""
    plain = re.compile(f"[^{re.escape(delim)}\r\n]*")
    rows: list[list[tuple[str, int, int]]] = []
    i, n = 0, len(text)
    while i < n:
        row: list[tuple[str, int, int]] = []
        while True:
            if i < n and text[i] == '"':
                j, buf = i + 1, []
                while True:
                    k = text.find('"', j)
                    if k < 0:
                        line = text.count("\n", 0, i) + 1
                        raise InputError(f"{source}: invalid CSV at line {line}: a quoted field is never closed")
                    buf.append(text[j:k])
                    if text.startswith('""', k):
                        buf.append('"')
                        j = k + 2
                        continue
                    break
                row.append(("".join(buf), i, k + 1))
                i = k + 1
                m = plain.match(text, i)
                if m.group(0).strip():  # type: ignore[union-attr]
                    line = text.count("\n", 0, i) + 1
                    raise InputError(f"{source}: invalid CSV at line {line}: text after a closing quote")
                i = m.end()  # type: ignore[union-attr]
            else:
                m = plain.match(text, i)
                row.append((text[i:m.end()], i, m.end()))  # type: ignore[union-attr]
                i = m.end()  # type: ignore[union-attr]
            if i < n and text[i] == delim:
                i += 1
                continue
            i += 2 if text.startswith("\r\n", i) else 1
            break
        if any(cell.strip() for cell, _, _ in row):
            rows.append(row)
    return rows


def parse_csv(text: str, source: str, delim: str = ",") -> Node:
    first = text.split("\n", 1)[0]
    if delim == "," and "," not in first and ";" in first:
        delim = ";"
    rows = _csv_rows(text, delim, source)
    if len(rows) < 2:
        raise InputError(f"{source}: CSV needs a header row and at least one data row")
    header = [(cell.strip() or f"column {c + 1}", (a, b)) for c, (cell, a, b) in enumerate(rows[0])]
    records = []
    for row in rows[1:]:
        items = []
        for (key, key_src), (cell, a, b) in zip(header, row):
            if cell.strip():
                items.append((key, key_src, Node("scalar", a, b, cell, display(cell))))
        records.append(Node("map", row[0][1], row[-1][2], items=items))
    return Node("list", rows[1][0][1], rows[-1][-1][2], "row", header[0][0], items=records)


def display(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def python_literal(node: Node) -> Node:
    """A string holding a Python literal, as some exports write values (``"u'free'"``, ``"True"``,
    ``"{'garage': False, 'lot': True}"``), as the value it holds; every part keeps the string's range."""
    if node.kind != "scalar" or not isinstance(node.value, str):
        return node
    raw = node.value.strip()
    if raw in ("True", "False", "None") or (raw[:1] in "{'\"" or raw[:2] in ("u'", 'u"')) and raw[-1:] in "}'\"":
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return node
    elif raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        return node
    if isinstance(value, dict):
        if not value or not all(isinstance(v, (str, int, float, bool)) or v is None for v in value.values()):
            return node
        return Node("map", node.start, node.end, items=[
            (str(k), node.src, Node("scalar", node.start, node.end, v, display(v))) for k, v in value.items()])
    if isinstance(value, (str, bool)) or value is None:
        return Node("scalar", node.start, node.end, value, display(value))
    return node


def parse_structured(text: str, source: str, suffix: str) -> Node:
    suffix = suffix.lower()
    if suffix == ".json":
        return parse_json(text, source)
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text, source)
    if suffix in (".csv", ".tsv"):
        return parse_csv(text, source, "\t" if suffix == ".tsv" else ",")
    raise ValueError(f"not a structured format: {suffix}")
