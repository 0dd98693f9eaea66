"""Does the checker call a faithful rewrite of a value a contradiction?

The negation probe's sibling, for the rewrites a faithful summary makes of its context's figures: "60%" for "60
percent", "in March 2024" for "on March 4, 2024", "32 thousand" for "32,000", "12.5 million dollars" for "$12.5
million", "around" for "about", "forty" for "40" (``faithlint/train/rewrites.py``). Sentences of the development
files' contexts that hold such a value are paired with the context around them (the sentence before, itself,
the one after) and judged by the checker alone (no verbatim shortcut, no grounding):

- ``copy``: the sentence itself -> should be entailment;
- one group per meaning-preserving kind -> should be entailment;
- ``value changed``: the same kinds of rewrite with another value ("May 2024", "45%", "thirty") -> should be
  contradiction, so that a fix of the first groups is not bought with missed changed values.

For each group: rows, mean P(entailment), mean P(contradiction) and the share judged contradiction (the largest
probability) and entailment.

    python bench/paraphrase_probe.py [--per-group 150] [--model DIR] [--out paraphrase_probe.json]
"""

from __future__ import annotations

import random

from negation_probe import judge, setup

from faithlint.train.rewrites import paraphrases, value_changes


def groups(pool: list[tuple[str, str]], per_group: int, rng: random.Random) -> dict[str, list[tuple[str, str]]]:
    """(premise, hypothesis) pairs per group, at most ``per_group`` each, one rewrite per sentence and group."""
    out: dict[str, list[tuple[str, str]]] = {"copy": []}
    changed: list[tuple[str, str]] = []
    for premise, s in pool:
        kinds = paraphrases(s)
        if not kinds:
            continue
        if len(out["copy"]) < per_group:
            out["copy"].append((premise, s))
        for kind, new in kinds:
            bucket = out.setdefault(kind, [])
            if len(bucket) < per_group:
                bucket.append((premise, new))
        changes = value_changes(s, rng)
        if changes and len(changed) < per_group:
            changed.append((premise, rng.choice(changes)[1]))
    out["value changed"] = changed
    return out


def main() -> None:
    args, linter, pool, rng = setup(__doc__, 150)
    judge(linter, groups(pool, args.per_group, rng), args, "python bench/paraphrase_probe.py")


if __name__ == "__main__":
    main()
