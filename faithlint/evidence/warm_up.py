"""Idle work: read a context's pieces ahead of need, so later edits find them in the caches.

A check embeds only each sentence's candidate pieces and runs FL400's entity analysis only on the pieces its
premises use. An edit that moves a sentence's evidence to pieces no check has read yet pays for them then:
on 2 cores about 10 ms of embedding and 15-20 ms of spaCy NER, a third of such an edit's time. The server
runs :func:`steps` one chunk at a time while no check is waiting, so typing never waits for more than one
chunk. Results are identical: the same caches, filled earlier (and the embeddings go to the disk cache,
so a reopened workspace has them too).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from faithlint.evidence.index import doc_key
from faithlint.types import ContextDoc

CHUNK = 4  # pieces per step: ~15-20 ms on 2 cores, the longest an edit waits behind idle work
LIMIT = 1500  # pieces per context set (the value cache holds 2,048 texts; a larger context stays lazy)


def steps(linter: Any, context: Sequence[ContextDoc], chunk: int = CHUNK, limit: int = LIMIT,
          config: Any = None) -> Iterator[int]:
    """Embed and analyse ``context``'s evidence pieces a chunk per step; each step yields the pieces done.

    Planned now, with ``config`` (the settings of the check that read the context; None: the linter's own);
    empty unless evidence is assembled from pieces and there is something to do: ranking (a context longer than
    a premise) or FL400."""
    with linter.using(config) as cfg:
        return _plan(linter, context, chunk, limit, cfg)


def _plan(linter: Any, context: Sequence[ContextDoc], chunk: int, limit: int, cfg: Any) -> Iterator[int]:
    if cfg.evidence != "assembled" or not context:
        return iter(())
    keys = [doc_key(doc) for doc in context]
    pieces = [p for d, (doc, key) in enumerate(zip(context, keys)) for p in linter.index.pieces(doc, d, key)[0]]
    texts = list(dict.fromkeys(p.text for p in pieces))[:limit]
    # a context within max_length tokens is seen whole by most sentences (the selection ranks only where it
    # exceeds a sentence's own budget), so it is left to the checks; lexical relevance has nothing to compute
    ranked = sum(p.tokens for p in pieces) > cfg.max_length and hasattr(linter.relevance, "encode")
    fl400 = linter.matches_values
    if not texts or not (ranked or fl400):
        return iter(())
    return _run(linter, cfg, linter.relevance if ranked else None, linter.values if fl400 else None, texts,
                linter._disk_documents(context, keys) if ranked else [], chunk)


def _run(linter: Any, cfg: Any, relevance: Any, values: Any, texts: list[str], disk_docs: list, chunk: int
         ) -> Iterator[int]:
    with linter.using(cfg):  # the disk cache the check's settings name
        linter._load_embeddings(disk_docs)  # what an earlier process embedded is read, not computed
    for i in range(0, len(texts), chunk):
        part = texts[i:i + chunk]
        if relevance is not None:
            relevance.encode(part)
        if values is not None:
            values.prepare(part)
        yield i + len(part)
    with linter.using(cfg):
        linter._store_embeddings(disk_docs)
