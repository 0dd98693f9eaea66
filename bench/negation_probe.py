"""Does the checker call a negated sentence a contradiction because it is negated?

A probe of one known failure, not a benchmark: ``"Personal equipment purchases are not reimbursed."`` against
a premise that says exactly that came out P(contradiction) 0.89. Sentences of the development files' contexts
are paired with the context around them (the sentence before, itself, the one after) and judged by the checker
alone (no verbatim shortcut, no grounding), in four groups:

- ``copy``: the sentence itself, without a negation word -> should be entailment;
- ``copy, negated``: the sentence itself, with one ("not", "n't", "never", "no", "none", "nor", "cannot");
- ``negation removed``: that sentence with its one "not"/"never" deleted -> should be contradiction;
- ``negation added``: a copy sentence with "not" put after its first auxiliary ("is" -> "is not") ->
  should be contradiction.

For each group: rows, mean P(entailment), mean P(contradiction), and the share judged contradiction (the
largest probability). A checker without the bias judges both copy groups alike.

    python bench/negation_probe.py [--per-group 200] [--out negation_probe.json]
"""

from __future__ import annotations

import argparse
import random
import re

from common import data_dir, read_jsonl, save, table

from faithlint.config import Config
from faithlint.pipeline.linter import Linter

FILES = ["frank_dev", "xsumfaith_dev", "summeval_dev", "lfqa_verification_dev", "halueval_qa_dev"]
NEGATION = re.compile(r"\b(not|never|no|none|nor|cannot)\b|n't\b", re.IGNORECASE)
REMOVABLE = re.compile(r"\s(not|never)\b")
AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|does|did)\b")


def sentences(data, linter: Linter) -> list[tuple[str, str]]:
    """(premise, sentence) for every context sentence of 6-40 words: the sentence with its neighbours."""
    out, seen = [], set()
    for name in FILES:
        path = data / "faithfulness" / f"{name}.jsonl"
        if not path.exists():
            continue
        for r in read_jsonl(path):
            ctx = r.get("context")
            if not isinstance(ctx, str) or ctx in seen:
                continue
            seen.add(ctx)
            spans = linter.context_splitter.split(ctx)
            texts = [ctx[s.start:s.end] for s in spans]
            for i, t in enumerate(texts):
                if 6 <= len(t.split()) <= 40 and "\n" not in t:
                    out.append((" ".join(texts[max(0, i - 1):i + 2]), t))
    return out


def setup(doc: str, per_group: int) -> tuple[argparse.Namespace, Linter, list[tuple[str, str]], random.Random]:
    """A probe's arguments, linter and shuffled (premise, sentence) pool of the development contexts."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="data folder (default ../shared/data)")
    ap.add_argument("--per-group", type=int, default=per_group)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--model", help="checker (default: the bundled one)")
    ap.add_argument("--out", default="", help="save the figures as JSON under bench/results/")
    args = ap.parse_args()
    data = data_dir(args.data)
    linter = Linter(Config(model=args.model) if args.model else Config())
    rng = random.Random(args.seed)
    pool = sentences(data, linter)
    rng.shuffle(pool)
    return args, linter, pool, rng


def judge(linter: Linter, groups: dict[str, list[tuple[str, str]]], args: argparse.Namespace, command: str) -> None:
    """The checker alone on each group: print its table, and save it with ``--out``."""
    keys = ("p_entailment", "p_contradiction", "judged_contradiction", "judged_entailment")
    out, rows = {}, []
    for name, pairs in groups.items():
        stats: dict = {"rows": len(pairs)}
        if pairs:
            probs = linter.checker.score_pairs([p for p, _ in pairs], [h for _, h in pairs])
            stats |= dict(zip(keys, (float(probs[:, 0].mean()), float(probs[:, 2].mean()),
                                     float((probs.argmax(1) == 2).mean()), float((probs.argmax(1) == 0).mean()))))
        out[name] = stats
        rows.append([name, len(pairs), *[round(stats[k], 3) if k in stats else "" for k in keys]])
    print(table(["group", "rows", "mean P(entailment)", "mean P(contradiction)", "judged contradiction",
                 "judged entailment"], rows))
    if args.out:
        save(args.out, {"command": command, "model": args.model or "bundled", "per_group": args.per_group,
                        "seed": args.seed, "groups": out})


def main() -> None:
    args, linter, pool, _ = setup(__doc__, 200)
    negated = [(p, s) for p, s in pool if NEGATION.search(s)]
    plain = [(p, s) for p, s in pool if not NEGATION.search(s)]
    removable = [(p, s) for p, s in negated if len(REMOVABLE.findall(s)) == 1]
    addable = [(p, s) for p, s in plain if AUXILIARY.search(s)]
    n = args.per_group
    groups = {
        "copy": [(p, s) for p, s in plain[:n]],
        "copy, negated": [(p, s) for p, s in negated[:n]],
        "negation removed": [(p, REMOVABLE.sub("", s, count=1)) for p, s in removable[:n]],
        "negation added": [(p, AUXILIARY.sub(lambda m: m.group(0) + " not", s, count=1)) for p, s in addable[:n]],
    }
    judge(linter, groups, args, "python bench/negation_probe.py")


if __name__ == "__main__":
    main()
