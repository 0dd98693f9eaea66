"""bench/ helpers: calibrate.py's choice of the operating point (FL400 stays inside the sentences the checker doubts)
and the paraphrase probe's groups."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import calibrate  # noqa: E402


def _row(hallucinated: bool, p_entail: float, value: bool) -> dict:
    sentence = {"start": 0, "end": 20, "p": [p_entail, 1 - p_entail - 0.05, 0.05],
                "fl400": [[4, 9]] if value else [], "marks": []}
    return {"task": "qa", "hallucinated": hallucinated, "sentences": [sentence]}


def test_fl400_never_flags_a_sentence_that_fl200_passes() -> None:
    # every hallucinated row is a fairly supported sentence (0.65) with a value the context lacks: only an FL400
    # threshold above FL200's would catch them, by the value alone
    rows = [_row(True, 0.65, True) for _ in range(10)] + [_row(False, 0.95, False) for _ in range(10)]
    (point, per, *_), feasible = calibrate.search(rows)
    assert point.values <= point.unsupported and not feasible and per["qa"][1] == 0.0
    (loose, per, *_), feasible = calibrate.search(rows, values_in_doubt=False)
    assert loose.values > loose.unsupported and feasible and per["qa"][:2] == (1.0, 1.0)


def test_a_value_in_a_doubted_sentence_is_still_reported() -> None:
    # hallucinated rows the checker doubts (0.2): FL200 flags them, FL400 (at most FL200's threshold) marks the value
    rows = [_row(True, 0.2, True) for _ in range(10)] + [_row(False, 0.95, False) for _ in range(10)]
    (point, per, *_), feasible = calibrate.search(rows)
    assert feasible and 0.2 < point.values <= point.unsupported
    from eval_dev import flagged_ranges

    assert (4, 9) in flagged_ranges(rows[0], point)


def test_the_paraphrase_probe_groups_rewrites_and_their_changed_twins() -> None:
    import random

    import paraphrase_probe

    pool = [("P1", "Sales rose 60 percent to 4,000 units."), ("P2", "The museum has 40 rooms."),
            ("P3", "It was a quiet year.")]
    groups = paraphrase_probe.groups(pool, 5, random.Random(0))
    assert groups["copy"] == pool[:2]  # sentences without a rewritable value are left out
    assert groups["percent_sign"] == [("P1", "Sales rose 60% to 4,000 units.")]
    assert groups["number_word"] == [("P2", "The museum has forty rooms.")]
    assert len(groups["value changed"]) == 2 and all(h not in dict(pool).values() for _, h in groups["value changed"])
