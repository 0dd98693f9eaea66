"""Reading a draft and pairing it with its context: the one preparation path of ``check``, ``watch`` and the
language server.

:func:`prepare` reads a draft (or takes the editor's text), resolves its pairing and loads its context, and
returns the prepared draft and/or :class:`Problem` entries; it never raises for bad input. The CLI and the
watcher use :func:`prepare_draft`, which raises the first error as a one-line
:class:`~faithlint.errors.FaithlintError`; the server shows problems as diagnostics.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faithlint.config import Config
from faithlint.document.markdown import Extracted
from faithlint.errors import FaithlintError, InputError
from faithlint.inputs.pairing import Pairing
from faithlint.types import ContextDoc, DraftResult

if TYPE_CHECKING:
    from faithlint.pipeline.linter import Linter


@dataclass
class Problem:
    """Something about a draft that is not a finding: no context, unreadable context, a model error.

    ``error`` keeps the exception a problem came from, so :func:`prepare_draft` re-raises it as it was.
    """

    severity: str  # "error" | "warning" | "info"
    code: str
    message: str
    error: FaithlintError | None = field(default=None, repr=False, compare=False)


@dataclass
class PreparedDraft:
    """A draft read from disk and paired with its context, ready for ``Linter.check``."""

    path: Path
    text: str
    markdown: bool
    pairing: Pairing
    context: list[ContextDoc]
    extracted: Extracted | None = field(default=None, repr=False)  # the parsed Markdown, for Linter.check

    def check(self, linter: Linter, **kwargs: Any) -> DraftResult:
        """``linter.check`` on this draft, reusing the parse that found its front matter."""
        return linter.check(self.text, self.context, path=kwargs.pop("path", str(self.path)),
                            query=self.pairing.query, markdown=self.markdown, extracted=self.extracted, **kwargs)


@dataclass
class Preparation:
    """What :func:`prepare` made of a draft: the prepared draft (None when it cannot be checked) and problems.

    A draft can come with problems: a deleted or unusable context file when other context still loaded.
    """

    draft: PreparedDraft | None
    problems: list[Problem] = field(default_factory=list)
    pairing: Pairing | None = None
    context_paths: list[Path] = field(default_factory=list)  # the pairing's paths, as loaded
    parse_ms: float = 0.0  # the Markdown parse's share of preparing (the server's status shows it)


def _no_context_message(draft: Path) -> str:
    return (f"{draft}: no context found; pass --context PATH, add 'context:' front matter, put it in "
            f"{draft.stem}.context.md or {draft.stem}.context/, or add a [[pair]] rule (or use --allow-no-context)")


def is_markdown(path: Path | None, extensions: Sequence[str], language_id: str | None = None) -> bool:
    """Markdown by the file's extension; a name without one by the editor's language id."""
    if path is not None and path.suffix:
        return path.suffix.lower() in {e.lower() for e in extensions}
    return language_id in ("markdown", "mdx")


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def prepare(draft: Path | None, config: Config, config_path: Path | None, *, text: str | None = None,
            language_id: str | None = None, cli_context: Sequence[Path] = (), cli_query: str | None = None,
            allow_no_context: bool = False, allow_empty: bool = False, display: str | None = None,
            absolute_context: bool = False, previous_context: Sequence[Path] = ()) -> Preparation:
    """Read (or take ``text``), pair and load one draft, exactly as ``faithlint check`` does.

    ``text`` is the editor's unsaved text (its size is counted in characters); without it the draft is read
    from disk. ``absolute_context`` loads the context from resolved absolute paths (the server watches and
    links them); ``previous_context`` are the files an earlier check read, reported when deleted. Problems
    come in the order ``check`` meets them; without a draft at least one of them says why.
    """
    from faithlint.document.markdown import extract
    from faithlint.inputs.context import read_text
    from faithlint.inputs.files import require_regular
    from faithlint.inputs.pairing import resolve_pairing

    out = Preparation(None)
    name = display or (str(draft) if draft is not None else "draft")
    if text is not None and len(text) > config.max_file_size:
        out.problems.append(Problem("warning", "too-large",
                                    f"This draft has {len(text):,} characters, over the max_file_size limit "
                                    f"({config.max_file_size:,}); it was not checked."))
        return out
    if draft is None:
        out.problems.append(Problem("info", "no-context", "Save this draft to a file so faithlint can find its "
                                    "context (front matter 'context:', NAME.context.md or a [[pair]] rule)."))
        return out
    if text is None:
        try:
            require_regular(draft, "draft")
            text = read_text(draft, config.max_file_size)
        except FaithlintError as exc:
            out.problems.append(Problem("error", "read", str(exc), exc))
            return out
    markdown = is_markdown(draft, config.markdown_extensions, language_id)
    if not allow_empty and not text.strip():
        out.problems.append(Problem("error", "empty", f"{name}: empty draft", InputError(f"{name}: empty draft")))
        return out
    t = time.perf_counter()
    extracted = extract(text, markdown=True) if markdown else None  # parsed once: Linter.check reuses it
    out.parse_ms = round(1000 * (time.perf_counter() - t), 2)
    front_matter = extracted.front_matter if extracted is not None else None
    try:
        pairing = resolve_pairing(draft, front_matter, config, config_path, cli_context=list(cli_context) or None,
                                  cli_query=cli_query)
    except FaithlintError as exc:
        out.problems.append(Problem("error", "pairing", str(exc), exc))
        return out
    out.pairing = pairing
    out.context_paths = ([_absolute(p if p.is_absolute() else Path.cwd() / p) for p in pairing.context]
                         if absolute_context else list(pairing.context))
    gone = [p for p in previous_context if not p.exists() and p not in out.context_paths]
    for p in gone:
        out.problems.append(Problem("warning", "context-deleted",
                                    f"Context file {p} was deleted; this draft is "
                                    + ("now checked without it." if pairing.context else "no longer paired.")))
    if not pairing.context:
        if allow_no_context:
            out.draft = PreparedDraft(draft, text, markdown, pairing, [], extracted)
        elif not gone:
            msg = _no_context_message(Path(display) if display else draft)
            out.problems.append(Problem("error", "no-context", msg, InputError(msg)))
        return out
    docs, problems = _load_context(out.context_paths, config.max_file_size)
    out.problems += problems
    if docs:
        out.draft = PreparedDraft(draft, text, markdown, pairing, docs, extracted)
    return out


def _load_context(paths: Sequence[Path], max_bytes: int) -> tuple[list[ContextDoc], list[Problem]]:
    """All context documents of ``paths``; when some cannot be read, the others, and one problem per bad path."""
    from faithlint.inputs.context import load_context

    try:
        return load_context(paths, max_bytes), []
    except (FaithlintError, OSError):
        pass
    docs: list[ContextDoc] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for p in paths:
        try:
            loaded = load_context([p], max_bytes)  # a FIFO is refused, never opened
        except FaithlintError as exc:
            problems.append(Problem("error", "context", str(exc), exc))
            continue
        except OSError as exc:
            msg = f"{p}: {exc.strerror or exc}"
            problems.append(Problem("error", "context", msg, InputError(msg)))
            continue
        for doc in loaded:
            if doc.source not in seen:
                seen.add(doc.source)
                docs.append(doc)
    return docs, problems


def prepare_draft(draft: Path, config: Config, config_path: Path | None, *, cli_context: Sequence[Path] = (),
                  cli_query: str | None = None, allow_no_context: bool = False,
                  display: str | None = None) -> PreparedDraft:
    """:func:`prepare` for ``check`` and ``watch``: the prepared draft, or the first error raised as it was.

    Raises :class:`~faithlint.errors.FaithlintError` with a one-line message on any problem.
    """
    prep = prepare(draft, config, config_path, cli_context=cli_context, cli_query=cli_query,
                   allow_no_context=allow_no_context, display=display)
    for p in prep.problems:
        if p.severity == "error":
            raise p.error or InputError(p.message)
    assert prep.draft is not None
    return prep.draft
