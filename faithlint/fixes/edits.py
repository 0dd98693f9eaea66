"""Fixes: edits that resolve a finding, applied by ``faithlint check --fix`` and offered as the language server's
quick fixes (as ruff's fixes serve both its CLI and its server). This module is the machinery; the fixes themselves
are built by the rules (:meth:`faithlint.rules.base.Rule.fixes`; their types are in :mod:`faithlint.rules.fix`),
plus suppression comments for any rule (:mod:`faithlint.fixes.suppressions`).

A :class:`Corrector` looks at one finding, as the JSON-ready dict :func:`finding_data` makes of it, and

* :meth:`~Corrector.propose` says cheaply which fixes it offers (a title, and its :class:`Applicability`), and
* :meth:`~Corrector.edits` computes the edits of the chosen one only when asked.

No model runs in either step: everything a corrector needs is in the finding. Offsets are code points
into the draft text exactly as read (CRLF kept); the server turns them into LSP ranges.

As in ruff, ``faithlint check --fix`` applies *safe* fixes, and *unsafe* ones only with ``--unsafe-fixes``:
fixes that change what the draft says and may be wrong, such as FL400's value swap. No built-in fix is safe
today. Replacing a sentence with its evidence, deleting it and suppression comments are *display-only*: offered in
the editor only, where a person picks them.

Drafts change only when asked: :func:`write_fixed` is the one place that writes a draft, and it refuses
when the file changed since it was read.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from faithlint.errors import InputError
from faithlint.fixes.suppressions import DisableForFile, DisableForLine
from faithlint.rules.fix import Applicability as Applicability
from faithlint.rules.fix import Corrector as Corrector
from faithlint.rules.fix import Edit as Edit
from faithlint.rules.fix import Fix as Fix
from faithlint.rules.fix import FixData as FixData
from faithlint.rules.fix import FixTarget as FixTarget
from faithlint.rules.fix import Proposal as Proposal
from faithlint.rules.fix import apply_edits as apply_edits
from faithlint.rules.fix import shorten as shorten
from faithlint.rules.registry import RULES
from faithlint.types import DraftResult, Finding


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


class RuleFix:
    """The fixes of one id that rules build (:meth:`~faithlint.rules.base.Rule.fixes`): offered for a finding whose
    rule has a fix of that id, by the rule's own."""

    def __init__(self, fix_id: str) -> None:
        self.id = fix_id

    def _of(self, target: FixTarget) -> Corrector | None:
        rule = RULES.get(target.code)
        return next((c for c in rule.fixes() if c.id == self.id), None) if rule is not None else None

    def propose(self, target: FixTarget) -> list[Proposal]:
        fix = self._of(target)
        return fix.propose(target) if fix is not None else []

    def edits(self, target: FixTarget, args: dict[str, Any]) -> list[Edit]:
        fix = self._of(target)
        return fix.edits(target, args) if fix is not None else []


def builtin_correctors() -> CorrectorRegistry:
    """The rules' fixes (each id once, in the rules' order), then the suppression comments."""
    ids = dict.fromkeys(c.id for rule in RULES.values() for c in rule.fixes())
    return CorrectorRegistry([*(RuleFix(i) for i in ids), DisableForLine(), DisableForFile()])


def finding_data(f: Finding, text: str) -> FixData:
    """What correctors (and hovers) need from a finding, JSON-ready (offsets are code points into ``text``).

    A claim finding (FL110/FL210) also carries its triplet (``claim``) and the ranges of its subject, predicate
    and object (``marks``), so a client can show which fact of the sentence is wrong. Every key the rule put in
    :attr:`Finding.data` comes along (FL400's ``value``, ``kind`` and ``context_value``; a plugin rule's own, for its
    fixes), but none replaces a key set here, and ``evidence_quote`` is left out (``quote`` is the evidence's
    sentence in full).
    """
    from faithlint.evidence.pieces import evidence_quote

    sentence = f.data.get("sentence") or [f.start, f.end]
    data: FixData = {"code": f.code, "start": f.start, "end": f.end, "sentence": list(sentence),
                     "label": f.label, "score": f.score}
    given = cast(Mapping[str, Any], f.data)
    data.update(cast(FixData, {k: v for k, v in given.items() if k not in data and k != "evidence_quote"}))
    if f.evidence is not None:
        sent_text = text[sentence[0]:sentence[1]]
        data["evidence"] = {"source": f.evidence.source, "start": f.evidence.start, "end": f.evidence.end}
        data["quote"] = evidence_quote(f.evidence, sent_text, limit=1_000_000)
    return data


# ---------------------------------------------------------------------------------------------- --fix

def fixes_for(finding: Finding, text: str, correctors: CorrectorRegistry | None = None) -> list[Fix]:
    """Every fix the correctors offer for ``finding``, with its edits."""
    target = FixTarget(text, finding_data(finding, text))
    out: list[Fix] = []
    for c in correctors if correctors is not None else builtin_correctors():
        for p in c.propose(target):
            edits = tuple(c.edits(target, p.args))
            if edits:
                out.append(Fix(c.id, finding.code, p.title, edits, p.applicability))
    return out


def applicable_fixes(result: DraftResult, at: Applicability = Applicability.SAFE,
                     correctors: CorrectorRegistry | None = None) -> list[Fix]:
    """The fixes for ``result``'s findings that apply ``at`` an applicability (safe: ``--fix``; unsafe: ``--fix
    --unsafe-fixes``, the safe ones too): the first per finding, none overlapping another, in text order."""
    chosen: list[Fix] = []
    correctors = correctors if correctors is not None else builtin_correctors()  # once, not once per finding
    for f in result.findings:
        fix = next((x for x in fixes_for(f, result.text, correctors) if x.applicability.applies_at(at)), None)
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
