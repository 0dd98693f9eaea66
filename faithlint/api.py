"""faithlint as a library: check text against its context from a pipeline or a notebook.

    >>> import faithlint
    >>> result = faithlint.check("The bridge opened in 2019.", context="The bridge opened in 2021.")
    >>> [f.code for f in result.findings]                     # doctest: +SKIP
    ['FL100', 'FL400']

Results are :class:`~faithlint.types.DraftResult` objects with the fields of the JSON output
(``faithlint.to_dict(result)`` is that JSON). Models load once per process and settings and are reused by
later calls. The CLI checks drafts through these same functions.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from faithlint.config import Config, load_config, merge_overrides
from faithlint.errors import InputError
from faithlint.report.records import result_to_dict as to_dict
from faithlint.types import ContextDoc, DraftResult

ContextLike = str | Path | ContextDoc | Mapping[str, str] | Sequence[str | Path | ContextDoc]
ConfigLike = Config | Mapping[str, Any] | None

__all__ = ["ContextLike", "check", "check_batch", "check_file", "check_prepared", "context_docs", "linter_for",
           "to_dict"]

_LINTERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def as_config(config: ConfigLike) -> Config:
    """``None``, a :class:`Config` or a mapping validated like ``faithlint.toml`` -> a :class:`Config`."""
    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):  # validated like faithlint.toml: same keys, same one-line errors
        return merge_overrides(Config(), dict(config), "config")
    raise TypeError(f"config must be a faithlint Config or a mapping of settings, not {type(config).__name__}")


def linter_for(config: ConfigLike = None) -> Any:
    """The process-wide :class:`~faithlint.pipeline.linter.Linter` for these settings (models load on first check)."""
    from faithlint.pipeline.linter import Linter

    cfg = as_config(config)
    key = cfg.model_dump_json()
    with _LOCK:
        if key not in _LINTERS:
            _LINTERS[key] = Linter(cfg)
        return _LINTERS[key]


def context_docs(context: ContextLike, max_bytes: int | None = None) -> list[ContextDoc]:
    """Context in any accepted form as documents.

    A ``str`` is context *text* (a :class:`~pathlib.Path` is a file or folder to read, JSON/YAML/CSV
    verbalised as by the CLI); a mapping is ``{source name: text}``; a list may mix all of these.
    """
    max_bytes = max_bytes or Config().max_file_size
    if isinstance(context, ContextDoc):
        return [context]
    if isinstance(context, str):
        return [ContextDoc("context", context)]
    if isinstance(context, Path):
        from faithlint.inputs.context import load_context

        return load_context([context], max_bytes)
    if isinstance(context, Mapping):
        return [ContextDoc(str(k), _text(v, f"context[{k!r}]")) for k, v in context.items()]
    if isinstance(context, Iterable):
        docs: list[ContextDoc] = []
        for i, item in enumerate(context):
            if isinstance(item, str):
                docs.append(ContextDoc(f"context[{i}]", item))
            elif isinstance(item, (Path, ContextDoc)):
                docs.extend(context_docs(item, max_bytes))
            else:
                raise TypeError(f"context[{i}]: expected text, a Path or a ContextDoc, not {type(item).__name__}")
        return docs
    raise TypeError(f"context: expected text, a Path, a ContextDoc, a mapping or a list, not {type(context).__name__}")


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: expected text, not {type(value).__name__}")
    return value


def check(text: str, context: ContextLike = (), *, query: str | None = None, config: ConfigLike = None,
          markdown: bool = True, path: str | None = None, id: str | None = None, linter: Any = None) -> DraftResult:
    """Check ``text`` against ``context``; findings carry exact code-point offsets into ``text``.

    ``query``: the question an answer responds to (short answers are judged with it). ``config``: a
    :class:`~faithlint.config.Config` or a mapping of the ``faithlint.toml`` keys. Evidence ranges
    index the context files as given (the JSON/YAML/CSV source, not its verbalisation).
    """
    from faithlint.inputs.context import evidence_in_source

    text = _text(text, "text")
    lt = linter or linter_for(config)
    docs = context_docs(context, lt.config.max_file_size)
    return evidence_in_source(lt.check(text, docs, query=query, markdown=markdown, path=path, id=id), docs)


def check_batch(items: Iterable[Mapping[str, Any] | tuple[str, ContextLike]], *, config: ConfigLike = None,
                markdown: bool = False, linter: Any = None) -> Iterator[DraftResult]:
    """Check many drafts lazily, one result per item, in order (models load once).

    Each item is ``(text, context)`` or a mapping with ``text``, ``context`` and optionally ``query``
    and ``id`` (the shape of ``faithlint check --pairs`` lines).
    """
    lt = linter or linter_for(config)
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            if "text" not in item:
                raise InputError(f"item {i}: no 'text'")
            yield check(item["text"], item.get("context", ()), query=item.get("query"), id=item.get("id"),
                        markdown=markdown, linter=lt)
        else:
            text, context = item
            yield check(text, context, markdown=markdown, linter=lt)


def check_file(path: str | Path, *, context: str | Path | Sequence[str | Path] | None = None, query: str | None = None,
               config: ConfigLike = None, linter: Any = None) -> DraftResult:
    """Check a draft file paired as ``faithlint check`` pairs it (front matter, sibling context, [[pair]]).

    Without ``config``, settings come from the nearest ``faithlint.toml`` / ``pyproject.toml``.
    ``context`` (paths) overrides the pairing, like ``--context``.
    """
    from faithlint.inputs.drafts import prepare_draft

    path = Path(path)
    config_path = None
    if config is None and linter is None:
        cfg, config_path = load_config(start=path.parent if path.parent.exists() else None)
    else:
        cfg = linter.config if linter is not None and config is None else as_config(config)
    paths = [Path(p) for p in ([context] if isinstance(context, (str, Path)) else context or [])]
    prepared = prepare_draft(path, cfg, config_path, cli_context=paths, cli_query=query)
    return check_prepared(prepared, linter=linter or linter_for(cfg))


def check_prepared(prepared: Any, *, linter: Any, path: str | None = None, config: Config | None = None) -> DraftResult:
    """Check a draft made by :func:`faithlint.inputs.drafts.prepare_draft` (the CLI's path for draft files) with
    ``config`` (its own settings; None: the linter's), on a linter shared by every draft with the same models."""
    from faithlint.inputs.context import evidence_in_source

    kwargs = {"config": config} if config is not None else {}
    result = prepared.check(linter, path=path or str(prepared.path), **kwargs)
    return evidence_in_source(result, prepared.context)
