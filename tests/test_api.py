"""The public Python API: argument forms, errors, and the README's examples run as doctests with the real models."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import faithlint
from faithlint import api
from faithlint.errors import ConfigError, InputError
from faithlint.types import ContextDoc

ROOT = Path(__file__).resolve().parents[1]


def test_context_in_every_accepted_form(tmp_path):
    f = tmp_path / "facts.json"
    f.write_text('{"city": "Riverside", "opened": 2024}', encoding="utf-8")
    docs = api.context_docs(["first text", ContextDoc("b.md", "second"), f])
    assert [d.source for d in docs][:2] == ["context[0]", "b.md"]
    assert docs[2].source.endswith("facts.json") and "Riverside" in docs[2].text  # verbalised like the CLI
    assert [d.source for d in api.context_docs({"news.md": "x", "notes.md": "y"})] == ["news.md", "notes.md"]
    assert api.context_docs("just text")[0].text == "just text"
    with pytest.raises(TypeError, match=r"context\[1\]: expected text, a Path or a ContextDoc, not int"):
        api.context_docs(["ok", 3])
    with pytest.raises(InputError, match="no such file"):
        api.context_docs(tmp_path / "missing.md")


def test_config_mappings_are_validated_like_the_toml_file():
    assert api.linter_for({"top_k": 5}).config.top_k == 5
    assert api.linter_for({"top_k": 5}) is api.linter_for({"top-k": 5})  # one linter per distinct settings
    with pytest.raises(ConfigError, match=r"^config: unknown key 'topk'$"):
        api.linter_for({"topk": 5})
    with pytest.raises(TypeError, match="config must be"):
        api.linter_for(["top_k"])  # type: ignore[arg-type]


def test_batch_items_need_text():
    with pytest.raises(InputError, match="item 0: no 'text'"):
        list(faithlint.check_batch([{"context": "c"}], linter=object()))


def test_top_level_names_resolve_lazily():
    import subprocess
    import sys

    code = ("import sys, faithlint; assert 'torch' not in sys.modules; "
            "assert faithlint.check is faithlint.api.check and faithlint.Config is faithlint.config.Config; "
            "assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_readme_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testfile(str(ROOT / "README.md"), module_relative=False, verbose=False,
                                         optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted >= 6 and failed == 0
