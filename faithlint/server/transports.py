"""The transports an editor starts the server with, as the LSP specification names them.

stdio and ``--tcp`` (the server listens) are in :mod:`.rpc`. Here: ``--pipe NAME`` and ``--socket PORT``, where
the *client* listens (on a Unix socket file / Windows named pipe, or on a TCP port of 127.0.0.1) and the server
connects, as vscode-languageclient's ``TransportKind.pipe`` and ``TransportKind.socket`` do; and
``--clientProcessId``, the editor's process the server ends with (the specification: a server must not outlive
the editor that started it, and a crashed editor's pipe may stay open in another process, so no EOF comes).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from faithlint.errors import FaithlintError
from faithlint.server.rpc import serve_stream

log = logging.getLogger(__name__)

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]

__all__ = ["open_pipe", "open_socket", "process_alive", "start_connected", "watch_client_process"]


def open_socket(host: str, port: int) -> Callable[[], Awaitable[Streams]]:
    """The connection to a client that listens on ``host:port`` (vscode-languageclient: 127.0.0.1)."""
    return lambda: asyncio.open_connection(host, port)


def open_pipe(name: str) -> Callable[[], Awaitable[Streams]]:
    """The connection to a client that listens on a Unix socket file or, on Windows, a named pipe."""
    if sys.platform != "win32":
        return lambda: asyncio.open_unix_connection(name)

    async def connect() -> Streams:  # asyncio's proactor loop (Windows' default) opens named pipes
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, protocol = await loop.create_pipe_connection(  # type: ignore[attr-defined]
            lambda: asyncio.StreamReaderProtocol(reader), name)
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)

    return connect


def start_connected(server: Any, connect: Callable[[], Awaitable[Streams]], where: str) -> None:
    """Serve the one connection ``connect()`` opens to the client at ``where``; return when it ends.

    A client that is not listening is a :class:`FaithlintError` (``faithlint serve`` exits 2 with one line).
    The client's ``exit`` ends the process with its code (0 after ``shutdown``, else 1), as over stdio.
    """
    server._stop_event = stop = threading.Event()

    async def main() -> None:
        try:
            reader, writer = await connect()
        except OSError as exc:  # asyncio's message repeats the address; the errno says why
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise FaithlintError(f"cannot connect to the client at {where}: {reason}") from None
        log.info("connected to the client at %s", where)
        server.protocol.set_writer(writer)
        try:
            await serve_stream(lambda: reader.read(65536), server.protocol, stop)
        finally:
            writer.close()

    try:
        asyncio.run(main())
    except ConnectionError:  # a broken pipe or a reset: the client is gone
        log.error("the connection to the client is lost; shutting down")
    finally:
        server.shutdown()


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` is running (a zombie that its parent has not reaped counts as running)."""
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        try:
            return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)  # signal 0: only the existence and permission checks
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process, but it exists
        return True
    return True


def watch_client_process(pid: int, interval: float = 2.0,
                         on_exit: Callable[[], None] | None = None) -> threading.Thread:
    """Check every ``interval`` seconds that the editor (``--clientProcessId``) runs; when it has ended, end this
    process (``on_exit``, default: exit 1 at once: nobody is left to answer, and a graceful shutdown could
    wait forever on a read from a pipe that another process holds open)."""
    if pid <= 0:  # os.kill would signal a process group, or every process
        raise FaithlintError(f"--clientProcessId {pid}: not a process id")
    if not process_alive(pid):
        raise FaithlintError(f"--clientProcessId {pid}: no such process (the editor that started the server "
                             "has ended)")

    def watch() -> None:
        while process_alive(pid):
            time.sleep(interval)
        log.error("the client process %d has ended; exiting", pid)
        if on_exit is not None:
            on_exit()
        else:
            logging.shutdown()
            os._exit(1)

    thread = threading.Thread(target=watch, name="faithlint-client-process", daemon=True)
    thread.start()
    return thread
