"""``faithlint rule [CODE]``: a rule's documentation, offline (like ``ruff rule F401``), read from the rule registry;
and ``faithlint completion SHELL``: the shell's completion script (argcomplete)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from faithlint.errors import ConfigError, FaithlintError, InputError

SHELLS = ("bash", "zsh", "fish")


def add_parsers(sub: Any) -> None:
    """The ``rule`` and ``completion`` subcommands."""
    r = sub.add_parser("rule", help="explain a rule: what it means, its default severity and threshold, how to "
                                    "configure and suppress it",
                       description="Print a rule's documentation (no model loads). Without a code: one line per "
                                   "rule (code, name, default severity, summary).",
                       epilog="examples: faithlint rule FL100 | faithlint rule | faithlint rule --all "
                              "--output-format markdown")
    code = r.add_argument("code", nargs="?", metavar="CODE", help="rule code, e.g. FL100 (default: list every rule)")
    code.completer = _rule_codes  # type: ignore[attr-defined]  # argcomplete: tab completes the codes
    r.add_argument("--all", action="store_true", help="the full documentation of every rule (default: off)")
    r.add_argument("--output-format", choices=["text", "json", "markdown"], default="text",
                   help="text for the terminal, json, or markdown as in docs/rules.md (default: text)")
    c = sub.add_parser("completion", help="print the shell completion script (e.g. eval \"$(faithlint completion "
                                          "bash)\")",
                       description="Print the tab-completion script for SHELL. bash: add "
                                   "'eval \"$(faithlint completion bash)\"' to ~/.bashrc; zsh: the same in ~/.zshrc; "
                                   "fish: faithlint completion fish > ~/.config/fish/completions/faithlint.fish")
    c.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def _rule_codes(**_: Any) -> list[str]:
    from faithlint.rules import RULES

    return list(RULES)


def run(args: argparse.Namespace) -> int:
    return cmd_rule(args) if args.command == "rule" else cmd_completion(args)


def _here(rule: Any) -> str | None:
    """What the settings of the current folder (if it has a config file) make of the rule."""
    from faithlint.config import load_config

    try:
        config, path = load_config(None, start=Path.cwd())
    except ConfigError as exc:
        return f"the config here could not be read ({exc})"
    if path is None:
        return None
    parts = ["on" if config.rule_enabled(rule.code) else "off (select/ignore)",
             f"severity {config.severity_for(rule.code, rule.severity)}"]
    own = config.rules.get(rule.code)
    if own is not None and own.threshold is not None:
        parts.append(f"threshold {own.threshold:g}")
    return f"{', '.join(parts)} ({path})"


def cmd_rule(args: argparse.Namespace) -> int:
    from faithlint.rules import RULES, docs

    if args.code is not None and args.all:
        raise InputError("give a rule CODE or --all, not both")
    if args.code is not None:
        code = args.code.strip().upper()
        if code not in RULES:
            raise InputError(f"unknown rule code '{args.code}' (known: {', '.join(RULES)})")
        rule = RULES[code]
        out = {"text": lambda: docs.text(rule, _here(rule)), "markdown": lambda: docs.markdown(rule),
               "json": lambda: json.dumps(docs.as_dict(rule), indent=2, ensure_ascii=False) + "\n"}
        sys.stdout.write(out[args.output_format]())
        return 0
    rules = list(RULES.values())
    if args.output_format == "json":
        sys.stdout.write(json.dumps([docs.as_dict(r) for r in rules], indent=2, ensure_ascii=False) + "\n")
    elif args.output_format == "markdown":
        sys.stdout.write(docs.markdown_all(rules))
    elif args.all:
        sys.stdout.write(("\n" + "-" * 80 + "\n\n").join(docs.text(r, _here(r)) for r in rules))
    else:
        sys.stdout.write(docs.table(rules))
    return 0


def _argcomplete() -> Any:
    try:
        import argcomplete
    except ImportError:
        raise FaithlintError("shell completion needs argcomplete: pip install argcomplete") from None
    return argcomplete


def cmd_completion(args: argparse.Namespace) -> int:
    sys.stdout.write(_argcomplete().shellcode(["faithlint"], shell=args.shell))
    return 0


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer a shell's completion request (``_ARGCOMPLETE`` set) and exit; no model loads."""
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)
