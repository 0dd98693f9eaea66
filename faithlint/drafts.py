"""Reading a draft and pairing it with its context: shared by ``check`` and ``watch``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from faithlint.config import Config
from faithlint.errors import InputError
from faithlint.pairing import Pairing
from faithlint.types import ContextDoc


def _no_context_message(draft: Path) -> str:
    return (f"{draft}: no context found; pass --context PATH, add 'context:' front matter, put it in "
            f"{draft.stem}.context.md or {draft.stem}.context/, or add a [[pair]] rule (or use --allow-no-context)")


@dataclass
class PreparedDraft:
    """A draft read from disk and paired with its context, ready for ``Linter.check``."""

    path: Path
    text: str
    markdown: bool
    pairing: Pairing
    context: list[ContextDoc]


def prepare_draft(draft: Path, config: Config, config_path: Path | None, *, cli_context: Sequence[Path] = (),
                  cli_query: str | None = None, allow_no_context: bool = False,
                  display: str | None = None) -> PreparedDraft:
    """Read ``draft``, resolve its pairing and load the context, as ``faithlint check`` does.

    Raises :class:`~faithlint.errors.FaithlintError` with a one-line message on any problem.
    """
    from faithlint.context import read_text
    from faithlint.files import load_context_checked, require_regular
    from faithlint.markdown import extract
    from faithlint.pairing import resolve_pairing

    require_regular(draft, "draft")
    text = read_text(draft, config.max_file_size)
    is_md = draft.suffix.lower() in set(config.markdown_extensions)
    if not text.strip():
        raise InputError(f"{display or draft}: empty draft")
    fm = extract(text, markdown=is_md).front_matter if is_md else None
    pairing = resolve_pairing(draft, fm, config, config_path, cli_context=list(cli_context) or None,
                              cli_query=cli_query)
    if not pairing.context and not allow_no_context:
        raise InputError(_no_context_message(Path(display) if display else draft))
    ctx = load_context_checked(pairing.context, config.max_file_size) if pairing.context else []
    return PreparedDraft(draft, text, is_md, pairing, ctx)
