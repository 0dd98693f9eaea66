"""``--format html``: one self-contained, offline HTML report.

Layout: a summary at the top (drafts, mean/min score, unsupported share, counts by severity and by rule,
an inline-SVG histogram of sentence scores), then one section per draft: the draft text as written with
every sentence coloured by its faithfulness (1-5 scale), rule codes and the score in a tooltip, and beside
it the findings with their evidence plus a detail panel that shows any clicked sentence's verdict,
probabilities and supporting or contradicting evidence. With claims (``unit = "claim"``/``"both"``) each
claim's words are underlined by its finding (FL110 wavy red, FL210 orange, unflagged a faint dotted line),
with the claim, its verdict and score in a tooltip.

Claims of one sentence overlap and nest ("A café run by a bakery" inside "A café run by a bakery opened on
the top floor"), so they cannot each be one element: the sentence is cut at every claim boundary and each
piece is a ``span.cl`` carrying the classes of every claim covering it (the worst one's underline wins in
the CSS). FL400's value marks never overlap each other; claim pieces nest inside them, so the markup is
always well formed.

Safety: every piece of draft or context text goes through :func:`html.escape` (or ``textContent`` in the
small inline script); the per-sentence data is embedded as ``application/json`` with ``<``, ``>`` and
``&`` escaped, so a draft containing ``</script><script>...`` is shown as text. A Content-Security-Policy
meta tag additionally allows only the report's own script (by hash) and no network access at all.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from faithlint.document.positions import LineIndex
from faithlint.report.registry import Format, register
from faithlint.rules.registry import RULES
from faithlint.types import SEVERITIES, SEVERITY_RANK, ClaimResult, DraftResult, Finding, SentenceResult

__all__ = ["render_html"]

_BINS = 10

_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa;--err:#cf222e;--warn:#9a6700;
--info:#0969da;--s1:#ffc9c4;--s2:#ffdcb8;--s3:#fff1b3;--s4:#e1f3c9;--s5:#cdebd5}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.summary{padding:20px 28px;border-bottom:1px solid var(--line);background:var(--panel)}
h1{font-size:22px;margin:0 0 12px}
h2{font-size:17px;margin:0 0 6px;word-break:break-all}
.stats{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.stat{min-width:92px}
.stat .v{font-size:22px;font-weight:600}
.stat .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin-top:4px}
.chip{border:1px solid var(--line);border-radius:12px;padding:1px 9px;font-size:13px;background:#fff}
.chip b{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.sev-error{color:var(--err)}.sev-warning{color:var(--warn)}.sev-info{color:var(--info)}
.hist rect.bar{stroke:#0003;stroke-width:.5}
.hist text{font-size:9px;fill:var(--muted)}
.legend{display:flex;gap:4px;align-items:center;font-size:12px;color:var(--muted);margin-top:10px}
.legend span.sw{display:inline-block;width:26px;height:14px;border-radius:3px;border:1px solid #0002}
nav.toc{padding:10px 28px;border-bottom:1px solid var(--line);font-size:14px}
nav.toc a{margin-right:14px}
section.draft{padding:18px 28px;border-bottom:1px solid var(--line)}
.draft-meta{color:var(--muted);font-size:13px;margin-bottom:10px}
.notes{color:var(--muted);font-size:13px;margin:4px 0 10px;padding-left:18px}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(280px,2fr);gap:22px;align-items:start}
@media (max-width:900px){.cols{grid-template-columns:1fr}}
.text{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid var(--line);border-radius:6px;padding:14px 16px;
font-size:15px;line-height:1.75}
.s{border-radius:3px;padding:1px 0;cursor:pointer}
.s:focus{outline:2px solid var(--info);outline-offset:1px}
.s.sc1{background:var(--s1)}.s.sc2{background:var(--s2)}.s.sc3{background:var(--s3)}
.s.sc4{background:var(--s4)}.s.sc5{background:var(--s5)}
.s.l-contradiction{text-decoration:underline wavy var(--err);text-decoration-thickness:1.5px;text-underline-offset:3px}
.s.l-neutral{text-decoration:underline dotted var(--warn);text-decoration-thickness:2px;text-underline-offset:3px}
.s.sel{outline:2px solid var(--fg);outline-offset:1px}
.s.has-claims{text-decoration:none}
.cl{text-decoration:underline dotted #8c959f;text-decoration-thickness:1px;text-underline-offset:4px}
.cl.cl-fl210{text-decoration:underline solid #d4a72c;text-decoration-thickness:2px}
.cl.cl-fl110{text-decoration:underline wavy var(--err);text-decoration-thickness:1.5px}
.claims{margin:6px 0 0;padding-left:18px}
.claims .ok{color:#1a7f37}.claims .bad{color:var(--err)}.claims .unsure{color:var(--warn)}
mark.v{background:none;border-bottom:2px solid var(--warn);color:inherit;font-weight:600}
.side{position:sticky;top:8px;display:flex;flex-direction:column;gap:10px;max-height:calc(100vh - 16px);overflow:auto}
.detail{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:var(--panel);font-size:14px}
.detail .hint{color:var(--muted)}
.findings{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.finding{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;padding:8px 10px;
font-size:14px}
.finding.fs-error{border-left-color:var(--err)}.finding.fs-warning{border-left-color:#d4a72c}
.finding.fs-info{border-left-color:var(--info)}
.finding.sel{box-shadow:0 0 0 2px var(--fg)}
.finding .head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-weight:700}
.finding .msg{color:var(--fg);margin:4px 0}
.quote{color:var(--muted);font-style:italic}
.evidence{margin-top:6px;border-left:3px solid var(--line);padding:2px 0 2px 8px;font-size:13px;white-space:pre-wrap;
overflow-wrap:anywhere}
.finding .evidence{max-height:14em;overflow:auto}
.finding .evidence .src{position:sticky;top:0;background:var(--bg);padding-bottom:2px}
.evidence .src{display:block;color:var(--muted);font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.evidence mark{background:#fff1b3}
.probs{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;color:var(--muted)}
a{color:var(--info)}
.empty{color:var(--muted);font-style:italic}
footer{padding:14px 28px;color:var(--muted);font-size:12px}
"""

# Inline script: wires clicks/keys on sentences and finding cards to the detail panel. Text is only
# ever inserted with textContent, never innerHTML.
_JS = """
(function(){
"use strict";
var data=JSON.parse(document.getElementById("faithlint-data").textContent);
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
function clear(sel){document.querySelectorAll(sel).forEach(function(x){x.classList.remove("sel");});}
function show(d,i){
 var draft=data.drafts[d];if(!draft)return;var s=draft.sentences[i];if(!s)return;
 var panel=document.getElementById("detail-"+d);if(!panel)return;
 panel.replaceChildren();
 var head=el("div","head");
 head.appendChild(el("b",null,s.label));
 head.appendChild(document.createTextNode(" \\u00b7 score "+s.score+" ("+s.scale+"/5)"));
 panel.appendChild(head);
 panel.appendChild(el("div","probs","entailment "+s.probs.entailment+" \\u00b7 neutral "+s.probs.neutral+
  " \\u00b7 contradiction "+s.probs.contradiction));
 s.findings.forEach(function(f){var r=el("div","msg");r.appendChild(el("span","code sev-"+f.severity,f.code));
  r.appendChild(document.createTextNode(" "+f.message));panel.appendChild(r);});
 if(s.claims){if(!s.claims.length){panel.appendChild(el("div","hint","No claims found in this sentence."));}
  else{panel.appendChild(el("div",null,"Claims"+(s.verdict_from==="claims"?" (the sentence's verdict is theirs)":"")+
   ":"));var ul=el("ul","claims");
  s.claims.forEach(function(c){var li=el("li");li.appendChild(el("span",c.verdict==="supported"?"ok":
   (c.verdict==="contradicted"?"bad":"unsure"),c.verdict));
   li.appendChild(document.createTextNode(" "+c.score+" "));
   if(c.code)li.appendChild(el("span","code sev-"+c.severity,c.code+" "));
   li.appendChild(document.createTextNode("\u00b7 \u201c"+c.text+"\u201d"));ul.appendChild(li);});
  panel.appendChild(ul);}}
 if(s.evidence){var ev=el("div","evidence");
  ev.appendChild(el("span","src",(s.label==="contradiction"?"contradicting":(s.label==="entailment"?
   "supporting":"closest"))+" evidence \\u00b7 "+s.evidence.source));
  ev.appendChild(document.createTextNode(s.evidence.text));panel.appendChild(ev);}
 else{panel.appendChild(el("div","hint","No evidence (no context)."));}
 clear("#draft-"+d+" .s");clear("#draft-"+d+" .finding");
 var span=document.getElementById("d"+d+"-s"+i);if(span)span.classList.add("sel");
 document.querySelectorAll('#draft-'+d+' .finding[data-sentence="'+i+'"]').forEach(function(c){
  c.classList.add("sel");});
}
document.addEventListener("click",function(e){
 var t=e.target.closest?e.target.closest(".s,.finding"):null;if(!t)return;
 var d=t.getAttribute("data-draft"),i=t.getAttribute("data-sentence");if(d===null||i===null||i==="")return;
 show(+d,+i);
 if(t.classList.contains("finding")){var s=document.getElementById("d"+d+"-s"+i);
  if(s&&s.scrollIntoView)s.scrollIntoView({block:"center",behavior:"smooth"});}
});
document.addEventListener("keydown",function(e){
 if(e.key!=="Enter"&&e.key!==" ")return;var t=e.target;
 if(t&&t.classList&&t.classList.contains("s")){e.preventDefault();
  show(+t.getAttribute("data-draft"),+t.getAttribute("data-sentence"));}
});
document.querySelectorAll(".finding .evidence mark").forEach(function(m){var box=m.closest(".evidence");
 if(box)box.scrollTop+=m.getBoundingClientRect().top-box.getBoundingClientRect().top-44;});
function fromHash(){var m=/^#d(\\d+)-s(\\d+)$/.exec(location.hash||"");if(m)show(+m[1],+m[2]);}
window.addEventListener("hashchange",fromHash);
fromHash();
document.documentElement.setAttribute("data-ready","1");
})();
"""


def _e(text: Any) -> str:
    """Escape text for element content and quoted attribute values."""
    return html.escape(str(text), quote=True)


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _json_for_script(obj: Any) -> str:
    """JSON that cannot close or confuse the ``<script type=application/json>`` element it lives in."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _name(result: DraftResult, i: int) -> str:
    if result.path is not None:
        return result.path
    if result.id is not None:
        return result.id
    return f"draft {i + 1}"


def _sentence_of(sentences: Sequence[SentenceResult], finding: Finding) -> int | None:
    for i, s in enumerate(sentences):
        if s.start <= finding.start < s.end or (s.start == finding.start == finding.end):
            return i
    return None


def _mark_quote(evidence_text: str, quote: str) -> str:
    """Escaped evidence text with the quoted sentence (when found verbatim modulo spaces) marked."""
    quote = (quote or "").rstrip("\u2026").strip()
    if quote:
        # the quote is whitespace-normalised: match it against a normalised copy with an offset map
        norm, offsets = [], []
        prev_space = False
        for k, ch in enumerate(evidence_text):
            if ch.isspace():
                if prev_space:
                    continue
                norm.append(" ")
                prev_space = True
            else:
                norm.append(ch)
                prev_space = False
            offsets.append(k)
        at = "".join(norm).find(quote)
        if at >= 0:
            a = offsets[at]
            b = offsets[at + len(quote) - 1] + 1
            return (_e(evidence_text[:a]) + "<mark>" + _e(evidence_text[a:b]) + "</mark>"
                    + _e(evidence_text[b:]))
    return _e(evidence_text)


# -- summary --------------------------------------------------------------------------------------------


def _histogram(scores: Sequence[float]) -> str:
    counts = [0] * _BINS
    for s in scores:
        counts[min(_BINS - 1, max(0, int(s * _BINS)))] += 1
    top = max(counts) if any(counts) else 1
    w, h, pad_l, pad_b, bar = 230, 86, 6, 16, 21
    parts = [f'<svg class="hist" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" role="img" aria-label="Histogram of sentence scores">'
             f"<title>Sentence scores: {len(scores)} sentences</title>"]
    colours = ["#ffc9c4", "#ffc9c4", "#ffdcb8", "#ffdcb8", "#fff1b3", "#fff1b3", "#e1f3c9", "#e1f3c9",
               "#cdebd5", "#cdebd5"]
    for i, n in enumerate(counts):
        bh = 0 if n == 0 else max(2, round((h - pad_b - 12) * n / top))
        x = pad_l + i * (bar + 1)
        y = h - pad_b - bh
        lo, hi = i / _BINS, (i + 1) / _BINS
        parts.append(f'<rect class="bar" data-bin="{i}" data-count="{n}" x="{x}" y="{y}" width="{bar}" '
                     f'height="{bh}" fill="{colours[i]}"><title>score {lo:.1f}\u2013{hi:.1f}: {n} '
                     f'sentence{"" if n == 1 else "s"}</title></rect>')
        if n:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{y - 2}" text-anchor="middle">{n}</text>')
    base = h - pad_b
    parts.append(f'<line x1="{pad_l}" y1="{base}" x2="{pad_l + _BINS * (bar + 1)}" y2="{base}" stroke="#8c959f"/>')
    parts.append(f'<text x="{pad_l}" y="{h - 3}">0</text>')
    parts.append(f'<text x="{pad_l + _BINS * (bar + 1) / 2:.1f}" y="{h - 3}" text-anchor="middle">0.5</text>')
    parts.append(f'<text x="{pad_l + _BINS * (bar + 1)}" y="{h - 3}" text-anchor="end">1</text>')
    parts.append("</svg>")
    return "".join(parts)


def _summary(results: Sequence[DraftResult], title: str) -> str:
    sentences = [s for r in results for s in r.sentences]
    scores = [s.score for s in sentences if _finite(s.score) is not None]
    findings = [f for r in results for f in r.findings]
    by_sev = Counter(f.severity for f in findings)
    by_code = Counter(f.code for f in findings)
    unsupported = [s for s in sentences if s.label != "entailment"]
    mean = sum(scores) / len(scores) if scores else None
    stats = [
        ("drafts", str(len(results))),
        ("sentences", str(len(sentences))),
        ("mean score", _fmt(mean)),
        ("min score", _fmt(min(scores) if scores else None)),
        ("unsupported", f"{len(unsupported)}" + (f" ({100 * len(unsupported) / len(sentences):.0f}%)"
                                                 if sentences else "")),
        ("findings", str(len(findings))),
    ]
    claims = [c for s in sentences for c in s.claims or ()]
    if any(s.claims is not None for s in sentences):
        supported = sum(c.label == "entailment" for c in claims)
        stats.insert(5, ("claims", f"{len(claims)}" + (f" ({100 * supported / len(claims):.0f}% supported)"
                                                       if claims else "")))
    out = [f'<header class="summary" id="summary"><h1>{_e(title)}</h1><div class="stats">']
    for k, v in stats:
        out.append(f'<div class="stat" data-stat="{_e(k)}"><div class="v">{_e(v)}</div><div class="k">{_e(k)}</div>'
                   "</div>")
    out.append('<div class="stat"><div class="k">by severity</div><div class="chips">')
    for sev in SEVERITIES:
        n = by_sev.get(sev, 0)
        out.append(f'<span class="chip sev-{sev}" data-severity="{sev}"><b>{n}</b> {sev}{"" if n == 1 else "s"}</span>')
    out.append('</div><div class="k" style="margin-top:8px">by rule</div><div class="chips" id="by-rule">')
    codes = sorted(set(RULES) | set(by_code))
    for code in codes:
        name = RULES[code].name if code in RULES else code.lower()
        out.append(f'<span class="chip" data-code="{_e(code)}" data-count="{by_code.get(code, 0)}" '
                   f'title="{_e(RULES[code].summary if code in RULES else code)}"><b>{_e(code)}</b> {_e(name)}: '
                   f"{by_code.get(code, 0)}</span>")
    out.append("</div></div>")
    out.append(f'<div class="stat"><div class="k">sentence scores</div>{_histogram(scores)}</div>')
    out.append("</div>")
    out.append('<div class="legend">faithfulness:')
    for i, label in enumerate(("1 contradicted / unsupported", "2", "3", "4", "5 supported"), 1):
        out.append(f'<span class="sw" style="background:var(--s{i})"></span>{_e(label)}')
    out.append("&nbsp; wavy red underline = contradiction, dotted = not supported, "
               "click a sentence for its evidence")
    if any(s.claims is not None for s in sentences):
        out.append("; claims: wavy red = contradicted (FL110), orange = unsupported (FL210), faint dotted = "
                   "not flagged, hover one for its verdict")
    out.append("</div>")
    out.append("</header>")
    return "".join(out)


# -- one draft ------------------------------------------------------------------------------------------


def _sentence_classes(s: SentenceResult) -> str:
    scale = s.scale_1_5 if isinstance(s.scale_1_5, int) and 1 <= s.scale_1_5 <= 5 else 3
    return f"s sc{scale} l-{_e(s.label)}" + (" has-claims" if s.claims else "")  # claims carry the underline


CLAIM_VERDICT = {"entailment": "supported", "neutral": "unsupported", "contradiction": "contradicted"}


def _claim_tip(c: ClaimResult, f: Finding | None) -> str:
    verdict = CLAIM_VERDICT.get(c.label, c.label)
    tip = f"claim \u201c{c.text}\u201d \u00b7 {verdict} \u00b7 score {_fmt(c.score)}"
    return tip + (f" \u00b7 {f.code} [{f.severity}]" if f is not None else "")


class _Claim(NamedTuple):
    start: int
    end: int
    id: str
    claim: ClaimResult
    finding: Finding | None


class _Claims:
    """The claims of one sentence as the draft text shows them: cut into pieces at every claim boundary."""

    def __init__(self, d: int, i: int, s: SentenceResult, fs: Sequence[Finding], lo: int, hi: int) -> None:
        from faithlint.claims.verdicts import claim_findings  # when used: the registry imports every format

        flagged = claim_findings(s, fs)
        # clipped to the sentence as shown; a claim with no words there underlines nothing
        self.claims = [_Claim(max(c.start, lo), min(c.end, hi), f"d{d}-s{i}-c{j}", c, flagged.get(j))
                       for j, c in enumerate(s.claims or ()) if max(c.start, lo) < min(c.end, hi)]

    def render(self, text: str, a: int, b: int) -> str:
        """Escaped ``text[a:b]``, each piece covered by claims wrapped in one ``span.cl``."""
        cuts = sorted({a, b, *(x for c in self.claims for x in (c.start, c.end) if a < x < b)})
        out = []
        for x, y in zip(cuts, cuts[1:]):
            covering = [c for c in self.claims if c.start <= x and y <= c.end]
            out.append(_claim_piece(text[x:y], covering) if covering else _e(text[x:y]))
        return "".join(out)


def _claim_piece(chunk: str, covering: list[_Claim]) -> str:
    verdicts = {f"cl-{CLAIM_VERDICT.get(c.claim.label, 'unsupported')}" for c in covering}
    codes = {f"cl-{c.finding.code.lower()}" for c in covering if c.finding is not None}
    classes = " ".join(["cl", *sorted(verdicts), *sorted(codes)])
    ids = " ".join(c.id for c in covering)
    tip = "\n".join(_claim_tip(c.claim, c.finding) for c in covering)
    return f'<span class="{_e(classes)}" data-claims="{_e(ids)}" title="{_e(tip)}">{_e(chunk)}</span>'


def _draft_text(d: int, result: DraftResult, sentences: list[SentenceResult],
                codes: dict[int, list[Finding]]) -> str:
    """The draft as written, with sentence spans and marks for sub-sentence findings (values)."""
    text = result.text
    out: list[str] = []
    pos = 0
    for i, s in enumerate(sentences):
        start, end = max(s.start, pos), min(s.end, len(text))
        if end <= start:
            continue
        out.append(_e(text[pos:start]))
        fs = codes.get(i, [])
        code_list = sorted({f.code for f in fs})
        tip = " ".join(code_list) + " \u00b7 " if code_list else ""
        tip += f"{s.label} \u00b7 score {_fmt(s.score)} ({s.scale_1_5}/5)"
        for f in fs:
            tip += f"\n{f.code} [{f.severity}] {f.message}"
        out.append(f'<span class="{_sentence_classes(s)}" id="d{d}-s{i}" data-draft="{d}" data-sentence="{i}" '
                   f'data-label="{_e(s.label)}" data-score="{_fmt(s.score, 4)}" data-codes="{_e(" ".join(code_list))}" '
                   f'tabindex="0" title="{_e(tip)}">')
        # marks for findings narrower than the sentence (FL400 values), non-overlapping, in order; claim
        # findings are drawn by their claim's pieces instead
        marks = sorted((f for f in fs if (f.start, f.end) != (s.start, s.end) and start <= f.start < f.end <= end
                        and not (isinstance(f.data, Mapping) and "claim" in f.data)),
                       key=lambda f: (f.start, f.end))
        claims = _Claims(d, i, s, fs, start, end)
        inner = start
        for f in marks:
            if f.start < inner:
                continue
            out.append(claims.render(text, inner, f.start))
            out.append(f'<mark class="v" data-code="{_e(f.code)}" title="{_e(f"{f.code} [{f.severity}] {f.message}")}">'
                       f"{claims.render(text, f.start, f.end)}</mark>")
            inner = f.end
        out.append(claims.render(text, inner, end))
        out.append("</span>")
        pos = end
    out.append(_e(text[pos:]))
    return "".join(out)


def _evidence_where(source: str, start: int, contexts: Mapping[str, str] | None) -> str:
    """``source:line`` when the context file's text is known (evidence offsets index the file), else ``source``."""
    text = contexts.get(source) if contexts else None
    if text is None or not 0 <= start <= len(text):
        return source
    return f"{source}:{text.count(chr(10), 0, start) + 1}"


def _finding_card(d: int, k: int, result: DraftResult, f: Finding, sentence: int | None,
                  sentences: Sequence[SentenceResult], index: LineIndex,
                  contexts: Mapping[str, str] | None = None) -> str:
    line, col = index.position(max(0, min(f.start, len(result.text))))
    sent_text = result.text[f.start:f.end]
    if sentence is not None:
        sent_text = sentences[sentence].text
    name = RULES[f.code].name if f.code in RULES else f.code.lower()
    sev = f.severity if f.severity in SEVERITY_RANK else "warning"
    attrs = f'data-draft="{d}" data-sentence="{"" if sentence is None else sentence}" data-code="{_e(f.code)}"'
    out = [f'<li class="finding fs-{sev}" id="d{d}-f{k}" {attrs} tabindex="0">',
           f'<div class="head"><span class="code sev-{sev}">{_e(f.code)}</span><span>{_e(name)}</span>'
           f'<span class="sev-{sev}">{_e(f.severity)}</span>'
           + (f"<span>score {_fmt(f.score)}</span>" if f.score is not None else "")
           + (f'<a href="#d{d}-s{sentence}">line {line + 1}:{col + 1}</a>' if sentence is not None
              else f"<span>line {line + 1}:{col + 1}</span>")
           + "</div>",
           f'<div class="msg">{_e(f.message)}</div>',
           f'<div class="quote">\u201c{_e(sent_text.strip())}\u201d</div>']
    ev = f.evidence
    if ev is not None:
        label = {"contradiction": "contradicting", "entailment": "supporting"}.get(f.label or "", "closest")
        quote = str(f.data.get("evidence_quote", "")) if isinstance(f.data, Mapping) else ""
        where = _evidence_where(ev.source, ev.start, contexts)
        out.append(f'<div class="evidence"><span class="src">{label} evidence \u00b7 {_e(where)}</span>'
                   f"{_mark_quote(ev.text, quote)}</div>")
    out.append("</li>")
    return "".join(out)


def _draft_section(d: int, result: DraftResult, contexts: Mapping[str, str] | None = None
                   ) -> tuple[str, dict[str, Any]]:
    sentences = sorted(result.sentences, key=lambda s: (s.start, s.end))
    by_sentence: dict[int, list[Finding]] = {}
    mapped: list[tuple[Finding, int | None]] = []
    for f in sorted(result.findings, key=lambda f: (f.start, -SEVERITY_RANK.get(f.severity, 0), f.code)):
        i = _sentence_of(sentences, f)
        mapped.append((f, i))
        if i is not None:
            by_sentence.setdefault(i, []).append(f)
    index = LineIndex(result.text)
    name = _name(result, d)
    sev = Counter(f.severity for f in result.findings)
    score = result.score or {}
    meta = (f"mean score {_fmt(_finite(score.get('mean')))} \u00b7 min {_fmt(_finite(score.get('min')))} \u00b7 "
            f"unsupported share {_fmt(_finite(score.get('unsupported_share')))} \u00b7 "
            f"{len(sentences)} sentence{'' if len(sentences) == 1 else 's'} \u00b7 "
            + ", ".join(f"{sev.get(k, 0)} {k}{'' if sev.get(k, 0) == 1 else 's'}" for k in SEVERITIES))
    out = [f'<section class="draft" id="draft-{d}" data-path="{_e(name)}">', f"<h2>{_e(name)}</h2>",
           f'<div class="draft-meta">{_e(meta)}</div>']
    if result.notes:
        out.append('<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in result.notes) + "</ul>")
    out.append('<div class="cols">')
    out.append(f'<div class="text" id="d{d}-text">{_draft_text(d, result, sentences, by_sentence)}</div>')
    out.append('<aside class="side">')
    out.append(f'<div class="detail" id="detail-{d}" aria-live="polite"><span class="hint">Click a sentence to '
               "see its verdict and evidence.</span></div>")
    if mapped:
        out.append(f'<ol class="findings" id="d{d}-findings">')
        out.extend(_finding_card(d, k, result, f, i, sentences, index, contexts) for k, (f, i) in enumerate(mapped))
        out.append("</ol>")
    elif sentences:
        out.append('<div class="empty">No findings: every checked sentence is supported.</div>')
    else:
        out.append('<div class="empty">No sentences were checked.</div>')
    out.append("</aside></div></section>")
    data = {"path": name, "sentences": [{
        "label": s.label,
        "score": _fmt(s.score),
        "scale": s.scale_1_5,
        "probs": {k: _fmt(_finite(s.probs.get(k))) for k in ("entailment", "neutral", "contradiction")},
        "evidence": {"source": s.evidence.source, "text": s.evidence.text} if s.evidence else None,
        "findings": [{"code": f.code, "severity": f.severity, "message": f.message}
                     for f in by_sentence.get(i, [])],
        **_claims_payload(s, by_sentence.get(i, [])),
    } for i, s in enumerate(sentences)]}
    return "".join(out), data


def _claims_payload(s: SentenceResult, fs: Sequence[Finding]) -> dict[str, Any]:
    """The claims the detail panel lists (none without claim units, so older reports' data is unchanged)."""
    if s.claims is None:
        return {}
    from faithlint.claims.verdicts import claim_findings

    flagged = claim_findings(s, fs)
    return {"verdict_from": s.verdict_from, "claims": [
        {"text": c.text, "verdict": CLAIM_VERDICT.get(c.label, c.label), "score": _fmt(c.score),
         "code": flagged[j].code if j in flagged else None,
         "severity": flagged[j].severity if j in flagged else None} for j, c in enumerate(s.claims)]}


# -- document -------------------------------------------------------------------------------------------


def render_html(results: Sequence[DraftResult], *, contexts: Mapping[str, str] | None = None,
                title: str = "faithlint report") -> str:
    """A complete HTML document for ``results``; ``contexts`` (source -> the context file's text, which
    evidence offsets index) adds the evidence's line to its label."""
    from faithlint.types import VERSION as __version__

    results = list(results)
    sections, data = [], []
    for d, r in enumerate(results):
        section, payload = _draft_section(d, r, contexts)
        sections.append(section)
        data.append(payload)
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{script_hash}'; "
           "base-uri 'none'; form-action 'none'")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<meta name="generator" content="faithlint">',
             f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
             _summary(results, title)]
    if len(results) > 1:
        links = []
        for d, r in enumerate(results):
            n = len(r.findings)
            links.append(f'<a href="#draft-{d}">{_e(_name(r, d))}</a> ({n} finding{"" if n == 1 else "s"})')
        parts.append('<nav class="toc">' + " ".join(links) + "</nav>")
    if not results:
        parts.append('<section class="draft"><div class="empty">No drafts were checked.</div></section>')
    parts.extend(sections)
    parts.append(f"<footer>faithlint {_e(__version__)} \u00b7 self-contained report, no external assets</footer>")
    parts.append(f'<script type="application/json" id="faithlint-data">{_json_for_script({"drafts": data})}'
                 "</script>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "".join(parts) + "\n"


def _render(results: Sequence[DraftResult], *, color: bool = False, contexts: Mapping[str, str] | None = None) -> str:
    return render_html(results, contexts=contexts)


register(Format("html", _render, "one self-contained, offline HTML page: sentences coloured by faithfulness, "
                "findings with their evidence", order=60, reads_contexts=True))
