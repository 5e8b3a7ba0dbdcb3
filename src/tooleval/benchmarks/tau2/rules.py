"""tau2-bench's per-action check, reproduced as a pure function.

tau2 checks each gold action on its own: it is *matched* when at least one
predicted call has the same name and equal arguments, where "arguments" are
restricted to ``compare_args`` when the action lists them, and to the keys of
the *predicted* call when ``compare_args`` is null (so a prediction that
leaves an argument out can still match). ``compare_args: []`` compares the
name only. Order does not matter and several gold actions may be matched by
the same predicted call.

Argument values compare with Python equality, as tau2 does: ``1 == 1.0`` and
``True == 1`` hold, lists compare in order.

>>> gold = ToolCall("get_user_details", {"user_id": "ivan_8555"})
>>> action_matches(gold, ToolCall("get_user_details", {"user_id": "ivan_8555"}))
True
>>> action_matches(gold, ToolCall("get_user_details", {}))  # compares the prediction's keys
True
>>> action_matches(gold, ToolCall("get_user_details", {"user_id": "x"}), compare_args=[])
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.model import ToolCall

__all__ = ["action_checks", "action_matches"]


def action_matches(
    expected: ToolCall, actual: ToolCall, *, compare_args: Sequence[str] | None = None
) -> bool:
    """Does one predicted call satisfy one gold action (tau2's rule)?"""
    if expected.name != actual.name:
        return False
    predicted = actual.args or {}
    keys = list(predicted) if compare_args is None else list(compare_args)
    if not keys:
        return True
    gold = expected.args or {}
    return {k: v for k, v in predicted.items() if k in keys} == {
        k: v for k, v in gold.items() if k in keys
    }


def action_checks(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    *,
    compare_args: Sequence[Sequence[str] | None] | None = None,
) -> list[dict[str, Any]]:
    """One ``{"index", "name", "matched", "matched_by"}`` per gold action.

    ``compare_args[i]`` is the restriction for gold action ``i`` (None = the
    prediction's keys). ``matched_by`` is the index of the first predicted
    call that satisfies the action, or None.
    """
    if compare_args is not None and len(compare_args) != len(expected):
        raise ValueError(
            f"compare_args has {len(compare_args)} entries for {len(expected)} gold actions"
        )
    out = []
    for i, gold in enumerate(expected):
        restriction = compare_args[i] if compare_args is not None else None
        matched_by = next(
            (
                j
                for j, call in enumerate(actual)
                if action_matches(gold, call, compare_args=restriction)
            ),
            None,
        )
        out.append(
            {
                "index": i,
                "name": gold.name,
                "matched": matched_by is not None,
                "matched_by": matched_by,
            }
        )
    return out
