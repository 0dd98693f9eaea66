"""RAC (retrieval-augmented correction) of flagged sentences, as :class:`~faithlint.fixes.edits.Fix` objects.

For each sentence the linter flags (FL100/FL110/FL200/FL210/FL400):

1. its atomic facts are its claim triplets (the configured claim extractor, spaCy by default);
2. each fact is verified against the evidence selected for it by the checker: entailment = True,
   contradiction = False, neutral = Not Mentioned; a fact with a value that conflicts with a value of the
   same kind in its evidence (FL400's value matching) is False whatever the checker said;
3. False facts are corrected: deterministically where the fact's value conflicts with the evidence (the
   context's value replaces the draft's, at the value's exact offsets), else, only when an LLM is configured
   (``llm_model`` / ``llm_endpoint``), by asking it to rewrite the sentence from the evidence keeping the True
   facts;
4. every candidate is re-checked against the same context with the same settings (claims included); a
   candidate with an FL100/FL110/FL200/FL210 on its sentence is never offered.

With ``rac_drop_unmentioned`` the Not-Mentioned facts go too: the LLM is asked to leave them out, and a sentence
with no True fact (and nothing to correct from the evidence) is offered for deletion.

Nothing is written here: the fixes go to ``faithlint fix`` (a diff, or ``--write``) or an editor.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from faithlint.fixes.correctors.base import BLOCKING, FLAGS, Corrections, Progress, check_cancel, flag_codes, overlaps
from faithlint.fixes.edits import Applicability, Edit, Fix, apply_edits, shorten
from faithlint.types import ContextDoc, DraftResult, SentenceResult

__all__ = ["BLOCKING", "FLAGS", "Fact", "RACCorrector", "Target"]

VERDICTS = {"entailment": "True", "contradiction": "False", "neutral": "Not Mentioned"}
ID = "faithlint.rac"


@dataclass
class Fact:
    """One atomic fact (claim triplet) of a flagged sentence and its verdict against its evidence."""

    text: str
    start: int
    end: int
    verdict: str  # "True" | "False" | "Not Mentioned"
    evidence: str = ""
    replacements: list[Edit] = field(default_factory=list)  # value swaps from the evidence (source offsets)
    values: list[tuple[str, str]] = field(default_factory=list)  # (draft value, context value)


@dataclass
class Target:
    """A flagged sentence: its source range, the codes on it and its facts."""

    start: int
    end: int
    codes: list[str]
    facts: list[Fact]
    evidence: str = ""


class RACCorrector:
    """Corrects the flagged sentences of a draft from its context; see the module docstring.

    ``linter``: the linter whose models and settings to use (its config decides the operating point);
    ``generator``: an object with ``chat(messages, max_new_tokens)`` for the LLM rewrite (default: the one
    ``llm_model``/``llm_endpoint`` configure, none when neither is set).
    """

    id = ID
    title = "Correct from the context (RAC)"

    def __init__(self, linter: Any, generator: Any = None, max_new_tokens: int = 96) -> None:
        from faithlint.pipeline.linter import Linter

        base = linter
        unit = "both" if base.config.unit == "sentence" else base.config.unit
        config = base.config.model_copy(update={"unit": unit})
        # the same models (already loaded or loading lazily) with claims judged too
        # (a checker not loaded yet is loaded through ``load_checker``, which shares it per process)
        self.linter = Linter(config, checker=base._checker, relevance=base._relevance, splitter=base._splitters,
                             values=base._values, claims=base._claims)
        self._generator = generator
        self.max_new_tokens = max_new_tokens

    @property
    def generator(self) -> Any:
        c = self.linter.config
        if self._generator is None and (c.llm_model or c.llm_endpoint):
            from faithlint.claims.llm import llm_extractor

            self._generator = llm_extractor(c.llm_model, c.device, c.llm_endpoint, c.llm_endpoint_model,
                                            c.llm_api_key_env).generator
        return self._generator

    # ------------------------------------------------------------------ steps
    def check(self, text: str, context: Sequence[ContextDoc], query: str | None, markdown: bool) -> DraftResult:
        return self.linter.check(text, context, query=query, markdown=markdown)

    def targets(self, text: str, context: Sequence[ContextDoc], query: str | None = None,
                markdown: bool = True, result: DraftResult | None = None) -> list[Target]:
        """The flagged sentences of ``text`` with their facts verified (steps 1 and 2)."""
        lt = self.linter
        res = result if result is not None else self.check(text, context, query, markdown)
        _, units = lt.sentences(text, markdown, query=query)
        claims, _ = lt.claims.claims(units)
        out: list[Target] = []
        for i, s in enumerate(res.sentences):
            codes = flag_codes(res, s)
            if not codes:
                continue
            facts: list[Fact] = []
            for cu, cr in zip(claims[i] if i < len(claims) else [], s.claims or []):
                fact = Fact(cr.text, cr.start, cr.end, VERDICTS.get(cr.label, "Not Mentioned"),
                            cr.evidence.text if cr.evidence is not None else "")
                windows = [w.text for w in cr.windows]
                words = cu.claim_words
                for m in (lt._mismatches(words, windows) if words and windows else []):
                    if m.context_value is None or not m.aligned:
                        continue  # no context value stands where this one does: the LLM may rewrite it
                    a, b = cu.to_source(m.value.start, m.value.end)
                    if text[a:b] != m.value.text:
                        continue  # the value is not verbatim in the source (Markdown inside it): no exact edit
                    fact.replacements.append(Edit(a, b, m.context_value.text))
                    fact.values.append((m.value.text, m.context_value.text))
                if fact.replacements:
                    fact.verdict = "False"  # a fact's value the evidence has otherwise (FL110's value rule)
                facts.append(fact)
            out.append(Target(s.start, s.end, codes, facts, _evidence(s)))
        return out

    def candidates(self, text: str, target: Target) -> Iterator[tuple[str, tuple[Edit, ...], Applicability]]:
        """(title, edits, applicability) of each correction of one target, in the order they are tried, before the
        re-check (step 3); lazily, so the LLM rewrite runs only when the value swap was not judged supported. Only
        the deterministic value swap is safe; the others are display-only."""
        edits: dict[tuple[int, int], Edit] = {}
        pairs: list[tuple[str, str]] = []
        for fact in target.facts:
            if fact.verdict != "False":
                continue
            for e, pair in zip(fact.replacements, fact.values):
                if (e.start, e.end) not in edits and not any(e.start < b and a < e.end for a, b in edits):
                    edits[(e.start, e.end)] = e
                    pairs.append(pair)
        if edits:
            title = ", ".join(f"{shorten(a, 30)} \u2192 {shorten(b, 30)}" for a, b in pairs)
            yield (f"Correct from the context (RAC): {title}", tuple(sorted(edits.values(), key=lambda e: e.start)),
                   Applicability.SAFE)
        drop = self.linter.config.rac_drop_unmentioned
        unmentioned = any(f.verdict == "Not Mentioned" for f in target.facts)
        if any(f.verdict == "False" for f in target.facts) or not target.facts or (drop and unmentioned):
            # also after a value swap the re-check rejected (a swap on a badly extracted fact)
            rewrite = self.rewrite(text[target.start:target.end], target, drop=drop)
            if rewrite:
                yield (f"Correct from the context (RAC): \u201c{shorten(rewrite)}\u201d",
                       (Edit(target.start, target.end, rewrite),), Applicability.DISPLAY_ONLY)
        if drop and not any(f.verdict == "True" for f in target.facts):
            end = target.end
            while end < len(text) and text[end] in " \t":
                end += 1  # the space before the next sentence goes with it
            yield ("Correct from the context (RAC): delete the unsupported sentence", (Edit(target.start, end, ""),),
                   Applicability.DISPLAY_ONLY)

    def rewrite(self, sentence: str, target: Target, drop: bool = False) -> str | None:
        """The LLM's rewrite of ``sentence`` from the evidence, keeping the True facts (None without an LLM)."""
        gen = self.generator
        if gen is None or not target.evidence:
            return None
        true = [f.text for f in target.facts if f.verdict == "True"]
        false = [f.text for f in target.facts if f.verdict == "False"]
        absent = [f.text for f in target.facts if f.verdict == "Not Mentioned"] if drop else []
        prompt = (f"Evidence:\n{target.evidence}\n\nSentence:\n{sentence}\n\n"
                  + ("Facts to keep (true):\n" + "\n".join(f"- {t}" for t in true) + "\n\n" if true else "")
                  + ("Facts to correct (false):\n" + "\n".join(f"- {t}" for t in false) + "\n\n" if false else "")
                  + ("Facts to leave out (not in the evidence):\n" + "\n".join(f"- {t}" for t in absent) + "\n\n"
                     if absent else "")
                  + "Rewrite the sentence so that everything it says is supported by the evidence. Keep the true "
                    "facts and the wording where you can. Answer with the corrected sentence only.")
        messages = [{"role": "system", "content": "You correct sentences so that they agree with the evidence."},
                    {"role": "user", "content": prompt}]
        answer = str(gen.chat(messages, self.max_new_tokens) or "").strip()
        line = next((x.strip().strip('"\u201c\u201d') for x in answer.splitlines() if x.strip()), "")
        return line if line and line != sentence.strip() else None

    def supported(self, text: str, edits: Sequence[Edit], context: Sequence[ContextDoc], query: str | None,
                  markdown: bool, target: Target) -> bool:
        """Step 4: the corrected sentence has no FL100/FL110/FL200/FL210 when the whole draft is re-checked."""
        new = apply_edits(text, edits)
        shift = sum(len(e.new_text) - (e.end - e.start) for e in edits)
        start, end = target.start, target.end + shift
        res = self.check(new, context, query, markdown)
        deleted = len(edits) == 1 and not edits[0].new_text and edits[0].start == target.start
        if deleted:  # nothing left to judge there: the deletion must not make another sentence unsupported
            return not any(f.code in BLOCKING and start - 1 <= f.start <= start + 1 for f in res.findings)
        if not any(s.start < end and start < s.end for s in res.sentences):
            return False  # the sentence vanished: nothing was judged
        return not any(f.code in BLOCKING and f.start < end and start < f.end for f in res.findings)

    # ------------------------------------------------------------------ entry point
    def correct(self, text: str, context: Sequence[ContextDoc], *, query: str | None = None, markdown: bool = True,
                within: tuple[int, int] | None = None, cancel: threading.Event | None = None,
                progress: Progress | None = None) -> Corrections:
        """The re-checked correction of each flagged sentence (overlapping ``within``), in text order."""
        out = Corrections()
        if not context:
            out.notes.append("RAC: no context to correct from")
            return out
        report = progress or (lambda message, percentage=None: None)
        report("RAC: verifying the facts of the flagged sentences", 0)
        targets = [t for t in self.targets(text, context, query, markdown) if overlaps(t.start, t.end, within)]
        for n, target in enumerate(targets):
            check_cancel(cancel)
            report(f"RAC: correcting sentence {n + 1} of {len(targets)}", int(100 * (n + 0.5) / len(targets)))
            found = False
            for title, edits, applicability in self.candidates(text, target):
                check_cancel(cancel)
                if self.supported(text, edits, context, query, markdown, target):
                    out.fixes.append(Fix(ID, target.codes[0], title, edits, applicability))
                    found = True
                    break
            if not found:
                out.notes.append(_no_fix_note(text, target, self.generator is not None))
        if not targets and within is not None:  # asked about one place (the editor): say why nothing came
            out.notes.append("RAC: no flagged sentence to correct there")
        report("RAC: done", 100)
        return out

    def fixes(self, text: str, context: Sequence[ContextDoc], *, query: str | None = None,
              markdown: bool = True) -> list[Fix]:
        """The re-checked corrections of every flagged sentence, in text order (one per sentence)."""
        return self.correct(text, context, query=query, markdown=markdown).fixes


def _no_fix_note(text: str, target: Target, llm: bool) -> str:
    sentence = shorten(" ".join(text[target.start:target.end].split()), 50)
    false = [f for f in target.facts if f.verdict == "False"]
    if false and not llm:
        why = "its false facts have no value to take from the evidence; set llm_model or llm_endpoint to rewrite it"
    elif not false and not llm:
        why = "no fact is contradicted by the evidence (the Not-Mentioned ones stay unless rac_drop_unmentioned)"
    else:
        why = "no candidate was judged supported when re-checked"
    return f"RAC: \u201c{sentence}\u201d: no correction ({why})"


def _evidence(s: SentenceResult) -> str:
    seen: list[str] = []
    for w in [*s.windows, *(w for c in s.claims or [] for w in c.windows)]:
        t = " ".join(w.text.split())
        if t and t not in seen:
            seen.append(t)
    return "\n".join(seen[:4])

