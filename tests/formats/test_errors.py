"""Malformed input: a FormatError naming the row, the field path and what was expected."""

from __future__ import annotations

import pytest

from tooleval.errors import FormatError, InputError
from tooleval.formats import import_conversation, import_messages

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}

CASES = [
    # (format, data, field, words in the message)
    (
        "openai_chat",
        [
            {"role": "user"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "f", "arguments": 5}}
                ],
            },
        ],
        "messages[1].tool_calls[0].function.arguments",
        "JSON string or an object, got a number",
    ),
    (
        "openai_chat",
        [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"arguments": "{}"}}]}],
        "messages[0].tool_calls[0].function.name",
        "expected a tool name",
    ),
    (
        "openai_chat",
        [{"role": "assistant", "tool_calls": [{"id": "1", "name": "f"}]}],
        "messages[0].tool_calls[0]",
        "with a 'function' object",
    ),
    (
        "openai_chat",
        [{"role": "assistant", "tool_calls": {"id": "1"}}],
        "messages[0].tool_calls",
        "expected a list",
    ),
    (
        "openai_chat",
        [{"role": "robot", "content": "x"}],
        "messages[0].role",
        "unknown role 'robot'",
    ),
    (
        "openai_chat",
        [{"role": "user", "content": [{"type": "video", "url": "x"}]}],
        "messages[0].content[0].type",
        "unknown content part type 'video'",
    ),
    (
        "openai_chat",
        [{"role": "user", "content": 12}],
        "messages[0].content",
        "a string or a list of content parts",
    ),
    ("openai_chat", ["hello"], "messages[0]", "expected a message object"),
    ("openai_chat", {"choices": []}, "messages.choices", "no choices"),
    (
        "openai_responses",
        [{"type": "function_call", "call_id": "1", "arguments": "{}"}],
        "messages[0].name",
        "expected a tool name",
    ),
    (
        "openai_responses",
        [{"type": "web_search_preview_result"}],
        "messages[0].type",
        "unknown Responses item type",
    ),
    (
        "openai_responses",
        [{"type": "message", "role": "critic", "content": "x"}],
        "messages[0].role",
        "unknown message role 'critic'",
    ),
    (
        "anthropic",
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}],
            }
        ],
        "messages[0].content[0].input",
        "tool input as an object",
    ),
    (
        "anthropic",
        [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}],
            }
        ],
        "messages[0].content[0].is_error",
        "expected true or false",
    ),
    (
        "anthropic",
        [{"role": "user", "content": [{"type": "audio"}]}],
        "messages[0].content[0].type",
        "unknown content block type 'audio'",
    ),
    ("anthropic", [{"role": "system", "content": "x"}], "messages[0].role", "system is top-level"),
    (
        "gemini",
        [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}],
        "messages[0].parts[0].functionCall.name",
        "expected a tool name",
    ),
    (
        "gemini",
        [{"role": "model", "parts": [{"function_call": {"name": "f", "args": "x=1"}}]}],
        "messages[0].parts[0].function_call.args",
        "args as an object",
    ),
    (
        "gemini",
        [{"role": "model", "parts": [{"video": 1}]}],
        "messages[0].parts[0]",
        "unknown part",
    ),
    ("gemini", [{"role": "bot", "parts": []}], "messages[0].role", "unknown role 'bot'"),
    (
        "langchain",
        [{"type": "robot", "data": {}}],
        "messages[0].type",
        "unknown LangChain message type",
    ),
    (
        "langchain",
        [{"lc": 1, "type": "constructor", "id": ["x", "Widget"], "kwargs": {}}],
        "messages[0].id",
        "unknown LangChain class 'Widget'",
    ),
    (
        "langchain",
        [{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": "[]"}]}}],
        "messages[0].data.tool_calls[0].args",
        "args as an object",
    ),
    (
        "langchain",
        [{"type": "tool", "data": {"content": "x", "tool_call_id": "1", "status": "failed"}}],
        "messages[0].data.status",
        "'success' or 'error'",
    ),
    (
        "langchain",
        [
            {
                "type": "ai",
                "data": {
                    "content": "",
                    "additional_kwargs": {
                        "tool_calls": [
                            {
                                "id": "1",
                                "type": "function",
                                "function": {"name": "f", "arguments": [1]},
                            }
                        ]
                    },
                },
            }
        ],
        "messages[0].data.additional_kwargs.tool_calls[0].function.arguments",
        "JSON string",
    ),
    ("mcp", [{"id": 1, "method": "tools/call"}], "messages[0]", "JSON-RPC 2.0"),
    (
        "mcp",
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}],
        "messages[0].params.name",
        "expected a tool name",
    ),
    (
        "mcp",
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "f", "arguments": "x"},
            }
        ],
        "messages[0].params.arguments",
        "arguments as an object",
    ),
    (
        "mcp",
        [{"jsonrpc": "2.0", "id": 9, "result": {"content": []}}],
        "messages[0].id",
        "answers no request",
    ),
    (
        "mcp",
        [{"jsonrpc": "2.0", "id": [1], "method": "tools/call"}],
        "messages[0].id",
        "string or integer",
    ),
    (
        "mcp",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f"}},
            {"jsonrpc": "2.0", "id": 1, "result": {"content": "done"}},
        ],
        "messages[1].result.content",
        "list of content items",
    ),
    (
        "mcp",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        ],
        "messages[1].id",
        "used twice",
    ),
    ("ragas", [{"type": "bot", "content": "x"}], "messages[0].type", "unknown ragas message type"),
    # An agent's arguments as a JSON array are a call with invalid arguments (scored),
    # as the same array written as JSON text is: tests/metrics/test_invariants.py.
    ("canonical", [{"role": "user", "content": ["a"]}], "messages[0].content", "expected a string"),
    (
        "canonical",
        [{"role": "user", "content": "a", "tool_calls": []}],
        "messages[0]",
        "unknown key(s) ['tool_calls']",
    ),
    (
        "canonical",
        [{"role": "tool", "content": "a", "is_error": "no"}],
        "messages[0].is_error",
        "true or false",
    ),
    (
        "canonical",
        [{"role": "assistant", "tool_calls": [{"args": {}}]}],
        "messages[0].tool_calls[0]",
        "expected a call as",
    ),
]


@pytest.mark.parametrize(("fmt", "data", "field", "words"), CASES)
def test_malformed_input_names_row_field_and_expectation(fmt, data, field, words):
    with pytest.raises(FormatError) as info:
        import_messages(data, fmt, path="messages", row=12)
    err = info.value
    assert isinstance(err, InputError)
    assert err.row == 12
    assert err.field == field
    assert words in err.message
    assert str(err).startswith(f"row 12, field {field}: ")


def test_detection_failure_inside_a_row_names_the_field():
    with pytest.raises(FormatError) as info:
        import_conversation({"foo": 1}, path="messages", row=3)
    assert info.value.row == 3 and info.value.field == "messages"


def test_bad_arguments_string_is_not_an_error():
    data = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
            ],
        }
    ]
    (call,) = import_messages(data)[0].tool_calls
    assert call.raw_arguments == "{oops" and call.parse_error.startswith("invalid JSON")
    data[0]["tool_calls"][0]["function"]["arguments"] = "[1, 2]"
    (call,) = import_messages(data)[0].tool_calls
    assert "must be a JSON object" in call.parse_error


def test_unknown_format_name_is_a_config_error():
    from tooleval.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown format 'openai'"):
        import_messages([], "openai")
