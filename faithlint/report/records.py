"""Results as JSON-ready dicts: the schema of ``--format json`` and ``jsonl`` (:mod:`faithlint.report.json_format`),
also read by :func:`faithlint.to_dict`, the batch engines' output lines and the other formats.

Offsets in results are code-point offsets into ``DraftResult.text``; every format
derives human positions from them with :class:`~faithlint.document.positions.LineIndex`.

JSON schema (``json`` and ``jsonl``; keys are stable, version ``1``)
-------------------------------------------------------------------
Draft object (:func:`result_to_dict`)::

    {
      "path": str,              # present when the draft came from a file
      "id": str,                # present when the draft has an id (batch mode);
                                # at least one of path/id is present ("path": null if neither is known)
      "score": {"mean": float|null, "min": float|null, "unsupported_share": float|null},
      "sentences": [SentenceResult.to_dict(), ...],
      "findings": [finding, ...],
      "notes": [str, ...],
      "unchecked": [{"start", "end", "text", "reason"}, ...]  # boilerplate not checked (check_boilerplate)
    }

Finding object (:func:`finding_to_dict`)::

    {
      "code": "FL200", "severity": "error"|"warning"|"info", "message": str,
      "start": int, "end": int,           # code-point offsets into the draft text, end exclusive
      "line": int, "column": int,         # 1-based, column in code points
      "end_line": int, "end_column": int, # 1-based, position of the first char after the span
      "lsp_range": {"start": {"line", "character"}, "end": {...}},  # 0-based, UTF-16 units
      "label": str|null, "score": float|null,
      "evidence": {"source", "start", "end", "text"} | null,
      "data": {...}                       # rule-specific payload (values, spans) for quick fixes
    }

``json`` wraps the drafts as ``{"version": 1, "tool": "faithlint", "results": [...],
"summary": {"drafts", "findings", "by_code": {code: n}, "by_severity": {"error", "warning", "info"}}}``;
``jsonl`` prints one compact draft object per line and nothing else, so it streams.
Non-finite floats are written as ``null`` so every output is strict JSON.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from faithlint.document.positions import LineIndex
from faithlint.types import SEVERITIES, DraftResult, Finding

JSON_VERSION = 1


def number(value: Any, digits: int = 4) -> Any:
    """Round floats for stable output; NaN/inf become None so the JSON stays strict."""
    if isinstance(value, bool) or not isinstance(value, float | int):
        return value
    if isinstance(value, float):
        return round(value, digits) if math.isfinite(value) else None
    return value


def _clean(value: Any) -> Any:
    """Recursively replace non-finite floats (``json`` would emit invalid ``NaN``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    """Serialize what rule payloads may reasonably carry (sets, paths, objects with to_dict)."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def dumps(obj: Any, *, pretty: bool = False) -> str:
    """Strict JSON (non-finite floats as ``null``, sets sorted), indented or compact."""
    if pretty:
        return json.dumps(_clean(obj), indent=2, ensure_ascii=False, default=_json_default)
    return json.dumps(_clean(obj), separators=(",", ":"), ensure_ascii=False, default=_json_default)


def span(index: LineIndex, finding: Finding) -> tuple[int, int, int, int]:
    """1-based ``(line, column, end_line, end_column)`` in code points; end column exclusive."""
    line, col = index.position(finding.start)
    end_line, end_col = index.position(max(finding.start, finding.end))
    return line + 1, col + 1, end_line + 1, end_col + 1


def display_name(result: DraftResult) -> str:
    """The draft's path, else its id, else ``<stdin>``."""
    return result.path if result.path is not None else (result.id if result.id is not None else "<stdin>")


def finding_to_dict(result: DraftResult, finding: Finding, index: LineIndex | None = None) -> dict[str, Any]:
    """One finding as a JSON-ready dict (see module docstring).

    Pass ``index`` when converting many findings of the same draft to avoid
    re-indexing the text each time.
    """
    index = index or LineIndex(result.text)
    line, column, end_line, end_column = span(index, finding)
    return {
        "code": finding.code,
        "severity": finding.severity,
        "message": finding.message,
        "start": finding.start,
        "end": finding.end,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "lsp_range": index.lsp_range(finding.start, max(finding.start, finding.end)),
        "label": finding.label,
        "score": number(finding.score),
        "evidence": finding.evidence.to_dict() if finding.evidence else None,
        "data": dict(finding.data),
    }


def result_to_dict(result: DraftResult) -> dict[str, Any]:
    """One draft as a JSON-ready dict; only the known one(s) of path/id are included."""
    index = LineIndex(result.text)
    out: dict[str, Any] = {}
    if result.path is not None:
        out["path"] = result.path
    if result.id is not None:
        out["id"] = result.id
    if not out:
        out["path"] = None
    out["score"] = {key: number(result.score.get(key)) for key in ("mean", "min", "unsupported_share")}
    out["sentences"] = [s.to_dict() for s in result.sentences]
    out["findings"] = [finding_to_dict(result, f, index) for f in result.findings]
    out["notes"] = list(result.notes)
    out["unchecked"] = [u.to_dict() for u in result.unchecked]
    return out


def summarize(results: Sequence[DraftResult]) -> dict[str, Any]:
    """Counts used by the ``json`` summary and the ``text`` footer."""
    findings = [f for r in results for f in r.findings]
    by_severity: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    by_severity.update(Counter(f.severity for f in findings))
    return {
        "drafts": len(results),
        "findings": len(findings),
        "by_code": dict(sorted(Counter(f.code for f in findings).items())),
        "by_severity": by_severity,
    }
