"""What a draft's check depends on, and which drafts a batch of touched paths affects.

Each draft is paired with its context exactly as the CLI pairs it (:func:`faithlint.inputs.drafts.prepare_draft`, built
on :func:`faithlint.inputs.pairing.resolve_pairing`); the watcher remembers which files and folders that pairing read,
plus every sibling that *could* pair with it, and the config file. Before checking, a :func:`signature` of
everything the check depends on (draft text, query, context texts, settings) is compared with the last one, so
a touched-but-unchanged file costs a read, not a check.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from faithlint.inputs.pairing import context_candidates
from faithlint.watch.paths import CONFIG_NAMES, norm, under

if TYPE_CHECKING:  # annotations only
    from faithlint.config import Config
    from faithlint.inputs.drafts import PreparedDraft
    from faithlint.inputs.pairing import Pairing
    from faithlint.watch.state import DraftState


def dependencies(draft: Path, pairing: Pairing | None, config_path: Path | None) -> set[Path]:
    """The paths whose change may change ``draft``'s check: itself, its possible siblings, its context, config."""
    deps = {draft, *(norm(c) for c in context_candidates(draft))}
    real = Path(os.path.realpath(draft))
    if real != draft:  # a symlinked draft: its target's folder must be watched too
        deps.add(real)
    if config_path is not None:
        deps.add(config_path)
    if pairing is not None:
        for c in pairing.context:
            p = norm(c)
            deps.add(p)
            deps.add(Path(os.path.realpath(p)))
    return deps


def signature(prep: PreparedDraft, config: Config, allow_no_context: bool) -> str:
    """A digest of everything the check of ``prep`` reads: equal signatures, equal results."""
    h = hashlib.sha256()
    for part in (prep.text, prep.pairing.query or "", config.model_dump_json(), str(allow_no_context)):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    for doc in prep.context:
        h.update(doc.source.encode("utf-8", "surrogatepass") + b"\x01" + doc.text.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def affected(drafts: Mapping[Path, DraftState], touched: set[Path], structural: bool,
             config_path: Path | None) -> set[Path]:
    """The drafts reading one of ``touched`` (or, after a move or delete, something below one of them)."""
    index: dict[Path, set[Path]] = {}  # dep -> drafts reading it
    below: dict[Path, set[Path]] = {}  # folder -> drafts reading something inside it
    for d, st in drafts.items():
        for dep in st.deps or dependencies(d, None, config_path):
            index.setdefault(dep, set()).add(d)
            if structural:
                for folder in dep.parents[:-1]:
                    below.setdefault(folder, set()).add(d)
    out: set[Path] = set()
    for p in touched:
        for candidate in (p, *p.parents):  # the path itself or a folder a draft reads
            hit = index.get(candidate)
            if hit:
                out |= hit
        if structural:  # a folder moved or deleted: drafts reading anything below it
            out |= below.get(p, set())
    return out


def config_touched(paths: Iterable[Path], in_use: set[Path], explicit: bool, roots: Sequence[Path]) -> bool:
    """Did ``paths`` touch a config in use or (without ``--config``) add or remove one that a watched draft may
    read: in a watched folder, below one, or above one?"""
    for p in paths:
        if p.name not in CONFIG_NAMES:
            continue
        if p in in_use:
            return True
        if not explicit and any(under(r, p.parent) or under(p, r) for r in roots):
            return True  # a nearer config appeared (or the discovered one went away)
    return False
