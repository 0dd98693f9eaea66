"""Hover on a checked sentence: verdict, probabilities, faithfulness score, its evidence windows and,
with the monitor on, the monitor's probability, the features that drove it and the words it marked.

With ``unit = "claim"``/``"both"`` the sentence's claims follow, one line each with its verdict; on the words
of a flagged claim (an FL110/FL210 diagnostic) the hover starts with that claim: its triplet, probabilities
and evidence, since a sentence of several claims is otherwise hard to read from its diagnostics alone."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from faithlint.claims.verdicts import claim_findings as core_claim_findings
from faithlint.server.app import DocState, FaithlintServer
from faithlint.server.feature import Feature, Handler
from faithlint.server.text import DocumentIndex
from faithlint.types import ClaimResult, Evidence, Finding, SentenceResult

VERDICT = {"entailment": "supported", "neutral": "not supported", "contradiction": "contradicted"}
MARK = {"entailment": "\u2713", "neutral": "?", "contradiction": "\u2717"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


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


def md_literal(text: str) -> str:
    """Draft text shown literally: a claim's ``*`` or ``[x]`` must not turn into Markdown."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def claim_findings(state: DocState, s: SentenceResult) -> dict[int, Finding]:
    """The claim findings (FL110/FL210) of ``s``, by the index of the claim each reports."""
    outcome = state.outcome
    if outcome is None or outcome.result is None or not s.claims:
        return {}
    return core_claim_findings(s, outcome.result.findings)


def _claim_line(c: ClaimResult, f: Finding | None) -> str:
    said = md_literal(_snippet(c.text, 100))
    line = f"- {MARK.get(c.label, '?')} {VERDICT.get(c.label, c.label)} \u2014 \u201c{said}\u201d ({c.score:.2f})"
    if f is not None:
        line += f" \u00b7 **{f.code}**"
        quote = f.data.get("evidence_quote") if isinstance(f.data, dict) else None
        if quote:
            line += f" \u00b7 evidence: \u201c{md_literal(_snippet(str(quote), 100))}\u201d"
    return line


def _claims_lines(state: DocState, s: SentenceResult) -> list[str]:
    """The sentence's claims, one line each: verdict, score, and for flagged ones the rule and evidence."""
    claims = s.claims
    if claims is None:
        return []
    if not claims:
        return ["", "Claims: none found in this sentence (it was judged whole)."]
    flagged = claim_findings(state, s)
    how = "its verdict is theirs" if s.verdict_from == "claims" else "judged besides the sentence"
    lines = ["", f"Claims ({len(claims)}, {how}):"]
    lines += [_claim_line(c, flagged.get(i)) for i, c in enumerate(claims)]
    return lines


def render_claim(state: DocState, c: ClaimResult, f: Finding) -> str:
    """Markdown for one flagged claim: what was checked, how sure the checker is, against what."""
    p = c.probs
    parts = [f"{name} \u201c{md_literal(value)}\u201d" for name, value in
             (("subject", c.subject), ("predicate", c.predicate), ("object", c.object)) if value]
    lines = [f"**faithlint**: claim {VERDICT.get(c.label, c.label)} ({c.label}) \u00b7 **{f.code}**", "",
             f"\u201c{md_literal(c.text)}\u201d \u2014 " + " \u00b7 ".join(parts), "",
             f"faithfulness **{c.score:.2f}** \u00b7 P(entailment) {p.get('entailment', 0):.2f} \u00b7 "
             f"P(neutral) {p.get('neutral', 0):.2f} \u00b7 P(contradiction) {p.get('contradiction', 0):.2f}"]
    if c.evidence is not None:
        quote = f.data.get("evidence_quote") if isinstance(f.data, dict) else None
        shown = md_literal(_snippet(str(quote or c.evidence.text)))
        lines += ["", f"Evidence {_link(state, c.evidence)}: \u201c{shown}\u201d"]
    return "\n".join(lines)


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
    if s.grounding is not None:  # the score is the checker's verdict weighed with what the context lacks
        lines += ["", f"grounding: {s.grounding.summary()}"]
    windows = sorted(s.windows, key=lambda w: -w.weight)[:3]
    if windows:
        lines += ["", "Evidence windows:"]
        for w in windows:
            best = " (deciding)" if s.evidence is not None and (w.source, w.start) == (s.evidence.source,
                                                                                        s.evidence.start) else ""
            lines.append(f"- {_link(state, w)} weight {w.weight:.2f}{best}: \u201c{_snippet(w.text)}\u201d")
    lines += _claims_lines(state, s)
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


def claims_at(state: DocState, s: SentenceResult, offset: int) -> list[tuple[ClaimResult, Finding]]:
    """The flagged claims of ``s`` whose words cover ``offset``, narrowest first (claims may nest)."""
    claims = s.claims or []
    hits = [(claims[i], f) for i, f in claim_findings(state, s).items() if f.start <= offset <= f.end]
    return sorted(hits, key=lambda cf: (cf[1].end - cf[1].start, cf[1].start))


class Hover(Feature):
    """textDocument/hover on a checked sentence of the current version."""

    def __init__(self, server: FaithlintServer) -> None:
        super().__init__(server)
        # more Markdown for the hovered spot from other features (e.g. the corrections ready there):
        # each gets the draft's state and the hovered code-point span and returns lines (none: nothing to add)
        self.sections: list[Callable[[DocState, int, int], list[str]]] = []

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
        offset = index.offset(params.position)
        s = sentence_at(state, offset)
        if s is None:
            return None
        flagged = claims_at(state, s, offset)
        value, (start, end) = render(state, s), (s.start, s.end)
        if flagged:  # the claim(s) under the cursor first, then the sentence they belong to
            value = "\n\n---\n\n".join([*(render_claim(state, c, f) for c, f in flagged), value])
            start, end = flagged[0][1].start, flagged[0][1].end
        for section in self.sections:
            if lines := section(state, start, end):
                value = "\n".join([value, "", "---", "", *lines])
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
                           range=index.range(start, end))
