"""FL400 alone as a hallucination detector on the development files, without the checker model.

Each row's ``text`` is split into sentences (faithlint.document.sentences.SentenceSplitter) and every sentence goes
through ``ValueExtractor.mismatches(sentence, [whole context])``. A row is *flagged* when any sentence has an
FL400 finding. Reported per file and overall:

- ``flag_faithful``: share of faithful rows (faithful/consistent/supported/accurate/entailment) flagged —
  the false-finding rate, lower is better;
- ``flag_unfaithful``: share of unfaithful rows (hallucinated/inconsistent/not_supported/partially/
  hallucination/partial hallucination/inaccurate) flagged;
- ``precision``: share of flagged rows that are unfaithful (rows with other labels, such as FaithDial's
  "generic" or "uncooperative", are left out), next to the base rate of unfaithful rows.

``--kinds`` adds the kinds of value flagged on faithful rows. Skips (exit 0) when the data folder is absent.

    python bench/fl400_precision.py [--limit 300] [--kinds]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from common import data_dir, read_jsonl, sample, save, table

FILES = ["halueval_qa_dev", "frank_dev", "xsumfaith_dev", "summeval_dev", "q2_dev", "lfqa_verification_dev",
         "faithdial_audit_dev", "rotowire_accuracy_dev"]
FAITHFUL = {"faithful", "consistent", "supported", "accurate", "entailment"}
UNFAITHFUL = {"hallucinated", "inconsistent", "not_supported", "partially", "hallucination",
              "partial hallucination", "inaccurate"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="data folder (default ../shared/data)")
    ap.add_argument("--limit", type=int, default=0, help="rows per file (deterministic sample); 0 = all")
    ap.add_argument("--kinds", action="store_true", help="count flagged value kinds on faithful rows")
    ap.add_argument("--out", default="", help="also save the figures as JSON under bench/results/")
    args = ap.parse_args()
    folder = data_dir(args.data) / "faithfulness"
    if not folder.is_dir():
        print(f"skipped: {folder} not found")
        return
    from faithlint.document.sentences import SentenceSplitter
    from faithlint.rules.values import ValueExtractor

    splitter = SentenceSplitter()
    vx = ValueExtractor()
    print(f"sentences: {splitter.backend}, values: {vx.backend}")
    rows_out, totals, kinds = [], Counter(), Counter()
    t0 = time.perf_counter()
    for name in FILES:
        path = folder / f"{name}.jsonl"
        if not path.is_file():
            print(f"{name}: missing, skipped")
            continue
        c = Counter()
        for row in sample(read_jsonl(path), args.limit or None):
            label = str(row.get("label", "")).strip()
            faithful = label in FAITHFUL
            if not faithful and label not in UNFAITHFUL:
                continue
            text, context = str(row.get("text") or ""), str(row.get("context") or "")
            found = []
            for sp in splitter.split(text):
                found += vx.mismatches(text[sp.start:sp.end], [context])
            group = "f" if faithful else "u"
            c[group] += 1
            if found:
                c[group + "_flag"] += 1
                if faithful and args.kinds:
                    kinds.update(m.value.kind for m in found)
        totals.update(c)
        rows_out.append([name, *_figures(c)])
    rows_out.append(["all", *_figures(totals)])
    header = ["file", "faithful", "unfaithful", "flag_faithful", "flag_unfaithful", "precision", "base_rate"]
    print(table(header, rows_out))
    print(f"{time.perf_counter() - t0:.0f} s")
    if args.kinds:
        print("flagged kinds on faithful rows:", dict(kinds.most_common()))
    if args.out:
        save(args.out, {"header": header, "rows": rows_out})


def _figures(c: Counter) -> list[object]:
    f, u, ff, uf = c["f"], c["u"], c["f_flag"], c["u_flag"]
    return [f, u, ff / f if f else float("nan"), uf / u if u else float("nan"),
            uf / (ff + uf) if ff + uf else float("nan"), u / (f + u) if f + u else float("nan")]


if __name__ == "__main__":
    main()
