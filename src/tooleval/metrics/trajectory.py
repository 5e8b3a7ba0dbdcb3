"""``trajectory_match``: does the whole sequence of calls match the reference? 1 or 0.

Two options say what "match" means: ``order`` (``strict``: in the listed
order; ``flexible``: any order) and ``coverage`` (``exact``: the same calls;
``subset``: the actual calls are among the reference's; ``superset``: the
reference calls are among the actual ones). The seed's ``mode`` is an alias:
``strict`` = strict + exact, ``unordered`` = flexible + exact, ``subset`` =
flexible + subset, ``superset`` = flexible + superset.

>>> from tooleval.model import ToolCall
>>> ref = [ToolCall("lookup_order", {"order_id": "4471"}), ToolCall("cancel_order", {"order_id": "4471"})]
>>> trajectory_match(ref, ref).score, trajectory_match(ref, ref[::-1]).score
(1.0, 0.0)
>>> trajectory_match(ref, ref[::-1], order="flexible").score
1.0
>>> trajectory_match(ref, ref[:1], coverage="subset").score, trajectory_match(ref, ref[:1], coverage="superset").score
(1.0, 0.0)
>>> trajectory_match(ref, ref[::-1], mode="unordered").params["order"]  # the seed's name
'flexible'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast, get_args

from tooleval.metrics._analysis import (
    ARGS_HELP,
    CALLS,
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
from tooleval.metrics.reasons import explain
from tooleval.model import Alias, Aliases, Result, ToolCall
from tooleval.model.metric import Empty, Order, metric

__all__ = ["ALIASES", "COVERAGES", "MODES", "Coverage", "trajectory_match"]

NAME = "trajectory_match"
#: Which calls must pair up: all of them, every actual one, every reference one.
Coverage = Literal["exact", "subset", "superset"]
COVERAGES: tuple[str, ...] = get_args(Coverage)
#: The seed's ``mode`` values and the (order, coverage) each one is.
MODES: dict[str, dict[str, str]] = {
    "strict": {"order": "strict", "coverage": "exact"},
    "unordered": {"order": "flexible", "coverage": "exact"},
    "subset": {"order": "flexible", "coverage": "subset"},
    "superset": {"order": "flexible", "coverage": "superset"},
}
ALIASES = Aliases(
    names={
        "mode": Alias(
            MODES,
            "former single option: strict = order strict + coverage exact, unordered = "
            "flexible + exact, subset = flexible + subset, superset = flexible + superset",
        )
    }
)


@metric(
    NAME,
    "1 when the whole call trajectory matches the reference, in order or not, exactly or as "
    "a subset or superset",
    requires=CALLS,
    help={
        "order": "strict: calls pair only along the listed order of both sides (ordering "
        "constraints of expected_tools are not used); flexible: any order",
        "coverage": "exact: the same calls; subset: every actual call is in the reference; "
        "superset: every reference call is in the actual calls",
        "args": ARGS_HELP,
        "empty": EMPTY_HELP,
        "threshold": THRESHOLD_HELP,
    },
    sample=calls_of,
    aliases=ALIASES,
    prepare=prepare_args,
    inputs=call_inputs,
    checks={"args": check_args},
)
def trajectory_match(
    expected: ExpectedLike,
    actual: Sequence[ToolCall | str] | None,
    *,
    order: Order = "strict",
    coverage: Coverage = "exact",
    args: Any = "exact",
    empty: Empty = "perfect",
    threshold: float | None = None,
) -> Result:
    """1.0 when ``actual`` matches the reference trajectory, else 0.0.

    ``coverage`` says which calls must pair up:

    * ``exact``: every call on both sides (the same calls);
    * ``subset``: every actual call (reference calls may be left out);
    * ``superset``: every reference call (additional actual calls allowed).

    ``order="strict"`` pairs calls only along the listed order of both sides
    (any ``ExpectedTools.before`` constraints are not used): strict + exact is
    the same calls in the same order, strict + subset the actual calls are an
    in-order subsequence of the reference, strict + superset the reference is
    an in-order subsequence of the actual calls. ``order="flexible"`` ignores
    order (exact: the same multiset).

    Calls match by name and arguments (``args`` matcher; names-only expected
    calls compare names), paired by an optimal assignment (in order: the
    longest common subsequence), never greedily. Both lists empty: ``empty``
    decides (``perfect``: 1.0, the default). ``expected=None``: unscored.

    >>> trajectory_match(["search"], [ToolCall("search", {"q": "x"}), ToolCall("fetch", {})],
    ...                  coverage="superset").score
    1.0
    """
    # @metric made every input what a Sample gives (call_inputs, prepare_args)
    exp, calls, cmp = cast(Inputs, (expected, actual, args))
    params = {
        "order": order,
        "coverage": coverage,
        "args": cmp.spec(),
        "empty": empty,
        "threshold": threshold,
    }
    if exp is None:
        return unbound(NAME, params, threshold)
    expected_list = list(exp.calls)
    actual_list = calls or []
    ne, na = len(expected_list), len(actual_list)
    chain = [(i, i + 1) for i in range(ne - 1)] if order == "strict" else None
    analysis = analyse(expected_list, actual_list, cmp, before=chain)
    matched = len(analysis.counted)
    details: dict[str, Any] = {
        "order": order,
        "coverage": coverage,
        "matched": matched,
        "expected": ne,
        "called": na,
    }
    if coverage == "exact":
        ok = matched == ne == na
        diagnosis = analysis.diagnosis(details=details)
    elif coverage == "subset":
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
    rule = f"order {order}, coverage {coverage}"
    if ne == 0 and na == 0:
        return empty_result(
            NAME,
            empty,
            f"no calls expected and none made ({rule})",
            params=params,
            threshold=threshold,
            diagnosis=diagnosis,
        )
    if ok:
        summary = f"trajectory matches ({rule}; {na} calls made, {ne} expected)"
    else:
        summary = f"trajectory does not match ({rule}): {matched} of {ne} expected calls matched"
        if coverage != "superset":
            summary += f", {na} made"
    return Result.scored(
        NAME,
        1.0 if ok else 0.0,
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )
