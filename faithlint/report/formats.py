"""Render :class:`~faithlint.types.DraftResult` lists as text, JSON, JSONL, SARIF or GitHub annotations.

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

import hashlib
import io
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from faithlint.document.positions import LineIndex
from faithlint.rules.registry import RULES
from faithlint.types import SEVERITIES, DraftResult, Evidence, Finding

FORMATS = ("text", "json", "jsonl", "sarif", "github")
JSON_VERSION = 1

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/faithlint/faithlint"
_HELP_URI = "https://github.com/faithlint/faithlint/blob/main/docs/rules.md#{anchor}"



def rule_docs() -> dict[str, tuple[str, str, str]]:
    """code -> (name, default severity, description) of every registered rule (plugins included)."""
    return {code: (r.name, r.severity, r.summary) for code, r in RULES.items()}

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


# -- dicts (json / jsonl, and reused by other tools) ------------------------------------------------


def _num(value: Any, digits: int = 4) -> Any:
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


def _dumps(obj: Any, *, pretty: bool = False) -> str:
    if pretty:
        return json.dumps(_clean(obj), indent=2, ensure_ascii=False, default=_json_default)
    return json.dumps(_clean(obj), separators=(",", ":"), ensure_ascii=False, default=_json_default)


def _span(index: LineIndex, finding: Finding) -> tuple[int, int, int, int]:
    """1-based ``(line, column, end_line, end_column)`` in code points; end column exclusive."""
    line, col = index.position(finding.start)
    end_line, end_col = index.position(max(finding.start, finding.end))
    return line + 1, col + 1, end_line + 1, end_col + 1


def finding_to_dict(result: DraftResult, finding: Finding, index: LineIndex | None = None) -> dict[str, Any]:
    """One finding as a JSON-ready dict (see module docstring).

    Pass ``index`` when converting many findings of the same draft to avoid
    re-indexing the text each time.
    """
    index = index or LineIndex(result.text)
    line, column, end_line, end_column = _span(index, finding)
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
        "score": _num(finding.score),
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
    out["score"] = {key: _num(result.score.get(key)) for key in ("mean", "min", "unsupported_share")}
    out["sentences"] = [s.to_dict() for s in result.sentences]
    out["findings"] = [finding_to_dict(result, f, index) for f in result.findings]
    out["notes"] = list(result.notes)
    out["unchecked"] = [u.to_dict() for u in result.unchecked]
    return out


def summarize(results: list[DraftResult]) -> dict[str, Any]:
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


def _render_json(results: list[DraftResult]) -> str:
    doc = {"version": JSON_VERSION, "tool": "faithlint", "results": [result_to_dict(r) for r in results],
           "summary": summarize(results)}
    return _dumps(doc, pretty=True) + "\n"


def _render_jsonl(results: list[DraftResult]) -> str:
    return "".join(_dumps(result_to_dict(r)) + "\n" for r in results)


# -- text ---------------------------------------------------------------------------------------------


def _display_name(result: DraftResult) -> str:
    return result.path if result.path is not None else (result.id if result.id is not None else "<stdin>")


def _one_line(message: str) -> str:
    """Keep one finding per output line so ``grep``/editors can parse the text format."""
    return re.sub(r"\s*(?:\r\n|\r|\n)\s*", " ", message)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _summary_line(results: list[DraftResult]) -> str:
    s = summarize(results)
    sev = s["by_severity"]
    if not s["findings"]:
        return f"All checked sentences are supported ({_plural(s['drafts'], 'draft')})."
    return (f"Found {_plural(s['findings'], 'finding')} ({_plural(sev['error'], 'error')}, "
            f"{_plural(sev['warning'], 'warning')}, {_plural(sev['info'], 'info')}) "
            f"in {_plural(s['drafts'], 'draft')}.")


def _text_rows(results: list[DraftResult]) -> Iterable[tuple[str, int, int, Finding]]:
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = _display_name(result)
        for finding in result.findings:
            line, column, _, _ = _span(index, finding)
            yield name, line, column, finding


def _render_text(results: list[DraftResult], color: bool) -> str:
    if not color:
        lines = [f"{name}:{line}:{col}: {f.code} [{f.severity}] {_one_line(f.message)}"
                 for name, line, col, f in _text_rows(results)]
        lines.append(_summary_line(results))
        return "\n".join(lines) + "\n"

    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="standard", width=10_000,
                      highlight=False, soft_wrap=True, emoji=False)
    for name, line, col, f in _text_rows(results):
        style = _SEVERITY_STYLE.get(f.severity, "")
        # Text.assemble treats the message literally, so "[...]" in messages is not rich markup.
        console.print(Text.assemble((name, "bold"), f":{line}:{col}: ", (f.code, style), " ",
                                    (f"[{f.severity}]", style), " ", _one_line(f.message)))
    s = summarize(results)
    console.print(Text(_summary_line(results), style="bold red" if s["by_severity"]["error"]
                       else ("bold yellow" if s["findings"] else "bold green")))
    return buf.getvalue()


# -- GitHub Actions workflow commands -----------------------------------------------------------------


def _gh_escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_property(value: str) -> str:
    return _gh_escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _rule_name(code: str) -> str:
    return RULES[code].name if code in RULES else code.lower()


def _render_github(results: list[DraftResult]) -> str:
    out = []
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = result.path if result.path is not None else result.id
        for f in result.findings:
            line, col, end_line, end_col = _span(index, f)
            props = [] if name is None else [f"file={_gh_escape_property(name)}"]
            props += [f"line={line}", f"endLine={end_line}", f"col={col}", f"endColumn={end_col}",
                      f"title={_gh_escape_property(f'{f.code} {_rule_name(f.code)}')}"]
            command = _GITHUB_COMMAND.get(f.severity, "warning")
            out.append(f"::{command} {','.join(props)}::{_gh_escape_data(f.message)}")
    return "".join(line + "\n" for line in out)


# -- SARIF 2.1.0 --------------------------------------------------------------------------------------


def _tool_version() -> str:
    from faithlint.types import VERSION

    return VERSION


def _artifact_uri(name: str) -> str:
    """A relative POSIX URI reference, as GitHub code scanning resolves against the repo root."""
    path = Path(name)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            return path.as_uri()
    return quote(path.as_posix(), safe="/")


def _rule_descriptor(code: str, severity: str | None = None) -> dict[str, Any]:
    name, default_severity, description = rule_docs().get(code, (code.lower(), severity or "warning", code))
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": f"{code} {name}"},
        "fullDescription": {"text": description},
        "helpUri": _HELP_URI.format(anchor=code.lower()),
        "defaultConfiguration": {"level": _SARIF_LEVEL.get(default_severity, "warning")},
    }


def _sentence_text(result: DraftResult, finding: Finding) -> str:
    """The sentence containing the finding (falls back to the finding's own span)."""
    for s in result.sentences:
        if s.start <= finding.start < s.end or s.start == finding.start:
            return s.text
    return result.text[finding.start:finding.end]


def _quote(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _evidence_region(ev: Evidence, contexts: Mapping[str, str] | None,
                     indexes: dict[str, LineIndex]) -> dict[str, Any]:
    """Line/column region when the context text is known, else the raw code-point offsets."""
    text = contexts.get(ev.source) if contexts else None
    if text is None:
        return {"charOffset": ev.start, "charLength": max(0, ev.end - ev.start)}
    index = indexes.get(ev.source) or indexes.setdefault(ev.source, LineIndex(text))
    line, col = index.position(ev.start)
    end_line, end_col = index.position(max(ev.start, ev.end))
    return {"startLine": line + 1, "startColumn": col + 1, "endLine": end_line + 1, "endColumn": end_col + 1}


def _render_sarif(results: list[DraftResult], contexts: Mapping[str, str] | None = None) -> str:
    context_indexes: dict[str, LineIndex] = {}
    rules = [_rule_descriptor(code) for code in RULES]
    rule_index = {code: i for i, code in enumerate(RULES)}
    sarif_results = []
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = _display_name(result)
        uri = _artifact_uri(name)
        seen: Counter[str] = Counter()
        for f in result.findings:
            if f.code not in rule_index:
                rule_index[f.code] = len(rules)
                rules.append(_rule_descriptor(f.code, f.severity))
            line, col, end_line, end_col = _span(index, f)
            # Fingerprint on code + normalized sentence (not line numbers) so alerts survive edits
            # elsewhere in the file; the occurrence counter separates repeated identical sentences.
            key = f"{f.code}\0{' '.join(_sentence_text(result, f).split())}"
            seen[key] += 1
            digest = hashlib.sha256(f"{key}\0{seen[key]}".encode()).hexdigest()[:32]
            item: dict[str, Any] = {
                "ruleId": f.code,
                "ruleIndex": rule_index[f.code],
                "level": _SARIF_LEVEL.get(f.severity, "warning"),
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": line, "startColumn": col, "endLine": end_line,
                                   "endColumn": end_col,
                                   "snippet": {"text": result.text[f.start:max(f.start, f.end)]}},
                    },
                }],
                "partialFingerprints": {"faithlint/v1": digest},
                "properties": {"label": f.label, "score": _num(f.score)},
            }
            if f.evidence is not None:
                ev = f.evidence
                item["relatedLocations"] = [{
                    "id": 1,
                    "physicalLocation": {
                        "artifactLocation": {"uri": _artifact_uri(ev.source)},
                        "region": _evidence_region(ev, contexts, context_indexes),
                    },
                    "message": {"text": f"Evidence: \u201c{_quote(ev.text)}\u201d"},
                }]
            sarif_results.append(item)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "faithlint", "informationUri": INFORMATION_URI,
                                "version": _tool_version(), "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": sarif_results,
        }],
    }
    return _dumps(doc, pretty=True) + "\n"


# -- entry point --------------------------------------------------------------------------------------


def render(results: list[DraftResult], fmt: str, *, color: bool = False,
           contexts: Mapping[str, str] | None = None) -> str:
    """Render ``results`` in ``fmt`` (one of :data:`FORMATS`).

    ``color`` only affects ``text``. ``contexts`` (source -> context text) is optional and only
    used by ``sarif`` to give evidence locations line numbers; results carry offsets alone.
    """
    if fmt == "text":
        return _render_text(results, color)
    if fmt == "json":
        return _render_json(results)
    if fmt == "jsonl":
        return _render_jsonl(results)
    if fmt == "sarif":
        return _render_sarif(results, contexts)
    if fmt == "github":
        return _render_github(results)
    if fmt == "html":  # self-contained visual report (faithlint.report.html); not in FORMATS, which lists text formats
        from faithlint.report.html import render_html

        return render_html(results, contexts=contexts)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
