"""Fit a prompt into a model's context: cut the middle of its longest message, saying so.

A judged prompt is instructions, then the transcript, then the reply format; a
long transcript (a tau-bench trajectory of 40 turns) can be longer than a small
model's context. Rather than leave the row "not judged", the longest message
loses characters from its middle, replaced by a stated marker
(``[... N chars cut to fit the judge's context ...]``): its head (the
instructions and the task) and its tail (the final turns, the end state and the
reply format) stay whole. The cut is returned so the result can record it.

>>> fitted, cut = fit_messages(
...     [{"role": "user", "content": "TASK " + "x" * 500 + " END"}],
...     count=lambda msgs: sum(len(m["content"]) for m in msgs),
...     limit=300,
... )
>>> text = fitted[0]["content"]
>>> text.startswith("TASK "), text.endswith(" END"), len(text) <= 300, cut.chars_cut
(True, True, True, 297)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tooleval.errors import JudgeError

__all__ = ["InputCut", "fit_messages"]

MARKER = "\n[... {count:,} chars cut to fit the judge's context ...]\n"
# Count again and cut more at most this many times (each round cuts the measured excess).
_ROUNDS = 8


@dataclass(frozen=True, slots=True)
class InputCut:
    """What was cut from a prompt: characters removed, from which message, and the limit."""

    chars_cut: int
    message: int  # index of the message cut
    tokens_before: int
    tokens_after: int
    limit: int

    def describe(self) -> str:
        """One line for a result's reason and details."""
        return (
            f"judge input cut to fit the model's context: {self.chars_cut:,} chars removed "
            f"from the middle of message {self.message + 1} ({self.tokens_before:,} -> "
            f"{self.tokens_after:,} tokens, limit {self.limit:,})"
        )


def _cut_middle(text: str, shorter: int) -> tuple[str, int]:
    """``text`` made ``shorter`` characters shorter by its middle; and the characters removed.

    The characters removed include the room the marker takes, and the marker states them.
    """
    removed = min(len(text), shorter + len(MARKER.format(count=len(text))))
    head = (len(text) - removed) // 2
    tail = len(text) - removed - head
    return text[:head] + MARKER.format(count=removed) + text[len(text) - tail :], removed


def fit_messages(
    messages: Sequence[dict[str, str]],
    *,
    count: Callable[[list[dict[str, str]]], int],
    limit: int,
) -> tuple[list[dict[str, str]], InputCut | None]:
    """``messages`` whose ``count`` (tokens of the rendered prompt) is at most ``limit``.

    Unchanged, with no cut, when they fit. Otherwise the longest message's
    middle is cut, the prompt counted again, and cut further until it fits. A
    JudgeError when even an emptied message leaves the prompt over the limit.
    """
    fitted = [dict(m) for m in messages]
    before = count(fitted)
    if before <= limit:
        return fitted, None
    if not fitted:
        raise JudgeError(f"an empty prompt is over the judge's context limit of {limit} tokens")
    index = max(range(len(fitted)), key=lambda i: len(fitted[i].get("content") or ""))
    original = fitted[index].get("content") or ""
    shorter = 0
    removed = 0
    tokens = before
    # characters per token of the prompt, to turn a token excess into characters
    ratio = max(1.0, sum(len(m.get("content") or "") for m in fitted) / max(1, before))
    for _ in range(_ROUNDS):
        shorter += int((tokens - limit) * ratio * 1.1) + 16
        fitted[index]["content"], removed = _cut_middle(original, shorter)
        tokens = count(fitted)
        if tokens <= limit:
            return fitted, InputCut(removed, index, before, tokens, limit)
        if removed >= len(original):
            break
    raise JudgeError(
        f"the prompt is {tokens:,} tokens after cutting message {index + 1}, over the judge's "
        f"limit of {limit:,}; use a model with a longer context or a smaller max_new_tokens"
    )
