"""The VS Code extension starts the real server with the arguments its client library adds.

``clients/vscode/test/server-session.ts`` (compiled by ``npm run compile``) takes the extension's command for
the default settings (``serverCommand``) and its server options (``src/launch.ts``: ``TransportKind.stdio``),
and lets vscode-languageclient's own ``LanguageClient.createMessageTransports`` spawn the server: it appends
``--stdio`` (``--pipe=NAME`` / ``--socket=PORT`` for the other transports). The session then runs over
vscode-jsonrpc, the client's own JSON-RPC stack: initialize, initialized, didOpen of the example draft, its
diagnostics once the check is complete (``faithlint.status``), shutdown, exit.

Skips only when node or the extension's node_modules are missing (``.ci/run`` runs ``npm ci`` and ``npm test``
before pytest, so CI has both). Slow: the real models check the draft.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "clients" / "vscode"
EXAMPLE = ROOT / "examples" / "rag-answer"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are not installed (the VS Code client's "
                                                          "libraries run on node)"),
    pytest.mark.skipif(not (VSCODE / "node_modules" / "vscode-languageclient").is_dir(),
                       reason="clients/vscode/node_modules is missing: run `npm ci` in clients/vscode"),
]

# the example's planted findings: (code, 0-based line, the text its range covers)
EXPECTED = [("FL100", 6, None), ("FL400", 6, "$25 million"), ("FL200", 9, None)]


@pytest.fixture(scope="module")
def session_script() -> Path:
    """The driver, compiled from the extension's current sources (tsc: a type error fails here)."""
    proc = subprocess.run([NPM, "run", "--silent", "compile"], cwd=VSCODE, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"npm run compile failed:\n{proc.stdout}\n{proc.stderr}"
    script = VSCODE / "out" / "test" / "server-session.js"
    assert script.is_file()
    return script


def run_session(script: Path, transport: str, tmp_path: Path) -> dict[str, Any]:
    work = tmp_path / "rag-answer"
    shutil.copytree(EXAMPLE, work)
    # the extension's default interpreter is `python3` from PATH: this interpreter's folder comes first
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    proc = subprocess.run([NODE, str(script), "--transport", transport, "--root", str(work),
                           "--draft", str(work / "answer.md"), "--timeout", "300"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    assert proc.stdout.strip(), f"the driver printed nothing (rc {proc.returncode}):\n{proc.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["_lines"] = (work / "answer.md").read_text(encoding="utf-8").split("\n")
    debug = f"{result.get('error')}\nserver log:\n{result.get('serverLog', '')[-4000:]}\nnode stderr:\n{proc.stderr}"
    assert "error" not in result and proc.returncode == 0, debug
    return result


def check_session(result: dict[str, Any]) -> None:
    assert result["vscodeUsed"] == []  # the path that starts the server needs no VS Code API
    assert result["serverInfo"]["name"] == "faithlint"
    assert result["status"]["complete"] and result["status"]["modelErrors"] == []
    found = []
    for d in result["diagnostics"]:
        start, end = d["range"]["start"], d["range"]["end"]
        assert d["source"] == "faithlint"
        text = result["_lines"][start["line"]][start["character"]:end["character"]]  # ASCII lines: UTF-16 = str
        found.append((d["code"], start["line"], text if start["line"] == end["line"] else None))
    assert sorted((c, ln) for c, ln, _ in found) == sorted((c, ln) for c, ln, _ in EXPECTED), found
    for code, line, text in EXPECTED:
        if text is not None:
            assert (code, line, text) in found, found
    assert result["exitCode"] == 0  # shutdown, then exit: 0
    assert "Traceback" not in result["serverLog"]


def test_extension_command_over_stdio(session_script: Path, tmp_path: Path) -> None:
    """Exactly what the extension runs: `python3 -m faithlint serve` plus the stdio transport's `--stdio`."""
    result = run_session(session_script, "stdio", tmp_path)
    python = "python" if sys.platform == "win32" else "python3"
    assert result["command"] == [python, "-m", "faithlint", "serve"]  # serverCommand for the default settings
    assert result["argv"] == [*result["command"], "--stdio"]  # spawned by vscode-languageclient
    check_session(result)


@pytest.mark.parametrize("transport, flag", [("pipe", "--pipe="), ("socket", "--socket=")])
def test_extension_command_over_the_other_transports(session_script: Path, tmp_path: Path, transport: str,
                                                     flag: str) -> None:
    """The same command with vscode-languageclient's pipe and socket transports: the client listens, the
    server connects to the pipe / port named in the argument the library appends."""
    result = run_session(session_script, transport, tmp_path)
    assert result["argv"][:-1] == result["command"] and result["argv"][-1].startswith(flag), result["argv"]
    check_session(result)
