"""Fixes: edits that resolve a finding, proposed by correctors. Shared by ``faithlint check --fix`` and the
language server's quick fixes (as ruff's fixes serve both its CLI and its server).

A :class:`Corrector` looks at one finding, as the JSON-ready dict :func:`finding_data` makes of it, and

* :meth:`~Corrector.propose` says cheaply which fixes it offers (a title, and whether the fix is *safe* or
  *unsafe*), and
* :meth:`~Corrector.edits` computes the edits of the chosen one only when asked.

No model runs in either step: everything a corrector needs is in the finding. Offsets are code points
into the draft text exactly as read (CRLF kept); the server turns them into LSP ranges.

As in ruff, ``faithlint check --fix`` applies *safe* fixes, and *unsafe* ones only with ``--unsafe-fixes``:
fixes that change what the draft says and may be wrong. The FL400 value swap (the context's value put where
the draft has one its evidence lacks) is unsafe: it is offered only where the context's value stands where the
draft's does (:attr:`~faithlint.rules.values.Mismatch.aligned`), and even so it put the labelled correction in
for none of the 8 it offered on Rotowire's development sentences, whose errors are often facts the box score
does not hold (``bench/fix_precision.py``). No built-in fix is safe today. Replacing a sentence with its
evidence, deleting it and suppression comments are offered in the editor only, where a person picks them.

Drafts change only when asked: :func:`write_fixed` is the one place that writes a draft, and it refuses
when the file changed since it was read.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from faithlint.errors import InputError
from faithlint.rules.registry import RULES
from faithlint.types import DraftResult, Finding


def marks_sentence(code: str) -> bool:
    """Whether findings of ``code`` mark a whole sentence (so the sentence may be replaced or deleted)."""
    return code in RULES and RULES[code].scope == "sentence"


# ---------------------------------------------------------------------------------------------- types

@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (code points) with ``new_text``."""

    start: int
    end: int
    new_text: str


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """The text after ``edits`` (non-overlapping, any order): what the editor (or ``--fix``) writes."""
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:e.start] + e.new_text + text[e.end:]
    return text


@dataclass
class Proposal:
    """A fix a corrector offers for one finding; its edits are computed only when it is chosen."""

    title: str
    preferred: bool = False
    safe: bool = False  # applied by ``faithlint check --fix`` (else offered in the editor only)
    args: dict[str, Any] = field(default_factory=dict)
    unsafe: bool = False  # applied by ``--fix --unsafe-fixes``: it changes what the draft says, maybe wrongly


@dataclass(frozen=True)
class Fix:
    """A proposal with its edits: what ``--fix`` applies and ``--diff`` shows."""

    corrector: str
    code: str
    title: str
    edits: tuple[Edit, ...]
    safe: bool
    score: float | None = None  # the re-checked faithfulness score of the corrected text, when a corrector has one
    unsafe: bool = False  # applied with ``--unsafe-fixes`` (see :attr:`Proposal.unsafe`)

    @property
    def span(self) -> tuple[int, int]:
        return min(e.start for e in self.edits), max(e.end for e in self.edits)


@dataclass
class FixTarget:
    """One finding of one draft text, as correctors see it. ``data`` is :func:`finding_data`'s dict."""

    text: str
    data: dict[str, Any]

    def __post_init__(self) -> None:
        if "start_end" not in self.data and isinstance(self.data.get("start"), int) \
                and isinstance(self.data.get("end"), int):
            self.data = {**self.data, "start_end": [self.data["start"], self.data["end"]]}

    @property
    def code(self) -> str:
        return str(self.data.get("code", ""))

    def span(self, key: str) -> tuple[int, int] | None:
        """The ``[start, end]`` under ``key`` if it is a valid span of :attr:`text`, else None."""
        value = self.data.get(key)
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
            a, b = value
            if 0 <= a <= b <= len(self.text):
                return a, b
        return None


@runtime_checkable
class Corrector(Protocol):
    id: str

    def propose(self, target: FixTarget) -> list[Proposal]:
        """Fixes that apply to this finding (cheap: the editor asks on every lightbulb)."""
        ...

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        """The edits of a chosen proposal."""
        ...


class CorrectorRegistry:
    """Correctors by id, in registration order (the order of the editor's menu)."""

    def __init__(self, correctors: Iterable[Corrector] | None = None) -> None:
        self._correctors: dict[str, Corrector] = {}
        for c in correctors or []:
            self.register(c)

    def register(self, corrector: Corrector) -> None:
        self._correctors[corrector.id] = corrector

    def unregister(self, corrector_id: str) -> None:
        self._correctors.pop(corrector_id, None)

    def get(self, corrector_id: str) -> Corrector | None:
        return self._correctors.get(corrector_id)

    def __iter__(self) -> Iterator[Corrector]:
        return iter(list(self._correctors.values()))


def finding_data(f: Finding, text: str) -> dict[str, Any]:
    """What correctors (and hovers) need from a finding, JSON-ready (offsets are code points into ``text``).

    A claim finding (FL110/FL210) also carries its triplet (``claim``) and the ranges of its subject, predicate
    and object (``marks``), so a client can show which fact of the sentence is wrong.
    """
    from faithlint.evidence.pieces import evidence_quote

    sentence = f.data.get("sentence") or [f.start, f.end]
    data: dict[str, Any] = {"code": f.code, "start": f.start, "end": f.end, "sentence": list(sentence),
                            "label": f.label, "score": f.score}
    for key in ("value", "kind", "context_value", "claim", "marks"):
        if key in f.data:
            data[key] = f.data[key]
    if f.evidence is not None:
        sent_text = text[sentence[0]:sentence[1]]
        data["evidence"] = {"source": f.evidence.source, "start": f.evidence.start, "end": f.evidence.end}
        data["quote"] = evidence_quote(f.evidence, sent_text, limit=1_000_000)
    return data


# ---------------------------------------------------------------------------------------------- built-ins

def shorten(s: str, n: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 1].rstrip() + "\u2026"


class ReplaceValue:
    """FL400: put the context's value where the draft has one the evidence does not contain (unsafe: the
    finding names a context value only where it stands where the draft's does, and even then it may not be the
    one the writer meant)."""

    id = "faithlint.replaceValue"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.code != "FL400" or not target.data.get("context_value"):
            return []
        span = target.span("start_end")
        value, new = str(target.data.get("value", "")), str(target.data["context_value"])
        if span is None or target.text[span[0]:span[1]] != value or value == new:
            return []
        title = f"Replace \u2018{shorten(value, 30)}\u2019 with \u2018{shorten(new, 30)}\u2019 from the context"
        return [Proposal(title, preferred=True, unsafe=True)]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("start_end")
        assert span is not None
        return [Edit(span[0], span[1], str(target.data["context_value"]))]


class ReplaceWithEvidence:
    """Replace an unsupported sentence with the evidence sentence that is closest to it."""

    id = "faithlint.replaceWithEvidence"

    def propose(self, target: FixTarget) -> list[Proposal]:
        quote = str(target.data.get("quote") or "").strip()
        if not marks_sentence(target.code) or not quote or target.span("sentence") is None:
            return []
        return [Proposal(f"Replace the sentence with the evidence: \u201c{shorten(quote)}\u201d")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("sentence")
        assert span is not None
        return [Edit(span[0], span[1], " ".join(str(target.data["quote"]).split()))]


_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)]|>)[ \t]*)*")


def _line_start(text: str, offset: int) -> int:
    i = offset
    while i > 0 and text[i - 1] not in "\r\n":
        i -= 1
    return i


def newline_of(text: str) -> str:
    """The text's own line break, so inserted lines match the file's style."""
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    if i < 0 and "\r" in text:
        return "\r"
    return "\n"


def sentence_deletion(text: str, start: int, end: int) -> Edit:
    """Remove a sentence and the spacing that separated it, so no double spaces or blank lines remain.

    A sentence that is all its line holds (after list markers or ``>``) takes the line with it,
    so no empty list item is left behind.
    """
    n = len(text)
    j = end
    while j < n and text[j] in " \t":
        j += 1
    i = start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if j < n and text[j] not in "\r\n":
        return Edit(start, j, "")  # "A. [B. ]C." -> "A. C."
    line_start = _line_start(text, start)
    if not _LINE_PREFIX.fullmatch(text[line_start:start]):
        return Edit(i, j, "")  # "A.[ B.]\n"
    k = j
    if k < n and text[k] == "\r" and k + 1 < n and text[k + 1] == "\n":
        k += 2
    elif k < n:
        k += 1
    return Edit(line_start, k, "")


class DeleteSentence:
    id = "faithlint.deleteSentence"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if not marks_sentence(target.code) or target.span("sentence") is None:
            return []
        return [Proposal("Delete the sentence")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("sentence")
        assert span is not None
        return [sentence_deletion(target.text, *span)]


class DisableForLine:
    """``<!-- faithlint-disable-next-line FLxxx -->`` on its own line above the finding, same indentation."""

    id = "faithlint.disableLine"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.code not in RULES or target.span("start_end") is None:
            return []
        return [Proposal(f"Disable {target.code} for this line")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        span = target.span("start_end")
        assert span is not None
        start = _line_start(target.text, span[0])
        indent = re.match(r"[ \t]*", target.text[start:]).group(0)  # type: ignore[union-attr]
        comment = f"{indent}<!-- faithlint-disable-next-line {target.code} -->{newline_of(target.text)}"
        return [Edit(start, start, comment)]


_FM_OPEN = re.compile(r"\ufeff?---[ \t]*$")
_FM_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*$")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def front_matter_end(text: str) -> int:
    """Offset just after a closed ``---`` front matter block at the top (0 without one)."""
    first = True
    for m in _LINES.finditer(text):
        line = m.group(0)
        if not line:
            break
        content = line.rstrip("\r\n")
        if first:
            if not _FM_OPEN.match(content):
                return 0
            first = False
        elif _FM_CLOSE.match(content):
            return m.end()
    return 0


class DisableForFile:
    """``<!-- faithlint-disable FLxxx -->`` at the top of the draft, after its front matter."""

    id = "faithlint.disableFile"

    def propose(self, target: FixTarget) -> list[Proposal]:
        if target.code not in RULES:
            return []
        return [Proposal(f"Disable {target.code} for this file")]

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        text = target.text
        at = front_matter_end(text)
        nl = newline_of(text)
        prefix = nl if at == len(text) and at > 0 and text[-1] not in "\r\n" else ""
        if at == 0 and text.startswith("\ufeff"):
            at = 1
        return [Edit(at, at, f"{prefix}<!-- faithlint-disable {target.code} -->{nl}")]


def builtin_correctors() -> CorrectorRegistry:
    return CorrectorRegistry([ReplaceValue(), ReplaceWithEvidence(), DeleteSentence(), DisableForLine(),
                              DisableForFile()])


# ---------------------------------------------------------------------------------------------- --fix

def fixes_for(finding: Finding, text: str, correctors: CorrectorRegistry | None = None) -> list[Fix]:
    """Every fix the correctors offer for ``finding``, with its edits."""
    target = FixTarget(text, finding_data(finding, text))
    out: list[Fix] = []
    for c in correctors if correctors is not None else builtin_correctors():
        for p in c.propose(target):
            edits = tuple(c.edits(target, p.args))
            if edits:
                out.append(Fix(c.id, finding.code, p.title, edits, p.safe, unsafe=p.unsafe))
    return out


def safe_fixes(result: DraftResult, correctors: CorrectorRegistry | None = None, unsafe: bool = False) -> list[Fix]:
    """The safe fixes (with ``unsafe``, the unsafe ones too) for ``result``'s findings: the first per finding, none
    overlapping another, in text order."""
    chosen: list[Fix] = []
    for f in result.findings:
        fix = next((x for x in fixes_for(f, result.text, correctors) if x.safe or (unsafe and x.unsafe)), None)
        if fix is None:
            continue
        a, b = fix.span
        if any(a < y and x < b or (a == b == x) for x, y in (c.span for c in chosen)):
            continue  # overlaps a fix already chosen: the next --fix run takes it
        chosen.append(fix)
    chosen.sort(key=lambda x: x.span)
    return chosen


def fix_text(text: str, fixes: Sequence[Fix]) -> str:
    return apply_edits(text, [e for fix in fixes for e in fix.edits])


def unified_diff(before: str, after: str, name: str) -> str:
    """A ``git diff``-style unified diff of one draft (line breaks as they are, CRLF included)."""
    def lines(text: str) -> list[str]:
        out = text.splitlines(keepends=True)
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += "\n\\ No newline at end of file\n"
        return out

    a, b = (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
    return "".join(difflib.unified_diff(lines(before), lines(after), a, b))


_UTF8_BOM = b"\xef\xbb\xbf"


def write_fixed(path: Path, before: str, after: str, display: str | None = None) -> None:
    """Write the fixed draft over ``path`` atomically (a symlink's target is written; mode and BOM kept).

    Refuses with a one-line :class:`InputError` when the file no longer holds ``before`` (it was edited
    while it was being checked) or cannot be written.
    """
    name = display or str(path)
    target = Path(os.path.realpath(path))
    try:
        raw = target.read_bytes()
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError as exc:
        raise InputError(f"{name}: cannot read it again to fix it ({exc.strerror or exc})") from None
    bom = _UTF8_BOM if raw.startswith(_UTF8_BOM) else b""
    try:
        current = raw[len(bom):].decode("utf-8")
    except UnicodeDecodeError:
        current = None
    if current != before:
        raise InputError(f"{name}: the file changed while it was being checked; not fixed (run --fix again)")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".faithlint-fix")
    except OSError as exc:
        raise InputError(f"{name}: cannot write the fixed draft ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(bom + after.encode("utf-8"))
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"{name}: cannot write the fixed draft ({exc.strerror or exc})") from None
        raise
