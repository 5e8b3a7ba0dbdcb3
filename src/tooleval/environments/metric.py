"""``state_match``: did the agent's calls leave the environment as the expected calls do?

The expected calls and the actual calls are replayed on two fresh
environments from the same initial state; the score is 1.0 when the end
states agree (under ``list_order``, ``include`` and ``exclude``, see
:func:`~tooleval.environments.diff.state_diff`) and every value of
``outputs`` appears in what the actual calls answered, else 0.0. The
diagnosis lists each differing path with both values, the first call where
the two replays part (by the state after each call), and every call with its
result (``details.actual_results``), so output checks can read them.

The first divergence is found only for a failed row, by stepping two fresh
replays side by side and stopping at the first call after which their states
differ (:func:`~tooleval.environments.diff.same_key`: the canonical text of
each state, compared by a walk over equal plain values and written out only
where the walk cannot decide), so a long episode over a large database costs
a few walks, not a canonical text of the whole database after every call.

A row that cannot be replayed is unscored with the reason: no expected
calls, an expected call without arguments, an environment that cannot be
built or reset, a state over its size limit.

>>> from tooleval.environments.python import FunctionEnvironment
>>> def make():
...     return FunctionEnvironment({"set_status": lambda s, order_id, status:
...         s[order_id].update(status=status)}, initial_state={"W1": {"status": "pending"}})
>>> gold = [ToolCall("set_status", {"order_id": "W1", "status": "cancelled"})]
>>> r = state_match(gold, [ToolCall("set_status", {"order_id": "W1", "status": "shipped"})],
...                 environment=make)
>>> r.score, r.diagnosis.details["differences"]
(0.0, [{'path': 'W1.status', 'expected': 'cancelled', 'actual': 'shipped'}])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tooleval.environments.diff import LIST_ORDERS, same_key, state_diff
from tooleval.environments.protocol import Environment
from tooleval.environments.replay import Replay, replay, run_call
from tooleval.errors import ConfigError
from tooleval.metrics.output import output_contains
from tooleval.model import Diagnosis, Result, ToolCall

__all__ = ["NAME", "state_match"]

NAME = "state_match"


def state_match(
    expected: Sequence[ToolCall] | None,
    actual: Sequence[ToolCall],
    *,
    environment: Callable[[], Environment],
    initial_state: Any = None,
    list_order: str = "strict",
    include: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    outputs: Sequence[str] | None = None,
    threshold: float | None = None,
) -> Result:
    """1.0 when replaying ``actual`` ends in the state replaying ``expected`` ends in."""
    if list_order not in LIST_ORDERS:
        raise ConfigError(
            f"{NAME}: list_order must be one of {', '.join(LIST_ORDERS)}, got {list_order!r}",
            field="list_order",
        )
    params: dict[str, Any] = {
        "list_order": list_order,
        "include": include,
        "exclude": list(exclude),
    }
    if expected is None:
        return Result.unscored(NAME, "no expected calls bound for this row", params=params)
    unnamed = [i for i, c in enumerate(expected) if c.args is None]
    if unnamed:
        return Result.unscored(
            NAME,
            f"expected call {unnamed[0]} ({expected[unnamed[0]].name}) has no arguments; "
            "state_match needs calls with arguments to replay",
            params=params,
        )
    try:
        gold = replay(environment(), expected, initial_state=initial_state)
        run = replay(environment(), actual, initial_state=initial_state)
    except ConfigError as exc:
        return Result.unscored(NAME, f"cannot replay: {exc}", params=params)
    differences = state_diff(
        gold.state, run.state, list_order=list_order, include=include, exclude=exclude
    )
    details: dict[str, Any] = {
        "differences": [d.to_dict() for d in differences],
        "expected_results": [c.to_dict() for c in gold.results()],
        "actual_results": [c.to_dict() for c in run.results()],
        "expected_errors": [i for i, o in enumerate(gold.outcomes) if o.is_error],
    }
    missing_outputs = _missing_outputs(outputs, run)
    if missing_outputs:
        details["missing_outputs"] = missing_outputs
    if differences:
        details["first_divergence"] = _first_divergence(
            environment, expected, actual, initial_state
        )
    ok = not differences and not missing_outputs
    return Result.scored(
        NAME,
        1.0 if ok else 0.0,
        reason=_reason(differences, missing_outputs, details.get("first_divergence")),
        params=params,
        threshold=threshold,
        diagnosis=Diagnosis(details=details),
    )


def _missing_outputs(outputs: Sequence[str] | None, run: Replay) -> list[str]:
    if not outputs:
        return []
    texts = [str(o.result) for o in run.outcomes if not o.is_error]
    checked = output_contains(list(outputs), texts)
    return [str(v) for v in checked.diagnosis.details.get("missing_values", [])]


def _first_divergence(
    environment: Callable[[], Environment],
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    initial_state: Any,
) -> dict[str, Any]:
    """The first call after which the two replays' states differ (by prefix).

    Both call lists run on fresh environments one call at a time; the index
    is the first ``i`` where the states after call ``i`` have different
    canonical texts, or the shorter list's length when every common prefix
    agrees.
    """
    gold, run = environment(), environment()
    gold.reset(initial_state)
    run.reset(initial_state)
    steps = min(len(expected), len(actual))
    index = steps
    for i in range(steps):
        run_call(gold, expected[i])
        run_call(run, actual[i])
        if not same_key(gold.state(), run.state()):
            index = i
            break
    return {
        "index": index,
        "expected": str(expected[index]) if index < len(expected) else None,
        "actual": str(actual[index]) if index < len(actual) else None,
    }


def _reason(
    differences: list[Any], missing_outputs: list[str], divergence: dict[str, Any] | None
) -> str:
    if not differences and not missing_outputs:
        return "the actual calls leave the same state as the expected calls"
    parts = []
    if differences:
        paths = ", ".join(d.path or "(the whole state)" for d in differences[:5])
        more = f" and {len(differences) - 5} more" if len(differences) > 5 else ""
        parts.append(f"end states differ at {paths}{more}")
        if divergence is not None:
            parts.append(
                # 1-based, as the state-diff panel and every other call number shown
                f"first diverging call: call {divergence['index'] + 1}: expected "
                f"{divergence['expected']}, actual {divergence['actual']}"
            )
    if missing_outputs:
        parts.append(f"not in any call result: {', '.join(missing_outputs)}")
    return "; ".join(parts)
