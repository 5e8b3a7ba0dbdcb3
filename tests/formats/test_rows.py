"""sample_from_row / sample_to_row: the canonical dataset row and its edge cases."""

from __future__ import annotations

import json

import pytest

from tooleval.errors import FormatError
from tooleval.formats import sample_from_row, sample_to_row
from tooleval.model import ExpectedTools, Sample, ToolCall, UserMessage

from ._fixtures import load, rows


def test_fixture_rows():
    first, second, third = (
        sample_from_row(r, row_number=i) for i, r in enumerate(rows("canonical_rows.jsonl"), 1)
    )
    assert (
        first.id == "refund-1" and first.category == "refunds" and first.test_type == "happy_path"
    )
    calls = first.actual_calls()
    assert [(c.name, c.result, c.is_error) for c in calls] == [
        ("lookup_order", {"status": "delivered"}, False),
        ("issue_refund", "refund failed", True),
    ]
    assert first.expected_tools.calls == (
        ToolCall("lookup_order", {"order_id": "4471"}),
        ToolCall("issue_refund", None),
    )
    assert first.reference == "Refund issued for 4471" and first.reference_topics == ["refunds"]
    assert first.metadata == {"source": "support-log-2025-03"}

    assert second.tools_called == [] and second.expected_tools == ExpectedTools(())
    assert second.reference == "You're welcome!"  # the expected_output alias
    assert second.metadata == {"channel": "chat"}  # unknown keys are kept, not dropped
    assert second.messages == [] and second.input == "Thanks, that's all!"

    assert third.id == "7"
    assert third.input == "Book table for 2 at 8pm"  # from the first user message
    assert third.actual_calls()[0].args == {
        "people": 2,
        "time": "20:00",
    }  # messages as a JSON string
    assert third.expected_tools.before == ((0, 2), (1, 2))


def test_round_trip_of_fixture_rows():
    for index, row in enumerate(rows("canonical_rows.jsonl")):
        sample = sample_from_row(row)
        written = json.loads(json.dumps(sample_to_row(sample)))
        again = sample_from_row(written)
        assert sample_to_row(again) == written
        if index < 2:
            assert again == sample
        else:
            # Row 3 came as OpenAI messages: the canonical row keeps parsed
            # arguments, not the original JSON spelling (raw_arguments).
            assert again.actual_calls()[0].raw_arguments is None
            assert sample.actual_calls()[0].raw_arguments is not None


def test_ragas_row():
    data = load("ragas_sample.json")
    sample = sample_from_row({**data, "id": "r1", "category": "weather", "source": "ragas-docs"})
    assert sample.id == "r1" and sample.category == "weather"
    assert sample.expected_tools.names == ["weather_check", "temperature_conversion"]
    assert sample.reference_topics == ["weather", "unit conversion"]
    assert sample.metadata == {
        "rubrics": data["rubrics"],
        "source": "ragas-docs",
    }
    assert len(sample.actual_calls()) == 2


def test_input_can_be_a_conversation():
    sample = sample_from_row({"input": [{"role": "user", "content": "hi"}]})
    assert sample.messages == [UserMessage("hi")] and sample.input == "hi"


def test_messages_format_skips_detection():
    data = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    sample = sample_from_row({"messages": data, "messages_format": "anthropic"})
    assert sample.messages == [UserMessage("hi")]


def test_csv_like_cells():
    sample = sample_from_row(
        {
            "id": 12,
            "input": "find shoes",
            "tools_called": "search, add_to_cart",
            "expected_tools": '[{"name": "search", "args": {"q": "shoes"}}]',
            "reference_topics": "shopping, shoes",
            "metadata": '{"locale": "pt-BR"}',
            "reference": float("nan"),
            "category": float("nan"),
        }
    )
    assert sample.id == "12"
    assert [c.name for c in sample.tools_called] == ["search", "add_to_cart"]
    assert sample.expected_tools.calls == (ToolCall("search", {"q": "shoes"}),)
    assert sample.reference_topics == ["shopping", "shoes"]
    assert sample.metadata == {"locale": "pt-BR"}
    assert sample.reference is None and sample.category is None


def test_empty_row_is_an_empty_sample():
    assert sample_from_row({}) == Sample()


def test_same_reference_under_both_names_is_fine():
    assert sample_from_row({"reference": "x", "expected_output": "x"}).reference == "x"


def test_unknown_key_equal_to_metadata_entry_is_fine():
    assert sample_from_row({"a": 1, "metadata": {"a": 1}}).metadata == {"a": 1}


ROW_ERRORS = [
    (["not", "a", "row"], None, "expected a row object"),
    ({"input": 5}, "input", "expected the user's request as a string"),
    ({"messages": {"foo": 1}}, "messages", "cannot tell the format"),
    ({"messages": "[{bad"}, "messages", "looks like JSON but cannot be parsed"),
    (
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "1", "type": "function", "function": {"name": "f", "arguments": 3}}
                    ],
                },
            ]
        },
        "messages[1].tool_calls[0].function.arguments",
        "JSON string or an object",
    ),
    ({"messages": [], "messages_format": "xml"}, "messages_format", "unknown format 'xml'"),
    ({"expected_tools": "a,,b"}, "expected_tools", "empty tool name"),
    ({"tools_called": [{"name": 1}]}, "tools_called[0].name", "expected a tool name"),
    ({"reference": "a", "expected_output": "b"}, "expected_output", "differ"),
    ({"reference": ["a"]}, "reference", "expected a string"),
    ({"reference_topics": [1]}, "reference_topics[0]", "expected a topic string"),
    ({"reference_topics": 3}, "reference_topics", "list of topics"),
    ({"category": {"a": 1}}, "category", "expected a string"),
    ({"output": {"answer": 1}}, "output", "expected a string"),
    ({"metadata": [1]}, "metadata", "expected an object"),
    ({"metadata": "{oops"}, "metadata", "cannot be parsed"),
    ({"team": "a", "metadata": {"team": "b"}}, "team", "already has a different 'team'"),
    ({"user_input": [], "messages": []}, "messages", "both 'user_input'"),
    ({"user_input": [], "expected_tools": ["a"]}, "expected_tools", "through its own fields"),
    ({"user_input": [{"type": "alien"}]}, "user_input[0].type", "unknown ragas message type"),
    (
        {"user_input": [], "reference_tool_calls": [3]},
        "reference_tool_calls[0]",
        "tool name or a call",
    ),
    ({"user_input": [], "rubrics": "strict"}, "rubrics", "rubrics as an object"),
]


@pytest.mark.parametrize(("row", "field", "words"), ROW_ERRORS)
def test_row_errors_name_row_and_field(row, field, words):
    with pytest.raises(FormatError) as info:
        sample_from_row(row, row_number=21)
    assert info.value.row == 21
    assert info.value.field == field
    assert words in info.value.message
