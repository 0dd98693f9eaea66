"""``--format json`` (one document with a summary) and ``--format jsonl`` (one compact draft object per line, so
it streams); the schema is :mod:`faithlint.report.records`'. Named so as not to shadow the standard ``json``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from faithlint.report.records import JSON_VERSION, dumps, result_to_dict, summarize
from faithlint.report.registry import Format, register
from faithlint.types import DraftResult


def render_json(results: Sequence[DraftResult], *, color: bool = False,
                contexts: Mapping[str, str] | None = None) -> str:
    doc = {"version": JSON_VERSION, "tool": "faithlint", "results": [result_to_dict(r) for r in results],
           "summary": summarize(results)}
    return dumps(doc, pretty=True) + "\n"


def render_jsonl(results: Sequence[DraftResult], *, color: bool = False,
                 contexts: Mapping[str, str] | None = None) -> str:
    return "".join(dumps(result_to_dict(r)) + "\n" for r in results)


register(Format("json", render_json, "one JSON document: every draft's scores, sentences, findings, and a summary",
                order=20))
register(Format("jsonl", render_jsonl, "one JSON object per draft and line (streams; batch output)", order=30))
