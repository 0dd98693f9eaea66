"""FOD (faithfulness-oriented decoding, from the SynCheck paper) of flagged sentences, as :class:`Fix` objects.

For each sentence the linter flags (FL100/FL110/FL200/FL210/FL400) that overlaps ``within``, an LLM (the one
``llm_endpoint`` / ``llm_model`` configure, else the bundled SmolLM2-135M-Instruct) writes the sentence again:

1. the prompt is the selected context (the evidence windows of the sentence and of its claims, deduplicated, about
   1500 characters: small models lose the thread on long prompts) and the question (the pairing query, else "Write
   a faithful text based on the context."); the assistant's answer starts with the draft before the sentence (its
   paragraph, plain text, at most ``PREFIX_CHARS``), and the model continues it. It never sees the flagged
   sentence: it regenerates from the context, it does not edit;
2. ``fod_sentences`` sentences are regenerated from the flagged one onward (1: the flagged sentence only; more:
   it and the sentences after it in its paragraph);
3. decoding is greedy, sentence by sentence, each new sentence scored; when one scores below τ1 (``fod_tau1``),
   FOD backtracks to before it and runs a sentence-level beam search: ``fod_beams`` beams, ``fod_samples``
   samples per beam and step (``fod_temperature``, seeded with ``fod_seed``), candidates scoring below τ2
   (``fod_tau2``) pruned, the rest ranked by the average score of their generated sentences;
4. the score of a generated sentence is the linter's own verdict on it **in the draft**: the draft with the
   candidate in place of the replaced sentence(s) is re-checked with the same context, query and settings (the
   linter caches sentence verdicts, so only the new sentence costs model time), and the score is that sentence's
   :attr:`~faithlint.types.SentenceResult.score`: the checker's entailment probability, or the monitor's
   P(faithful) when ``monitor = on``. **The checker (or the monitor) grades its own corrector's output**: a fix
   FOD offers is one faithlint no longer flags, not one a person or a stronger model has verified. A candidate
   with any FL100/FL110/FL200/FL210/FL400 finding on it counts as not passing, whatever its score (FL400 too: a
   regenerated sentence with a value its evidence lacks would be flagged again at once).

Offered: a greedy regeneration whose every sentence passed τ1, else the best beam-search results (up to
``MAX_FIXES``, distinct, not the original text) whose every sentence passed τ2, best first; each replaces the
sentence(s) exactly (code-point offsets into the draft as read) and is never *safe* (an editor or ``faithlint
fix`` shows it to a person). When nothing passes, a note says so with the best score reached.

The linter is used as given (its ``unit``: claims make the verdicts stricter but every candidate slower).
"""

from __future__ import annotations

import copy
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from faithlint.fixes.correctors.base import FLAGS, Corrections, Progress, check_cancel, flag_codes, overlaps
from faithlint.fixes.edits import Applicability, Edit, Fix, shorten
from faithlint.types import ContextDoc, DraftResult, SentenceResult

__all__ = ["FODCorrector", "Candidate", "Target"]

ID = "faithlint.fod"
SYSTEM = "Answer using only the context; do not add facts it does not state."
NO_QUERY = "Write a faithful text based on the context."
CONTEXT_CHARS = 1500  # selected context in the prompt
PREFIX_CHARS = 400  # the answer so far that the model continues
MAX_FIXES = 3
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_TERMINAL = re.compile(r"[.!?][\"')\]\u201d\u2019]*$")


@dataclass
class Target:
    """The flagged sentence(s) to regenerate: the source range ``[start, end)`` they cover, the codes on the first
    one, their texts and the separators between them, the prompt's context and the prefix the model continues."""

    start: int
    end: int
    codes: list[str]
    sentences: list[str]
    separators: list[str]
    context: str
    prefix: str

    @property
    def original(self) -> str:
        return _join(self.sentences, self.separators)


@dataclass
class Candidate:
    """Generated sentences (one per replaced sentence) and their scores in the draft."""

    sentences: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def text(self, separators: Sequence[str]) -> str:
        return _join(self.sentences, separators)


class FODCorrector:
    """Regenerates flagged sentences with faithfulness-oriented decoding; see the module docstring.

    ``linter``: whose models, settings and caches to use (its config gives the ``fod_*`` parameters and the LLM);
    ``generator``: an object with ``sample(messages, prefix, n, max_new_tokens, temperature, seed, ...)`` (default:
    :func:`faithlint.models.generation.generator_for` the linter's config, loaded on first use).
    """

    id = ID
    title = "Regenerate faithfully (FOD)"

    def __init__(self, linter: Any, generator: Any = None) -> None:
        self.linter = linter
        self._generator = generator
        self.calls = 0  # generator calls of the last run (samples seeds are fod_seed + call number)
        self.cancel: threading.Event | None = None

    @property
    def generator(self) -> Any:
        if self._generator is None:
            from faithlint.models.generation import generator_for

            self._generator = generator_for(self.linter.config)
        return self._generator

    # ------------------------------------------------------------------ steps
    def check(self, text: str, context: Sequence[ContextDoc], query: str | None, markdown: bool) -> DraftResult:
        cancel = self.cancel
        res = self.linter.check(text, context, query=query, markdown=markdown,
                                cancelled=cancel.is_set if cancel is not None else None)
        check_cancel(cancel)
        return res

    def targets(self, text: str, context: Sequence[ContextDoc], query: str | None = None, markdown: bool = True,
                result: DraftResult | None = None, within: tuple[int, int] | None = None) -> list[Target]:
        """The flagged sentences of ``text`` (overlapping ``within``) with what their regeneration needs."""
        res = result if result is not None else self.check(text, context, query, markdown)
        _, units = self.linter.sentences(text, markdown, query=query)
        blocks = {(u.start, u.end): u for u in units}
        count = self.linter.config.fod_sentences
        out: list[Target] = []
        sents = res.sentences
        taken = -1  # a sentence regenerated with an earlier target is not a target of its own
        for i, s in enumerate(sents):
            codes = flag_codes(res, s)
            if not codes or i <= taken or not overlaps(s.start, s.end, within):
                continue
            last = i
            while (last + 1 < len(sents) and last + 1 - i < count
                   and _same_paragraph(text, sents[last], sents[last + 1], blocks)):
                last += 1
            taken = last
            group = sents[i:last + 1]
            separators = [text[a.end:b.start] for a, b in zip(group, group[1:])]
            unit = blocks.get((s.start, s.end))
            before = unit.block.text[:unit.plain_start] if unit is not None else ""
            prefix = _tail(" ".join(_BLANK_LINE.split(before)[-1].split()), PREFIX_CHARS)
            out.append(Target(s.start, group[-1].end, codes, [text[x.start:x.end] for x in group], separators,
                              _selected_context(group, context, query), prefix))
        return out

    def messages(self, target: Target, query: str | None) -> list[dict[str, str]]:
        question = " ".join(query.split()) if query and query.strip() else NO_QUERY
        return [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Context:\n{target.context}\n\nQuestion: {question}"}]

    def score(self, text: str, target: Target, done: Sequence[str], sentence: str, context: Sequence[ContextDoc],
              query: str | None, markdown: bool) -> tuple[float, bool]:
        """(score, passes-the-rules) of ``sentence`` generated after ``done`` in place of the target's
        sentences: the re-checked draft's verdict on it; False when a flag (FL100/FL110/FL200/FL210/FL400)
        lies on it or it vanished from the units."""
        generated = [*done, sentence]
        new = _join(generated, target.separators)
        draft = text[:target.start] + new + text[target.end:]
        start = target.start + len(new) - len(sentence)
        end = target.start + len(new)
        res = self.check(draft, context, query, markdown)
        units = [s for s in res.sentences if s.start < end and start < s.end]
        if not units:
            return 0.0, False
        flagged = any(f.code in FLAGS and (f.start < end and start < f.end or start <= f.start < end)
                      for f in res.findings)
        return min(s.score for s in units), not flagged

    def generate(self, messages: list[dict[str, str]], prefix: str, n: int, greedy: bool = False) -> list[str]:
        c = self.linter.config
        check_cancel(self.cancel)
        seed = c.fod_seed + self.calls
        self.calls += 1
        out = self.generator.sample(messages, prefix, n, c.fod_max_new_tokens, c.fod_temperature, seed,
                                    stop_at_sentence=True, cancel=self.cancel,
                                    deadline=time.monotonic() + c.llm_timeout, greedy=greedy)
        check_cancel(self.cancel)
        return [" ".join(str(t).split()) for t in out]

    def decode(self, text: str, target: Target, context: Sequence[ContextDoc], query: str | None, markdown: bool,
               report: Progress) -> tuple[list[Candidate], Candidate | None]:
        """FOD on one target: (the passing candidates, best first; the best failing one, for the note)."""
        c = self.linter.config
        steps = len(target.sentences)
        messages = self.messages(target, query)
        memo: dict[tuple[str, ...], tuple[float, bool]] = {}
        best_failed: Candidate | None = None

        def judge(done: list[str], sentence: str) -> tuple[float, bool]:
            key = (*done, sentence)
            if key not in memo:
                usable = bool(sentence) and (not _TERMINAL.search(target.sentences[len(done)].rstrip())
                                             or bool(_TERMINAL.search(sentence)))
                memo[key] = self.score(text, target, done, sentence, context, query, markdown) if usable \
                    else (0.0, False)
            return memo[key]

        def failed(cand: Candidate) -> None:
            nonlocal best_failed
            if cand.sentences and cand.sentences[-1] and (best_failed is None or cand.mean > best_failed.mean):
                best_failed = cand

        # greedy, sentence by sentence, while each scores at least τ1
        greedy = Candidate()
        for step in range(steps):
            report(f"FOD: greedy sentence {step + 1} of {steps}", None)
            sentence = next(iter(self.generate(messages, _context_prefix(target.prefix, greedy.sentences), 1,
                                               greedy=True)), "")
            score, ok = judge(greedy.sentences, sentence)
            if not ok or score < c.fod_tau1:
                failed(Candidate([*greedy.sentences, sentence], [*greedy.scores, score]))
                break
            greedy.sentences.append(sentence)
            greedy.scores.append(score)
        else:
            if _norm(greedy.text(target.separators)) != _norm(target.original):
                return [greedy], None
            greedy = Candidate()  # the model wrote the draft's sentences again: search from the start
        # backtrack: sentence-level beam search from the first sentence below τ1
        beams = [Candidate(list(greedy.sentences), list(greedy.scores))]
        passing: list[Candidate] = []
        for step in range(len(greedy.sentences), steps):
            grown: list[Candidate] = []
            for b, beam in enumerate(beams):
                report(f"FOD: beam search, sentence {step + 1} of {steps}, beam {b + 1} of {len(beams)}", None)
                for sentence in dict.fromkeys(self.generate(messages, _context_prefix(target.prefix, beam.sentences),
                                                            c.fod_samples)):
                    score, ok = judge(beam.sentences, sentence)
                    cand = Candidate([*beam.sentences, sentence], [*beam.scores, score])
                    if ok and score >= c.fod_tau2:
                        grown.append(cand)
                    else:
                        failed(cand)
            grown.sort(key=lambda x: -x.mean)
            if not grown:
                return [], best_failed
            passing = grown
            beams = _distinct(grown)[:c.fod_beams]
        return [x for x in _distinct(passing) if _norm(x.text(target.separators)) != _norm(target.original)], \
            best_failed

    # ------------------------------------------------------------------ entry point
    def correct(self, text: str, context: Sequence[ContextDoc], *, query: str | None = None, markdown: bool = True,
                within: tuple[int, int] | None = None, cancel: threading.Event | None = None,
                progress: Progress | None = None) -> Corrections:
        """The regenerated, re-checked replacements of each flagged sentence (overlapping ``within``), in text
        order, up to ``MAX_FIXES`` per sentence, best first."""
        if not context:
            return Corrections(notes=["FOD: no context to regenerate from"])
        run = copy.copy(self)  # this run's cancel event and call count: the instance may serve several runs at once
        run._generator = self.generator  # built once, shared by the runs
        run.cancel, run.calls = cancel, 0
        return run._correct(text, context, query, markdown, within, progress)

    def _correct(self, text: str, context: Sequence[ContextDoc], query: str | None, markdown: bool,
                 within: tuple[int, int] | None, progress: Progress | None) -> Corrections:
        cancel = self.cancel
        out = Corrections()
        report = progress or (lambda message, percentage=None: None)
        report("FOD: checking the draft", 0)
        check_cancel(cancel)
        targets = self.targets(text, context, query, markdown, within=within)
        c = self.linter.config
        for n, target in enumerate(targets):
            check_cancel(cancel)
            pct = int(100 * (n + 0.5) / len(targets))

            def step(message: str, percentage: int | None = None, pct: int = pct) -> None:
                report(message, pct)

            found, best = self.decode(text, target, context, query, markdown, step)
            for cand in found[:MAX_FIXES]:
                new = cand.text(target.separators)
                title = f"{self.title[:-1]}, {cand.mean:.2f}): \u201c{shorten(new)}\u201d"
                out.fixes.append(Fix(ID, target.codes[0], title, (Edit(target.start, target.end, new),),
                                     Applicability.DISPLAY_ONLY, round(cand.mean, 4)))
            if not found:
                sentence = shorten(target.original, 50)
                if best is None:
                    why = "the model generated no usable sentence"
                else:
                    why = (f"no candidate passed \u03c42 = {c.fod_tau2:g} (best {best.mean:.2f}: "
                           f"\u201c{shorten(best.text(target.separators), 50)}\u201d)")
                out.notes.append(f"FOD: \u201c{sentence}\u201d: {why}")
        if not targets and within is not None:  # asked about one place (the editor): say why nothing came
            out.notes.append("FOD: no flagged sentence to regenerate there")
        report("FOD: done", 100)
        return out

    def fixes(self, text: str, context: Sequence[ContextDoc], *, query: str | None = None,
              markdown: bool = True) -> list[Fix]:
        """The best regeneration of every flagged sentence, in text order (one per sentence)."""
        best: dict[tuple[int, int], Fix] = {}
        for fx in self.correct(text, context, query=query, markdown=markdown).fixes:
            best.setdefault(fx.span, fx)
        return list(best.values())


# ---------------------------------------------------------------------------------------------------- helpers
def _join(sentences: Sequence[str], separators: Sequence[str]) -> str:
    out = ""
    for i, s in enumerate(sentences):
        if i:
            sep = separators[i - 1] if i - 1 < len(separators) else " "
            out += sep if sep.strip() == "" and sep else " "
        out += s
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


def _same_paragraph(text: str, a: SentenceResult, b: SentenceResult, units: dict[tuple[int, int], Any]) -> bool:
    """Whether ``b`` follows ``a`` in the same paragraph: one Markdown block, only whitespace between them, no
    blank line."""
    between = text[a.end:b.start]
    ua, ub = units.get((a.start, a.end)), units.get((b.start, b.end))
    same_block = ua is not None and ub is not None and ua.block is ub.block
    return same_block and between.strip() == "" and not _BLANK_LINE.search(between)


def _tail(text: str, limit: int) -> str:
    """The end of ``text``, at most ``limit`` characters, starting at a word."""
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    space = cut.find(" ")
    return cut[space + 1:] if 0 <= space < len(cut) - 1 else cut


def _context_prefix(prefix: str, done: Sequence[str]) -> str:
    return " ".join(x for x in (prefix, *done) if x)


def _selected_context(group: Sequence[SentenceResult], context: Sequence[ContextDoc], query: str | None) -> str:
    """The evidence windows of the sentences and their claims, deduplicated, at most ``CONTEXT_CHARS``; the start
    of the context when the checker selected none."""
    seen: list[str] = []
    for s in group:
        for w in [*s.windows, *([s.evidence] if s.evidence else []),
                  *(w for cl in s.claims or () for w in cl.windows)]:
            t = " ".join(w.text.split())
            if t and t not in seen and not any(t in x for x in seen):
                seen = [x for x in seen if x not in t] + [t]
    if not seen:
        seen = [" ".join(d.text.split()) for d in context]
    out: list[str] = []
    size = 0
    for t in seen:
        if size + len(t) > CONTEXT_CHARS:
            if not out:
                out.append(t[:CONTEXT_CHARS])
            break
        out.append(t)
        size += len(t) + 1
    return "\n".join(out)


def _distinct(cands: Sequence[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for x in cands:
        key = tuple(_norm(s) for s in x.sentences)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out
