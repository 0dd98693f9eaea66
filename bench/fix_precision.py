"""How often the fixes ``faithlint check --fix --unsafe-fixes`` applies (FL400's value swap) put the right value in.

A fix applied without a person looking writes any mistake of its into the user's draft. Rotowire's
sentence-level accuracy labels carry each error's correction ("Saturday" -> "Sunday", "25" -> "27"), so each
such fix the default linter offers on those sentences is one of:

- ``right``: it replaces a labelled error with its correction;
- ``wrong value``: it replaces a labelled error, but not with its correction;
- ``wrong place``: it replaces a value no error covers (the draft was right there, or its error is elsewhere).

Fix precision = right / offered. Rows: ``rotowire_accuracy_dev`` (the development file), and with
``--train`` also ``rotowire_accuracy_train`` (no model is trained here, but the checker was trained on
those sentences: read that column as a larger sample, not as held-out). Skips (exit 0) without the data.

    python bench/fix_precision.py [--train] [--show] [--out fix_precision.json]
"""

from __future__ import annotations

import argparse
import re
import sys

from common import data_dir, read_jsonl, save, table

from faithlint.api import check, linter_for
from faithlint.fixes.edits import Applicability, fixes_for

FILES = ["rotowire_accuracy_dev"]


def norm(s: str) -> str:
    return re.sub(r"[^a-z0-9.]+", " ", s.lower()).strip()


def classify(row: dict, a: int, b: int, new: str) -> str:
    for e in row.get("errors") or []:
        if e["start"] < b and a < e["end"]:
            correction = norm(str(e.get("correction") or ""))
            return "right" if correction and norm(new) == correction else "wrong value"
    return "wrong place"


def run(rows: list[dict], linter, show: bool) -> dict:
    counts = {"sentences": len(rows), "labelled_errors": sum(len(r.get("errors") or []) for r in rows),
              "fl400": 0, "offered": 0, "right": 0, "wrong value": 0, "wrong place": 0}
    for r in rows:
        res = check(r["text"], r["context"], markdown=False, linter=linter)
        for f in res.findings:
            if f.code != "FL400":
                continue
            counts["fl400"] += 1
            fix = next((x for x in fixes_for(f, res.text) if x.applicability.applies_at(Applicability.UNSAFE)), None)
            if fix is None:
                continue
            (a, b, new), = [(e.start, e.end, e.new_text) for e in fix.edits]
            kind = classify(r, a, b, new)
            counts["offered"] += 1
            counts[kind] += 1
            if show:
                print(f"{kind:11} {r['id']}: {r['text'][a:b]!r} -> {new!r} | {r['text'][:100]!r}", file=sys.stderr)
    counts["precision"] = counts["right"] / counts["offered"] if counts["offered"] else None
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="data folder (default ../shared/data)")
    ap.add_argument("--train", action="store_true", help="also the training-side Rotowire sentences")
    ap.add_argument("--show", action="store_true", help="print every offered fix (stderr)")
    ap.add_argument("--out", default="", help="save the figures as JSON under bench/results/")
    args = ap.parse_args()
    data = data_dir(args.data) / "faithfulness"
    files = FILES + (["rotowire_accuracy_train"] if args.train else [])
    if not all((data / f"{n}.jsonl").exists() for n in files):
        print(f"note: {data}: Rotowire files not found; nothing to measure")
        return
    linter = linter_for(None)
    out = {name: run(read_jsonl(data / f"{name}.jsonl"), linter, args.show) for name in files}
    cols = ["sentences", "labelled_errors", "fl400", "offered", "right", "wrong value", "wrong place", "precision"]
    print(table(["file", *cols], [[n, *[("" if v[c] is None else round(v[c], 3)) for c in cols]]
                                  for n, v in out.items()]))
    if args.out:
        save(args.out, {"command": "python bench/fix_precision.py" + (" --train" if args.train else ""),
                        "files": out})


if __name__ == "__main__":
    main()
