"""``tool_correctness``: right tools, right arguments, right order (``shared/reference/002``).

The article's worked refund example: comparing only the intent-bearing keys
``order_id`` and ``amount`` passes a call that also carries a ``request_id``,
and catches an amount of 300 instead of 30.

>>> from tooleval.model import ToolCall
>>> expected = [ToolCall("issue_refund", {"order_id": "4471", "amount": 30})]
>>> good = [ToolCall("issue_refund", {"order_id": "4471", "amount": 30, "request_id": "a81f"})]
>>> tool_correctness(expected, good).passed  # every key: request_id is unexpected
False
>>> tool_correctness(expected, good, argument_keys=["order_id", "amount"]).passed
True
>>> bad = [ToolCall("issue_refund", {"order_id": "4471", "amount": 300, "request_id": "a81f"})]
>>> r = tool_correctness(expected, bad, argument_keys=["order_id", "amount"])
>>> r.passed, r.reason
(False, '0 of 1 expected calls matched; issue_refund.amount expected 30, got 300')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast, get_args

from tooleval.metrics._analysis import (
    ARGS_HELP,
    CALLS,
    EMPTY_HELP,
    ExpectedLike,
    Inputs,
    analyse,
    call_inputs,
    calls_of,
    check_args,
    check_argument_keys,
    empty_result,
    has_cycle,
    keys_selector,
    prepare_args,
    unbound,
)
from tooleval.metrics.reasons import explain
from tooleval.model import Alias, Aliases, Result, ToolCall
from tooleval.model.metric import Empty, Order, metric

__all__ = ["ALIASES", "EXTRA_CALLS", "EXTRA_KEYS", "ExtraCalls", "ExtraKeys", "tool_correctness"]

NAME = "tool_correctness"
#: What calls beyond the expected ones do to the score.
ExtraCalls = Literal["penalize", "ignore"]
#: What an actual argument the expected call lacks does to a match.
ExtraKeys = Literal["mismatch", "ignore"]
EXTRA_CALLS: tuple[str, ...] = get_args(ExtraCalls)
EXTRA_KEYS: tuple[str, ...] = get_args(ExtraKeys)
#: The seed's ``check_ordering`` flag is ``order`` now.
ALIASES = Aliases(
    names={
        "check_ordering": Alias(
            {True: {"order": "strict"}, False: {"order": "flexible"}},
            "former name of order: true is strict, false is flexible",
        )
    }
)


@metric(
    NAME,
    "right tools, right arguments, right order: matched / max(expected, called), partial "
    "credit unless exact_match",
    requires=CALLS,
    help={
        "argument_keys": "compare only these argument keys: a list, or {tool: [keys]}; "
        "empty compares every key",
        "exact_match": "1.0 only when every expected call matches and nothing extra was called",
        "order": "strict: count only calls in the expected order (the expected_tools ordering "
        "constraints when given, else the listed order); flexible: any order",
        "extra_calls": "penalize: divide by max(expected, called); ignore: divide by expected",
        "extra_keys": "with every key compared, an argument the expected call lacks is a "
        "mismatch (or ignore it)",
        "args": ARGS_HELP,
        "empty": EMPTY_HELP,
        "threshold": "pass when score >= threshold",
    },
    sample=calls_of,
    aliases=ALIASES,
    prepare=prepare_args,
    inputs=call_inputs,
    checks={"args": check_args, "argument_keys": check_argument_keys},
)
def tool_correctness(
    expected: ExpectedLike,
    actual: Sequence[ToolCall | str] | None,
    *,
    argument_keys: Sequence[str] | dict[str, Sequence[str]] | None = None,
    exact_match: bool = False,
    order: Order = "flexible",
    extra_calls: ExtraCalls = "penalize",
    extra_keys: ExtraKeys = "mismatch",
    args: Any = "exact",
    empty: Empty = "perfect",
    threshold: float | None = 0.5,
) -> Result:
    """Partial credit for the expected calls made: matched / max(len(expected), len(actual)).

    * A call matches an expected call with the same name and, when the
      expected call carries arguments, matching arguments. ``argument_keys``
      (a list, or ``{tool: [keys]}``; empty means every key) limits which keys
      are compared. With every key compared, a key the actual call has but
      the expected call lacks is a mismatch (``extra_keys="ignore"`` relaxes
      that). Names-only expected calls compare names.
    * Pairing is an optimal multiset matching, so an unexpected or repeated
      call lowers the score; ``extra_calls="ignore"`` divides by
      ``len(expected)`` instead (then a row expecting nothing scores 1.0).
    * ``order="strict"``: only pairs that respect the expected order
      count: the listed order (longest common subsequence), or exactly the
      ``ExpectedTools.before`` constraints (and what they imply) when given.
      ``order="flexible"`` (default) ignores order. The seed's
      ``check_ordering=True``/``False`` is an alias of ``strict``/``flexible``.
    * ``exact_match=True``: 1.0 iff every expected call matches (in order when
      ordering is checked) and nothing extra was called (unless
      ``extra_calls="ignore"``), else 0.0.
    * ``passed`` is ``score >= threshold`` (0.5 by default).
    * ``expected=None``: unscored. An empty expected list is a restraint row:
      nothing called is the ``empty`` case (``perfect``: 1.0, the default;
      ``zero``: 0.0; ``unscored``).

    >>> tool_correctness(["lookup_order", "cancel_order"], [ToolCall("lookup_order", {}),
    ...                  ToolCall("search_orders", {})]).score
    0.5
    """
    ordered = order == "strict"
    keys_for, keys_value = keys_selector(argument_keys, metric=NAME)
    # @metric made every input what a Sample gives (call_inputs, prepare_args)
    exp, calls, cmp = cast(Inputs, (expected, actual, args))
    params = {
        "argument_keys": keys_value,
        "exact_match": exact_match,
        "order": order,
        "extra_calls": extra_calls,
        "extra_keys": extra_keys,
        "args": cmp.spec(),
        "empty": empty,
        "threshold": threshold,
    }
    if exp is None:
        return unbound(NAME, params, threshold, hint="bind an expected_tools column")
    if calls is None:
        # No record of the agent's calls is not "called nothing" (that is []).
        return Result.unscored(
            NAME,
            "no tool calls to score: actual is None (the agent's calls were not captured); "
            "pass [] for an agent that called no tool",
            params=params,
            threshold=threshold,
        )
    before = None
    if ordered:
        cycle = has_cycle(exp)
        if cycle:
            names = ", ".join(f"{exp.calls[i].name} (#{i + 1})" for i in cycle)
            return Result.unscored(
                NAME,
                f"the ordering constraints of expected_tools form a cycle through {names}",
                params=params,
                threshold=threshold,
            )
        before = exp.order_pairs()
    expected_list = list(exp.calls)
    actual_list = calls
    ne, na = len(expected_list), len(actual_list)
    analysis = analyse(
        expected_list,
        actual_list,
        cmp,
        before=before,
        keys_for=keys_for,
        extra_keys=extra_keys,
    )
    matched = len(analysis.counted)
    ignore_extra = extra_calls == "ignore"
    extras = analysis.extra_cols()
    details: dict[str, Any] = {"matched": matched, "expected": ne, "called": na}
    if ignore_extra and extras:
        details["ignored_extra"] = [actual_list[j].name for j in extras]
    diagnosis = analysis.diagnosis(report_extra=not ignore_extra, details=details)
    if ne == 0 and na == 0:
        return empty_result(
            NAME,
            empty,
            "no calls expected and none made",
            params=params,
            threshold=threshold,
            diagnosis=diagnosis,
        )

    in_order = " in order" if ordered else ""
    if exact_match:
        ok = matched == ne and (ignore_extra or matched == na)
        score = 1.0 if ok else 0.0
        summary = (
            f"exact match: all {ne} expected calls matched{in_order}"
            if ok
            else f"not an exact match: {matched} of {ne} expected calls matched{in_order}, "
            f"{na} made"
        )
    else:
        denominator = ne if ignore_extra else max(ne, na)
        score = matched / denominator if denominator else 1.0
        if ne == 0:
            summary = f"no calls expected, {na} made"
        else:
            summary = f"{matched} of {ne} expected calls matched{in_order}"
            if na != ne:
                summary += f" ({na} made)"
    return Result.scored(
        NAME,
        score,
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )
