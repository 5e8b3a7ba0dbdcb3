"""The data model: parsing, pairing results, serialisation."""

from __future__ import annotations

import pytest

from tooleval.errors import FormatError, InputError, ToolEvalError
from tooleval.model import (
    AssistantMessage,
    Diagnosis,
    ExpectedTools,
    Result,
    Sample,
    ToolCall,
    ToolMessage,
    UserMessage,
    message_from_dict,
)


def test_parse_json_string_arguments():
    call = ToolCall.parse("f", '{"a": 1, "b": {"c": [1, 2]}}', id="c1")
    assert call.args == {"a": 1, "b": {"c": [1, 2]}}
    assert call.parse_error is None
    assert call.id == "c1"


@pytest.mark.parametrize("raw", ["{oops", "[1, 2]", "42"])
def test_unparsable_arguments_are_kept_raw(raw):
    call = ToolCall.parse("f", raw)
    assert call.args == {}
    assert call.raw_arguments == raw
    assert call.parse_error


def test_parse_accepts_dict_none_and_blank():
    assert ToolCall.parse("f", {"x": 1}).args == {"x": 1}
    assert ToolCall.parse("f", None).args == {}
    assert ToolCall.parse("f", "  ").args == {}
    assert ToolCall.parse("f", 3.5).parse_error


def test_actual_calls_pairs_results_by_id_and_position():
    sample = Sample(
        messages=[
            UserMessage("hi"),
            AssistantMessage("", (ToolCall("a", {}, id="1"), ToolCall("b", {}, id="2"))),
            ToolMessage("rb", tool_call_id="2", is_error=True),
            ToolMessage("ra", tool_call_id="1"),
            AssistantMessage("", (ToolCall("c", {}),)),
            ToolMessage("rc"),
            AssistantMessage("done"),
        ]
    )
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["a", "b", "c"]
    assert [c.result for c in calls] == ["ra", "rb", "rc"]
    assert [c.is_error for c in calls] == [False, True, False]
    assert sample.final_output() == "done"
    assert sample.user_input() == "hi"


def test_tools_called_wins_over_messages():
    sample = Sample(
        messages=[AssistantMessage("", (ToolCall("a"),))],
        tools_called=["x", ToolCall("y", {"k": 1})],
    )
    assert [c.name for c in sample.actual_calls()] == ["x", "y"]


def test_expected_tools_names_only_and_order_pairs():
    expected = ExpectedTools.of(["a", ToolCall("b", {"k": 1})])
    assert expected.calls[0].args is None
    assert expected.args_given
    assert expected.order_pairs() == ((0, 1),)
    assert ExpectedTools.of(["a", "b"], before=()).order_pairs() == ()
    assert Sample(expected_tools=["a"]).expected_tools.names == ["a"]


def test_expected_tools_rejects_bad_constraint():
    with pytest.raises(InputError, match="ordering constraint"):
        ExpectedTools.of(["a", "b"], before=[(0, 5)])


def test_result_roundtrip_and_bounds():
    diag = Diagnosis(missing=[{"name": "x", "args": None, "index": 1}], details={"precision": 0.5})
    result = Result.scored("m", 0.5, reason="half", params={"k": 1}, threshold=0.5, diagnosis=diag)
    assert result.passed is True
    again = Result.from_dict(result.to_dict())
    assert again == result
    with pytest.raises(ValueError):
        Result.scored("m", 1.5, reason="bad")
    with pytest.raises(ValueError):
        Result.scored("m", float("nan"), reason="bad")
    assert Result.scored("m", 0.99, reason="r").passed is False


def test_sample_and_message_roundtrip():
    msgs = [
        UserMessage("hi"),
        AssistantMessage("", (ToolCall("a", {"x": 1}, id="1"),)),
        ToolMessage({"ok": True}, tool_call_id="1", name="a", is_error=True),
    ]
    assert [message_from_dict(m.to_dict()) for m in msgs] == msgs
    with pytest.raises(FormatError, match="unknown message role"):
        message_from_dict({"role": "robot"})


def test_error_context_formatting():
    err = FormatError("expected a list", field="messages[0]")
    assert str(err.with_context(row=3)) == "row 3, field messages[0]: expected a list"
    assert isinstance(err, ToolEvalError)
    assert err.field == "messages[0]"
