"""``faithlint fix``: each draft's corrections as a diff, written only with ``--write``; ``--pairs``: a JSONL batch
corrected into JSONL (see docs/fix.md). The corrections themselves live in :mod:`faithlint.fixes.correctors`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

from faithlint.cli.common import (
    checked,
    config_for,
    display_path,
    draft_configs,
    draft_paths,
    emit,
    exit_code,
    one_line,
    read_pairs,
    refuse_input_as_output,
)
from faithlint.errors import FaithlintError, InputError


def cmd_fix(args: argparse.Namespace) -> int:
    """``faithlint fix``: each draft's corrections as a diff, written only with ``--write``; ``--pairs``: a JSONL
    batch corrected into JSONL (see docs/fix.md)."""
    from faithlint.pipeline.linter import Linter

    if args.pairs and args.paths:
        raise FaithlintError("give either draft PATHS or --pairs FILE.jsonl, not both")
    if args.pairs and args.write:
        raise FaithlintError("--write works on draft files; --pairs writes its corrections to -o OUT.jsonl "
                             "(or stdout) and never changes the pairs file")
    if not args.pairs and not args.paths:
        raise FaithlintError("no drafts given: faithlint fix PATH... (or --pairs FILE.jsonl)")
    status = _Status(not args.no_progress)
    cancel = threading.Event()  # set on Ctrl-C: a corrector working in other threads stops too
    try:
        if args.pairs:
            config, _path = config_for(args, Path.cwd())
            return _fix_pairs(args, config, Linter(config), status, cancel)
        return _fix_drafts(args, status, cancel)
    except KeyboardInterrupt:
        cancel.set()
        raise  # main: "faithlint: interrupted", exit 130; no draft was written (writes come after every correction)
    finally:
        status.clear()


def _corrector(method: str, linter: Any) -> Any:
    import faithlint.fixes.correctors.run as run

    return run.corrector_for(method, linter) if method in run.MODEL_METHODS else None


def _corrected(where: str, *args: Any, **kwargs: Any) -> Any:
    """:func:`faithlint.fixes.correctors.run.correct_text`, naming the draft when it fails unexpectedly (exit 2, one
    line, never a traceback)."""
    import faithlint.fixes.correctors.run as run

    try:
        return run.correct_text(*args, **kwargs)
    except KeyboardInterrupt:
        raise
    except FaithlintError as exc:  # e.g. "LLM endpoint ...: no answer within 120 s (llm_timeout)": which draft?
        if str(exc).startswith(f"{where}:"):
            raise
        raise FaithlintError(f"{where}: {exc}") from exc
    except Exception as exc:
        if os.environ.get("FAITHLINT_DEBUG"):
            raise
        raise FaithlintError(f"{where}: the correction failed: {one_line(exc)}") from exc


def _fix_drafts(args: argparse.Namespace, status: _Status, cancel: threading.Event) -> int:
    """Each draft with its own config, as ``check`` (:class:`~faithlint.inputs.configs.DraftConfigs`); unlike ``check``,
    the
    first draft that cannot be corrected stops the run, so that no draft is written."""
    import faithlint.fixes.correctors.run as run
    from faithlint import api
    from faithlint.fixes.edits import unified_diff
    from faithlint.inputs.drafts import prepare_draft
    from faithlint.pipeline.linter import Linter
    from faithlint.pipeline.registry import models_key
    from faithlint.types import fails

    configs = draft_configs(args)
    jobs = []
    for d in draft_paths(args.paths):
        config, config_path = configs.of(d)
        jobs.append((prepare_draft(d, config, config_path, cli_context=args.context, cli_query=args.query,
                                   allow_no_context=args.allow_no_context), config))
    if args.output:
        refuse_input_as_output(args.output, [p for job, _ in jobs for p in (job.path, *job.pairing.context)])
    linters: dict[tuple[Any, ...], tuple[Any, Any]] = {}  # one linter and corrector per model setting
    diffs, results, pending, proposed, failing = [], [], [], 0, False
    # every draft is corrected (and, with --write, re-checked) before any is written: an error or Ctrl-C on the
    # way leaves them all untouched
    for n, (job, config) in enumerate(jobs, 1):
        key = models_key(config)
        if key not in linters:
            linter = Linter(config)
            linters[key] = (linter, _corrector(args.method, linter))
        linter, corrector = linters[key]
        with linter.using(config):  # this draft's settings; the linter keeps its own
            name = display_path(job.path)
            status.draft(name, n, len(jobs))
            res = checked(api, name, job, linter=linter, path=name, method="check_prepared")
            got = _corrected(name, job.text, job.context, args.method, result=res, corrector=corrector,
                             query=job.pairing.query, markdown=job.markdown, cancel=cancel, progress=status)
            for note in got.notes:
                status.say(f"faithlint: {name}: {note}")
            if got.text != job.text:
                proposed += len(got.fixes)
                diffs.append(unified_diff(job.text, got.text, name))
                if args.write:
                    pending.append((job, name, got))
                    res = checked(api, name, got.text, job.context, path=name, query=job.pairing.query,
                                  markdown=job.markdown, linter=linter)
        results.append(res)
        failing = failing or fails(res.findings, config.fail_on)
    status.clear()
    emit("".join(diffs), args.output)
    written = refused = 0
    for job, name, got in pending:
        try:
            run.write_corrected(job.path, job.text, got.text, name)
        except InputError as exc:  # edited while the correction ran: the user's text stays; the others are written
            print(f"faithlint: error: {exc}", file=sys.stderr)
            refused += 1
            continue
        written += 1
        for fx in got.fixes:
            print(f"faithlint: {name}: wrote: {fx.title}", file=sys.stderr)
    if refused:
        return 2
    n = f"{proposed} fix{'es' if proposed != 1 else ''}"
    print("faithlint: " + ("nothing to fix" if not proposed else f"wrote {n} to {written} draft(s)" if args.write
                           else f"{n} proposed (not written: --write writes them)"), file=sys.stderr)
    return 1 if proposed and not args.write or failing else 0


def _fix_pairs(args: argparse.Namespace, config: Any, linter: Any, status: _Status, cancel: threading.Event) -> int:
    import faithlint.fixes.correctors.run as run
    from faithlint import api

    items = list(read_pairs(args.pairs, config.max_file_size))
    if not items:
        raise InputError(f"{args.pairs}: no pairs to correct (the file has no JSON lines)")
    if args.output:
        refuse_input_as_output(args.output, [args.pairs, *(f for it in items for f in it["files"])])
    for item in items:  # fail fast, before any model runs
        if not item["context"] and not args.allow_no_context:
            raise InputError(f"{args.pairs}: line {item['line']}: id {item['id']!r} has no context")
    corrector = _corrector(args.method, linter)
    out = _JsonlOut(args.output)
    results, proposed, changed = [], 0, 0
    try:
        for n, item in enumerate(items, 1):
            where = f"{args.pairs}: line {item['line']} (id {item['id']!r})"
            status.draft(f"{args.pairs}: id {item['id']!r}", n, len(items))
            res = checked(api, where, item["text"], item["context"], id=item["id"], query=item["query"],
                          markdown=False, linter=linter)
            got = _corrected(where, item["text"], item["context"], args.method, result=res, corrector=corrector,
                             query=item["query"], markdown=False, cancel=cancel, progress=status)
            for note in got.notes:
                status.say(f"faithlint: {where}: {note}")
            if got.text != item["text"]:
                proposed += len(got.fixes)
                changed += 1
            results.append(res)
            status.clear()
            out.write({"id": item["id"], "text": got.text, "original": item["text"],
                       "fixes": [run.fix_to_dict(fx) for fx in got.fixes], "notes": got.notes})
        out.commit()
    finally:
        out.discard()
    f = f"{proposed} fix{'es' if proposed != 1 else ''}"
    print("faithlint: " + (f"nothing to fix in {len(items)} pair(s)" if not proposed
                           else f"{f} proposed in {changed} of {len(items)} pair(s)")
          + (f"; wrote {args.output}" if args.output else ""), file=sys.stderr)
    return 1 if proposed else exit_code(results, config.fail_on)


class _JsonlOut:
    """``fix --pairs`` output: JSON lines to stdout as they come, or to ``-o`` through a temporary file that
    replaces it only when the whole batch is done (an error or Ctrl-C leaves an existing OUT.jsonl as it was)."""

    def __init__(self, output: Path | None) -> None:
        import tempfile

        self.output = output
        self.tmp: str | None = None
        self.fh: Any = sys.stdout
        if output is not None:
            try:
                fd, self.tmp = tempfile.mkstemp(dir=output.resolve().parent, prefix=f".{output.name}.",
                                                suffix=".faithlint-tmp")
            except OSError as exc:
                raise InputError(f"{output}: cannot write it ({exc.strerror or exc})") from None
            self.fh = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self.fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.fh.flush()

    def commit(self) -> None:
        if self.tmp is None or self.output is None:
            return
        self.fh.close()
        try:
            os.replace(self.tmp, self.output)
        except OSError as exc:
            raise InputError(f"{self.output}: cannot write it ({exc.strerror or exc})") from None
        self.tmp = None

    def discard(self) -> None:
        if self.tmp is not None:
            self.fh.close()
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


class _Status:
    """Progress of ``fix`` on stderr: one line, rewritten in place, naming the draft and the corrector's step
    (only when stderr is a terminal; ``--no-progress`` turns it off). Also the corrector's ``progress``."""

    def __init__(self, enabled: bool) -> None:
        self.on = enabled and sys.stderr.isatty()
        self.where = ""
        self.shown = False

    def draft(self, name: str, n: int, total: int) -> None:
        self.where = f"{name} ({n}/{total})" if total > 1 else name
        self("correcting")

    def __call__(self, message: str, percentage: int | None = None) -> None:
        if not self.on:
            return
        line = f"faithlint: {self.where}: {message}" + (f" ({percentage}%)" if percentage is not None else "")
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        sys.stderr.write("\r\x1b[K" + line[:width])
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False

    def say(self, line: str) -> None:
        self.clear()
        print(line, file=sys.stderr)


class CheckFixer:
    """``--fix`` (write the safe fixes, re-check what is left) and ``--diff`` (collect them as a diff); with
    ``--unsafe-fixes`` the unsafe ones too."""

    PASSES = 5  # a fix may make another one possible; stop long before a pathological loop matters

    def __init__(self, write: bool, diff: bool, unsafe: bool = False) -> None:
        self.write, self.diff, self.unsafe = write, diff, unsafe
        self.enabled = write or diff
        self.diffs: list[str] = []
        self.fixed = 0
        self.drafts = 0
        self.held_back = 0  # unsafe fixes left out (the first pass's), for the summary

    def fix(self, linter: Any, job: Any, res: Any) -> Any:
        from faithlint import api
        from faithlint.fixes.edits import Applicability, applicable_fixes, fix_text, unified_diff, write_fixed

        name = display_path(job.path)
        text, count = job.text, 0
        at = Applicability.UNSAFE if self.unsafe else Applicability.SAFE
        for n in range(self.PASSES if self.write else 1):
            fixes = applicable_fixes(res, at)
            if n == 0 and at is Applicability.SAFE:
                self.held_back += len(applicable_fixes(res, Applicability.UNSAFE)) - len(fixes)
            if not fixes:
                break
            new = fix_text(text, fixes)
            if new == text:
                break
            count += len(fixes)
            text = new
            if self.write:  # report the draft as it now is: offsets, findings and exit code of the fixed text
                res = checked(api, name, text, job.context, path=name, query=job.pairing.query,
                              markdown=job.markdown, linter=linter)
        if count:
            self.fixed += count
            self.drafts += 1
            if self.diff:
                self.diffs.append(unified_diff(job.text, text, name))
            else:
                write_fixed(job.path, job.text, text, name)
        return res

    def summary(self) -> str:
        held = ""
        if self.held_back:
            s = "es" if self.held_back != 1 else ""
            held = f"; {self.held_back} unsafe fix{s} not {'shown' if self.diff else 'applied'} (--unsafe-fixes)"
        if not self.fixed:
            kind = "fixes" if self.unsafe else "safe fixes"
            return f"no {kind}" + (" to show" if self.diff else " to apply") + held
        n = f"{self.fixed} fix{'es' if self.fixed != 1 else ''} in {self.drafts} draft{'s' if self.drafts != 1 else ''}"
        how = "--fix --unsafe-fixes" if self.unsafe else "--fix"
        return (f"{n} (not applied: {how} applies them)" if self.diff else f"applied {n}") + held
