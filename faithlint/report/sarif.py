"""``--format sarif``: SARIF 2.1.0 for code scanning (GitHub's upload-sarif and other SARIF viewers): every
registered rule's metadata, one result per finding with a fingerprint that survives edits elsewhere in the file,
and the evidence as a related location."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from faithlint.document.positions import LineIndex
from faithlint.report.records import display_name, dumps, number, span
from faithlint.report.registry import Format, register
from faithlint.rules.registry import RULES
from faithlint.types import DraftResult, Evidence, Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/faithlint/faithlint"
_HELP_URI = "https://github.com/faithlint/faithlint/blob/main/docs/rules.md#{anchor}"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def rule_docs() -> dict[str, tuple[str, str, str]]:
    """code -> (name, default severity, description) of every registered rule (plugins included)."""
    return {code: (r.name, r.severity, r.summary) for code, r in RULES.items()}


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


def render_sarif(results: Sequence[DraftResult], *, color: bool = False,
                 contexts: Mapping[str, str] | None = None) -> str:
    context_indexes: dict[str, LineIndex] = {}
    rules = [_rule_descriptor(code) for code in RULES]
    rule_index = {code: i for i, code in enumerate(RULES)}
    sarif_results = []
    for result in results:
        if not result.findings:
            continue
        index = LineIndex(result.text)
        name = display_name(result)
        uri = _artifact_uri(name)
        seen: Counter[str] = Counter()
        for f in result.findings:
            if f.code not in rule_index:
                rule_index[f.code] = len(rules)
                rules.append(_rule_descriptor(f.code, f.severity))
            line, col, end_line, end_col = span(index, f)
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
                "properties": {"label": f.label, "score": number(f.score)},
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
    return dumps(doc, pretty=True) + "\n"


register(Format("sarif", render_sarif, "SARIF 2.1.0 for code scanning (evidence as related locations)", order=40,
                reads_contexts=True))
