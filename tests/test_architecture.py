"""The package stays a library with thin wrappers: every core module is under the import contracts, and the top
level stays a handful of modules (the rest sits in packages, split by meaning: docs/architecture.md, "Cohesion")."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "faithlint"
WRAPPERS = {"faithlint.cli", "faithlint.server", "faithlint.watch", "faithlint.__main__"}
TOP_LEVEL_MODULES = 12  # modules directly under faithlint/ (packages not counted)


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


def test_every_package_has_its_place_in_the_layers():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"]
                  if c["type"] == "layers" and c["containers"] == ["faithlint"])["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    missing = sorted(packages - named)
    assert not missing, f"add these packages to the layers contract in pyproject.toml: {missing}"


def test_no_more_than_12_modules_sit_directly_under_the_package():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= TOP_LEVEL_MODULES, \
        f"{len(modules)} modules directly under faithlint/ (at most {TOP_LEVEL_MODULES}): move one into the package " \
        f"its meaning belongs to: {modules}"
