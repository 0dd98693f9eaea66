"""Which context belongs to a draft: one resolver shared by the CLI, the language server and the watcher.

Precedence for the context (first that applies wins): CLI paths, the draft's front matter, sibling
files next to the draft, ``[[pair]]`` rules in the config, nothing. The query is resolved on its own:
CLI, front matter ``query``, then the matching pair rule's ``query``/``query_file``.

Explicitly configured paths that do not exist are errors, never silently skipped: a missing
source would make every sentence look unsupported.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wcmatch import glob as wcglob

from faithlint.config import Config, PairRule
from faithlint.errors import ConfigError, InputError
from faithlint.inputs.context import display_path, read_text
from faithlint.inputs.files import require_regular

SIBLING_FILE_SUFFIXES: tuple[str, ...] = (".context.md", ".context.txt", ".context.json", ".context.yaml",
                                          ".context.yml", ".context.csv", ".context.tsv")
SIBLING_DIR_SUFFIXES: tuple[str, ...] = (".context", ".sources")


@dataclass
class Pairing:
    """The resolved context paths (files or folders), the query, and which convention supplied them."""

    context: list[Path]
    query: str | None
    how: str  # "cli" | "front-matter" | "sibling" | "config" | "none"
    query_how: str = "none"  # where the query came from: "cli" | "front-matter" | "config" | "none"
    rule: int | None = None  # the [[pair]] rule (numbered from 1) that matched the draft, if one did


def is_context_file(path: Path) -> bool:
    """True for ``*.context.*`` files and anything inside ``*.context/`` or ``*.sources/`` folders.

    Such files are sources, never drafts, so directory walks and watchers must skip them.
    """
    path = Path(path)
    if "context" in path.name.split(".")[1:]:
        return True
    return any(part.endswith(SIBLING_DIR_SUFFIXES) and part not in SIBLING_DIR_SUFFIXES for part in path.parts[:-1])


def context_candidates(draft: Path) -> list[Path]:
    """Every sibling path that would pair with ``draft`` (existing or not), for file watchers."""
    draft = Path(draft)
    stem = draft.stem
    return ([draft.with_name(stem + suffix) for suffix in SIBLING_FILE_SUFFIXES]
            + [draft.with_name(stem + suffix) for suffix in SIBLING_DIR_SUFFIXES])


def _siblings(draft: Path) -> list[Path]:
    files = [p for p in context_candidates(draft)[: len(SIBLING_FILE_SUFFIXES)] if p.is_file()]
    dirs = [p for p in context_candidates(draft)[len(SIBLING_FILE_SUFFIXES):] if p.is_dir()]
    return files + dirs


# --- globs ------------------------------------------------------------------------------------------

_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.DOTGLOB | wcglob.FORCEUNIX  # ** spans folders; * matches dotfiles too


def match_glob(path: str, pattern: str) -> bool:
    """``path`` (POSIX, relative) matches ``pattern`` as a whole, like ``PurePath.full_match`` (wcmatch)."""
    try:
        return wcglob.globmatch(path.removeprefix("./"), pattern.removeprefix("./"), flags=_GLOB_FLAGS)
    except (ValueError, re.error) as exc:
        raise ConfigError(f"invalid glob '{pattern}': {exc}") from None


def _expand(base: Path, entry: str) -> list[Path] | None:
    """Glob ``entry`` relative to ``base``; None when a plain path does not exist, [] when a glob matches nothing."""
    entry = os.path.expanduser(entry)
    if glob.has_magic(entry):
        return [Path(p) for p in sorted(glob.glob(os.path.join(glob.escape(str(base)), entry), recursive=True))]
    path = base / entry
    return [path] if path.exists() else None


def _substitute(pattern: str, values: dict[str, str], escape: bool) -> str:
    def repl(match: re.Match[str]) -> str:
        value = values.get(match[1])
        if value is None:
            return match[0]
        return glob.escape(value) if escape else value

    return re.sub(r"\{(\w+)\}", repl, pattern)


# --- the resolver -----------------------------------------------------------------------------------

def _front_matter_context(draft: Path, value: Any) -> list[Path]:
    name = display_path(draft)
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list):
        raise ConfigError(f"{name}: front matter 'context' must be a path or a list of paths, "
                          f"not {type(value).__name__}")
    if not entries:
        raise ConfigError(f"{name}: front matter 'context' is empty")
    base = draft.parent
    paths: list[Path] = []
    for i, entry in enumerate(entries):  # type errors first: they are about the file, not the disk
        key = "context" if isinstance(value, str) else f"context[{i}]"
        if not isinstance(entry, str) or not entry.strip():
            raise ConfigError(f"{name}: front matter '{key}' must be a non-empty path, not {entry!r}")
    for entry in entries:
        found = _expand(base, entry)
        if found is None:
            raise InputError(f"{name}: front matter context '{entry}' not found ({display_path(base / entry)})")
        if not found:
            raise InputError(f"{name}: front matter context glob '{entry}' matched no files")
        paths.extend(p for p in found if p not in paths)
    return paths


def _front_matter_query(draft: Path, front_matter: dict[str, Any]) -> str | None:
    value = front_matter.get("query")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{display_path(draft)}: front matter 'query' must be a string, not {type(value).__name__}")
    return value.strip() or None


def _matching_rule(draft: Path, config: Config, base: Path) -> tuple[int, PairRule] | None:
    try:
        rel = draft.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return None  # drafts outside the config's folder are not governed by its rules
    for number, rule in enumerate(config.pair, start=1):
        if match_glob(rel, rule.draft):
            return number, rule
    return None


def _placeholders(draft: Path) -> dict[str, str]:
    return {"stem": draft.stem, "name": draft.name, "parent": draft.resolve().parent.name}


def _rule_context(draft: Path, number: int, rule: PairRule, base: Path, where: str) -> list[Path]:
    values = _placeholders(draft)
    paths: list[Path] = []
    for pattern in rule.context:
        entry = _substitute(pattern, values, escape=True)
        found = _expand(base, entry)
        if found is None:
            raise InputError(f"pair rule {number} in {where}: context path '{_substitute(pattern, values, False)}' "
                             "does not exist")
        if not found:
            raise InputError(f"pair rule {number} in {where}: context glob '{entry}' matched no files")
        paths.extend(p for p in found if p not in paths)
    return paths


def _rule_query(draft: Path, number: int, rule: PairRule, base: Path, where: str, max_bytes: int) -> str | None:
    if rule.query is not None:
        return rule.query.strip() or None
    if rule.query_file is None:
        return None
    path = base / _substitute(rule.query_file, _placeholders(draft), escape=False)
    try:
        require_regular(path, "query file")
        return read_text(path, max_bytes).strip() or None
    except InputError as exc:
        raise InputError(f"pair rule {number} in {where}: query_file {exc}") from None


def resolve_pairing(draft: Path, front_matter: dict[str, Any] | None, config: Config, config_path: Path | None,
                    cli_context: list[Path] | None = None, cli_query: str | None = None) -> Pairing:
    """Find the context (and query) for ``draft``; see the module docstring for the precedence."""
    draft = Path(draft)
    front_matter = front_matter or {}
    if not isinstance(front_matter, dict):
        raise ConfigError(f"{display_path(draft)}: front matter must be a mapping, not {type(front_matter).__name__}")
    base = Path(config_path).resolve().parent if config_path is not None else Path.cwd()
    where = display_path(Path(config_path)) if config_path is not None else "settings"
    rule = _matching_rule(draft, config, base) if config.pair else None

    context: list[Path]
    if cli_context:
        context, how = [Path(p) for p in cli_context], "cli"
    elif front_matter.get("context") is not None:
        context, how = _front_matter_context(draft, front_matter["context"]), "front-matter"
    elif siblings := _siblings(draft):
        context, how = siblings, "sibling"
    elif rule is not None:
        context, how = _rule_context(draft, *rule, base, where), "config"
    else:
        context, how = [], "none"

    query = cli_query.strip() if cli_query and cli_query.strip() else None
    query_how = "cli" if query is not None else "none"
    if query is None and (query := _front_matter_query(draft, front_matter)) is not None:
        query_how = "front-matter"
    if query is None and rule is not None and (query := _rule_query(draft, *rule, base, where,
                                                                    config.max_file_size)) is not None:
        query_how = "config"
    return Pairing(context=context, query=query, how=how, query_how=query_how,
                   rule=rule[0] if rule is not None else None)
