"""Hover on a checked sentence: verdict, probabilities, faithfulness score, its evidence windows and,
with the monitor on, the monitor's probability, the features that drove it and the words it marked."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from faithlint.server.app import DocState
from faithlint.server.feature import Feature, Handler
from faithlint.server.text import DocumentIndex
from faithlint.types import Evidence, SentenceResult

VERDICT = {"entailment": "supported", "neutral": "not supported", "contradiction": "contradicted"}


def _link(state: DocState, ev: Evidence) -> str:
    outcome = state.outcome
    path: Path | None = outcome.context_files.get(ev.source) if outcome else None
    line = 1
    doc = outcome.context_docs.get(ev.source) if outcome is not None else None
    if doc is not None and path is not None:  # JSON/YAML/CSV: the line of the value the evidence came from
        line = DocumentIndex(doc.source_text).lines.position(doc.to_source(ev.start, ev.end)[0])[0] + 1
    label = f"{ev.source}:{line}"
    if path is None:
        return label
    uri = from_fs_path(str(path)) or path.as_uri()
    return f"[{label}]({uri}#L{line})"


def _snippet(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def _monitor_lines(s: SentenceResult) -> list[str]:
    """The monitor's section (``s.monitor``: a ``MonitorVerdict``, read by attribute so the server imports
    nothing of the monitor): its P(faithful), the features that drove it and the words it marked."""
    m = s.monitor
    head = f"Monitor ({m.aggregator}): P(faithful) {m.p:.2f}"
    drivers = list(m.drivers or [])
    if not drivers:
        lines = ["", head]
    else:  # drivers come from the logistic regression whichever aggregator gave P
        lines = ["", head + " \u00b7 drivers" + ("" if m.aggregator == "lr" else " (logistic regression)") + ":"]
        for name, value, push in drivers:
            way = "supported" if push > 0 else "unsupported" if push < 0 else "neither"
            lines.append(f"- `{name}` {value:.2f} \u2192 {way} ({push:+.2f})")
    words = [" ".join(s.text[a:b].split()) for a, b in (m.marks or []) if 0 <= a < b <= len(s.text)]
    words = [w for w in words if w]
    if words:
        lines += ["", "Not raised by the context: " + ", ".join(f"\u201c{_snippet(w, 60)}\u201d" for w in words)]
    return lines


def render(state: DocState, s: SentenceResult) -> str:
    """Markdown for one sentence's verdict (kept short: hovers are read while typing)."""
    p = s.probs
    lines = [
        f"**faithlint**: {VERDICT.get(s.label, s.label)} ({s.label})",
        "",
        f"faithfulness **{s.score:.2f}** \u00b7 **{s.scale_1_5}/5** \u00b7 "
        f"P(entailment) {p.get('entailment', 0):.2f} \u00b7 P(neutral) {p.get('neutral', 0):.2f} \u00b7 "
        f"P(contradiction) {p.get('contradiction', 0):.2f}",
    ]
    windows = sorted(s.windows, key=lambda w: -w.weight)[:3]
    if windows:
        lines += ["", "Evidence windows:"]
        for w in windows:
            best = " (deciding)" if s.evidence is not None and (w.source, w.start) == (s.evidence.source,
                                                                                        s.evidence.start) else ""
            lines.append(f"- {_link(state, w)} weight {w.weight:.2f}{best}: \u201c{_snippet(w.text)}\u201d")
    if s.monitor is not None:
        lines += _monitor_lines(s)
    return "\n".join(lines)


def sentence_at(state: DocState, offset: int) -> SentenceResult | None:
    outcome = state.outcome
    if outcome is None or outcome.result is None:
        return None
    for s in outcome.result.sentences:
        if s.start <= offset < s.end or offset == s.end:
            return s
    return None


class Hover(Feature):
    """textDocument/hover on a checked sentence of the current version."""

    def handlers(self) -> list[Handler]:
        return [Handler(types.TEXT_DOCUMENT_HOVER, self.hover)]

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        ls = self.server
        uri = params.text_document.uri
        state = ls.docs.get(uri)
        doc = ls.text_document(uri)
        if state is None or doc is None or state.outcome is None or state.checked_version != doc.version:
            return None
        index = DocumentIndex(state.outcome.snapshot.text, ls.workspace.position_codec)
        s = sentence_at(state, index.offset(params.position))
        if s is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=render(state, s)),
                           range=index.range(s.start, s.end))
