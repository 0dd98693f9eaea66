"""The rule catalogue: codes, names, default severities, thresholds and docs."""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URL = "https://github.com/faithlint/faithlint/blob/main/docs/rules.md"  # anchors: #fl100 ...


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    threshold: float | None = None

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}"


# thresholds: the operating point chosen by bench/calibrate.py on calibration rows (docs/rules.md)
RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("FL100", "contradiction", "error", "The checker is confident the context contradicts the sentence.",
         threshold=0.7),
    Rule("FL200", "unsupported", "warning", "The checker is confident the context does not support the sentence.",
         threshold=0.35),
    Rule("FL300", "low-faithfulness", "info",
         "Not flagged, but the faithfulness score is below the threshold: the checker is unsure.", threshold=0.5),
    Rule("FL400", "absent-fact", "warning",
         "A number, date or named entity of the sentence does not appear in its evidence.", threshold=0.3),
)}
