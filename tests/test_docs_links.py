"""Every relative link in README.md and the pages under docs/ (and the editor clients' READMEs) leads somewhere: the
file exists and, where the link names an anchor, a heading of that file makes it, as GitHub renders anchors."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "clients").glob("**/README.md")])
PAGES = [p for p in PAGES if "node_modules" not in p.parts]
MD = MarkdownIt("commonmark", {"html": True}).enable("table")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, vscode: ...


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _tokens(path: Path):
    return MD.parse(path.read_text(encoding="utf-8"))


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors a Markdown file's headings make (a repeated heading gets -1, -2, ...), and explicit ids."""
    seen: Counter[str] = Counter()
    out: set[str] = set()
    tokens = _tokens(path)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            text = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            base = slug(text)
            out.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
            seen[base] += 1
    out |= set(re.findall(r"""<a\s+(?:name|id)=["']([^"']+)["']""", path.read_text(encoding="utf-8")))
    return frozenset(out)


def links(path: Path) -> list[str]:
    """The link targets of a page's text (code blocks and code spans are not links)."""
    out = []
    for tok in _tokens(path):
        for child in tok.children or []:
            if child.type == "link_open":
                out.append(child.attrs["href"])
            elif child.type == "image":
                out.append(child.attrs["src"])
    return out


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def broken(path: Path) -> list[str]:
    bad = []
    for href in links(path):
        if EXTERNAL.match(href):
            continue
        target, _, anchor = href.partition("#")
        dest = (path.parent / unquote(target)).resolve() if target else path
        if not dest.exists():
            bad.append(f"{href}: no file {_shown(dest)}")
        elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
            bad.append(f"{href}: no heading makes #{anchor} in {_shown(dest)}")
    return bad


def test_slug_is_githubs():
    assert slug("Scale-out: corpus checking on Ray") == "scale-out-corpus-checking-on-ray"
    assert slug("Speed, memory, calibration") == "speed-memory-calibration"
    assert slug("`faithlint watch`: re-check drafts") == "faithlint-watch-re-check-drafts"


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](#title) [gone](missing.md) [no anchor](#nowhere)\n\n```\n[code](nope.md)\n```\n")
    assert [b.split(":")[0] for b in broken(page)] == ["missing.md", "#nowhere"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    assert not broken(page), f"{_shown(page)}: " + "; ".join(broken(page))
