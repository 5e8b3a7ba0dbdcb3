"""assert_tool_calls messages, and the pytest plugin run by a real pytest subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tooleval.errors import ConfigError
from tooleval.testing import assert_tool_calls

pytest_plugins = ["pytester"]


def _message(actual, expected, **options) -> str:
    with pytest.raises(AssertionError) as info:
        assert_tool_calls(expected, actual, **options)
    return str(info.value)


def test_passing_calls_return_the_result():
    result = assert_tool_calls(
        ["lookup_order", "cancel_order"],
        [{"name": "lookup_order", "args": {"order_id": "4471"}}, "cancel_order"],
    )
    assert result.passed and result.metric == "tool_correctness"


def test_missing_and_extra_calls_are_named():
    message = _message(
        ["lookup_order", "search_orders"], ["lookup_order", "issue_refund"], threshold=1.0
    )
    assert "tool calls do not match (tool_correctness: score 0.50, needs 1)" in message
    assert "expected: lookup_order, issue_refund" in message
    assert "actual:   lookup_order(), search_orders()" in message
    assert "missing:  issue_refund" in message
    assert "extra:    search_orders()" in message


def test_wrong_argument_shows_expected_then_actual():
    message = _message(
        [{"name": "issue_refund", "args": {"order_id": "4471", "amount": 300}}],
        [{"name": "issue_refund", "args": {"order_id": "4471", "amount": 30}}],
        threshold=1.0,
    )
    assert "argument issue_refund.amount: expected 30, got 300" in message


def test_wrong_order_with_ordering_on():
    message = _message(
        ["send_email", "capture_payment"],
        ["capture_payment", "send_email"],
        order="strict",
        threshold=1.0,
    )
    assert "order:" in message and "capture_payment" in message


def test_other_metric_and_options():
    assert_tool_calls(["a", "b"], ["b", "a"], metric="tool_call_f1")
    with pytest.raises(ConfigError, match="no parameter 'colour'"):
        assert_tool_calls(["a"], ["a"], colour="red")
    with pytest.raises(ConfigError, match="unknown metric"):
        assert_tool_calls(["a"], ["a"], metric="nope")


def test_pytest_plugin_parametrizes_over_a_dataset(tmp_path):
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "cancel-1", "input": "cancel 1", "expected_tools": ["lookup_order", "cancel_order"]}\n'
        '{"id": "refund-1", "input": "refund 1", "expected_tools": ["lookup_order", "issue_refund"]}\n'
        '{"id": "broken", "input": "x", "expected_tools": 42}\n'
    )
    (tmp_path / "test_agent.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from tooleval.pytest_plugin import tooleval_cases
            from tooleval.testing import assert_tool_calls

            def agent(text):
                # a toy agent that never refunds
                return ["lookup_order", "cancel_order"]

            @pytest.mark.parametrize("case", tooleval_cases("cases.jsonl"))
            def test_by_helper(case):
                assert_tool_calls(case.expected_tools, agent(case.user_input()), threshold=0.5)

            @pytest.mark.tooleval_dataset("cases.jsonl")
            def test_by_marker(tooleval_case):
                assert_tool_calls(tooleval_case.expected_tools, agent(tooleval_case.user_input()))
            """
        )
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-rs",
            "-v",
            "-p",
            "no:cacheprovider",
            "test_agent.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "test_by_helper[cancel-1] PASSED" in out
    assert "test_by_marker[cancel-1] PASSED" in out
    assert "test_by_marker[refund-1] FAILED" in out
    assert "test_by_helper[broken] SKIPPED" in out
    assert "missing:  issue_refund" in out and "extra:    cancel_order()" in out
    assert "row could not be read" in out and "expected_tools" in out


def test_a_wrong_call_fails_by_default_truth_first():
    # Item 21: half the expected calls is not a pass (the old default threshold was 0.5).
    message = _message(["lookup_order", "delete_account"], ["lookup_order", "cancel_order"])
    assert "needs 1" in message and "extra:    delete_account()" in message
    assert "missing:  cancel_order" in message
    # Keywords name the sides whatever their order.
    result = assert_tool_calls(actual=["lookup_order"], expected=["lookup_order"])
    assert result.passed and result.threshold == 1.0
    # The metric's own threshold on request.
    assert assert_tool_calls(["a", "b"], ["a", "x"], threshold=None).score == 0.5


def test_the_old_argument_order_is_a_clear_error():
    from tooleval.model import ExpectedTools

    with pytest.raises(TypeError, match="expected calls first"):
        assert_tool_calls(["lookup_order"], ExpectedTools.of(["lookup_order"]))


def test_a_row_without_reference_is_skipped():
    with pytest.raises(pytest.skip.Exception, match="no reference"):
        assert_tool_calls(None, ["lookup_order"])


def test_a_failure_is_reported_at_the_users_line_not_inside_tooleval(pytester):
    # In-process pytest (the plugin's discovery by a real pytest subprocess is checked above):
    # the three traceback styles render the same frames either way, at a fraction of the CPU.
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "test_user.py").write_text(
        textwrap.dedent(
            """
            from tooleval.testing import assert_tool_calls

            def test_refund():
                calls = [{"name": "issue_refund", "args": {"order_id": "4471", "amount": 300}}]
                assert_tool_calls([{"name": "issue_refund", "args": {"amount": 30}}], calls)
            """
        )
    )
    for style in ("line", "short", "long"):
        result = pytester.runpytest_inprocess(f"--tb={style}", "-p", "no:cacheprovider", "-q")
        out = result.stdout.str()
        assert result.ret == 1, out
        assert "test_user.py:6" in out, out  # the user's assertion line
        assert "tooleval/testing.py" not in out and "def assert_tool_calls" not in out, out
        if style != "line":
            assert "argument issue_refund.amount: expected 30, got 300" in out
