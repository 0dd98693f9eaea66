"""YAML front matter at the very start of a Markdown draft.

A draft may open with ``---`` on its first line and close the block with ``---`` or
``...`` on a line of its own; the text between is parsed with ``yaml.safe_load`` and
must be a mapping (empty is ``{}``). An unclosed ``---`` is not front matter (it is a
thematic break). A block that does not parse is still front matter: it is excluded
from checking and the problem is reported as a message with its 1-based file line.

:func:`faithlint.document.markdown.extract` calls :func:`split_front_matter` on the normalised
source (LF line breaks, BOM dropped) in Markdown mode only.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["split_front_matter"]

_FM_OPEN = re.compile(r"---[ \t]*\n")
_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)


def split_front_matter(norm: str) -> tuple[int, dict | None, str | None]:
    """Find ``---``-fenced YAML at the very start; returns (end offset in norm, data, error).

    No front matter: ``(0, None, None)``. Broken front matter: ``(end, None, message)``.
    """
    m = _FM_OPEN.match(norm)
    if not m:
        return 0, None, None
    close = _FM_CLOSE.search(norm, m.end())
    if not close:
        return 0, None, None  # an unclosed "---" is just a thematic break
    end = close.end() + 1 if close.end() < len(norm) else close.end()
    body = norm[m.end():close.start()]
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).strip()
        if mark is not None:
            return end, None, f"front matter line {mark.line + 2}: {problem}"  # 1-based file line
        return end, None, f"front matter: {problem}"
    if data is None:
        return end, {}, None
    if not isinstance(data, dict):
        return end, None, f"front matter line 2: expected a mapping, got {type(data).__name__}"
    return end, data, None
