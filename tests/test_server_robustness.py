"""The language server against a sloppy or hostile client (issue 17 #4-#6), over raw stdio bytes.

The server is the real one started as editors start it, with the keyword checker of
tests/fixtures/server/fake_server.py ("xcontra" -> FL100, "xunsup" -> FL200) so it runs in seconds.
The client here writes raw bytes (pytest-lsp cannot send a bad frame) and reads stdout strictly:
anything that is not a well-framed JSON-RPC 2.0 message fails the test.
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FAKE_SERVER = [sys.executable, str(HERE / "fixtures" / "server" / "fake_server.py")]
CONTEXT = "The library reopened on March 4, 2024. It is closed on Sundays.\n"
DRAFT = "The library reopened on March 4, 2024. It is xcontra open on Sundays. It has a xunsup rooftop cafe.\n"
INVALID_PARAMS = -32602


def frame(obj: Any, *, name: bytes = b"Content-Length", delta: int = 0, extra: bytes = b"") -> bytes:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return name + b": " + str(len(body) + delta).encode() + b"\r\n" + extra + b"\r\n" + body


class RawClient:
    """An LSP client on raw pipes: sends any bytes, answers the server's requests, checks every byte it reads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stderr = (root / "server-stderr.log").open("wb")
        self.proc = subprocess.Popen(FAKE_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     cwd=root)
        self.responses: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.garbage: list[bytes] = []
        self.null_id_errors: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        self.write_lock = threading.Lock()
        self.outbox: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # -- wire -----------------------------------------------------------------------------------------

    def send_bytes(self, data: bytes) -> None:
        with self.write_lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, obj: Any, **kw: Any) -> None:
        self.send_bytes(frame(obj, **kw))

    def request(self, rid: Any, method: str, params: Any = ..., **kw: Any) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not ...:
            msg["params"] = params
        self.send(msg, **kw)

    def notify(self, method: str, params: Any = ...) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not ...:
            msg["params"] = params
        self.send(msg)

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                c = out.read(1)
                if not c:
                    if header:
                        self.garbage.append(header)
                    return
                header += c
            fields = dict(line.split(b": ", 1) for line in header.strip().split(b"\r\n") if b": " in line)
            if b"Content-Length" not in fields or not fields[b"Content-Length"].isdigit():
                self.garbage.append(header)
                return
            body = out.read(int(fields[b"Content-Length"]))
            try:
                msg = json.loads(body)
                assert isinstance(msg, dict) and msg.get("jsonrpc") == "2.0"
            except (ValueError, AssertionError):
                self.garbage.append(header + body)
                continue
            self._dispatch(msg)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:  # a server -> client request: answer it as an editor would
            result: Any = None
            if msg["method"] == "workspace/configuration":
                result = [{"debounce": 0, "relevance": "lexical"} for _ in msg["params"]["items"]]
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            return
        with self.cond:
            if "method" in msg:
                self.notifications.append(msg)
            elif msg.get("id") is None:
                self.null_id_errors.append(msg)
            else:
                self.responses[msg["id"]] = msg
            self.cond.notify_all()

    def wait(self, predicate: Any, timeout: float = 15.0, what: str = "") -> Any:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not (value := predicate()):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"timed out waiting for {what or predicate} (server rc {self.proc.poll()})")
                self.cond.wait(min(left, 0.2))
            return value

    def response(self, rid: Any, timeout: float = 15.0) -> dict[str, Any]:
        return self.wait(lambda: self.responses.get(rid), timeout, f"a response to request {rid!r}")

    # -- session --------------------------------------------------------------------------------------

    def initialize(self) -> None:
        self.request("init", "initialize", {
            "processId": None, "rootUri": self.root.as_uri(), "initializationOptions": {"debounce": 0,
                                                                                       "relevance": "lexical"},
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}},
                             "workspace": {"configuration": True}}})
        assert "result" in self.response("init", 60)
        self.notify("initialized", {})

    def diagnostics(self, uri: str, version: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        def found() -> Any:
            for n in reversed(self.notifications):
                p = n.get("params") or {}
                if n["method"] == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                        and p.get("version") == version:
                    return p
            return None
        return self.wait(found, timeout, f"diagnostics for {uri} v{version}")["diagnostics"]

    def close(self) -> int:
        self.request("bye", "shutdown")
        assert self.response("bye").get("result", "missing") is None
        self.notify("exit")
        try:
            rc = self.proc.wait(15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.stderr.close()
        self.reader.join(5)
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.stderr.close()

    def log(self) -> str:
        if not self.stderr.closed:
            self.stderr.flush()
        return (self.root / "server-stderr.log").read_text(errors="replace")


@pytest.fixture()
def client(tmp_path: Path) -> Any:
    (tmp_path / "answer.context.md").write_text(CONTEXT)
    c = RawClient(tmp_path)
    try:
        c.initialize()
        yield c
    finally:
        c.kill()


def open_doc(client: RawClient, name: str, text: str = DRAFT, version: int = 1) -> str:
    path = client.root / name
    path.write_text(text)
    (client.root / (path.stem + ".context.md")).write_text(CONTEXT)
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown",
                                                            "version": version, "text": text}})
    return uri


def codes(diags: list[dict[str, Any]]) -> list[str]:
    return sorted(str(d.get("code")) for d in diags)


def hover(uri: str, line: Any = 0, character: Any = 0) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def test_invalid_or_omitted_params_are_answered_with_invalid_params(client: RawClient) -> None:
    """Issue 17 #4: these requests never got a response (the client waited for good)."""
    uri = open_doc(client, "answer.md")
    bad = {
        "negative": ("textDocument/hover", hover(uri, -1, 0)),
        "array": ("textDocument/hover", [uri, 0, 0]),
        "fraction": ("textDocument/hover", hover(uri, 1.5, 0)),
        "string line": ("textDocument/hover", hover(uri, "one", 0)),
        "omitted": ("textDocument/hover", ...),
        "null": ("textDocument/codeAction", None),
        "missing field": ("textDocument/codeAction", {"textDocument": {"uri": uri}}),
        "omitted diagnostic": ("textDocument/diagnostic", ...),
        "omitted resolve": ("codeAction/resolve", ...),
        "omitted command": ("workspace/executeCommand", ...),
        "command not a string": ("workspace/executeCommand", {"command": 3}),
    }
    for rid, (method, params) in bad.items():
        client.request(rid, method, params)
    for rid in bad:
        res = client.response(rid)
        assert "error" in res and res["error"]["code"] == INVALID_PARAMS, (rid, res)
    client.request("good", "textDocument/hover", hover(uri))
    assert "result" in client.response("good")
    log = client.log()
    assert "Traceback" not in log, log[-3000:]
    assert client.close() == 0


@pytest.mark.parametrize("case", ["too long", "too short", "not a number", "lowercase header", "junk line",
                                  "no length", "negative", "stray blank line"])
def test_a_badly_framed_message_does_not_deafen_the_server(client: RawClient, case: str) -> None:
    """Issue 17 #5: after one bad frame no later request was answered, though the process stayed alive."""
    uri = open_doc(client, "answer.md")
    msg = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 9}, "contentChanges": [{"text": "Changed xunsup text here."}]}}
    body = json.dumps(msg).encode()
    bad = {
        "too long": frame(body, delta=7),
        "too short": frame(body, delta=-7),
        "not a number": b"Content-Length: 12a\r\n\r\n" + body,
        "lowercase header": frame(body, name=b"content-length"),
        "junk line": b"hello there\r\n" + frame(body),
        "no length": b"Content-Type: application/json\r\n\r\n" + body,
        "negative": b"Content-Length: -5\r\n\r\n" + body,
        "stray blank line": b"\r\n" + frame(body),
    }[case]
    for i in range(3):  # the bad frame, then valid requests, each in its own write and all in one
        client.send_bytes(bad)
        client.request(f"after-{i}", "textDocument/hover", hover(uri))
        assert client.response(f"after-{i}", 10)
    burst = bad + frame({"jsonrpc": "2.0", "id": "burst", "method": "textDocument/hover", "params": hover(uri)})
    client.send_bytes(burst)
    assert client.response("burst", 10)
    if case == "lowercase header":  # a valid frame: the change itself was applied
        assert codes(client.diagnostics(uri, 9)) == ["FL200"]
    assert not client.garbage
    log = client.log()
    assert log.count("framing error") <= 1 and "Traceback" not in log, log[-3000:]
    assert client.close() == 0


def test_client_junk_goes_to_the_log_not_to_the_user(client: RawClient) -> None:
    """Issue 17 #6: malformed JSON, batches and a cancel with an object id showed "internal error" popups."""
    uri = open_doc(client, "answer.md")
    client.send_bytes(frame(b"{not json"))
    client.send_bytes(frame([{"jsonrpc": "2.0", "id": "in-batch", "method": "textDocument/hover",
                              "params": hover(uri)}]))
    client.send_bytes(frame(b"42"))
    client.notify("$/cancelRequest", {"id": {"an": "object"}})
    client.notify("$/cancelRequest", {"id": 123456})
    client.request({"an": "object"}, "textDocument/hover", hover(uri))
    client.send({"id": "no-version", "method": "textDocument/hover", "params": hover(uri)})
    client.request("resolve", "codeAction/resolve", {"title": "x", "data": {"provider": "nope", "uri": uri}})
    client.request("after", "textDocument/hover", hover(uri))
    assert client.response("after")
    assert client.response("in-batch")["error"]["code"] == -32600
    assert client.response("no-version")["error"]["code"] == -32600
    assert client.response("resolve")["error"]["code"] == INVALID_PARAMS
    client.wait(lambda: len(client.null_id_errors) >= 3, what="error responses with id null")
    assert sorted(e["error"]["code"] for e in client.null_id_errors) == [-32700, -32600, -32600]
    shown = [n for n in client.notifications if n["method"] in ("window/showMessage", "window/logMessage")
             and n["params"]["type"] == 1]
    assert not shown, shown
    log = client.log()
    assert "Traceback" not in log and "internal error" not in log, log[-3000:]
    assert client.close() == 0


def test_fuzzed_messages_leave_a_server_that_answers_everything(client: RawClient) -> None:
    """A few hundred fuzzed messages: every request answered, stdout only JSON-RPC, diagnostics right after."""
    rng = random.Random(17)
    uri = open_doc(client, "answer.md")
    unknown = (client.root / "never-opened.md").as_uri()
    version = 1
    expected: list[Any] = []
    text = DRAFT

    def valid_params(method: str, target: str) -> Any:
        return {"textDocument/hover": hover(target, rng.randint(0, 3), rng.randint(0, 40)),
                "textDocument/codeAction": {"textDocument": {"uri": target}, "range": {
                    "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
                    "context": {"diagnostics": []}},
                "textDocument/diagnostic": {"textDocument": {"uri": target}},
                "workspace/executeCommand": {"command": "faithlint.status", "arguments": []},
                "textDocument/documentSymbol": {"textDocument": {"uri": target}},
                "no/such/method": {}}[method]

    def mangle(params: Any) -> Any:
        choice = rng.randrange(7)
        if choice == 0:
            return ...
        if choice == 1:
            return [params]
        if choice == 2:
            return None
        if choice == 3:
            return "params"
        if isinstance(params, dict) and "position" in params:
            params = json.loads(json.dumps(params))
            params["position"]["line"] = [-1, 1.5, "x", None, 2 ** 40][choice - 3]
            return params
        return {"textDocument": 5}

    methods = ["textDocument/hover", "textDocument/codeAction", "textDocument/diagnostic",
               "workspace/executeCommand", "textDocument/documentSymbol", "no/such/method"]
    for i in range(300):
        kind = rng.randrange(10)
        method = rng.choice(methods)
        target = rng.choice([uri, unknown, "untitled:Untitled-1", "file:///", "not a uri"])
        rid: Any = i if rng.random() < 0.5 else f"req-{i}"
        if kind <= 2:  # a request with valid or mangled params
            params = valid_params(method, target)
            client.request(rid, method, params if kind == 0 else mangle(params))
            expected.append(rid)
        elif kind == 3:  # a bad frame (what it carried may be lost; it is not counted), then a valid request
            body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {}}).encode()
            client.send_bytes(rng.choice([frame(body, delta=rng.choice([-5, -1, 1, 5])), b"junk\r\n" + frame(body),
                                          b"Content-Length: x\r\n\r\n" + body, frame(body, name=b"CONTENT-LENGTH"),
                                          frame(b"{broken"), frame(b"[]"), frame(b"null")]))
            client.request(rid, "textDocument/hover", hover(uri))
            expected.append(rid)
        elif kind == 4:  # cancels: of nothing, of an object, of a request just sent
            client.request(rid, "workspace/executeCommand", valid_params("workspace/executeCommand", uri))
            expected.append(rid)
            client.notify("$/cancelRequest", rng.choice([{"id": rid}, {"id": {"x": 1}}, {"id": 10 ** 9}, {}, ...]))
        elif kind == 5:  # edits, some with stale versions
            version += 1
            stale = rng.random() < 0.3
            text = f"Edit {i} of the draft. It is xcontra open on Sundays.\n" if not stale else text
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version - 5 * stale},
                                                     "contentChanges": [{"text": text}]})
        elif kind == 6:  # lifecycle on unknown or odd documents
            client.notify(rng.choice(["textDocument/didChange", "textDocument/didClose", "textDocument/didSave"]),
                          rng.choice([{"textDocument": {"uri": unknown, "version": 3}, "contentChanges": []},
                                      {"textDocument": {"uri": unknown}}, [], ...]))
        elif kind == 7:  # invalid notifications and responses to nothing
            client.send(rng.choice([{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"x": 1}},
                                    {"jsonrpc": "2.0", "id": 10 ** 6 + i, "result": {}},
                                    {"jsonrpc": "2.0", "id": 10 ** 6 + i, "error": {"code": 1}},
                                    {"jsonrpc": "1.0", "method": "initialized"},
                                    {"method": "initialized"}]))
        elif kind == 8:  # invalid ids: answered with id null, not counted
            client.request(rng.choice([1.5, True, {"a": 1}, [1]]), "textDocument/hover", hover(uri))
        else:  # batches
            client.send([{"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": hover(uri)}])
            expected.append(rid)
    try:
        client.wait(lambda: all(rid in client.responses for rid in expected), 60, "every request answered")
    finally:
        missing = [rid for rid in expected if rid not in client.responses]
        assert not missing, f"{len(missing)} of {len(expected)} requests unanswered: {missing[:10]}"
    assert client.proc.poll() is None
    assert not client.garbage, client.garbage[:3]
    # a fresh document still gets the right diagnostics
    fresh = open_doc(client, "fresh.md")
    assert codes(client.diagnostics(fresh, 1)) == ["FL100", "FL200"]
    assert client.close() == 0
    assert "Traceback" not in client.log()


def test_tcp_transport_resynchronises_answers_and_exits_cleanly(tmp_path: Path) -> None:
    """The same reader serves ``faithlint serve --tcp``; the client's exit ends the process with 0."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "faithlint", "serve", "--tcp", "--port", str(port)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not listen"
                time.sleep(0.1)
        with sock:
            sock.sendall(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "processId": None, "rootUri": None, "capabilities": {}}}, name=b"content-length", delta=3))
            sock.sendall(frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": [1]}))
            sock.sendall(frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
            sock.settimeout(20)
            data = b""
            while data.count(b"Content-Length") < 3:
                chunk = sock.recv(65536)
                assert chunk, data
                data += chunk
            bodies = [json.loads(part[part.index(b"{"):]) for part in data.split(b"Content-Length")[1:]]
            assert [b["id"] for b in bodies] == [1, 2, 3]
            assert bodies[1]["error"]["code"] == INVALID_PARAMS
            sock.sendall(frame({"jsonrpc": "2.0", "method": "exit"}))
            assert proc.wait(20) == 0
        assert b"Traceback" not in proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
