"""import -> export -> import gives the same messages, for every format."""

from __future__ import annotations

import pytest

from tooleval.formats import FORMATS, detect, export_messages, import_messages
from tooleval.model import AssistantMessage, SystemMessage, ToolCall, ToolMessage, UserMessage

from ._fixtures import dicts, load

FIXTURE_FORMATS = [
    ("openai_chat_request.json", "openai_chat"),
    ("openai_chat_response.json", "openai_chat"),
    ("openai_chat_legacy.json", "openai_chat"),
    ("openai_responses_items.json", "openai_responses"),
    ("openai_responses_response.json", "openai_responses"),
    ("anthropic_request.json", "anthropic"),
    ("anthropic_response.json", "anthropic"),
    ("gemini_request_camel.json", "gemini"),
    ("gemini_snake.json", "gemini"),
    ("gemini_response.json", "gemini"),
    ("langchain_messages_to_dict.json", "langchain"),
    ("langchain_dumpd.json", "langchain"),
    ("mcp_session.json", "mcp"),
    ("ragas_sample.json", "ragas"),
]


@pytest.mark.parametrize(("name", "fmt"), FIXTURE_FORMATS)
def test_same_format_round_trip_is_exact(name, fmt):
    first = import_messages(load(name))
    exported = export_messages(first, fmt)
    assert detect(exported) == fmt
    again = import_messages(exported, fmt)
    assert dicts(again) == dicts(first)
    if name != "langchain_dumpd.json":
        assert again == first
    else:
        # additional_kwargs kept OpenAI's argument strings; tool_calls hold parsed dicts.
        assert [c.raw_arguments for c in again[1].tool_calls] == [None, '{"order_id": 88']


@pytest.mark.parametrize("shape", ["dumpd", "objects"])
def test_langchain_other_shapes_round_trip(shape):
    first = import_messages(load("langchain_messages_to_dict.json"))
    exported = export_messages(first, "langchain", shape=shape)
    assert detect(exported) == "langchain"
    assert import_messages(exported) == first


def test_langchain_export_is_read_by_langchain():
    from langchain_core.messages import messages_from_dict

    first = import_messages(load("anthropic_request.json"))
    live = messages_from_dict(export_messages(first, "langchain"))
    assert live[2].tool_calls[0]["name"] == "check_availability"
    assert live[6].status == "error"


# A conversation every format can hold (ids on every call, string results,
# no system message, alternating turns), converted through each format.
PORTABLE = [
    UserMessage("Move my 3pm meeting to 4pm."),
    AssistantMessage(
        "Looking it up.",
        (ToolCall("find_event", {"time": "15:00"}, id="1"),),
    ),
    ToolMessage("evt-9", tool_call_id="1", name="find_event"),
    AssistantMessage("", (ToolCall("move_event", {"event": "evt-9", "to": "16:00"}, id="2"),)),
    ToolMessage("calendar is read-only", tool_call_id="2", name="move_event", is_error=True),
    AssistantMessage("I could not move it: the calendar is read-only."),
]


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f not in ("mcp",)])
def test_portable_conversation_survives_each_format(fmt):
    exported = export_messages(PORTABLE, fmt)
    back = import_messages(exported, fmt)
    expected = dicts(PORTABLE)
    got = dicts(back)
    if fmt in ("openai_chat", "openai_responses", "ragas"):
        # These formats have no error flag on a tool result.
        for entry in expected:
            entry.pop("is_error", None)
    if fmt == "ragas":
        # ragas messages carry no call ids.
        for entry in expected:
            entry.pop("tool_call_id", None)
            for call in entry.get("tool_calls", []):
                call.pop("id", None)
    if fmt == "openai_responses":
        # Responses keeps assistant text and the call that follows as one turn already.
        pass
    assert got == expected


def test_mcp_keeps_only_tool_traffic():
    exported = export_messages(PORTABLE, "mcp")
    back = import_messages(exported, "mcp")
    tool_traffic = [
        AssistantMessage("", m.tool_calls) if isinstance(m, AssistantMessage) else m
        for m in PORTABLE
        if isinstance(m, ToolMessage) or (isinstance(m, AssistantMessage) and m.tool_calls)
    ]
    assert back == tool_traffic


def test_system_message_placement():
    msgs = [SystemMessage("Be terse."), UserMessage("hi"), AssistantMessage("hello")]
    assert export_messages(msgs, "anthropic")["system"] == "Be terse."
    assert export_messages(msgs, "gemini")["systemInstruction"] == {
        "parts": [{"text": "Be terse."}]
    }
    assert export_messages(msgs, "ragas")[0]["type"] == "human"  # ragas has no system role
    for fmt in ("anthropic", "gemini", "openai_chat", "openai_responses", "canonical", "langchain"):
        assert import_messages(export_messages(msgs, fmt), fmt) == msgs


def test_unparsable_arguments_survive_openai_round_trip():
    call = ToolCall.parse("f", '{"a": 1', id="x")
    msgs = [AssistantMessage("", (call,))]
    for fmt in ("openai_chat", "openai_responses", "canonical", "langchain"):
        (back,) = import_messages(export_messages(msgs, fmt), fmt)[0].tool_calls
        assert back.raw_arguments == '{"a": 1' and back.parse_error, fmt


def test_calls_without_ids_in_mcp_get_numbers_and_results_pair():
    msgs = [
        AssistantMessage("", (ToolCall("a", {}), ToolCall("b", {"x": 1}))),
        ToolMessage("ra"),
        ToolMessage("rb"),
    ]
    exported = export_messages(msgs, "mcp")
    assert [m["id"] for m in exported] == [1, 2, 1, 2]
    back = import_messages(exported, "mcp")
    assert [
        (c.name, c.result)
        for c in __import__("tooleval").model.Sample(messages=back).actual_calls()
    ] == [
        ("a", "ra"),
        ("b", "rb"),
    ]


def test_export_rejects_unknown_format_and_option():
    from tooleval.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown format 'yaml'"):
        export_messages(PORTABLE, "yaml")
    with pytest.raises(ConfigError, match="takes no option"):
        export_messages(PORTABLE, "anthropic", shape="dumpd")
    with pytest.raises(ConfigError, match="unknown LangChain shape"):
        export_messages(PORTABLE, "langchain", shape="xml")
