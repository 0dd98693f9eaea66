"""The package stays a library with thin wrappers: every core module is under the import contract, none is huge."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "faithlint"
WRAPPERS = {"faithlint.cli", "faithlint.server", "faithlint.watch", "faithlint.__main__"}
LIMIT = 600


def _top_level_modules() -> set[str]:
    out = set()
    for p in PACKAGE.iterdir():
        if p.suffix == ".py" and p.stem != "__init__":
            out.add(f"faithlint.{p.stem}")
        elif p.is_dir() and (p / "__init__.py").exists():
            out.add(f"faithlint.{p.name}")
    return out


def test_every_core_module_is_under_the_no_wrappers_contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    forbidden = next(c for c in contracts if c["type"] == "forbidden")
    assert set(forbidden["forbidden_modules"]) == WRAPPERS
    missing = _top_level_modules() - WRAPPERS - set(forbidden["source_modules"])
    assert not missing, f"add these core modules to the import-linter contract in pyproject.toml: {sorted(missing)}"
    assert any(c["type"] == "acyclic_siblings" and c["ancestors"] == ["faithlint"] for c in contracts)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_600_lines(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= LIMIT, f"{path.relative_to(ROOT)} has {lines} lines: split it by what its parts hold"
