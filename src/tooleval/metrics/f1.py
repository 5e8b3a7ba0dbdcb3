"""``tool_call_f1``: precision, recall and F1 of the calls made, order ignored.

A call counts as correct when it pairs with an expected call of the same name
whose arguments match (optimal multiset pairing, so duplicates count: calling
the right tool twice makes one of the two an extra).

The ragas documentation examples (``shared/reference/001``):

>>> from tooleval.model import ToolCall
>>> weather = ToolCall("weather_check", {"location": "Paris"})
>>> uv = ToolCall("uv_index_lookup", {"location": "Paris"})
>>> tool_call_f1([weather, uv], [weather, uv]).score
1.0
>>> extra = ToolCall("air_quality", {"location": "Paris"})
>>> result = tool_call_f1([uv, weather], [weather, uv, extra])
>>> round(result.score, 2), round(result.diagnosis.details["precision"], 2)
(0.8, 0.67)

(The documentation prints 0.67 for the second example; its own formula,
and ragas itself, give 0.8: precision 2/3, recall 1.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tooleval.metrics._analysis import (
    ARGS_HELP,
    CALLS,
    EMPTY_CHOICES,
    EMPTY_HELP,
    THRESHOLD_HELP,
    ExpectedLike,
    Inputs,
    analyse,
    call_inputs,
    calls_of,
    check_args,
    empty_result,
    prepare_args,
    unbound,
)
from tooleval.metrics.correctness import ExtraKeys
from tooleval.metrics.reasons import explain
from tooleval.model import Result, ToolCall
from tooleval.model.metric import Empty, metric

__all__ = ["EMPTY_CHOICES", "tool_call_f1"]

NAME = "tool_call_f1"


@metric(
    NAME,
    "F1 of the calls made vs expected_tools, order ignored (precision and recall in the diagnosis)",
    requires=CALLS,
    help={
        "args": ARGS_HELP,
        "empty": EMPTY_HELP,
        "extra_keys": "an actual argument the expected call lacks: ignore (tooleval) or "
        "mismatch (ragas: the call fails)",
        "threshold": THRESHOLD_HELP,
    },
    sample=calls_of,
    prepare=prepare_args,
    inputs=call_inputs,
    checks={"args": check_args},
)
def tool_call_f1(
    expected: ExpectedLike,
    actual: Sequence[ToolCall | str] | None,
    *,
    args: Any = "exact",
    empty: Empty = "perfect",
    extra_keys: ExtraKeys = "ignore",
    threshold: float | None = None,
) -> Result:
    """F1 of ``actual`` calls against ``expected`` ones; order ignored.

    An argument the actual call has but the expected call lacks does not
    stop a match (``extra_keys="ignore"``, the default); ragas' F1 fails
    such a call, which ``extra_keys="mismatch"`` reproduces.

    precision = matched / len(actual), recall = matched / len(expected), both
    reported in ``diagnosis.details`` (``None`` where the denominator is 0).

    Undefined cases:

    * nothing expected and nothing called: ``empty="perfect"`` (default)
      scores 1.0, because a row that expects restraint was answered with
      restraint; ``empty="zero"`` scores 0.0; ``empty="unscored"`` returns an
      unscored result.
    * calls made where nothing was expected, or nothing called where calls
      were expected: F1 is 0.0 (one of precision and recall is 0).
    * ``expected=None`` (no reference bound): unscored.

    >>> tool_call_f1([], []).score, tool_call_f1([], [], empty="zero").score
    (1.0, 0.0)
    >>> tool_call_f1([], [ToolCall("search", {})]).score
    0.0
    """
    # @metric made every input what a Sample gives (call_inputs, prepare_args)
    exp, calls, cmp = cast(Inputs, (expected, actual, args))
    params = {"args": cmp.spec(), "empty": empty, "extra_keys": extra_keys, "threshold": threshold}
    if exp is None:
        return unbound(NAME, params, threshold)
    expected_list = list(exp.calls)
    actual_list = calls or []
    ne, na = len(expected_list), len(actual_list)
    analysis = analyse(expected_list, actual_list, cmp, extra_keys=extra_keys)
    matched = len(analysis.counted)
    precision = matched / na if na else None
    recall = matched / ne if ne else None
    if ne == 0 and na == 0:
        diagnosis = analysis.diagnosis(
            details={"precision": None, "recall": None, "f1": None, "matched": 0}
        )
        return empty_result(
            NAME,
            empty,
            "no calls expected and none made",
            params=params,
            threshold=threshold,
            diagnosis=diagnosis,
        )
    p, r = precision or 0.0, recall or 0.0
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    diagnosis = analysis.diagnosis(
        details={"precision": precision, "recall": recall, "f1": f1, "matched": matched}
    )
    summary = (
        f"{matched} of {ne} expected calls matched, {na} made: "
        f"precision {_fmt(precision)}, recall {_fmt(recall)}"
    )
    return Result.scored(
        NAME,
        min(1.0, f1),
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"
