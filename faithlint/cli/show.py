"""What ``faithlint check`` shows besides findings: ``--show-settings`` and ``--show-pairing`` (what a draft would
be checked with, without loading a model), ``--statistics`` (findings per rule), its help text, and the status
line while the models load.

Settings are per draft: each draft's own config file (the nearest ``faithlint.toml`` or ``pyproject.toml`` with
``[tool.faithlint]`` above it, unless ``--config``) with the command line's overrides on top.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faithlint.cli.common import config_for, display_path, draft_paths
from faithlint.cli.options import cli_overrides
from faithlint.errors import FaithlintError

DESCRIPTION = """\
Check drafts (Markdown or text files) against the context they were written from. Each draft is paired with its
context: --context, the front matter's 'context:', a sibling NAME.context.md or NAME.context/ folder, or a
[[pair]] rule in faithlint.toml. Every sentence the context does not support is reported with a rule code
(`faithlint rule CODE` explains it). Settings come from the nearest faithlint.toml (or pyproject.toml's
[tool.faithlint]) above each draft, then the flags below."""

EPILOG = """\
exit codes:
  0    no findings at or above --fail-on (or --show-settings / --show-pairing succeeded)
  1    findings at or above --fail-on
  2    usage, input or runtime error (one line on stderr)
  130  interrupted

examples:
  faithlint check answer.md                     answer.context.md beside it is the context
  faithlint check answer.md --context sources/  any file or folder as the context
  faithlint check drafts/ --format sarif -o faithlint.sarif
  faithlint check --pairs batch.jsonl --format json
  faithlint check drafts/ --statistics          findings per rule, instead of the findings
  faithlint check drafts/ --show-pairing        each draft's context files, query and config file
  faithlint check answer.md --show-settings     the config file found and the merged settings
  faithlint rule FL200                          what a rule means, how to tune or suppress it"""

_FROM = {"cli": "--context", "front-matter": "front matter 'context:'", "sibling": "sibling of the draft",
         "none": "none"}
_QUERY_FROM = {"cli": "--query", "front-matter": "front matter 'query:'", "none": ""}


def add_arguments(c: argparse.ArgumentParser) -> None:
    """``check``'s description, exit codes and examples, and the options of this module."""
    c.description, c.epilog, c.formatter_class = DESCRIPTION, EPILOG, argparse.RawDescriptionHelpFormatter
    c.add_argument("--statistics", action="store_true",
                   help="print the number of findings per rule (count, code, name) instead of the findings; "
                        "text or --format json; the exit code is unchanged")
    show = c.add_argument_group("show what a check would use, then exit (no model loads)")
    how = show.add_mutually_exclusive_group()
    how.add_argument("--show-settings", action="store_true",
                     help="print each draft's config file (or 'defaults') and its merged settings as TOML "
                          "(--format json: JSON); drafts sharing a config are listed together; exit 0")
    how.add_argument("--show-pairing", action="store_true",
                     help="print each draft's context files and where they came from, its query and its config "
                          "file (--format json: JSON); a draft that cannot be paired shows its error and makes "
                          "the exit code 2")


# --------------------------------------------------------------------------- settings
def _config_of(args: argparse.Namespace, draft: Path, cache: dict[Path, Any]) -> tuple[Any, Path | None]:
    """The draft's config (its folder's, read once per folder) and the file it came from."""
    folder = draft if draft.is_dir() else draft.parent
    if folder not in cache:
        cache[folder] = config_for(args, folder if folder.exists() else Path.cwd())
    return cache[folder]


def _configs(args: argparse.Namespace, paths: Sequence[Path]) -> list[tuple[Any, Path | None, list[Path]]]:
    """(config, config file, drafts) per distinct config file, in the drafts' order; the current folder's when no
    drafts are given."""
    cache: dict[Path, Any] = {}
    groups: dict[Path | None, tuple[Any, Path | None, list[Path]]] = {}
    for draft in paths or [Path.cwd()]:
        config, path = _config_of(args, draft, cache)
        groups.setdefault(path, (config, path, []))[2].append(draft)
    return list(groups.values())


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def settings_toml(config: Any) -> str:
    """``config`` as the TOML that would set it (a ``faithlint.toml``), in its sections; unset keys as comments,
    and each value that differs from the default with the default beside it."""
    from faithlint.config import SECTIONS, Config

    data, default = config.model_dump(mode="json"), Config().model_dump(mode="json")
    out: list[str] = []
    for section, keys in SECTIONS.items():
        out += [*([""] if out else []), f"[{section}]"]
        for key in keys:
            value = data[key]
            if value is None:
                out.append(f"# {key} is unset")
                continue
            line = f"{key} = {_value(value)}"
            out.append(line + (f"  # default: {_value(default[key])}" if value != default.get(key) else ""))
    for code, rule in data["rules"].items():
        out += ["", f"[rules.{code}]", *(f"{k} = {_value(v)}" for k, v in rule.items() if v is not None)]
    for rule in data["pair"]:
        out += ["", "[[pair]]", *(f"{k} = {_value(v)}" for k, v in rule.items() if v is not None)]
    return "\n".join(out) + "\n"


def show_settings(args: argparse.Namespace) -> int:
    """``check --show-settings``: per config file, the drafts it governs, then the merged settings."""
    groups = _configs(args, draft_paths(args.paths, None) if args.paths else [])
    overrides = sorted("--" + k.replace("_", "-") for k in cli_overrides(args))
    if args.format == "json":
        rows = [{"drafts": [display_path(d) for d in drafts] if args.paths else [], "config_file": _file(path),
                 "overrides": overrides, "settings": config.model_dump(mode="json")} for config, path, drafts in groups]
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return 0
    blocks = []
    for config, path, drafts in groups:
        head = [f"# drafts: {', '.join(display_path(d) for d in drafts)}" if args.paths else "# drafts: none given "
                "(the settings for the current folder)",
                f"# config file: {_file(path) or 'none found (defaults)'}"]
        if overrides:
            head.append(f"# command line: {', '.join(overrides)}")
        blocks.append("\n".join(head) + "\n" + settings_toml(config))
    sys.stdout.write("\n".join(blocks))
    return 0


def _file(path: Path | None) -> str | None:
    return display_path(path) if path is not None else None


# --------------------------------------------------------------------------- pairing
def _pairing_row(args: argparse.Namespace, draft: Path, config: Any, config_path: Path | None) -> dict[str, Any]:
    from faithlint.inputs.drafts import prepare

    prep = prepare(draft, config, config_path, cli_context=args.context, cli_query=args.query,
                   allow_no_context=args.allow_no_context, display=display_path(draft))
    pairing = prep.pairing
    row: dict[str, Any] = {"draft": display_path(draft), "config_file": _file(config_path), "context": [],
                           "context_from": None, "query": None, "query_from": None,
                           "problems": [{"severity": p.severity, "message": p.message} for p in prep.problems]}
    if pairing is not None:
        where = _file(config_path) or "settings"
        rule = f"[[pair]] rule {pairing.rule} in {where}"
        row.update(context=[display_path(p) + ("/" if p.is_dir() else "") for p in pairing.context],
                   context_from=rule if pairing.how == "config" else _FROM[pairing.how],
                   query=pairing.query,
                   query_from=rule if pairing.query_how == "config" else _QUERY_FROM[pairing.query_how] or None)
    return row


def show_pairing(args: argparse.Namespace) -> int:
    """``check --show-pairing``: what each draft is paired with; exit 2 when one cannot be checked."""
    if args.pairs:
        raise FaithlintError("--show-pairing shows how draft files are paired; --pairs batches carry their context")
    if not args.paths:
        raise FaithlintError("no drafts given: faithlint check PATH... --show-pairing")
    cache: dict[Path, Any] = {}
    rows = [_pairing_row(args, d, *_config_of(args, d, cache)) for d in draft_paths(args.paths, None)]
    if args.format == "json":
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("".join(_pairing_text(r) for r in rows))
    return 2 if any(p["severity"] == "error" for r in rows for p in r["problems"]) else 0


def _pairing_text(row: dict[str, Any]) -> str:
    out = [row["draft"]]
    if row["context_from"] is not None:  # paired (context_from "none": no context found)
        files = row["context"] or ["none"]
        out.append(f"  context: {files[0]}" + (f"  [{row['context_from']}]" if files != ["none"] else ""))
        out += [f"           {f}" for f in files[1:]]
        out.append(f"  query:   {row['query'] or 'none'}" + (f"  [{row['query_from']}]" if row["query"] else ""))
    out.append(f"  config:  {row['config_file'] or 'none found (defaults)'}")
    out += [f"  {p['severity']}: {p['message']}" for p in row["problems"]]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- statistics
def statistics(results: Sequence[Any], fmt: str) -> str:
    """Findings per rule, most frequent first (ties by code): ``  3  FL200  unsupported``, or JSON."""
    from faithlint.rules import RULES

    counts = Counter(f.code for r in results for f in r.findings)
    rows = [{"code": code, "name": RULES[code].name if code in RULES else "", "count": n}
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    return "".join(f"{r['count']:>{width}}  {r['code']:<6} {r['name']}\n" for r in rows)


def check_view(args: argparse.Namespace) -> None:
    """Refuse what the views cannot do: they print text or JSON, to stdout."""
    view = next((f"--{n.replace('_', '-')}" for n in ("show_settings", "show_pairing", "statistics")
                 if getattr(args, n)), None)
    if view is None:
        return
    if args.format not in (None, "text", "json"):
        raise FaithlintError(f"{view} prints text or JSON, not --format {args.format}")
    if view != "--statistics":
        for flag, given in (("-o", args.output), ("--fix", args.fix), ("--diff", args.diff)):
            if given:
                raise FaithlintError(f"{view} shows what a check would use and checks nothing: drop {flag}")
    elif args.diff:
        raise FaithlintError("--statistics counts findings; --diff prints fixes: choose one")
    elif args.engine != "local" or args.resume:
        raise FaithlintError("--statistics counts the findings of a report; --engine ray and --resume write JSONL")


# --------------------------------------------------------------------------- loading status
def load_models(linter: Any, args: argparse.Namespace) -> None:
    """In a terminal, load the linter's models before the first draft under one status line on stderr, cleared
    once they are loaded (not with --no-progress, nor when a machine-readable report goes to stdout). Elsewhere
    nothing changes: the first check loads them, as before."""
    show = not args.no_progress and (args.format in (None, "text") or args.output is not None)
    load = getattr(linter, "load_models", None)
    if not (show and load is not None and sys.stderr.isatty()):
        return
    sys.stderr.write("faithlint: loading models\u2026")
    sys.stderr.flush()
    try:
        load()
    finally:
        sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()
