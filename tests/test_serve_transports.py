"""``faithlint serve``'s transports and start-up arguments, as the LSP specification names them, from Python.

Each session is the real ``python -m faithlint serve`` answering initialize and shutdown and ending with 0 on
exit: over stdio (``--stdio``, with ``--clientProcessId``), and connecting to a pipe (Unix socket) or TCP port
this test listens on (``--pipe=NAME``, ``--socket=PORT`` and the specification's ``--port=PORT``), as
vscode-languageclient's transports listen. Bad combinations and unreachable clients exit 2 with one line; the
server ends when the ``--clientProcessId`` process does. tests/test_vscode_launch.py starts the server through
the VS Code client's own libraries.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import pytest

SERVE = [sys.executable, "-m", "faithlint", "serve"]


def frame(obj: Any) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream: BinaryIO) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        assert line, "the server closed the connection"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    assert length is not None
    return json.loads(stream.read(length))


def request(stream: BinaryIO, send: Callable[[bytes], Any], rid: int, method: str, params: Any = None) -> Any:
    """Send a request and return its result (notifications on the way are skipped; the server's own requests,
    e.g. workspace/configuration, are answered with null)."""
    send(frame({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params is not None else {})}))
    while True:
        msg = read_message(stream)
        if "method" in msg and "id" in msg:
            send(frame({"jsonrpc": "2.0", "id": msg["id"], "result": None}))
        elif msg.get("id") == rid and "method" not in msg:
            assert "error" not in msg, msg
            return msg.get("result")


def lifecycle(stream: BinaryIO, send: Callable[[bytes], Any], proc: subprocess.Popen[bytes]) -> None:
    """initialize (answered with faithlint's capabilities), initialized, shutdown, exit: the process ends with 0."""
    init = request(stream, send, 1, "initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
    assert init["serverInfo"]["name"] == "faithlint"
    assert init["capabilities"]["textDocumentSync"]["change"] == 2  # incremental
    send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    assert request(stream, send, 2, "shutdown") is None
    send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert proc.wait(60) == 0


@contextmanager
def server(args: list[str], cwd: Path, **kwargs: Any) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([*SERVE, *args], cwd=cwd, stderr=subprocess.PIPE, **kwargs)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        log = proc.stderr.read().decode() if proc.stderr else ""
        assert "Traceback" not in log, log


def to_stdin(proc: subprocess.Popen[bytes]) -> Callable[[bytes], None]:
    """A ``send`` writing LSP frames to the server's stdin."""
    assert proc.stdin is not None
    stdin = proc.stdin

    def send(data: bytes) -> None:
        stdin.write(data)
        stdin.flush()
    return send


def test_stdio_flag_answers_initialize(tmp_path: Path) -> None:
    """`serve --stdio --clientProcessId=PID`: what LSP clients append (the VS Code extension's `--stdio`)."""
    args = ["--stdio", f"--clientProcessId={os.getpid()}"]
    with server(args, tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        lifecycle(proc.stdout, to_stdin(proc), proc)


@contextmanager
def listening(kind: str) -> Iterator[tuple[socket.socket, str]]:
    """A socket the client (this test) listens on, and the argument that names it for the server."""
    if kind == "pipe":
        folder = tempfile.mkdtemp(prefix="fl-")  # short: a Unix socket path has at most ~104 bytes
        path = os.path.join(folder, "lsp.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        arg = f"--pipe={path}"
    else:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        arg = f"--{kind}={sock.getsockname()[1]}"
    sock.listen(1)
    sock.settimeout(60)
    try:
        yield sock, arg
    finally:
        sock.close()
        if kind == "pipe":
            os.unlink(path)
            os.rmdir(folder)


@pytest.mark.parametrize("kind", [
    pytest.param("pipe", marks=pytest.mark.skipif(sys.platform == "win32", reason="Unix socket files")),
    "socket",
    "port",  # the LSP specification's name for the socket transport
])
def test_server_connects_to_the_listening_client(tmp_path: Path, kind: str) -> None:
    with listening(kind) as (listener, arg), server([arg], tmp_path, stdout=subprocess.PIPE) as proc:
        conn, _ = listener.accept()
        with conn, conn.makefile("rb") as stream:
            lifecycle(stream, conn.sendall, proc)
        assert proc.stdout is not None and proc.stdout.read() == b""  # the protocol never goes to stdout


def dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("args, message", [
    (["--stdio", "--tcp"], "argument --tcp: not allowed with argument --stdio"),
    (["--pipe=x", "--socket=5"], "argument --socket: not allowed with argument --pipe"),
    (["--pipe=x", "--port=5"], "serve: --port goes with --tcp (the port to listen on) or alone (the client's port); "
                               "not with --pipe"),
    (["--socket=70000"], "argument --socket: not a port number (0-65535): '70000'"),
    (["--node-ipc"], "serve: --node-ipc is not supported: Node.js's IPC channel exists only between Node.js "
                     "processes, and faithlint's server is Python (use --stdio, --pipe or --socket)"),
    (lambda tmp: [f"--socket={closed_port()}"], "cannot connect to the client at 127.0.0.1:{}: Connection refused"),
    (lambda tmp: [f"--pipe={tmp / 'none.sock'}"], "cannot connect to the client at {}: No such file or directory"),
    (["--clientProcessId=0"], "--clientProcessId 0: not a process id"),
    (lambda tmp: [f"--clientProcessId={dead_pid()}"],
     "--clientProcessId {}: no such process (the editor that started the server has ended)"),
])
def test_bad_start_up_exits_2_with_one_line(tmp_path: Path, args: Any, message: str) -> None:
    if callable(args):
        args = args(tmp_path)
        message = message.format(args[0].partition("=")[2])
    proc = subprocess.run([*SERVE, *args], cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == f"faithlint: error: {message}", proc.stderr
    assert "Traceback" not in proc.stderr


def test_server_exits_when_the_client_process_ends(tmp_path: Path) -> None:
    """Its stdin stays open (held by this test, as a crashed editor's pipe may be by another process): the
    server ends because the `--clientProcessId` process did, with 1 (no shutdown came)."""
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        args = ["--stdio", f"--clientProcessId={editor.pid}"]
        with server(args, tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            send = to_stdin(proc)
            init = request(proc.stdout, send, 1, "initialize", {"processId": editor.pid, "capabilities": {}})
            assert init["serverInfo"]["name"] == "faithlint"
            time.sleep(1)
            assert proc.poll() is None
            editor.kill()
            editor.wait(10)
            assert proc.wait(30) == 1
            assert f"the client process {editor.pid} has ended; exiting" in proc.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if editor.poll() is None:
            editor.kill()
            editor.wait(10)
