"""No network, proven (issue 39): no faithlint command resolves a name or connects beyond this machine.

Each command runs once, in its own process tree, on examples/rag-answer, watched two ways:

- a Python audit hook (a ``sitecustomize.py`` put first on ``PYTHONPATH``, so every Python process the command
  starts loads it too: Ray's workers and its runtime) records, and blocks, every ``getaddrinfo`` /
  ``gethostbyname`` of a name other than localhost and every ``connect`` / ``sendto`` to an address other than
  loopback;
- ``strace -f`` records the ``connect(2)`` and ``sendto(2)`` of every thread of every process, native code
  included (ONNX Runtime's telemetry resolves its host from C++ about nine seconds after it loads; Ray's runtime
  finds its address by a UDP connect to 8.8.8.8 from C++): any address but loopback or a Unix socket fails the
  test, a DNS query to the resolver included. Skipped, with the reason, where strace is missing or not allowed.

The settings faithlint makes itself (telemetry off, the hub offline) are removed from the commands' environment,
so the test checks faithlint's defaults, not the test runner's. Each run also records which libraries its main
process loaded, so a command that failed early (and so made no connection) cannot pass: the OpenVINO, ONNX
Runtime and torch paths, the monitor, spaCy's claims, the local and the Ray batch engines, a ``--model`` hub id
that is not cached (refused at once), ``fix``, ``watch`` and the language server (a check, a code action and a RAC
correction; kept alive past ONNX Runtime's telemetry delay) all really run.
"""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag-answer"
TIMEOUT = 600
# how long the language server stays up after its models have loaded: past ONNX Runtime's telemetry upload (~9 s)
SERVER_LINGER = 12.0
# what faithlint sets for itself (faithlint/offline.py, faithlint/batch/ray_engine.py): never inherited from the runner
OWN_SETTINGS = ("ORT_DISABLE_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY", "RAY_USAGE_STATS_ENABLED", "DO_NOT_TRACK",
                "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "FAITHLINT_ALLOW_DOWNLOADS",
                "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_ADDRESS")
WATCHED_LIBRARIES = ("openvino", "onnxruntime", "torch", "transformers", "spacy", "ray", "huggingface_hub")

SITECUSTOMIZE = r'''
"""tests/test_no_network.py: record and block every name look-up and connection beyond this machine."""
import os
import sys


def _install():
    import atexit, errno, ipaddress, json, socket, traceback

    log = os.environ["FAITHLINT_NO_NETWORK_LOG"]
    modules = os.environ["FAITHLINT_NO_NETWORK_MODULES"]

    def local(host):
        if host is None:
            return True
        if isinstance(host, bytes):
            host = host.decode("utf-8", "replace")
        host = str(host).split("%")[0]
        if host in ("", "localhost") or host.endswith(".localhost"):
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False  # a name: resolving it may ask the DNS resolver
        if ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        return ip.is_loopback or ip.is_unspecified

    def hook(event, args):
        if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
                     "socket.gethostbyaddr"):
            host = args[0]
        elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            sock, address = args[0], args[1]
            if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
                return
            host = address[0]
        else:
            return
        if local(host):
            return
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"pid": os.getpid(), "argv": sys.argv[:4], "event": event, "host": str(host),
                                "stack": traceback.format_stack(limit=12)[:-1]}) + "\n")
        raise OSError(errno.ENETUNREACH, f"tests/test_no_network.py blocked {event} {host!r}")

    def loaded():
        names = sorted(n for n in WATCHED if n in sys.modules and sys.modules[n] is not None)
        with open(modules, "a", encoding="utf-8") as f:
            f.write(json.dumps({"pid": os.getpid(), "argv": sys.argv[:4], "modules": names}) + "\n")

    sys.addaudithook(hook)
    atexit.register(loaded)


WATCHED = @WATCHED@
_install()
'''.replace("@WATCHED@", repr(WATCHED_LIBRARIES))


# every thread and child; only these calls stop the process (seccomp-bpf), so torch's threads run at full speed
STRACE = ["strace", "-f", "--seccomp-bpf", "-qq", "-s", "256", "-e", "trace=connect,sendto"]


def _strace_problem() -> str | None:
    """Why strace cannot watch here (None: it can)."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace): the native-code half of the check is skipped"
    probe = subprocess.run([*STRACE, "-o", os.devnull, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"strace cannot trace here ({probe.stderr.strip().splitlines()[-1:]}): the native-code half is skipped"
    return None


STRACE_PROBLEM = _strace_problem()
# connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}, 16) = 0
# connect(7, {sa_family=AF_INET6, sin6_port=htons(80), ..., inet_pton(AF_INET6, "::ffff:192.0.2.2", &sin6_addr), ...
STRACE_ADDRESS = re.compile(r'\b(connect|sendto)\(\d+, .*?\{sa_family=(AF_INET6?),.*?'
                            r'(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")')


def _loopback(ip: str) -> bool:
    addr = ipaddress.ip_address(ip)
    if addr.version == 6 and addr.ipv4_mapped:
        addr = addr.ipv4_mapped
    return addr.is_loopback


STRACE_PAYLOAD = re.compile(r'\bsendto\(\d+, "((?:[^"\\]|\\.)*)"')


def dns_names(text: str) -> set[str]:
    """The names asked in the DNS queries of an strace log (the question after the 12-byte header)."""
    names = set()
    for m in STRACE_PAYLOAD.finditer(text):
        data = codecs.escape_decode(m.group(1).encode("latin-1", "replace"))[0]
        labels, i = [], 12
        while i < len(data) and 0 < data[i] < 64 and i + 1 + data[i] <= len(data):
            labels.append(data[i + 1:i + 1 + data[i]].decode("ascii", "replace"))
            i += 1 + data[i]
        if labels and i < len(data) and data[i] == 0:
            names.add(".".join(labels))
    return names


def strace_violations(path: Path) -> list[str]:
    """The non-loopback connect/sendto lines of an ``strace -f -o`` log (Unix and netlink sockets are local), and
    the names any DNS query asked."""
    text = path.read_text(encoding="utf-8", errors="replace")
    out = []
    for line in text.splitlines():
        m = STRACE_ADDRESS.search(line)
        if m and not _loopback(m.group(3) or m.group(4)):
            out.append(line.strip()[:240])
    if out:
        out += [f"DNS query: {name}" for name in sorted(dns_names(text))]
    return out


@dataclass
class Run:
    """What one command did: its exit status and output, and what each watcher saw."""

    rc: int
    stdout: str
    stderr: str
    hook: list[dict[str, Any]]
    strace: list[str] | None  # None: strace did not watch it
    loaded: set[str] = field(default_factory=set)  # libraries the command's own process imported

    def describe(self) -> str:
        return f"exit {self.rc}\nstdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-3000:]}"


class Watch:
    """A temporary folder with the hook, its logs and the commands' environment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        hook_dir = root / "hook"
        hook_dir.mkdir()
        (hook_dir / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        self.log = root / "network.jsonl"
        self.modules = root / "modules.jsonl"
        self.trace = root / "strace.txt"
        env = {k: v for k, v in os.environ.items() if k not in OWN_SETTINGS}
        env["PYTHONPATH"] = os.pathsep.join([str(hook_dir), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        env["FAITHLINT_NO_NETWORK_LOG"] = str(self.log)
        env["FAITHLINT_NO_NETWORK_MODULES"] = str(self.modules)
        env["PYTHONUNBUFFERED"] = "1"
        self.env = env

    def argv(self, command: list[str]) -> list[str]:
        if STRACE_PROBLEM is not None:
            return command
        return [*STRACE, "-o", str(self.trace), *command]

    def result(self, rc: int, stdout: str, stderr: str) -> Run:
        hook = [json.loads(x) for x in self.log.read_text(encoding="utf-8").splitlines()] if self.log.exists() else []
        loaded: set[str] = set()
        if self.modules.exists():
            for line in self.modules.read_text(encoding="utf-8").splitlines():
                loaded.update(json.loads(line)["modules"])
        trace = strace_violations(self.trace) if self.trace.exists() else None
        return Run(rc, stdout, stderr, hook, trace, loaded)


def workspace(root: Path) -> Path:
    """examples/rag-answer copied (with a pairs file and one config per runtime); returns the folder."""
    d = root / "rag-answer"
    d.mkdir()
    for name in ("answer.md", "answer.context.md"):
        shutil.copyfile(EXAMPLE / name, d / name)
    context = (EXAMPLE / "answer.context.md").read_text(encoding="utf-8")
    rows = [{"id": f"p{i}", "text": t, "context": [context]} for i, t in enumerate(
        ["The project cost $25 million.", "The library is closed on Sundays.", "A rooftop café opened."])]
    (root / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for runtime in ("openvino", "onnx", "torch"):
        (root / f"{runtime}.toml").write_text(f'runtime = "{runtime}"\n', encoding="utf-8")
    return d


FAITHLINT = [sys.executable, "-m", "faithlint"]
# name -> (arguments after `faithlint`, the libraries its process must have loaded, exit codes it may end with)
COMMANDS: dict[str, tuple[list[str], set[str], set[int]]] = {
    # the default runtime, and spaCy's claim extraction
    "check-openvino-claims": (["check", "{ws}/answer.md", "--config", "{root}/openvino.toml", "--unit", "both"],
                              {"openvino", "spacy"}, {1}),
    # ONNX Runtime, on the batch path (local engine)
    "check-onnx-pairs": (["check", "--pairs", "{root}/pairs.jsonl", "--config", "{root}/onnx.toml",
                          "--no-progress", "-o", "{root}/onnx-out.jsonl"], {"onnxruntime"}, {0, 1}),
    # torch + transformers, and the monitor's surrogate LM (a process that lives past ONNX Runtime's telemetry)
    "check-torch-monitor": (["check", "{ws}/answer.md", "--config", "{root}/torch.toml", "--monitor", "on"],
                            {"torch", "transformers"}, {1}),
    "check-pairs-ray": (["check", "--pairs", "{root}/pairs.jsonl", "--engine", "ray", "--workers", "1",
                         "--no-progress", "-o", "{root}/ray-out.jsonl"], {"ray"}, {0, 1}),
    # a --model hub id that is not cached: refused at once, the hub never asked
    "check-hub-model": (["check", "{ws}/answer.md", "--model", "faithlint-tests/no-such-nli-model"],
                        {"huggingface_hub"}, {2}),
    "fix": (["fix", "{ws}/answer.md"], set(), {1}),
    "watch-once": (["watch", "{ws}", "--once", "--no-live", "--report-dir", "{root}/reports"], set(), {1}),
}
# what a command's error output must say
STDERR = {"check-hub-model": "FAITHLINT_ALLOW_DOWNLOADS=1"}


def run_command(name: str, tmp: Path) -> Run:
    args, _, _ = COMMANDS[name]
    watch = Watch(tmp)
    ws = workspace(tmp)
    argv = [a.format(ws=ws, root=tmp) for a in args]
    proc = subprocess.run(watch.argv([*FAITHLINT, *argv]), cwd=tmp, env=watch.env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    return watch.result(proc.returncode, proc.stdout, proc.stderr)


def run_server(tmp: Path) -> Run:
    """``faithlint serve`` over stdio: initialize, didOpen, diagnostics, the code actions of the planted amount and
    its RAC correction; the server stays up SERVER_LINGER seconds after its first diagnostics, then shuts down."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "server"))
    from lsp_helpers import capabilities, open_doc, session, wait_checked, wait_for
    from lsprotocol import types

    watch = Watch(tmp)
    ws = workspace(tmp)
    draft = ws / "answer.md"
    text = draft.read_text(encoding="utf-8")
    seen: dict[str, Any] = {}
    caps = capabilities()
    assert caps.workspace is not None
    caps.workspace.apply_edit = True

    async def drive() -> None:
        async with session(ws, command=watch.argv([*FAITHLINT, "serve"]), init={"debounce": 0},
                           caps=caps) as client:
            conv = client.protocol._converter  # our code actions carry a command: read them as CodeActions
            conv.register_structure_hook(Union[types.Command, types.CodeAction],  # noqa: UP007 (lsprotocol's key)
                                         lambda obj, _: conv.structure(obj, types.Command if isinstance(
                                             obj.get("command"), str) else types.CodeAction))
            uri = open_doc(client, draft)
            st = await wait_checked(client, uri, 1, 300, interval=0.2)
            seen["model_errors"] = st["modelErrors"]
            diags = await wait_for(lambda: client.diagnostics.get(uri), 300)
            loaded = time.monotonic()
            a = text.index("$25 million")
            amount = next(d for d in diags if d.data and d.data.get("start", -1) <= a < d.data["end"])
            actions = await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=amount.range,
                context=types.CodeActionContext(diagnostics=[amount]))) or []
            seen["actions"] = [x.title for x in actions]
            rac = next(x.command for x in actions if isinstance(x, types.CodeAction) and x.command is not None
                       and x.command.arguments and x.command.arguments[0].get("method") == "rac")
            result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command=rac.command, arguments=rac.arguments))
            seen["rac"] = [c["title"] for c in (result or {}).get("candidates", [])]
            await asyncio.sleep(max(0.0, SERVER_LINGER - (time.monotonic() - loaded)))

    error: BaseException | None = None
    with pytest.MonkeyPatch.context() as mp:  # the session hands os.environ to the server
        for key in set(os.environ) - set(watch.env):
            mp.delenv(key)
        for key, value in watch.env.items():
            mp.setenv(key, value)
        try:
            asyncio.run(drive())
        except Exception as exc:  # noqa: BLE001 - reported with what the watchers saw
            error = exc
    return watch.result(0 if error is None else 2, json.dumps(seen), repr(error) if error else "")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Each command's run, made once for both watchers' tests."""
    done: dict[str, Run] = {}

    def get(name: str) -> Run:
        if name not in done:
            tmp = tmp_path_factory.mktemp(name)
            done[name] = run_server(tmp) if name == "serve" else run_command(name, tmp)
        return done[name]

    yield get


NAMES = [*COMMANDS, "serve"]


def _ran(name: str, run: Run) -> None:
    """The command did its work (a command that failed early would pass for want of trying)."""
    if name == "serve":
        seen = json.loads(run.stdout)
        assert run.rc == 0 and not seen.get("model_errors"), run.describe()
        assert seen.get("actions") and seen.get("rac"), run.describe()
        assert {"openvino", "onnxruntime"} <= run.loaded, run.loaded  # ONNX Runtime: kept up past its telemetry
        return
    _, libraries, codes = COMMANDS[name]
    assert run.rc in codes, run.describe()
    assert libraries <= run.loaded, f"{sorted(libraries - run.loaded)} never loaded: {run.describe()}"
    assert STDERR.get(name, "") in run.stderr, run.describe()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_no_python_level_lookup_or_connection(name: str, runs: Any) -> None:
    run = runs(name)
    blocked = [f"{e['event']} {e['host']} (pid {e['pid']}, {' '.join(e['argv'])})\n" + "".join(e["stack"][-4:])
               for e in run.hook]
    assert not blocked, "network use from Python:\n" + "\n".join(blocked)
    _ran(name, run)


@pytest.mark.slow
@pytest.mark.skipif(STRACE_PROBLEM is not None, reason=STRACE_PROBLEM or "")
@pytest.mark.parametrize("name", NAMES)
def test_no_connection_at_all(name: str, runs: Any) -> None:
    run = runs(name)
    assert run.strace is not None, "strace wrote no log"
    assert not run.strace, "connections beyond loopback (strace):\n" + "\n".join(run.strace[-20:])
    _ran(name, run)


def test_the_watchers_see_what_they_look_for(tmp_path: Path) -> None:
    """The watchers are not blind: the hook reports (and blocks) a look-up and a connection; strace reports a
    connection from a process without the hook. Nothing is sent: the hook blocks both before they happen, and a UDP
    connect to a documentation address (192.0.2.1, TEST-NET-1) sends no packet."""
    watch = Watch(tmp_path)
    code = ("import socket\n"
            "udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for call in (lambda: socket.getaddrinfo('example.invalid', 80), lambda: udp.connect(('192.0.2.1', 9))):\n"
            "    try:\n        call()\n    except OSError:\n        pass\n")
    proc = subprocess.run([sys.executable, "-c", code], env=watch.env, capture_output=True, text=True, timeout=60)
    run = watch.result(proc.returncode, proc.stdout, proc.stderr)
    assert [(e["event"], e["host"]) for e in run.hook] == [("socket.getaddrinfo", "example.invalid"),
                                                          ("socket.connect", "192.0.2.1")], run.describe()
    if STRACE_PROBLEM is None:
        udp = "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).connect(('192.0.2.1', 9))"
        subprocess.run(watch.argv([sys.executable, "-c", udp]), env={**watch.env, "PYTHONPATH": str(ROOT)},
                       capture_output=True, timeout=60, check=True)
        assert [line for line in strace_violations(watch.trace) if "192.0.2.1" in line], watch.trace.read_text()


def _settings_after_import(env: dict[str, str]) -> dict[str, Any]:
    """The offline settings a fresh process has after ``import faithlint``, from a clean environment plus ``env``."""
    code = ("import json, os, sys, faithlint\n"
            f"names = {list(OWN_SETTINGS)!r}\n"
            "hidden = 'openvino_telemetry' in sys.modules and sys.modules['openvino_telemetry'] is None\n"
            "print(json.dumps({'env': {n: os.environ.get(n) for n in names}, 'openvino_telemetry': hidden}))")
    clean = {k: v for k, v in os.environ.items() if k not in OWN_SETTINGS}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, "PYTHONPATH": str(ROOT), **env},
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def test_import_turns_telemetry_off_and_the_hub_offline() -> None:
    got = _settings_after_import({})
    assert got["env"] == {**dict.fromkeys(OWN_SETTINGS), "ORT_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
                          "RAY_USAGE_STATS_ENABLED": "0", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1",
                          "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    assert got["openvino_telemetry"]  # kept from loading: openvino's converter falls back to its no-op stub


def test_downloads_allowed_leaves_the_hub_online_and_user_settings_win() -> None:
    got = _settings_after_import({"FAITHLINT_ALLOW_DOWNLOADS": "1", "RAY_USAGE_STATS_ENABLED": "1"})["env"]
    assert got["HF_HUB_OFFLINE"] is None and got["TRANSFORMERS_OFFLINE"] is None
    assert got["ORT_DISABLE_TELEMETRY"] == "1" and got["HF_HUB_DISABLE_TELEMETRY"] == "1"  # telemetry stays off
    assert got["RAY_USAGE_STATS_ENABLED"] == "1"  # the user's own choice is kept
    assert _settings_after_import({"HF_HUB_OFFLINE": "0"})["env"]["HF_HUB_OFFLINE"] == "0"
