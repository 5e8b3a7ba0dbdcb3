"""Assertions for regression tests of an agent's tool calls.

Truth first, like every metric: ``assert_tool_calls(expected, actual)``.
The default threshold is 1.0, so a wrong call fails; a row without a
reference (``expected=None``) is skipped, not failed.

>>> assert_tool_calls(["lookup_order"],
...                   [{"name": "lookup_order", "args": {"order_id": "4471"}}]).score
1.0
>>> assert_tool_calls(["lookup_order", "cancel_order"], ["lookup_order", "delete_account"])
Traceback (most recent call last):
...
AssertionError: tool calls do not match (tool_correctness: score 0.50, needs 1)
  expected: lookup_order, cancel_order
  actual:   lookup_order(), delete_account()
  missing:  cancel_order
  extra:    delete_account()
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


def _skip(reason: str) -> None:
    try:
        import pytest
    except ImportError:  # pragma: no cover - unittest users
        import unittest

        raise unittest.SkipTest(reason) from None
    pytest.skip(reason)


def assert_tool_calls(
    expected: Any,
    actual: Any,
    *,
    metric: str = "tool_correctness",
    threshold: float | None = 1.0,
    preset: str | None = None,
    **options: Any,
) -> Result:
    """Fail with a readable message unless ``actual`` calls pass ``metric`` against ``expected``.

    Truth first, like every metric (``expected`` then ``actual``; both may be
    given by keyword). Each takes every shape a dataset cell can hold: names,
    ``{"name", "args"}`` dicts, :class:`ToolCall` objects, OpenAI tool calls,
    or an :class:`ExpectedTools`. ``threshold`` defaults to 1.0 (every
    expected call, nothing wrong); ``threshold=None`` keeps the metric's own.
    ``options`` are the metric's other parameters (``order="strict"``, ...).
    ``preset`` (``"release"``: :mod:`tooleval.metrics.presets`) fills in the
    options not given.
    ``expected=None`` (a row without a reference) skips the test. Returns the
    passing :class:`Result`; a pair that cannot be scored fails with the reason
    (see :mod:`tooleval.scoring`), never silently.

    Under pytest the failure is reported at the caller's line (this frame is hidden), with
    the expected and called calls and each wrong argument as the message.
    """
    __tracebackhide__ = True  # pytest: the failure points at the user's assertion
    from tooleval.formats import parse_expected_tools, parse_tool_calls
    from tooleval.metrics.registry import bind, get_metric
    from tooleval.scoring import score_sample

    if isinstance(actual, ExpectedTools) and not isinstance(expected, ExpectedTools):
        raise TypeError(
            "assert_tool_calls takes the expected calls first and the agent's calls second "
            "(truth first, like every metric): assert_tool_calls(case.expected_tools, calls), "
            "or by keyword: assert_tool_calls(expected=..., actual=...)"
        )
    if expected is None:
        _skip("no expected_tools for this row (no reference): not scored")
    expected_tools = parse_expected_tools(expected, field="expected") or ExpectedTools()
    actual_calls = parse_tool_calls(actual if actual is not None else [], field="actual") or []
    # Metrics without a threshold parameter keep their own pass rule.
    if threshold is not None and "threshold" in (getattr(get_metric(metric), "params", {}) or {}):
        options["threshold"] = threshold
    if preset is not None:
        from tooleval.metrics.presets import preset_options

        options = preset_options(preset, metric, options)
    sample = Sample(tools_called=actual_calls, expected_tools=expected_tools)
    # The scoring pipeline's policy: a pair the metric cannot score (the ordering
    # search's budget) fails with the reason, it never raises from inside tooleval.
    result = score_sample(bind(metric, **options), sample)
    if not result.passed:
        raise AssertionError(format_failure(result, expected_tools, actual_calls))
    return result
