"""``trajectory_match``: does the whole sequence of calls match the reference? 1 or 0.

>>> from tooleval.model import ToolCall
>>> ref = [ToolCall("lookup_order", {"order_id": "4471"}), ToolCall("cancel_order", {"order_id": "4471"})]
>>> trajectory_match(ref, ref).score, trajectory_match(ref, ref[::-1]).score
(1.0, 0.0)
>>> trajectory_match(ref, ref[::-1], mode="unordered").score
1.0
>>> trajectory_match(ref, ref[:1], mode="subset").score, trajectory_match(ref, ref[:1], mode="superset").score
(1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.metrics._analysis import (
    ExpectedLike,
    actual_calls,
    analyse,
    choice,
    comparator,
    expected_tools,
    threshold_value,
    unbound,
)
from tooleval.metrics.reasons import explain
from tooleval.model import Result, ToolCall

__all__ = ["MODES", "trajectory_match"]

NAME = "trajectory_match"
MODES = ("strict", "unordered", "subset", "superset")


def trajectory_match(
    expected: ExpectedLike,
    actual: Sequence[ToolCall],
    *,
    mode: str = "strict",
    args: Any = "exact",
    threshold: float | None = None,
) -> Result:
    """1.0 when ``actual`` matches the reference trajectory under ``mode``, else 0.0.

    * ``strict``: the same calls in the same order (the listed order; any
      ``ExpectedTools.before`` constraints are not used).
    * ``unordered``: the same multiset of calls, any order.
    * ``subset``: every actual call is in the reference (calls may be left out).
    * ``superset``: every reference call is in the actual calls (extras allowed).

    Calls match by name and arguments (``args`` matcher; names-only expected
    calls compare names), paired by an optimal assignment, never greedily.
    Both lists empty: 1.0 in every mode. ``expected=None``: unscored.

    >>> trajectory_match(["search"], [ToolCall("search", {"q": "x"}), ToolCall("fetch", {})],
    ...                  mode="superset").score
    1.0
    """
    mode = choice(mode, "mode", MODES, metric=NAME)
    cmp = comparator(args, metric=NAME)
    threshold = threshold_value(threshold, metric=NAME)
    params = {"mode": mode, "args": cmp.spec(), "threshold": threshold}
    exp = expected_tools(expected, metric=NAME)
    if exp is None:
        return unbound(NAME, params, threshold)
    expected_list = list(exp.calls)
    actual_list = actual_calls(actual, metric=NAME)
    ne, na = len(expected_list), len(actual_list)
    chain = [(i, i + 1) for i in range(ne - 1)] if mode == "strict" else None
    analysis = analyse(expected_list, actual_list, cmp, before=chain)
    matched = len(analysis.counted)
    details: dict[str, Any] = {"mode": mode, "matched": matched, "expected": ne, "called": na}
    if mode in ("strict", "unordered"):
        ok = matched == ne == na
        diagnosis = analysis.diagnosis(details=details)
    elif mode == "subset":
        ok = matched == na
        not_called = analysis.missing_rows()
        if not_called:
            details["not_called"] = [expected_list[i].name for i in not_called]
        diagnosis = analysis.diagnosis(report_missing=False, details=details)
    else:
        ok = matched == ne
        additional = analysis.extra_cols()
        if additional:
            details["additional_calls"] = [actual_list[j].name for j in additional]
        diagnosis = analysis.diagnosis(report_extra=False, details=details)
    if ok:
        summary = f"trajectory matches ({mode}; {na} calls made, {ne} expected)"
    else:
        summary = f"trajectory does not match ({mode}): {matched} of {ne} expected calls matched"
        if mode != "superset":
            summary += f", {na} made"
    return Result.scored(
        NAME,
        1.0 if ok else 0.0,
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )
