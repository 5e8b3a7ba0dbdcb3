"""detect(): each format, ties, and input that fits nothing."""

from __future__ import annotations

import pytest

from tooleval.errors import FormatError
from tooleval.formats import FORMATS, detect, import_messages

from ._fixtures import load


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ([{"role": "tool", "tool_call_id": "1", "content": "x", "is_error": True}], "canonical"),
        (
            [{"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": {}}]}],
            "canonical",
        ),
        ([{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}], "openai_chat"),
        ([{"role": "developer", "content": "rules"}], "openai_chat"),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}],
            "openai_chat",
        ),
        ({"choices": [{"message": {"role": "assistant", "content": "hi"}}]}, "openai_chat"),
        ([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}], "openai_responses"),
        ([{"type": "function_call_output", "call_id": "c", "output": "x"}], "openai_responses"),
        ({"object": "response", "output": []}, "openai_responses"),
        ({"input": "what is 2+2?", "model": "gpt-4.1"}, "openai_responses"),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                }
            ],
            "anthropic",
        ),
        ({"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}, "anthropic"),
        (
            {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            "anthropic",
        ),
        ([{"role": "model", "parts": [{"text": "hi"}]}], "gemini"),
        ({"role": "user", "parts": [{"text": "hi"}]}, "gemini"),
        ({"candidates": [{"content": {"role": "model", "parts": []}}]}, "gemini"),
        ([{"type": "human", "data": {"content": "hi"}}], "langchain"),
        ([{"type": "tool", "content": "x", "tool_call_id": "1"}], "langchain"),
        (
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "messages", "AIMessage"],
                "kwargs": {},
            },
            "langchain",
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f"}}, "mcp"),
        ([{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"}], "ragas"),
        ({"user_input": [{"type": "human", "content": "hi"}]}, "ragas"),
    ],
)
def test_detects_each_format(data, fmt):
    assert detect(data) == fmt


def test_plain_messages_fit_several_formats_and_read_the_same():
    plain = [
        {"role": "system", "content": "be kind"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]
    assert detect(plain) == "canonical"  # the first format in FORMATS that fits
    readings = {
        fmt: import_messages(plain, fmt) for fmt in ("canonical", "openai_chat", "openai_responses")
    }
    assert len({repr(v) for v in readings.values()}) == 1


def test_text_parts_fit_openai_chat_and_anthropic():
    data = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert detect(data) == "openai_chat"  # tie broken by FORMATS order
    assert FORMATS.index("openai_chat") < FORMATS.index("anthropic")
    assert import_messages(data, "openai_chat") == import_messages(data, "anthropic")


def test_empty_list_is_an_empty_canonical_conversation():
    assert detect([]) == "canonical"
    assert import_messages([]) == []


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ("hello", "cannot tell the format of a string 'hello'"),
        (42, "cannot tell the format of a number (42)"),
        ({"foo": 1}, "an object with keys ['foo']"),
        ([{"foo": 1}], "element 0 matches none of"),
        ([{"role": "wizard", "content": "x"}], "element 0 matches none of"),
        ([1, 2], "element 0 matches none of"),
        ({"messages": "hi"}, "expected a list of messages"),
    ],
)
def test_unknown_input_names_known_formats_and_what_it_saw(data, needle):
    with pytest.raises(FormatError) as info:
        detect(data)
    message = str(info.value)
    assert needle in message
    if "expected a list" not in needle:
        assert "openai_chat" in message and "gemini" in message


def test_mixed_formats_are_reported_with_their_positions():
    data = [
        {"role": "model", "parts": [{"text": "hi"}]},
        {"type": "function_call", "name": "f", "call_id": "1", "arguments": "{}"},
    ]
    with pytest.raises(
        FormatError, match=r"element 1 looks like \['openai_responses'\].*\['gemini'\]"
    ):
        detect(data)


def test_fixture_detection_is_stable_under_sdk_like_none_fields():
    data = load("openai_chat_legacy.json")
    for message in data:
        message.setdefault("tool_calls", None)
    assert detect(data) == "openai_chat"
