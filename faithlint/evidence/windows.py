"""Context windows that fit the checker next to the sentence being checked.

Windows are runs of whole context sentences whose token count fits the budget
left once the draft sentence (never truncated) and the special tokens are
placed; consecutive windows overlap by about ``overlap`` tokens. A context
sentence longer than the budget is cut at token boundaries with the same
overlap. The same code builds training examples, so training and inference
see the same shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from faithlint.document.sentences import Span

TokenOffsets = Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True)
class Window:
    """A slice of one context document."""

    source: str
    start: int
    end: int
    text: str
    index: int


def token_budget(max_length: int, sentence_tokens: int, extra_tokens: int = 0,
                 model_max: int = 512, min_budget: int = 48, quantum: int = 16) -> int:
    """Tokens left for the window, quantised so nearby sentence lengths share windows."""
    budget = max_length - 3 - sentence_tokens - extra_tokens
    if budget < min_budget:  # grow the pair rather than cut the sentence
        budget = min(model_max - 3 - sentence_tokens - extra_tokens, min_budget)
    budget = max(budget, 8)
    return max(8, budget - budget % quantum) if budget > quantum else budget


def build_windows(source: str, text: str, sentences: Sequence[Span], counts: Sequence[int],
                  budget: int, overlap: int = 32,
                  token_offsets: TokenOffsets | None = None) -> list[Window]:
    """Slide over ``sentences`` of ``text`` packing at most ``budget`` tokens per window."""
    windows: list[Window] = []
    n = len(sentences)
    i = 0
    while i < n:
        if counts[i] > budget:
            for a, b in _cut_sentence(text, sentences[i], budget, overlap, token_offsets):
                windows.append(Window(source, a, b, text[a:b], len(windows)))
            i += 1
            continue
        total, j = counts[i], i
        while j + 1 < n and total + counts[j + 1] <= budget:
            j += 1
            total += counts[j]
        a, b = sentences[i].start, sentences[j].end
        windows.append(Window(source, a, b, text[a:b], len(windows)))
        if j + 1 >= n:
            break
        k, shared = j, 0
        while k > i and shared + counts[k] <= max(overlap, 1) * 2 and shared < overlap:
            shared += counts[k]
            k -= 1
        i = max(i + 1, k + 1)
    return windows


def _cut_sentence(text: str, span: Span, budget: int, overlap: int,
                  token_offsets: TokenOffsets | None) -> list[tuple[int, int]]:
    piece = text[span.start:span.end]
    if token_offsets is None:  # about four characters a token
        offs = [(k, min(k + 4, len(piece))) for k in range(0, len(piece), 4)]
    else:
        offs = token_offsets(piece)
    if not offs:
        return [(span.start, span.end)]
    step = max(1, budget - overlap)
    out = []
    for s in range(0, len(offs), step):
        chunk = offs[s:s + budget]
        out.append((span.start + chunk[0][0], span.start + chunk[-1][1]))
        if s + budget >= len(offs):
            break
    return out
