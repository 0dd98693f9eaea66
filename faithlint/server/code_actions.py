"""Quick fixes for faithlint diagnostics, from a registry of providers.

Providers are pluggable so later fixers (RAC-style rewriting, FOD-style deletion of
unsupported facts, ...) can register without touching this module::

    server.code_actions.register(MyProvider())

A provider proposes actions for one diagnostic from its ``data`` alone (no model runs while the
lightbulb menu opens) and computes the edit only when the client resolves the chosen action
(``codeAction/resolve``; eagerly for clients without resolve support). Edits are code-point
spans on the document version the diagnostic was computed for, sent as a versioned
``WorkspaceEdit`` (``documentChanges`` with the version) so the editor refuses to apply them to
a newer text; the server itself refuses to propose or resolve actions for a stale version.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from faithlint.rules.catalog import RULES
from faithlint.server.app import FaithlintServer
from faithlint.server.text import DocumentIndex

SENTENCE_RULES = ("FL100", "FL200", "FL300")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (code points) with ``new_text``."""

    start: int
    end: int
    new_text: str


def apply_edits(text: str, edits: list[Edit]) -> str:
    """The text after ``edits`` (non-overlapping, any order): what the editor will show."""
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:e.start] + e.new_text + text[e.end:]
    return text


@dataclass
class ActionContext:
    """One diagnostic of one document version, as a provider sees it."""

    uri: str
    version: int | None
    text: str
    data: dict[str, Any]  # the diagnostic's data (see diagnostics.finding_data)
    index: DocumentIndex | None = None

    @property
    def code(self) -> str:
        return str(self.data.get("code", ""))

    def span(self, key: str) -> tuple[int, int] | None:
        value = self.data.get(key)
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
            a, b = value
            if 0 <= a <= b <= len(self.text):
                return a, b
        return None


@dataclass
class Proposal:
    title: str
    kind: str = types.CodeActionKind.QuickFix
    preferred: bool = False
    args: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class CodeActionProvider(Protocol):
    id: str

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        """Actions that apply to this diagnostic (cheap: called on every lightbulb)."""

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        """The edit for a chosen proposal (called on resolve)."""


class CodeActionRegistry:
    """Providers by id, in registration order (which is the order of the menu)."""

    def __init__(self, providers: list[CodeActionProvider] | None = None) -> None:
        self._providers: dict[str, CodeActionProvider] = {}
        for p in providers or []:
            self.register(p)

    def register(self, provider: CodeActionProvider) -> None:
        self._providers[provider.id] = provider

    def unregister(self, provider_id: str) -> None:
        self._providers.pop(provider_id, None)

    def get(self, provider_id: str) -> CodeActionProvider | None:
        return self._providers.get(provider_id)

    def __iter__(self) -> Iterator[CodeActionProvider]:
        return iter(list(self._providers.values()))


# ---------------------------------------------------------------------------------------------- built-ins

def _short(s: str, n: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 1].rstrip() + "\u2026"


class ReplaceValue:
    """FL400: put the context's value where the draft has one the evidence does not contain."""

    id = "faithlint.replaceValue"

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        if ctx.code != "FL400" or not ctx.data.get("context_value"):
            return []
        span = ctx.span("start_end")
        value, new = str(ctx.data.get("value", "")), str(ctx.data["context_value"])
        if span is None or ctx.text[span[0]:span[1]] != value or value == new:
            return []
        return [Proposal(f"Replace \u2018{_short(value, 30)}\u2019 with \u2018{_short(new, 30)}\u2019 from the context",
                         preferred=True)]

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        span = ctx.span("start_end")
        assert span is not None
        return [Edit(span[0], span[1], str(ctx.data["context_value"]))]


class ReplaceWithEvidence:
    """Replace an unsupported sentence with the evidence sentence that is closest to it."""

    id = "faithlint.replaceWithEvidence"

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        quote = str(ctx.data.get("quote") or "").strip()
        if ctx.code not in SENTENCE_RULES or not quote or ctx.span("sentence") is None:
            return []
        return [Proposal(f"Replace the sentence with the evidence: \u201c{_short(quote)}\u201d")]

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        span = ctx.span("sentence")
        assert span is not None
        return [Edit(span[0], span[1], " ".join(str(ctx.data["quote"]).split()))]


_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)]|>)[ \t]*)*")


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

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        if ctx.code not in SENTENCE_RULES or ctx.span("sentence") is None:
            return []
        return [Proposal("Delete the sentence")]

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        span = ctx.span("sentence")
        assert span is not None
        return [sentence_deletion(ctx.text, *span)]


def _line_start(text: str, offset: int) -> int:
    i = offset
    while i > 0 and text[i - 1] not in "\r\n":
        i -= 1
    return i


def _newline(text: str) -> str:
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    if i < 0 and "\r" in text:
        return "\r"
    return "\n"


class DisableForLine:
    """``<!-- faithlint-disable-next-line FLxxx -->`` on its own line above the finding, same indentation."""

    id = "faithlint.disableLine"

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        if ctx.code not in RULES or ctx.span("start_end") is None:
            return []
        return [Proposal(f"Disable {ctx.code} for this line")]

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        span = ctx.span("start_end")
        assert span is not None
        start = _line_start(ctx.text, span[0])
        indent = re.match(r"[ \t]*", ctx.text[start:]).group(0)  # type: ignore[union-attr]
        comment = f"{indent}<!-- faithlint-disable-next-line {ctx.code} -->{_newline(ctx.text)}"
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

    def propose(self, ctx: ActionContext) -> list[Proposal]:
        if ctx.code not in RULES:
            return []
        return [Proposal(f"Disable {ctx.code} for this file")]

    def edits(self, ctx: ActionContext, args: dict[str, Any]) -> list[Edit]:
        at = front_matter_end(ctx.text)
        nl = _newline(ctx.text)
        prefix = nl if at == len(ctx.text) and at > 0 and ctx.text[-1] not in "\r\n" else ""
        if at == 0 and ctx.text.startswith("\ufeff"):
            at = 1
        return [Edit(at, at, f"{prefix}<!-- faithlint-disable {ctx.code} -->{nl}")]


def builtin_registry() -> CodeActionRegistry:
    return CodeActionRegistry([ReplaceValue(), ReplaceWithEvidence(), DeleteSentence(), DisableForLine(),
                               DisableForFile()])


def _prepare(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    if isinstance(out.get("start"), int) and isinstance(out.get("end"), int):
        out["start_end"] = [out["start"], out["end"]]
    return out


# ---------------------------------------------------------------------------------------------- wiring

def _supports_resolve(ls: FaithlintServer) -> bool:
    ca = ls.client_capabilities.text_document.code_action if ls.client_capabilities.text_document else None
    return bool(ca and ca.resolve_support and "edit" in (ca.resolve_support.properties or []))


def _versioned(ls: FaithlintServer) -> bool:
    ws = ls.client_capabilities.workspace
    return bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)


def workspace_edit(ls: FaithlintServer, ctx: ActionContext, edits: list[Edit]) -> types.WorkspaceEdit:
    index = ctx.index or DocumentIndex(ctx.text, ls.workspace.position_codec)
    text_edits = [types.TextEdit(range=index.range(e.start, e.end), new_text=e.new_text) for e in edits]
    if _versioned(ls):
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=ctx.uri, version=ctx.version),
            edits=text_edits)])
    return types.WorkspaceEdit(changes={ctx.uri: text_edits})


def _context(ls: FaithlintServer, uri: str, data: Any) -> ActionContext | None:
    """An ActionContext for the diagnostic ``data`` if it is for the current version of an open draft."""
    doc = ls.text_document(uri)
    if doc is None or not isinstance(data, dict) or data.get("uri") != uri or data.get("version") != doc.version:
        return None
    return ActionContext(uri, doc.version, doc.source, _prepare(data),
                         DocumentIndex(doc.source, ls.workspace.position_codec))


def register(ls: FaithlintServer) -> None:
    ls.code_actions = builtin_registry()

    @ls.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=True))
    def code_action(ls: FaithlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        if ls.text_document(uri) is None:
            return None
        only = params.context.only
        if only and not any(types.CodeActionKind.QuickFix.startswith(k) for k in only):
            return []
        actions: list[types.CodeAction] = []
        resolve = _supports_resolve(ls)
        for diag in params.context.diagnostics:
            if diag.source != "faithlint":
                continue
            ctx = _context(ls, uri, diag.data)
            if ctx is None:
                continue
            for provider in ls.code_actions:
                for p in provider.propose(ctx):
                    action = types.CodeAction(
                        title=p.title, kind=p.kind, diagnostics=[diag], is_preferred=p.preferred or None,
                        data={"provider": provider.id, "uri": uri, "version": ctx.version, "args": p.args,
                              "diagnostic": diag.data})
                    if not resolve:
                        action.edit = workspace_edit(ls, ctx, provider.edits(ctx, p.args))
                    actions.append(action)
        return actions

    @ls.feature(types.CODE_ACTION_RESOLVE)
    def resolve(ls: FaithlintServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        provider = ls.code_actions.get(str(data.get("provider")))
        uri = str(data.get("uri", ""))
        if provider is None:
            raise JsonRpcInvalidParams(f"unknown faithlint code action {data.get('provider')!r}")
        doc = ls.text_document(uri)
        if doc is None:
            raise JsonRpcInvalidParams(f"{uri} is not open")
        if data.get("version") != doc.version:
            raise JsonRpcContentModified(f"the document changed (version {doc.version}, action for version "
                                         f"{data.get('version')}); wait for faithlint to re-check it")
        ctx = _context(ls, uri, data.get("diagnostic"))
        if ctx is None:
            raise JsonRpcContentModified("the diagnostic is out of date; wait for faithlint to re-check the draft")
        action.edit = workspace_edit(ls, ctx, provider.edits(ctx, data.get("args") or {}))
        return action
