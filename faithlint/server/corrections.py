"""The model-running correctors in the editor: "Correct from the context (RAC)" and "Regenerate faithfully (FOD)".

The flow, for a faithlint diagnostic of a flagged sentence (FL100/FL110/FL200/FL210/FL400):

1. **Menu.** The code-action list offers both methods as quick fixes whose ``command`` is ``faithlint.correct``
   with ``{uri, version, method, range, code}`` (``range``: the diagnostic's code-point span), to clients that
   can apply an edit the server sends (``workspace.applyEdit``). Nothing runs while the menu opens.
2. **Run.** ``workspace/executeCommand faithlint.correct`` refuses a stale version (ContentModified), then
   runs the corrector (:func:`faithlint.fixes.correctors.run.corrector_for`, the
   :class:`~faithlint.fixes.correctors.base.SentenceCorrector` protocol) on the checker's worker thread -- the
   models are not made for concurrent use, and the protocol thread keeps answering -- on the same text,
   context, query and settings a check reads (:meth:`~faithlint.server.app.FaithlintServer.linter_for_snapshot`,
   :func:`~faithlint.server.checking.prepare_snapshot`). A cancellable ``$/progress`` shows the corrector's
   messages (the request's ``workDoneToken``, else a token created with ``window/workDoneProgress/create``).
   ``$/cancelRequest``, ``window/workDoneProgress/cancel`` and an edit of the draft set the corrector's cancel
   event; a cancelled run changes nothing and answers ``{"cancelled": true}`` (the client that sent
   ``$/cancelRequest`` gets pygls' RequestCancelled error instead, as LSP says).
3. **Result.** The command answers ``{"method", "version", "candidates": [{"title", "edit", "score"?}], "notes"}``
   and the candidates are kept for that version of the draft: until it changes, the same diagnostic's
   code-action list offers them as ready quick fixes (``Apply RAC: “$25 million” → “$12.5 million”``) and a
   hover over them shows them. The server also asks (``window/showMessageRequest``: the preview, one "Apply"
   per candidate and "Dismiss"); a chosen candidate is sent with ``workspace/applyEdit`` as a versioned edit,
   after checking the draft is still the version it was computed for. With no candidate the notes are shown.
4. **Errors.** A model or backend failure (an unreachable LLM endpoint) is one ``window/showMessage`` Error
   line and an LSP error answer; the server keeps serving.

Drafts change only through the user's choice: the server never applies an edit the user did not pick.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInvalidParams

from faithlint.errors import Cancelled, FaithlintError
from faithlint.fixes.correctors.base import FLAGS
from faithlint.fixes.correctors.base import Corrections as Corrected
from faithlint.fixes.edits import Edit, shorten
from faithlint.server.app import DocState, FaithlintServer
from faithlint.server.checking import Snapshot, prepare_snapshot
from faithlint.server.code_actions import ActionContext, CodeActions
from faithlint.server.diagnostics import SOURCE
from faithlint.server.feature import Command, Feature
from faithlint.server.hover import Hover, md_literal
from faithlint.server.rpc import COMMAND_PARAMS

log = logging.getLogger(__name__)

CORRECT = "faithlint.correct"
METHODS = {"rac": ("RAC", "Correct from the context (RAC)"), "fod": ("FOD", "Regenerate faithfully (FOD)")}
CHANGED = "the draft changed while faithlint corrected it; run the action again"
DISMISS = "Dismiss"
CREATE_TIMEOUT_S = 5.0


class CorrectionFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid but the correction could not run (a model or backend error)."""

    CODE = -32803


CorrectorFactory = Callable[[str, Any], Any]


def default_corrector(method: str, linter: Any) -> Any:
    from faithlint.fixes.correctors.run import corrector_for

    return corrector_for(method, linter)


# ---------------------------------------------------------------------------------------------- candidates

@dataclass
class Candidate:
    """One correction of one draft version, ready to apply."""

    method: str  # "rac" | "fod"
    version: int | None
    edits: tuple[Edit, ...]
    preview: str  # “old” → “new”, per edit: the words that differ
    full: str = ""  # the same with the replaced and the new text whole (the popup's message)
    score: float | None = None
    fix_title: str = ""

    @property
    def span(self) -> tuple[int, int]:
        return min(e.start for e in self.edits), max(e.end for e in self.edits)

    @property
    def title(self) -> str:
        """The quick fix's title: the method, the score when there is one, and the change."""
        score = f" ({self.score:.2f})" if self.score is not None else ""
        return f"Apply {METHODS[self.method][0]}{score}: {self.preview}"


_WORD = re.compile(r"\S+")


def _changed(old: str, new: str) -> tuple[str, str]:
    """``old`` and ``new`` less the words they share at both ends but one (``…`` marks what was left out), so a
    rewritten sentence's preview shows what changed: ``“…cost $25 million and…” → “…cost $12.5 million and…”``."""
    a, b = _WORD.findall(old), _WORD.findall(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    head, tail = max(0, head - 1), max(0, tail - 1)  # a shared word either side, to see where the change is
    if head == tail == 0:
        return old, new

    def cut(words: list[str]) -> str:
        return "\u2026" * (head > 0) + " ".join(words[head:len(words) - tail]) + "\u2026" * (tail > 0)

    return cut(a), cut(b)


def preview(text: str, edits: tuple[Edit, ...], limit: int = 48, whole: bool = False) -> str:
    """The change edits make, readable in a title: ``“$25 million” → “$12.5 million”``; a long text is cut to the
    words that differ (``whole``: never; both texts in full, up to ``limit``)."""
    parts = []
    for e in sorted(edits, key=lambda e: e.start):
        old, new = text[e.start:e.end], e.new_text
        if not whole and (len(old) > limit or len(new) > limit):  # too long to read whole in a title
            old, new = _changed(old, new)
        old, new = shorten(old, limit), shorten(new, limit)
        if not new:
            parts.append(f"delete \u201c{old}\u201d")
        elif not old:
            parts.append(f"insert \u201c{new}\u201d")
        else:
            parts.append(f"\u201c{old}\u201d \u2192 \u201c{new}\u201d")
    return ", ".join(parts)


@dataclass
class Stored:
    """The candidates computed for one version of one draft (dropped when the draft changes)."""

    version: int | None
    candidates: list[Candidate] = field(default_factory=list)

    def add(self, new: list[Candidate]) -> None:
        seen = {(c.method, c.edits) for c in self.candidates}
        self.candidates += [c for c in new if (c.method, c.edits) not in seen]

    def overlapping(self, start: int, end: int) -> list[Candidate]:
        return [c for c in self.candidates if c.span[0] < end and start < c.span[1]
                or c.span[0] == c.span[1] and start <= c.span[0] <= end]


# ---------------------------------------------------------------------------------------------- one run

@dataclass
class Run:
    """One ``faithlint.correct`` in flight."""

    uri: str
    version: int | None
    method: str
    span: tuple[int, int]
    cancel: threading.Event = field(default_factory=threading.Event)
    edited: bool = False  # cancelled because the draft changed (not by the user)


class RunProgress:
    """A cancellable ``$/progress`` for one run: begin, the corrector's reports (from the worker), end."""

    def __init__(self, server: FaithlintServer, token: Any, cancel: threading.Event) -> None:
        self.server = server
        self.token = token
        self.cancel = cancel
        self.last = 0
        self.ended = False

    @classmethod
    async def start(cls, server: FaithlintServer, title: str, message: str, token: Any,
                    cancel: threading.Event, ids: Any) -> RunProgress | None:
        """Begin on ``token`` (the request's ``workDoneToken``) or on one the client is asked to create."""
        if token is None:
            window = server.client_capabilities.window
            if not (window and window.work_done_progress):
                return None
            token = f"faithlint-correct-{next(ids)}"
            try:
                await asyncio.wait_for(server.work_done_progress.create_async(token), CREATE_TIMEOUT_S)
            except Exception as exc:  # the client refused the token: no progress, keep going
                log.info("progress not available: %s", exc)
                return None
        progress = cls(server, token, cancel)
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, message=message, percentage=0, cancellable=True))
        # window/workDoneProgress/cancel cancels this future (pygls' built-in handler)
        future = server.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: cancel.set() if f.cancelled() else None)
        return progress

    def report(self, message: str, percentage: int | None = None) -> None:
        """From any thread: the message (and percentage, never going back) reach the client."""
        pct = None
        if isinstance(percentage, (int, float)):
            pct = self.last = max(self.last, min(100, max(0, int(percentage))))
        self.server.call_soon(self._send, message, pct)

    def _send(self, message: str, percentage: int | None) -> None:
        if not self.ended:
            self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=message, percentage=percentage, cancellable=True))

    def end(self, message: str) -> None:
        if self.ended:
            return
        self.ended = True
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        self.server.work_done_progress.tokens.pop(self.token, None)


# ---------------------------------------------------------------------------------------------- the feature

class Corrections(Feature):
    """``faithlint.correct``: RAC/FOD in the editor, with their code actions, progress, results and popup."""

    def __init__(self, server: FaithlintServer, corrector_factory: CorrectorFactory | None = None) -> None:
        super().__init__(server)
        self.corrector_factory = corrector_factory or default_corrector
        self.runs: list[Run] = []
        self.stored: dict[str, Stored] = {}
        self.runs_done = 0
        self._ids = itertools.count(1)
        server.get_feature(CodeActions).sources.append(self.code_actions)
        server.get_feature(Hover).sections.append(self.hover_lines)

    def commands(self) -> list[Command]:
        return [Command(CORRECT, self.correct)]

    # -- capabilities -------------------------------------------------------------------------------

    def _can_apply(self) -> bool:
        """Can the client apply an edit the server sends (``workspace/applyEdit``)? The correction actions are
        commands whose result the server applies when the user picks it, so they are offered only then."""
        ws = self.server.client_capabilities.workspace
        return bool(ws and ws.apply_edit)

    def _can_ask(self) -> bool:
        """Can the client show a message with actions and apply an edit the server sends?"""
        caps = self.server.client_capabilities
        window = caps.window
        return bool(window and window.show_message and window.show_message.message_action_item is not None
                    and self._can_apply())

    # -- events -------------------------------------------------------------------------------------

    def on_changed(self, uri: str) -> None:
        self.stored.pop(uri, None)
        for run in self.runs:
            if run.uri == uri:
                run.edited = True
                run.cancel.set()

    def on_closed(self, uri: str) -> None:
        self.on_changed(uri)

    def on_shutdown(self) -> None:
        for run in self.runs:
            run.cancel.set()

    # -- code actions and hover ----------------------------------------------------------------------

    def code_actions(self, diag: types.Diagnostic, ctx: ActionContext) -> list[types.CodeAction]:
        """The stored candidates overlapping ``diag`` as ready fixes, then the two runs (flagged codes only)."""
        if diag.source != SOURCE or ctx.code not in FLAGS:
            return []
        span = ctx.span("start_end")
        if span is None:
            return []
        actions: list[types.CodeAction] = []
        stored = self.stored.get(ctx.uri)
        if stored is not None and stored.version == ctx.version:
            area = ctx.span("sentence") or span
            code_actions = self.server.get_feature(CodeActions)
            for c in stored.overlapping(*area):
                actions.append(types.CodeAction(
                    title=c.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                    edit=code_actions.workspace_edit(ctx, list(c.edits))))
        for method, (_, title) in METHODS.items() if self._can_apply() else ():
            args = {"uri": ctx.uri, "version": ctx.version, "method": method, "range": list(span), "code": ctx.code}
            actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                            command=types.Command(title=title, command=CORRECT, arguments=[args])))
        return actions

    def hover_lines(self, state: DocState, start: int, end: int) -> list[str]:
        """The candidates stored for the hovered sentence (or claim), for the current version."""
        stored = self.stored.get(state.uri)
        doc = self.server.text_document(state.uri)
        if stored is None or doc is None or stored.version != doc.version:
            return []
        found = stored.overlapping(start, end)
        if not found:
            return []
        return ["Corrections ready (apply them from the quick fixes):",
                *(f"- {md_literal(c.title)}" for c in found)]

    # -- the command ----------------------------------------------------------------------------------

    def _request(self, args: tuple[Any, ...]) -> tuple[str, int | None, str, tuple[int, int], str]:
        arg = args[0] if len(args) == 1 else None
        if not isinstance(arg, dict):
            raise JsonRpcInvalidParams(f"{CORRECT} takes one argument {{uri, version, method, range, code}}")
        uri, version, method, span = arg.get("uri"), arg.get("version"), arg.get("method"), arg.get("range")
        if not isinstance(uri, str) or method not in METHODS:
            raise JsonRpcInvalidParams(f"{CORRECT}: needs a uri and a method ({', '.join(METHODS)})")
        doc = self.server.text_document(uri)
        if doc is None or uri not in self.server.docs:
            raise JsonRpcInvalidParams(f"{uri} is not an open draft")
        if version != doc.version:  # told in a message too: clients drop ContentModified answers silently
            self.server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message="faithlint: the draft changed; run the action again"))
            raise JsonRpcContentModified("the draft changed; run the action again")
        if not (isinstance(span, (list, tuple)) and len(span) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in span)
                and 0 <= span[0] <= span[1] <= len(doc.source)):
            raise JsonRpcInvalidParams(f"{CORRECT}: range must be [start, end] code points of the draft")
        return uri, version, str(method), (int(span[0]), int(span[1])), str(arg.get("code") or "")

    async def correct(self, *args: Any) -> dict[str, Any]:
        ls = self.server
        uri, version, method, span, _code = self._request(args)
        snap = ls.snapshot(uri)
        assert snap is not None  # _request checked the draft is open
        run = Run(uri, version, method, span)
        ls.protocol.when_cancelled(ls.protocol.msg_id, run.cancel.set)  # $/cancelRequest
        self.runs.append(run)
        name, title = METHODS[method]
        params = COMMAND_PARAMS.get()
        token = params.work_done_token if params is not None else None
        progress = None
        try:
            progress = await RunProgress.start(ls, f"faithlint: {title}", "waiting for the checker", token,
                                               run.cancel, self._ids)
            result = await self._run_in_worker(run, snap, progress)
        finally:
            self.runs.remove(run)
            self.runs_done += 1
            if progress is not None:
                progress.end("cancelled" if run.cancel.is_set() else "done")
        doc = ls.text_document(uri)
        if isinstance(result, Cancelled) or run.cancel.is_set() or doc is None or doc.version != version:
            if run.edited or doc is None or doc.version != version:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                               message=f"faithlint: {CHANGED}"))
            return {"method": method, "version": version, "cancelled": True}
        if isinstance(result, BaseException):
            if isinstance(result, FaithlintError):
                message = f"faithlint {name}: {result}"
            else:
                log.error("the %s correction failed", name, exc_info=result)
                message = f"faithlint {name} failed: {type(result).__name__}: {result}"
            message = " ".join(message.split())
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            raise CorrectionFailed(message)
        return self._deliver(run, snap, result, name)

    async def _run_in_worker(self, run: Run, snap: Snapshot, progress: RunProgress | None) -> Any:
        """The corrector's :class:`~faithlint.fixes.correctors.base.Corrections` (or the exception it raised), run on
        the
        checker's worker."""
        ls = self.server
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()

        def finish(value: Any) -> None:
            if not done.done():
                done.set_result(value)

        def task() -> None:
            try:
                value: Any = self._compute(run, snap, progress)
            except BaseException as exc:  # handed to the protocol thread: a user-facing line, never a traceback
                value = exc
            try:
                loop.call_soon_threadsafe(finish, value)
            except RuntimeError:  # the loop is gone (shutting down)
                pass

        ls.scheduler.submit(task)
        return await done

    def _compute(self, run: Run, snap: Snapshot, progress: RunProgress | None) -> Corrected:
        """Worker thread: the draft's linter and context as a check has them, then the corrector."""
        if run.cancel.is_set():
            raise Cancelled("the correction was cancelled")
        ls = self.server
        linter, resolved = ls.linter_for_snapshot(snap)
        prep = prepare_snapshot(resolved.config, resolved.config_path, snap)
        draft = prep.draft
        if draft is None or not draft.context:
            why = "; ".join(p.message for p in prep.problems if p.severity == "error") or \
                "no context is paired with this draft"
            return Corrected(notes=[f"{METHODS[run.method][0]}: nothing to correct from ({why})"])
        corrector = self.corrector_factory(run.method, linter)
        with linter.using(resolved.config):  # the corrector checks and reads settings through the linter
            return corrector.correct(draft.text, draft.context,
                                     query=draft.pairing.query if draft.pairing else None, markdown=draft.markdown,
                                     within=run.span, cancel=run.cancel,
                                     progress=progress.report if progress is not None else None)

    def _deliver(self, run: Run, snap: Snapshot, result: Corrected, name: str) -> dict[str, Any]:
        """Keep the candidates for this version, offer them, and answer the command."""
        ls = self.server
        candidates = [Candidate(run.method, run.version, tuple(fx.edits), preview(snap.text, tuple(fx.edits)),
                                preview(snap.text, tuple(fx.edits), limit=240, whole=True), fx.score, fx.title)
                      for fx in result.fixes if fx.edits]
        notes = [str(n) for n in result.notes]
        stored = self.stored.get(run.uri)
        if stored is None or stored.version != run.version:
            stored = self.stored[run.uri] = Stored(run.version)
        stored.add(candidates)
        ctx = ActionContext(snap.text, {}, uri=run.uri, version=run.version)
        code_actions = ls.get_feature(CodeActions)
        edits = {id(c): code_actions.workspace_edit(ctx, list(c.edits)) for c in candidates}
        converter = ls.protocol._converter
        out = {"method": run.method, "version": run.version,
               "candidates": [{"title": c.title, "edit": converter.unstructure(edits[id(c)]),
                               **({"score": c.score} if c.score is not None else {})} for c in candidates],
               "notes": notes}
        if not candidates:
            message = f"faithlint {name}: " + ("; ".join(notes) if notes else "no correction found")
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        elif self._can_ask():
            ls.spawn(self._ask(run, candidates, [edits[id(c)] for c in candidates], notes, name))
        else:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=(
                f"faithlint {name}: {len(candidates)} correction{'s' if len(candidates) > 1 else ''} ready in "
                f"the quick fixes: " + "; ".join(c.preview for c in candidates))))
        return out

    async def _ask(self, run: Run, candidates: list[Candidate], edits: list[types.WorkspaceEdit],
                   notes: list[str], name: str) -> None:
        """Show the preview with one "Apply" per candidate; send the chosen edit if the draft did not change."""
        ls = self.server
        many = len(candidates) > 1
        lines = [f"faithlint {name}: {len(candidates)} correction{'s' if many else ''} (nothing is changed "
                 f"unless you apply one)"]
        lines += [f"{i}. {c.full or c.preview}" + (f" ({c.score:.2f})" if c.score is not None else "")
                  for i, c in enumerate(candidates, 1)]
        lines += notes
        labels = [f"Apply {i}: {shorten(c.preview, 50)}" if many else f"Apply: {shorten(c.preview, 60)}"
                  for i, c in enumerate(candidates, 1)]
        try:
            choice = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Info, message="\n".join(lines),
                actions=[*(types.MessageActionItem(title=t) for t in labels), types.MessageActionItem(title=DISMISS)]))
        except Exception as exc:  # the client failed to ask: the stored quick fixes remain
            log.info("showMessageRequest failed: %s", exc)
            return
        title = getattr(choice, "title", None)
        if title not in labels:
            return  # dismissed (or the popup was closed)
        i = labels.index(title)
        doc = ls.text_document(run.uri)
        if doc is None or doc.version != run.version:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                           message=f"faithlint: {CHANGED}"))
            return
        try:
            answer = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
                edit=edits[i], label=f"faithlint {name}: {shorten(candidates[i].preview, 60)}"))
        except Exception as exc:
            log.info("workspace/applyEdit failed: %s", exc)
            return
        if not getattr(answer, "applied", False):
            reason = getattr(answer, "failure_reason", None) or "the editor did not apply it"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                           message=f"faithlint {name}: not applied: {reason}"))
