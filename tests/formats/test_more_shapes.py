"""Less common shapes each importer still reads."""

from __future__ import annotations

from tooleval.formats import detect, import_conversation, import_messages
from tooleval.model import Sample, SystemMessage, UserMessage


def test_responses_hosted_mcp_and_custom_calls():
    items = [
        {"role": "user", "content": "look around"},
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "weather oslo"},
        },
        {
            "type": "mcp_call",
            "id": "mcp_1",
            "name": "list_repos",
            "arguments": '{"org": "acme"}',
            "server_label": "gh",
            "output": "repo-a, repo-b",
            "error": None,
        },
        {"type": "custom_tool_call", "call_id": "ct_1", "name": "run_sql", "input": "SELECT 1"},
        {"type": "custom_tool_call_output", "call_id": "ct_1", "output": "1"},
    ]
    assert detect(items) == "openai_responses"
    calls = import_conversation(items).actual_calls()
    assert [c.name for c in calls] == ["web_search", "list_repos", "run_sql"]
    assert calls[0].args == {"type": "search", "query": "weather oslo"}
    assert calls[1].args == {"org": "acme"} and calls[1].result == "repo-a, repo-b"
    assert calls[2].args == {"input": "SELECT 1"} and calls[2].result == "1"


def test_responses_request_with_string_input():
    msgs = import_messages({"model": "gpt-4.1", "input": "hi", "instructions": "be brief"})
    assert msgs == [SystemMessage("be brief"), UserMessage("hi")]


def test_openai_chat_custom_tool_call():
    msgs = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "custom", "custom": {"name": "grep", "input": "TODO"}}
            ],
        }
    ]
    assert import_messages(msgs)[0].tool_calls[0].args == {"input": "TODO"}


def test_anthropic_server_tool_use_and_non_text_result():
    data = [
        {"role": "user", "content": "news?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srv_1",
                    "name": "web_search",
                    "input": {"query": "news"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srv_1",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://example.invalid",
                            "title": "t",
                        }
                    ],
                },
                {"type": "text", "text": "Here is the news."},
            ],
        },
    ]
    assert detect(data) == "anthropic"
    sample = import_conversation(data)
    (call,) = sample.actual_calls()
    assert call.name == "web_search" and call.result[0]["url"] == "https://example.invalid"


def test_gemini_function_role_and_plain_list():
    data = [
        {"role": "user", "parts": [{"text": "2+2"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "add", "args": {"a": 2, "b": 2}}}]},
        {
            "role": "function",
            "parts": [{"functionResponse": {"name": "add", "response": {"sum": 4}}}],
        },
    ]
    (call,) = Sample(messages=import_messages(data)).actual_calls()
    assert call.result == {"sum": 4} and not call.is_error


def test_mcp_non_text_content_is_kept():
    data = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "screenshot"}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "content": [{"type": "image", "data": "iVBOR", "mimeType": "image/png"}],
                "isError": False,
            },
        },
    ]
    (call,) = import_conversation(data).actual_calls()
    assert call.args == {} and call.result[0]["type"] == "image"


def test_langchain_chat_message_roles_and_function_message():
    data = [
        {"type": "chat", "data": {"content": "hi", "role": "user"}},
        {
            "type": "ai",
            "data": {
                "content": "",
                "additional_kwargs": {
                    "function_call": None,
                    "tool_calls": [
                        {
                            "id": "1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
            },
        },
        {"type": "function", "data": {"content": "done", "name": "f"}},
    ]
    sample = import_conversation(data)
    assert sample.input == "hi"
    (call,) = sample.actual_calls()
    assert call.name == "f" and call.result == "done"
