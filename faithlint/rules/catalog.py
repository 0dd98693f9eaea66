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


RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("FL100", "contradiction", "error", "The context contradicts the sentence.", threshold=0.5),
    Rule("FL200", "unsupported", "warning", "The context neither supports nor refutes the sentence.",
         threshold=0.5),
    Rule("FL300", "low-faithfulness", "info",
         "The sentence is judged supported, but its faithfulness score is below the threshold.", threshold=0.6),
    Rule("FL400", "absent-fact", "warning",
         "A number, date or named entity of the sentence does not appear in its evidence.", threshold=1.0),
)}
