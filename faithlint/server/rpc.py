"""faithlint's JSON-RPC layer under pygls: framing that survives a bad frame, and an answer to every request.

pygls 2.1 (``pygls.io_.run_async`` and ``JsonRPCProtocol.structure_message``) has three gaps that let one
sloppy client message silence the server or leave a client waiting for good:

* **Framing.** The reader matches only ``Content-Length: N\\r\\n`` exactly (so a lowercase
  ``content-length``, which the base protocol's HTTP-style headers allow, is ignored), and after a frame
  whose length is off it reads the rest of that body, and every later body, as header lines: no later
  request is answered while the process stays alive.
* **Validation.** Params are structured inside ``json.loads``' ``object_hook``; a validation error there
  (a negative position, params as an array, params omitted) escapes before the request id is looked at,
  so the request never gets a response, and the error shows the user an "internal error" popup.
* **Noise.** Expected JSON-RPC errors from handlers (InvalidParams, ContentModified) are logged with
  tracebacks; malformed JSON and batch arrays are reported as server errors.

These belong upstream (pygls' reader and ``structure_message``; to be reported to openlawlibrary/pygls
with the cases in tests/test_server_robustness.py); until pygls handles them, :class:`Framer` reads the
byte stream here and :class:`RobustProtocol` decodes each message knowing its id. Client mistakes are
logged at debug level (the first framing error of a session at warning): they are not the user's to fix.

One more gap is in pygls' document sync (incremental changes applied on ``str.splitlines`` lines):
:class:`FaithlintProtocol`, the protocol the server runs, applies them on LSP lines.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol.types import (
    CANCEL_REQUEST,
    TEXT_DOCUMENT_DID_CHANGE,
    WORKSPACE_EXECUTE_COMMAND,
    DidChangeTextDocumentParams,
    ExecuteCommandParams,
    ResponseErrorMessage,
    TextDocumentContentChangePartial,
)
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

log = logging.getLogger("faithlint.server.rpc")

MAX_HEADER_BYTES = 8192  # a header block longer than this is junk, not a header
MAX_BODY_BYTES = 256 << 20  # a Content-Length above this is a framing error, not a 256 MB wait
# the next valid header a reader can resynchronise on, wherever it starts (a body need not end in a newline)
NEXT_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n", re.IGNORECASE)
HEADER_LINE = re.compile(rb"[A-Za-z][A-Za-z0-9-]*[ \t]*:")
_PARSE_FAILED = object()


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return _PARSE_FAILED


class Framer:
    """Split a byte stream into JSON-RPC bodies (``Content-Length`` framing), recovering from bad frames.

    Header names are case-insensitive and other headers are ignored. After a framing error (a header
    that is not ``Name: value``, a missing or non-numeric length, a length that does not match the
    body) the reader skips to the next valid ``Content-Length`` header; the bytes it skipped are still
    delivered when they hold exactly one JSON value (a length a few bytes off loses nothing).
    """

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.errors = 0  # framing errors so far
        self._in_error = False

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes; return the decoded messages now complete (``JsonRpcParseError`` for a malformed body)."""
        self.buffer += data
        out: list[Any] = []
        while self.buffer and self._step(out):
            pass
        return out

    # -- internals --------------------------------------------------------------------------------

    def _framing_error(self, why: str) -> None:
        if self._in_error:
            return
        self._in_error = True
        self.errors += 1
        level = logging.WARNING if self.errors == 1 else logging.DEBUG
        log.log(level, "client framing error (%s); skipping to the next Content-Length header%s", why,
                "" if self.errors == 1 else f" ({self.errors} so far)")

    def _headers(self) -> tuple[str | None, int, int] | None:
        """Parse the header block at the start of the buffer: (error or None, length, body start).

        None when more bytes are needed. For an error, body start is where the block's blank line
        ended (-1 when the block is junk), so the body after a bad length can still be salvaged.
        """
        buf = self.buffer
        pos = 0
        length: int | None = None
        error: str | None = None
        seen = False
        while True:
            nl = buf.find(b"\n", pos)
            if nl < 0:
                return ("header too long", 0, -1) if len(buf) - pos > MAX_HEADER_BYTES else None
            line = bytes(buf[pos:nl]).rstrip(b"\r")
            pos = nl + 1
            if not line.strip():  # the blank line that ends the block
                if length is None and error is None:
                    error = "no Content-Length header" if seen else "a stray blank line"
                return (error, length or 0, pos)
            if not HEADER_LINE.match(line):
                return ("not a header line", 0, -1)
            seen = True
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                value = value.strip()
                if value.isdigit() and int(value) <= MAX_BODY_BYTES:
                    length = int(value)
                else:
                    error = "Content-Length is not a usable number"
            if pos > MAX_HEADER_BYTES:
                return ("header block too long", 0, -1)

    def _step(self, out: list[Any]) -> bool:
        """Consume one frame (or skip junk); False when more bytes are needed."""
        head = self._headers()
        if head is None:
            return False
        error, length, start = head
        if error is not None:
            return self._resync(out, error, 1, start if start > 0 else None)
        end = start + length
        if len(self.buffer) < end:
            return False
        value = _json(bytes(self.buffer[start:end]))
        if value is not _PARSE_FAILED:
            del self.buffer[:end]
            self._in_error = False
            out.append(value)
            return True
        inside = NEXT_HEADER.search(self.buffer, start)
        if inside is not None and inside.start() < end:  # the length ran into the next message's header
            return self._resync(out, "Content-Length too large", start, start)
        rest = bytes(self.buffer[end:]).lstrip()
        if not rest or HEADER_LINE.match(rest):  # framed right, the JSON itself is malformed
            del self.buffer[:end]
            out.append(JsonRpcParseError("Parse error: the message body is not valid JSON"))
            return True
        return self._resync(out, "Content-Length too small", start, start)

    def _resync(self, out: list[Any], why: str, search_from: int, salvage_from: int | None) -> bool:
        """Skip to the next valid header; deliver the skipped body when it is exactly one JSON value."""
        self._framing_error(why)
        nxt = NEXT_HEADER.search(self.buffer, max(search_from, 1))
        end = nxt.start() if nxt is not None else len(self.buffer)
        value = _PARSE_FAILED
        if salvage_from is not None and salvage_from < end:
            value = _json(bytes(self.buffer[salvage_from:end]))
        if nxt is None and value is _PARSE_FAILED:
            if len(self.buffer) > MAX_BODY_BYTES + MAX_HEADER_BYTES:
                del self.buffer[:-64]  # keep a tail: the next header may have started arriving
            return False  # wait for the next header (or the rest of this body)
        del self.buffer[:end]
        if value is not _PARSE_FAILED:
            out.append(value)
        return True


def _valid_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _summary(exc: BaseException) -> str:
    """One line naming what did not validate (cattrs' paths where it has them)."""
    try:
        from cattrs import transform_error

        parts = transform_error(exc)  # type: ignore[arg-type]
    except Exception:
        parts = []
    text = "; ".join(parts[:3]) if parts else (str(exc) or type(exc).__name__)
    return " ".join(text.split())[:300]


def _strict_int(value: Any, cls: Any) -> Any:
    """LSP integers are integers: cattrs' default ``int(value)`` would turn ``1.5`` into 1 and ``"7"`` into 7.

    Registered for ``int``, so it also sees int enums (DiagnosticSeverity, ...): those become their enum.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError(f"expected an integer, not {value!r}")
    return int(value) if cls is int else cls(int(value))


class RobustProtocol(LanguageServerProtocol):
    """pygls' language-server protocol that answers every request, even one whose params do not validate."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._converter.register_structure_hook(int, _strict_int)
        self._converter.register_structure_hook(bool, lambda value, _cls: bool(value))  # bool is an int: as before

    def handle_raw(self, value: Any) -> None:
        """Dispatch one decoded body (a dict, a batch list, anything else, or a JsonRpcParseError)."""
        try:
            self._dispatch(value)
        except Exception:  # a bug in our own dispatch: log it, keep serving
            log.exception("could not handle a client message")

    def _dispatch(self, value: Any) -> None:
        if isinstance(value, JsonRpcParseError):
            log.debug("client sent malformed JSON")
            self._reply_error(None, value)
            return
        if isinstance(value, list):  # JSON-RPC batches are not part of LSP: refuse each request in it
            log.debug("client sent a batch of %d messages", len(value))
            ids = [m.get("id") for m in value if isinstance(m, dict) and "method" in m and _valid_id(m.get("id"))]
            why = JsonRpcInvalidRequest("Invalid Request: JSON-RPC batches are not supported by LSP")
            for rid in ids:
                self._reply_error(rid, why)
            if not ids:
                self._reply_error(None, why)
            return
        if not isinstance(value, dict):
            log.debug("client sent a message that is not an object: %.80r", value)
            self._reply_error(None, JsonRpcInvalidRequest("Invalid Request: a message must be a JSON object"))
            return
        is_request = "method" in value and "id" in value
        rid = value.get("id")
        if is_request and not _valid_id(rid):
            log.debug("request with an invalid id %.80r", rid)
            self._reply_error(None, JsonRpcInvalidRequest("Invalid Request: id must be an integer or a string"))
            return
        if value.get("jsonrpc") != self.VERSION or ("method" in value and not isinstance(value["method"], str)):
            log.debug("invalid JSON-RPC message: %.200r", value)
            if is_request:
                self._reply_error(rid, JsonRpcInvalidRequest('Invalid Request: needs "jsonrpc": "2.0" and a '
                                                             "string method"))
            return
        try:
            message = self._structure(value)
        except Exception as exc:
            method = value.get("method")
            log.debug("invalid params for %s (id %r): %s", method or "a response", rid, _summary(exc))
            if is_request:
                self._reply_error(rid, JsonRpcInvalidParams(f"Invalid params for {method}: {_summary(exc)}"))
            return
        method = value.get("method")
        if method is not None and method != CANCEL_REQUEST and not self._handles(method):
            log.debug("no handler for %r", method)  # pygls would log a warning per message
            if is_request:
                self._reply_error(rid, JsonRpcMethodNotFound.of(method))
            return
        if method is None and rid not in self._request_futures:
            log.debug("response to a request the server did not send (or no longer waits for): %.80r", rid)
            return
        if self._shutdown and is_request:  # pygls drops these silently; the client would wait for good
            self._reply_error(rid, JsonRpcInvalidRequest("Invalid Request: the server is shutting down"))
            return
        self.handle_message(message)

    def _handles(self, method: str) -> bool:
        return method in self.fm.builtin_features or method in self.fm.features

    def _structure(self, data: dict[str, Any]) -> Any:
        """pygls' ``structure_message`` without its error logging (the caller knows the id and answers)."""
        if "id" in data:
            if "error" in data:
                return self._converter.structure(data, ResponseErrorMessage)
            if "method" in data:
                return self._converter.structure(data, self.get_message_type(data["method"]) or JsonRPCRequestMessage)
            return self._converter.structure(data, self._result_types.pop(data["id"], None) or JsonRPCResponseMessage)
        return self._converter.structure(data, self.get_message_type(data.get("method", "")) or JsonRPCNotification)

    def _reply_error(self, msg_id: Any, error: JsonRpcException) -> None:
        """Send an error response as plain JSON (so ``"id": null`` stays in the message, as JSON-RPC requires)."""
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id,
                         "error": {"code": error.code, "message": error.message}})

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        # expected answers (InvalidParams, ContentModified, ...) go back to the client without a traceback
        if not future.cancelled():
            exc = future.exception()
            if isinstance(exc, JsonRpcException) and exc.code != JsonRpcInternalError.CODE:
                self._request_futures.pop(msg_id, None)
                log.debug("request %r answered with error %s: %s", msg_id, exc.code, exc.message)
                self._send_response(msg_id, error=exc.to_response_error())
                return
        super()._send_handler_result(future, msg_id=msg_id)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        if not _valid_id(msg_id) or msg_id not in self._request_futures:  # answered already, or never sent
            log.debug("cancel for a request that is not running: %r", msg_id)
            return
        super()._handle_cancel_notification(msg_id)


# the params of the ``workspace/executeCommand`` request being handled (pygls passes a command only its
# arguments; a long command reads its ``workDoneToken`` here). Set in the request's context: a command
# handler that is a coroutine sees its own request's params.
COMMAND_PARAMS: contextvars.ContextVar[ExecuteCommandParams | None] = contextvars.ContextVar(
    "faithlint_command_params", default=None)


class FaithlintProtocol(RobustProtocol):
    """pygls' protocol with incremental sync that splits lines where LSP does.

    (:class:`RobustProtocol` underneath: every request answered, bad frames survived.)

    pygls applies incremental changes on ``str.splitlines`` lines, which also break at U+2028,
    U+0085, form feeds and other characters LSP does not treat as line breaks; an edit below
    such a character lands in the wrong place and the server's copy of the draft silently
    diverges from the editor's. Drafts pasted from web pages contain these, so changes are
    applied here on LSP lines instead.

    It also lets a long command (``faithlint.correct``) read its request's params (:data:`COMMAND_PARAMS`, for
    the ``workDoneToken``) and learn of a ``$/cancelRequest`` for it (:meth:`when_cancelled`).
    """

    @lsp_method(TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: DidChangeTextDocumentParams) -> Any:
        from urllib.parse import unquote

        from faithlint.server.text import DocumentIndex

        doc = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if doc is None:
            log.debug("didChange for a document that is not open: %s", params.text_document.uri)
            return
        text = doc.source
        for change in params.content_changes:
            if isinstance(change, TextDocumentContentChangePartial):
                index = DocumentIndex(text, self.workspace.position_codec)
                a, b = index.offset(change.range.start), index.offset(change.range.end)
                text = text[:a] + change.text + text[max(a, b):]
            else:
                text = change.text
        doc._source = text
        doc.version = params.text_document.version
        if (user_handler := self.fm.features.get(TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None

    @lsp_method(WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: ExecuteCommandParams) -> Any:
        COMMAND_PARAMS.set(params)
        return (yield from super().lsp_workspace__execute_command(params))

    def when_cancelled(self, msg_id: Any, callback: Callable[[], None]) -> bool:
        """Call ``callback`` (on the protocol thread) if the client cancels request ``msg_id`` with
        ``$/cancelRequest`` (pygls then answers it with RequestCancelled); False when it is not in flight."""
        future = self._request_futures.get(msg_id) if msg_id is not None else None
        if future is None:
            return False
        future.add_done_callback(lambda f: callback() if f.cancelled() else None)
        return True


async def serve_stream(read: Callable[[], Awaitable[bytes]], protocol: RobustProtocol, stop: Any) -> None:
    """Read framed messages with ``read()`` (b"" at end of stream) and hand each to ``protocol``."""
    framer = Framer()
    while not stop.is_set():
        data = await read()
        if not data:
            break
        for value in framer.feed(data):
            protocol.handle_raw(value)
            await asyncio.sleep(0)  # let handlers scheduled by this message run before the next one


def stdin_reader(stdin: Any, executor: Any) -> Callable[[], Awaitable[bytes]]:
    """``read()`` for :func:`serve_stream` over a blocking binary stream (whatever bytes are available)."""
    read1 = getattr(stdin, "read1", None) or stdin.read

    def read() -> Awaitable[bytes]:
        return asyncio.get_running_loop().run_in_executor(executor, read1, 65536)

    return read


__all__ = ["COMMAND_PARAMS", "FaithlintProtocol", "Framer", "RobustProtocol", "serve_stream", "stdin_reader"]


def start_io(server: Any, stdin: Any = None, stdout: Any = None) -> None:
    """pygls' ``start_io`` with :func:`serve_stream` as the reader."""
    import sys
    from threading import Event

    from pygls.io_ import StdoutWriter

    server._stop_event = Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    read = stdin_reader(stdin or sys.stdin.buffer, server.thread_pool)
    try:
        asyncio.run(serve_stream(read, server.protocol, server._stop_event))
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def start_tcp(server: Any, host: str, port: int) -> None:
    """pygls' ``start_tcp`` with :func:`serve_stream` as the reader."""
    from threading import Event

    server._stop_event = stop = Event()
    exit_code: list[Any] = []

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        try:
            await serve_stream(lambda: reader.read(65536), server.protocol, stop)
        except SystemExit as exc:  # the client's `exit`: end the process as over stdio, not just this task
            exit_code.append(exc.code)
        server.shutdown()

    async def main() -> None:
        server._server = await asyncio.start_server(connection, host, port)
        log.info("serving on %s", ", ".join(str(s.getsockname()) for s in server._server.sockets))
        async with server._server:
            await server._server.serve_forever()

    try:
        asyncio.run(main())
    except asyncio.CancelledError:
        log.debug("server cancelled")
    if exit_code:
        raise SystemExit(exit_code[0])


def pygls_handler(function: Callable[..., Any]) -> Callable[..., Any]:
    """A plain function calling ``function`` (a bound method) that pygls can register.

    pygls sets attributes on what it registers (bound methods take none) and passes the server to
    functions whose first parameter is ``ls`` or is annotated with a server type; this one takes the
    message's arguments as they come (unannotated on purpose: pygls reads the annotations), and is a
    coroutine function exactly when ``function`` is, so pygls awaits it the same way.
    """
    if inspect.iscoroutinefunction(function):
        async def handler(*args):  # type: ignore[no-untyped-def]
            return await function(*args)
    else:
        def handler(*args):  # type: ignore[no-untyped-def]
            return function(*args)
    handler.__name__ = getattr(function, "__name__", handler.__name__)
    handler.__qualname__ = getattr(function, "__qualname__", handler.__qualname__)
    handler.__doc__ = getattr(function, "__doc__", None)
    return handler
