"""What ``faithlint check`` and ``faithlint watch`` share on the command line: the options that choose the
context, the model and the rules (one parent parser), how they override the config, and how ``--fail-on``
turns findings into an exit code.

Kept out of :mod:`faithlint.cli.app` so :mod:`faithlint.watch` need not import the CLI (which imports it).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from faithlint.types import FAIL_ON


def shared_options(*, context_help: str, fail_on_help: str) -> argparse.ArgumentParser:
    """A parent parser (``parents=[...]``) with the options ``check`` and ``watch`` both take."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--context", action="append", type=Path, default=[], metavar="PATH", help=context_help)
    p.add_argument("--query", help="the question or instruction the draft answers")
    p.add_argument("--model", help="checker model: local folder or Hugging Face id (default: bundled model)")
    p.add_argument("--config", type=Path, help="faithlint.toml or pyproject.toml to use (default: discovered)")
    p.add_argument("--fail-on", choices=FAIL_ON, default=None, help=fail_on_help)
    p.add_argument("--allow-no-context", action="store_true", help="check drafts without context (no NLI rules)")
    p.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    p.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    p.add_argument("--monitor", choices=["on", "off"], default=None,
                   help="score sentences with the SynCheck-style monitor (surrogate LM + checker; default: config)")
    p.add_argument("--grounding", choices=["on", "off"], default=None,
                   help="score sentences by the checker and the words the context lacks (default: config, else on)")
    p.add_argument("--monitor-aggregator", choices=["lr", "mlp"], default=None,
                   help="the monitor's aggregator (default: config, else lr)")
    p.add_argument("--surrogate", metavar="PATH_OR_ID",
                   help="the monitor's causal LM: folder, .gguf file or Hugging Face id (default: SmolLM2-135M)")
    p.add_argument("--unit", choices=["sentence", "claim", "both"], default=None,
                   help="what findings mark: sentences, claim triplets, or both (default: config, else sentence)")
    p.add_argument("--claim-aggregation", choices=["strict", "soft", "major"], default=None,
                   help="claims -> sentence verdict (default: config, else strict)")
    p.add_argument("--claim-extractor", choices=["spacy", "llm"], default=None,
                   help="how claims are extracted: spaCy rules or an LLM (default: config, else spacy)")
    p.add_argument("--checker", choices=["nli", "llm"], default=None,
                   help="what judges each pair: the NLI model or an LLM (llm_model/llm_endpoint; default: config, "
                        "else nli)")
    return p


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Settings given as flags (--model, --select, --ignore, --fail-on, --monitor...); shared by check and watch."""
    overrides: dict[str, Any] = {}
    if args.model:
        overrides["model"] = args.model
    if args.select:
        overrides["select"] = [x.strip() for x in args.select.split(",") if x.strip()]
    if args.ignore:
        overrides["ignore"] = [x.strip() for x in args.ignore.split(",") if x.strip()]
    if args.fail_on:
        overrides["fail_on"] = args.fail_on
    for flag in ("monitor", "grounding", "monitor_aggregator", "surrogate", "unit", "claim_aggregation",
                 "claim_extractor", "checker"):
        if getattr(args, flag, None):
            overrides[flag] = getattr(args, flag)
    return overrides


def add_fix_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``faithlint fix``'s own arguments (the shared ones come from :func:`shared_options`)."""
    p.description = ("Correct the flagged sentences of drafts from their context. Prints a unified diff and "
                     "changes nothing unless --write; --pairs corrects a JSONL batch into JSONL. Exit 0: nothing to "
                     "fix and no findings at --fail-on; 1: fixes were proposed (without --write, and always with "
                     "--pairs) or findings remain (after --write); 2: error; 130: interrupted (nothing written).")
    p.add_argument("paths", nargs="*", type=Path, help="draft files or folders (.md, .txt)")
    p.add_argument("--method", choices=["rac", "fod", "values"], default="rac",
                   help="rac: retrieval-augmented correction of flagged sentences, re-checked (default); "
                        "fod: faithfulness-oriented decoding, regenerating flagged sentences with an LLM (fod_* "
                        "settings); values: only the FL400 value swap of check --fix")
    p.add_argument("--write", action="store_true", help="write the corrected drafts (the diff is still printed)")
    p.add_argument("--pairs", type=Path, metavar="FILE.jsonl",
                   help="batch mode: one {id, text, context | context_files, query?} per line, as check --pairs; "
                        "writes one {id, text, original, fixes, notes} line per input (never changes FILE.jsonl)")
    p.add_argument("--output", "-o", type=Path, metavar="FILE",
                   help="write the diff (or, with --pairs, the JSONL: replaced only when the batch is done) here "
                        "instead of stdout; never a draft, a context file or the pairs file")
    p.add_argument("--no-progress", action="store_true", help="never show progress on stderr")
    return p
