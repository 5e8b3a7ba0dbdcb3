"""``tool_call_accuracy``: sequence alignment × argument accuracy × coverage.

The ragas definition (``shared/reference/000``): a wrong tool sequence scores
0, matching sequences earn the mean argument accuracy of their pairs, and a
shorter list is penalised by ``min(len(actual), len(expected)) / len(expected)``.

>>> from tooleval.model import ToolCall
>>> expected = [ToolCall("weather_check", {"location": "New York"}),
...             ToolCall("temperature_conversion", {"temperature_fahrenheit": 75})]
>>> actual = [ToolCall("weather_check", {"location": "New York"}),
...           ToolCall("temperature_conversion", {"temperature_fahrenheit": 75})]
>>> tool_call_accuracy(expected, actual).score
1.0
>>> tool_call_accuracy(expected, actual[::-1]).score
0.0
>>> tool_call_accuracy(expected, actual[::-1], order="flexible").score
1.0
>>> tool_call_accuracy(expected, actual[:1]).score
0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from tooleval.matching.alignment import CallTable
from tooleval.metrics._analysis import (
    ARGS_HELP,
    CALLS,
    EMPTY_HELP,
    ORDERS,
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
from tooleval.metrics.reasons import explain
from tooleval.model import Result, ToolCall
from tooleval.model.metric import Empty, Order, metric

__all__ = ["ORDERS", "tool_call_accuracy"]

NAME = "tool_call_accuracy"


@metric(
    NAME,
    "alignment × argument accuracy × coverage of the calls against expected_tools "
    "(ragas ToolCallAccuracy)",
    requires=CALLS,
    help={
        "order": "strict: the names must agree position by position in the listed order "
        "(ordering constraints of expected_tools are not used); flexible: any order",
        "args": ARGS_HELP,
        "empty": EMPTY_HELP,
        "threshold": THRESHOLD_HELP,
    },
    sample=calls_of,
    prepare=prepare_args,
    inputs=call_inputs,
    checks={"args": check_args},
)
def tool_call_accuracy(
    expected: ExpectedLike,
    actual: Sequence[ToolCall | str] | None,
    *,
    order: Order = "strict",
    args: Any = "exact",
    empty: Empty = "perfect",
    threshold: float | None = None,
) -> Result:
    """Score ``actual`` calls against ``expected`` ones as alignment × accuracy × coverage.

    * ``order="strict"``: over the first ``n = min(len(actual), len(expected))``
      positions the names must agree one by one, else the score is 0.
      ``order="flexible"``: the shorter side's names must be contained in the
      longer side's (any order); same-name calls are paired to maximise
      argument accuracy (optimal assignment).
    * argument accuracy of a pair: mean over the expected call's keys of the
      ``args`` matcher (exact by default); a missing key scores 0, extra
      actual keys are ignored, an expected call with ``args={}`` needs an
      actual call without arguments, and an expected call with ``args=None``
      (names only) scores 1.0.
    * coverage: ``n / len(expected)`` (calls beyond the expected ones are
      listed in the diagnosis but do not lower the score).
    * both lists empty: ``empty`` decides (``perfect``: 1.0, the default;
      ``zero``: 0.0; ``unscored``); one of them empty: 0.0;
      ``expected=None``: unscored.

    ``passed`` is ``score >= threshold`` (``score == 1`` when threshold is None).

    >>> tool_call_accuracy(["search"], [ToolCall("search", {"q": "x"})]).score
    1.0
    """
    # @metric made every input what a Sample gives (call_inputs, prepare_args)
    exp, calls, cmp = cast(Inputs, (expected, actual, args))
    params = {"order": order, "args": cmp.spec(), "empty": empty, "threshold": threshold}
    if exp is None:
        return unbound(NAME, params, threshold)
    expected_list = list(exp.calls)
    actual_list = calls or []
    ne, na = len(expected_list), len(actual_list)
    chain = [(i, i + 1) for i in range(ne - 1)] if order == "strict" else None
    analysis = analyse(expected_list, actual_list, cmp, before=chain)

    if ne == 0 and na == 0:
        return empty_result(
            NAME,
            empty,
            "no calls expected and none made",
            params=params,
            threshold=threshold,
            diagnosis=analysis.diagnosis(),
        )
    if ne == 0 or na == 0:
        diagnosis = analysis.diagnosis(details={"alignment": 0, "coverage": 0.0})
        summary = f"no calls expected, {na} made" if ne == 0 else f"no calls made, {ne} expected"
        return Result.scored(
            NAME,
            0.0,
            reason=explain(diagnosis, summary),
            params=params,
            threshold=threshold,
            diagnosis=diagnosis,
        )

    n = min(ne, na)
    table: CallTable = analysis.table
    details: dict[str, Any] = {}
    if order == "strict":
        wrong = next((k for k in range(n) if expected_list[k].name != actual_list[k].name), None)
        pairs = [(k, k) for k in range(n)] if wrong is None else []
        if wrong is not None:
            details["misaligned"] = {
                "position": wrong,
                "expected": expected_list[wrong].name,
                "actual": actual_list[wrong].name,
            }
    else:
        pairs = table.match_unordered(require_match=False)
        if len(pairs) < n:
            pairs = []
    alignment = 1 if pairs else 0
    accuracies = [table.comparison(i, j).score for i, j in pairs]  # type: ignore[union-attr]
    accuracy = math.fsum(accuracies) / len(accuracies) if accuracies else 0.0
    coverage = n / ne
    score = alignment * accuracy * coverage
    details.update(
        {
            "alignment": alignment,
            "argument_accuracy": accuracy,
            "coverage": coverage,
            # the pairs this score is built from (replaces the generic pairing)
            "pairs": [{"expected_index": i, "actual_index": j, "counted": True} for i, j in pairs],
        }
    )
    diagnosis = analysis.diagnosis(pairs=pairs or None, details=details)
    if score >= 1.0:
        summary = f"all {ne} expected call{'s' if ne != 1 else ''} matched" + (
            " in order" if order == "strict" else ""
        )
    elif not alignment:
        summary = f"score 0: the call names do not align ({order} order)"
    else:
        summary = (
            f"score {score:.2f} = alignment {alignment} × argument accuracy {accuracy:.2f}"
            f" × coverage {n}/{ne}"
        )
    return Result.scored(
        NAME,
        min(1.0, max(0.0, score)),
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )
