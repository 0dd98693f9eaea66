"""Worker for bench/speed.py: runs inside one faithlint tree's process (``PYTHONPATH=<tree>``).

Not a benchmark by itself. It imports *that tree's* faithlint (it must not import bench/common.py,
which would put the current tree first on ``sys.path``), loads the models, warms up on one tiny check,
then answers one JSON request per stdin line with one JSON reply per stdout line:

- ``{"cmd": "check", "text", "context", "query", "structured"}`` -> ``{"ms", "sentences", "findings",
  "stage_ms"}``: one response checked as batch mode (``faithlint check --pairs``) checks it, timed with
  ``time.perf_counter``; ``structured``: the context is read as a ``--pairs`` line's is (a JSON record
  verbalised, ``faithlint.inputs.structured.context_from_string``) where the tree has that;
- ``{"cmd": "build_pairs", "context", "tokens", "n"}`` -> ``{"premises", "hypotheses", "tokens"}``: pairs of
  about ``tokens`` tokens (bench/onnx_speed.py ``pairs_of_length``), cut from ``context``;
- ``{"cmd": "pairs", "premises", "hypotheses"}`` -> ``{"s"}``: one timed ``checker.score_pairs`` call;
- ``{"cmd": "rss"}`` -> this process's resident memory (VmRSS, VmHWM peak; MiB);
- ``{"cmd": "exit"}``.

How the two trees are called (the same pipeline batch mode runs for one ``--pairs`` line):

- current tree: ``faithlint.api.check(text, context, query=..., markdown=False)`` (what batch_io does);
- v0.1 (f30fa74, no ``api`` module): ``Linter(Config()).check(text, [ContextDoc(...)], id=..., query=...,
  markdown=False)``, as its ``cli.cmd_check`` does for each ``--pairs`` line (context docs named like its
  ``_read_pairs``: ``<id>#context[0]``).

Both use the default settings (``Config()``); no config file is discovered.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

TINY = ("The bridge opened in 2019 after three years of work.", "The bridge opened in 2021. It took three years.")


def memory() -> dict[str, float | None]:
    out: dict[str, float | None] = {"VmRSS": None, "VmHWM": None}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in out:
                out[key] = int(value.split()[0]) / 1024.0  # MiB
    except OSError:
        import resource

        out["VmHWM"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB
    return out


class Tree:
    """The tree's linter behind one ``check`` call, whatever its version."""

    def __init__(self) -> None:
        import faithlint
        from faithlint.config import Config

        self.faithlint = faithlint
        self.root = Path(faithlint.__file__).resolve().parent
        api = None
        # v0.1 has no api module. Test for the file, not with try/import: the venv's editable install of the
        # main checkout would serve a module the tree lacks from there (see ``foreign``).
        if (self.root / "api.py").exists():
            from faithlint import api
        self.api = api
        if api is not None:
            self.linter = api.linter_for(Config())
        else:
            from faithlint.pipeline.linter import Linter

            self.linter = Linter(Config())
        self.n = 0

    def load(self) -> None:
        self.linter.load()

    @property
    def checker(self):  # noqa: ANN201
        return self.linter.checker

    def foreign(self) -> list[str]:
        """faithlint modules loaded from outside this tree (should be none)."""
        return sorted(name for name, mod in list(sys.modules.items())
                      if (name == "faithlint" or name.startswith("faithlint.")) and getattr(mod, "__file__", None)
                      and not Path(mod.__file__).resolve().is_relative_to(self.root))

    def check(self, text: str, context: str, query: str | None, structured: bool = False) -> object:
        self.n += 1
        ident = f"row{self.n}"
        if self.api is not None:
            ctx: object = context
            if structured and (self.root / "inputs" / "structured.py").exists():
                from faithlint.inputs.structured import context_from_string

                ctx = context_from_string(f"{ident}#context[0]", context)
            return self.api.check(text, ctx, query=query, id=ident, markdown=False, linter=self.linter)
        from faithlint.types import ContextDoc

        return self.linter.check(text, [ContextDoc(f"{ident}#context[0]", context)], id=ident, query=query,
                                 markdown=False)


def pairs_of_length(checker, context: str, tokens: int, n: int) -> tuple[list[str], list[str], float]:
    """bench/onnx_speed.py ``pairs_of_length`` with the context text given: (premises, hypotheses, mean tokens)."""
    from onnx_speed import pairs_of_length as cut  # a sibling script: this script's folder is on sys.path

    premises, hyps = cut(checker, tokens, n, context)
    lengths = [a + b + 3 for a, b in zip(checker.count_tokens(premises), checker.count_tokens(hyps))]
    return premises, hyps, sum(lengths) / max(1, len(lengths))


def main() -> None:
    out = os.fdopen(os.dup(1), "w", buffering=1)  # replies only; anything the library prints goes to stderr
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def reply(obj: object) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    t = time.perf_counter()
    tree = Tree()
    tree.load()
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    tree.check(TINY[0], TINY[1], None)  # warm-up: first calls allocate, spaCy and the rules load
    warm_ms = 1000 * (time.perf_counter() - t)
    checker = tree.checker
    reply({"ready": True, "faithlint": str(tree.root),
           "version": getattr(tree.faithlint, "__version__", None), "api": tree.api is not None,
           "checker": type(checker).__name__, "checker_name": getattr(checker, "name", None),
           "load_s": round(load_s, 3), "warmup_ms": round(warm_ms, 1), "memory": memory(), "pid": os.getpid()})
    warmed_pairs = False
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "check":
            t = time.perf_counter()
            res = tree.check(req["text"], req["context"], req.get("query"), bool(req.get("structured")))
            ms = 1000 * (time.perf_counter() - t)
            stages = dict(getattr(getattr(tree.linter, "stats", None), "stage_ms", None) or {})  # v0.1 has none
            reply({"ms": ms, "sentences": len(res.sentences), "findings": len(res.findings), "stage_ms": stages})
        elif cmd == "build_pairs":
            prem, hyp, mean = pairs_of_length(checker, req["context"], int(req["tokens"]), int(req["n"]))
            reply({"premises": prem, "hypotheses": hyp, "tokens": mean})
        elif cmd == "pairs":
            if not warmed_pairs:
                checker.score_pairs(req["premises"][:4], req["hypotheses"][:4])
                warmed_pairs = True
            t = time.perf_counter()
            checker.score_pairs(req["premises"], req["hypotheses"])
            reply({"s": time.perf_counter() - t})
        elif cmd in ("rss", "exit"):
            reply({**memory(), "foreign_modules": tree.foreign()})
            if cmd == "exit":
                return
        else:
            reply({"error": f"unknown command {cmd!r}"})


if __name__ == "__main__":
    main()
