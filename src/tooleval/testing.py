"""Assertions for regression tests of an agent's tool calls.

>>> assert_tool_calls([{"name": "lookup_order", "args": {"order_id": "4471"}}],
...                   ["lookup_order"]).score
1.0
>>> assert_tool_calls(["search_orders"], ["lookup_order"])
Traceback (most recent call last):
...
AssertionError: tool calls do not match (tool_correctness: score 0.00, needs 0.5)
  expected: lookup_order
  actual:   search_orders()
  missing:  lookup_order
  extra:    search_orders()
"""

from __future__ import annotations

from typing import Any

from tooleval.model import ExpectedTools, Result, Sample, ToolCall

__all__ = ["assert_tool_calls", "format_failure"]


def _calls_text(calls: Any) -> str:
    calls = list(calls)
    return ", ".join(str(c) for c in calls) if calls else "(none)"


def _dict_call(call: dict[str, Any]) -> str:
    return str(ToolCall(str(call.get("name")), args=call.get("args")))


def format_failure(result: Result, expected: ExpectedTools, actual: list[ToolCall]) -> str:
    """The assertion message: verdict, expected vs actual, then the diagnosis lines."""
    if result.score is None:
        head = f"tool calls could not be scored ({result.metric}): {result.reason}"
    else:
        needs = "1.0" if result.threshold is None else f"{result.threshold:g}"
        head = f"tool calls do not match ({result.metric}: score {result.score:.2f}, needs {needs})"
    lines = [
        head,
        f"  expected: {_calls_text(expected.calls)}",
        f"  actual:   {_calls_text(actual)}",
    ]
    d = result.diagnosis
    if d.missing:
        lines.append("  missing:  " + ", ".join(_dict_call(c) for c in d.missing))
    if d.extra:
        lines.append("  extra:    " + ", ".join(_dict_call(c) for c in d.extra))
    lines.extend(f"  order:    {v}" for v in d.order_violations)
    for check in d.argument_mismatches:
        got = "(not passed)" if check.missing else repr(check.actual)
        lines.append(f"  argument {check.tool}.{check.key}: expected {check.expected!r}, got {got}")
    if len(lines) == 3 and result.reason and result.score is not None:
        lines.append(f"  reason:   {result.reason}")
    return "\n".join(lines)


def assert_tool_calls(
    actual: Any, expected: Any, *, metric: str = "tool_correctness", **options: Any
) -> Result:
    """Fail with a readable message unless ``actual`` calls pass ``metric`` against ``expected``.

    ``actual`` and ``expected`` take every shape a dataset cell can hold:
    names, ``{"name", "args"}`` dicts, :class:`ToolCall` objects, OpenAI
    tool calls, or an :class:`ExpectedTools`. ``options`` are the metric's
    parameters (``threshold=1.0``, ``order="strict"``, ...). Returns the
    passing :class:`Result`; an unscorable pair fails too, never silently.
    """
    from tooleval.formats import parse_expected_tools, parse_tool_calls
    from tooleval.metrics.registry import score_sample

    expected_tools = (
        parse_expected_tools(expected if expected is not None else [], field="expected")
        or ExpectedTools()
    )
    actual_calls = parse_tool_calls(actual if actual is not None else [], field="actual") or []
    sample = Sample(tools_called=actual_calls, expected_tools=expected_tools)
    result = score_sample(metric, sample, **options)
    if not result.passed:
        raise AssertionError(format_failure(result, expected_tools, actual_calls))
    return result
