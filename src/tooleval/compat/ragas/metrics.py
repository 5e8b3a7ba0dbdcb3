"""ragas 0.4.3's ToolCallAccuracy and ToolCallF1, score for score.

Both classes offer ragas' legacy interface (``multi_turn_score(sample)`` /
``await multi_turn_ascore(sample)`` returning a float) and its collections
interface (``score(user_input=..., reference_tool_calls=...)`` /
``await ascore(...)`` / ``batch_score([...])`` returning a
:class:`MetricResult` with ``.value``). The scoring rules are ragas' own,
including the ones tooleval's native metrics deliberately do differently
(see ``docs/ragas-compat.md``):

* accuracy pairs calls by position after an optional sort, compares each
  argument as ``str(value)``, and is 0 whenever the name sequences differ;
* F1 treats calls as a *set* of (name, args) pairs, so duplicates count once,
  and scores 0.0 when both sides are empty; the result is rounded to 4 places.

>>> from tooleval.compat.ragas import AIMessage, MultiTurnSample, ToolCall
>>> sample = MultiTurnSample(
...     user_input=[AIMessage(content="", tool_calls=[
...         ToolCall(name="search", args={"q": "python", "limit": 5}),
...         ToolCall(name="filter", args={"type": "recent"})])],
...     reference_tool_calls=[
...         ToolCall(name="search", args={"q": "python", "limit": 10}),
...         ToolCall(name="filter", args={"type": "recent"})],
... )
>>> ToolCallAccuracy().multi_turn_score(sample)
0.75
>>> ToolCallF1().multi_turn_score(sample)
0.5
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tooleval.compat.ragas.messages import (
    AIMessage,
    MultiTurnSample,
    ToolCall,
    as_message,
    as_tool_call,
)
from tooleval.compat.ragas.similarity import resolve_arg_comparison
from tooleval.errors import InputError

__all__ = ["MetricResult", "ToolCallAccuracy", "ToolCallF1"]


class MetricResult:
    """What the collections interface returns: a ``value`` plus an optional ``reason``.

    It compares and converts like its value (``float(r)``, ``r == 0.5``).
    """

    __slots__ = ("value", "reason")

    def __init__(self, value: float, reason: str | None = None) -> None:
        self.value = value
        self.reason = reason

    def __float__(self) -> float:
        return float(self.value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MetricResult):
            return self.value == other.value
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"MetricResult(value={self.value!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "reason": self.reason}


# ------------------------------------------------------------------ inputs


def _sample_calls(sample: Any) -> tuple[list[ToolCall], list[ToolCall] | None]:
    if not isinstance(sample, MultiTurnSample):
        raise InputError(f"expected a MultiTurnSample, got {type(sample).__name__}", field="sample")
    return sample.predicted_tool_calls(), sample.reference_tool_calls


def _collection_calls(
    user_input: Any, reference_tool_calls: Any
) -> tuple[list[ToolCall], list[ToolCall]]:
    if isinstance(user_input, str | bytes | Mapping) or not isinstance(user_input, Sequence):
        raise InputError("user_input must be a list of messages", field="user_input")
    if isinstance(reference_tool_calls, str | bytes | Mapping) or not isinstance(
        reference_tool_calls, Sequence
    ):
        raise InputError("reference_tool_calls must be a list", field="reference_tool_calls")
    predicted: list[ToolCall] = []
    for i, item in enumerate(user_input):
        msg = as_message(item, where=f"user_input[{i}]")
        if isinstance(msg, AIMessage) and msg.tool_calls is not None:
            predicted.extend(msg.tool_calls)
    reference = [
        as_tool_call(c, where=f"reference_tool_calls[{i}]")
        for i, c in enumerate(reference_tool_calls)
    ]
    return predicted, reference


class _RagasMetric:
    """The two ragas interfaces over one pure ``score_calls(predicted, reference)``."""

    name: str

    def score_calls(self, predicted: list[ToolCall], reference: list[ToolCall] | None) -> float:
        raise TypeError(f"{type(self).__name__} does not score calls")  # pragma: no cover

    # legacy interface: a MultiTurnSample in, a float out
    def multi_turn_score(self, sample: MultiTurnSample, callbacks: Any = None) -> float:
        """Score one sample (``callbacks`` is accepted and ignored: no LLM runs)."""
        predicted, reference = _sample_calls(sample)
        return self.score_calls(predicted, reference)

    async def multi_turn_ascore(
        self, sample: MultiTurnSample, callbacks: Any = None, timeout: float | None = None
    ) -> float:
        """Async twin of :meth:`multi_turn_score`; the work is pure, so it never awaits."""
        return self.multi_turn_score(sample)

    # collections interface: keyword inputs in, a MetricResult out
    def score(self, *, user_input: Any, reference_tool_calls: Any) -> MetricResult:
        predicted, reference = _collection_calls(user_input, reference_tool_calls)
        return MetricResult(float(self.score_calls(predicted, reference)))

    async def ascore(self, *, user_input: Any, reference_tool_calls: Any) -> MetricResult:
        return self.score(user_input=user_input, reference_tool_calls=reference_tool_calls)

    def batch_score(self, inputs: Iterable[Mapping[str, Any]]) -> list[MetricResult]:
        """Score many ``{"user_input", "reference_tool_calls"}`` dicts in order."""
        results = []
        for i, row in enumerate(inputs):
            try:
                results.append(self.score(**row))
            except InputError as exc:
                raise exc.with_context(row=i) from None
        return results

    async def abatch_score(self, inputs: Iterable[Mapping[str, Any]]) -> list[MetricResult]:
        return self.batch_score(inputs)


# ------------------------------------------------------------------ accuracy


def _sort_key(call: ToolCall) -> tuple[str, ...]:
    # The name, then each argument name (sorted) followed by its value as text.
    key = [call.name]
    for arg in sorted(call.args):
        key.append(arg)
        key.append(str(call.args[arg]))
    return tuple(key)


def _exact_args_score(predicted: dict[str, Any], reference: dict[str, Any]) -> float:
    if not reference:
        return 1.0 if not predicted else 0.0
    hits = 0.0
    for key, value in reference.items():
        if key in predicted and str(predicted[key]) == str(value):
            hits += 1.0
    return hits / len(reference)


def _similar_args_score(
    predicted: dict[str, Any],
    reference: dict[str, Any],
    similarity: Callable[[str, str], float],
) -> float:
    if not reference:
        return 1.0 if not predicted else 0.0
    total = 0.0
    for key, value in reference.items():
        if key in predicted:
            total += similarity(str(value), str(predicted[key]))
    return total / len(reference)


class ToolCallAccuracy(_RagasMetric):
    """ragas' ToolCallAccuracy: name sequence gate times mean argument agreement.

    Rules, in order:

    * nothing predicted and nothing expected: 1.0; only one side empty: 0.0
      with a ``UserWarning``;
    * ``strict_order=False`` first sorts both lists by (name, sorted
      argument names and ``str`` values);
    * the score is 0.0 unless the two *name* sequences are equal (as sorted
      lists when ``strict_order=False``); different lengths therefore always
      score 0.0, after a ``UserWarning``;
    * otherwise each reference call is paired with the predicted call at the
      same position and scores the mean, over the reference's argument names,
      of ``arg_comparison_metric(str(expected), str(actual))`` (0 for a
      missing argument; 1.0 when both have no arguments, 0.0 when only the
      prediction has some); the result is the mean over reference calls.

    ``arg_comparison_metric``: ``None``/``"exact"`` (default), a distance name
    such as ``"levenshtein"``, :class:`~tooleval.compat.ragas.NonLLMStringSimilarity`,
    or any ``(reference, response) -> float`` callable.
    """

    def __init__(
        self,
        *,
        strict_order: bool = True,
        arg_comparison_metric: Any = None,
        name: str = "tool_call_accuracy",
    ) -> None:
        self.strict_order = bool(strict_order)
        self.arg_comparison_metric = arg_comparison_metric
        self._similarity = resolve_arg_comparison(arg_comparison_metric)
        self.name = name

    def __repr__(self) -> str:
        return (
            f"ToolCallAccuracy(strict_order={self.strict_order}, "
            f"arg_comparison_metric={self.arg_comparison_metric!r})"
        )

    def score_calls(self, predicted: list[ToolCall], reference: list[ToolCall] | None) -> float:
        """Score predicted calls against reference calls (both ragas ``ToolCall`` lists)."""
        if reference is None:
            raise InputError(
                "reference_tool_calls is not set on this sample", field="reference_tool_calls"
            )
        if not predicted:
            if reference:
                warnings.warn("no predicted tool calls in user_input; score 0.0", stacklevel=3)
                return 0.0
            return 1.0
        if not reference:
            warnings.warn(
                "reference_tool_calls is empty but tool calls were predicted; score 0.0",
                stacklevel=3,
            )
            return 0.0
        if not self.strict_order:
            predicted = sorted(predicted, key=_sort_key)
            reference = sorted(reference, key=_sort_key)
        if len(predicted) != len(reference):
            warnings.warn(
                f"{len(predicted)} predicted vs {len(reference)} reference tool calls; "
                "lists of different length never align, score 0.0",
                stacklevel=3,
            )
        predicted_names = [c.name for c in predicted]
        reference_names = [c.name for c in reference]
        if self.strict_order:
            aligned = predicted_names == reference_names
        else:
            aligned = sorted(predicted_names) == sorted(reference_names)
        if not aligned:
            return 0.0
        # Aligned name sequences have equal length, so every reference call
        # has a partner with the same name and no coverage penalty applies.
        total = 0.0
        similarity = self._similarity
        for ref, pred in zip(reference, predicted, strict=True):
            if similarity is None:
                total += _exact_args_score(pred.args, ref.args)
            else:
                total += _similar_args_score(pred.args, ref.args, similarity)
        return total / len(reference)


# ------------------------------------------------------------------ F1


def _freeze(value: Any) -> Any:
    # Dicts become frozensets of (key, frozen value), sequences tuples and
    # sets frozensets, so two calls are one set element exactly when ragas
    # would say so (including Python's 1 == 1.0 == True).
    if isinstance(value, dict):
        return frozenset((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, set):
        return frozenset(_freeze(v) for v in value)
    return value


class ToolCallF1(_RagasMetric):
    """ragas' ToolCallF1: F1 over the *sets* of (name, args) pairs, rounded to 4 places.

    A call repeated on one side counts once. Nothing on either side scores
    0.0 (no true positive), unlike tooleval's own ``tool_call_f1``.
    """

    def __init__(self, *, name: str = "tool_call_f1") -> None:
        self.name = name

    def __repr__(self) -> str:
        return "ToolCallF1()"

    def score_calls(self, predicted: list[ToolCall], reference: list[ToolCall] | None) -> float:
        """Score predicted calls against reference calls (``None`` reference = empty)."""
        expected = {(c.name, _freeze(c.args)) for c in reference or ()}
        actual = {(c.name, _freeze(c.args)) for c in predicted}
        hits = len(actual & expected)
        precision = hits / len(actual) if actual else 0.0
        recall = hits / len(expected) if expected else 0.0
        if precision + recall == 0:
            return 0.0
        return round(2 * precision * recall / (precision + recall), 4)
