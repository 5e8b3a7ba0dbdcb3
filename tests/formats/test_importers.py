"""What each importer reads out of a realistic fixture of its format."""

from __future__ import annotations

import pytest

from tooleval.formats import detect, import_conversation, import_messages
from tooleval.model import AssistantMessage, SystemMessage, ToolMessage, UserMessage

from ._fixtures import load


def roles(messages):
    return [m.role for m in messages]


def test_openai_chat_request():
    data = load("openai_chat_request.json")
    assert detect(data) == "openai_chat"
    sample = import_conversation(data)
    assert roles(sample.messages) == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert sample.input == "Order 4471 arrived broken, I want my money back."  # image part skipped
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["lookup_order", "get_refund_policy", "issue_refund"]
    assert calls[0].args == {"order_id": "4471"}
    assert calls[0].result.startswith('{"order_id"')
    assert calls[1].result == "Damaged items: full refund within 30 days."  # list content joined
    # An unparsable argument string is kept raw, with the reason, and still scored.
    assert calls[2].args == {} and calls[2].raw_arguments.endswith("89.5")
    assert "invalid JSON" in calls[2].parse_error
    assert sample.messages[5].content == "Checking the amount."
    assert sample.final_output() == "I have refunded 89.50 for order 4471."
    assert sample.messages[3].name == "lookup_order"


def test_openai_chat_response_object():
    data = load("openai_chat_response.json")
    assert detect(data) == "openai_chat"
    (msg,) = import_messages(data)
    assert isinstance(msg, AssistantMessage) and msg.content == ""
    assert msg.tool_calls[0].id == "call_abc"
    assert msg.tool_calls[0].args == {"city": "Lisbon", "unit": "celsius"}


def test_openai_chat_sdk_object_is_read_through_model_dump():
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate(load("openai_chat_response.json"))
    assert detect(completion) == "openai_chat"
    assert import_messages(completion)[0].tool_calls[0].name == "get_weather"


def test_openai_chat_legacy_function_call():
    data = load("openai_chat_legacy.json")
    assert detect(data) == "openai_chat"
    sample = import_conversation(data)
    (call,) = sample.actual_calls()
    assert call.id is None and call.args == {"timezone": "Asia/Tokyo"}
    assert call.result == "14:05"
    assert sample.messages[2] == ToolMessage("14:05", tool_call_id=None, name="get_time")


def test_openai_responses_request_items():
    data = load("openai_responses_items.json")
    assert detect(data) == "openai_responses"
    sample = import_conversation(data)
    assert roles(sample.messages) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert sample.messages[0] == SystemMessage("Answer travel questions. Use tools for live data.")
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["search_flights", "get_weather"]
    assert [c.id for c in calls] == ["call_f1", "call_w1"]
    # Outputs arrive in a different order; call_id pairs them.
    assert calls[0].result.startswith('[{"flight"') and calls[1].result == "22C, sunny"
    assert sample.final_output().startswith("SK4711")


def test_openai_responses_response_object():
    data = load("openai_responses_response.json")
    assert detect(data) == "openai_responses"
    (msg,) = import_messages(data)
    assert msg.content == "Let me look that up."  # text and call in one assistant turn
    assert msg.tool_calls[0].args == {"email": "ana@example.com"}


def test_anthropic_request():
    data = load("anthropic_request.json")
    assert detect(data) == "anthropic"
    sample = import_conversation(data)
    assert roles(sample.messages) == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
    ]
    assert sample.messages[2].content == "Let me check availability."  # thinking skipped
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["check_availability", "reserve", "send_confirmation_email"]
    assert calls[0].result == "09:30\n11:00"
    assert calls[2].is_error and calls[2].result == "SMTP timeout"
    assert not calls[1].is_error
    assert sample.messages[7] == UserMessage("Did the email go out?")


def test_anthropic_response_object():
    data = load("anthropic_response.json")
    assert detect(data) == "anthropic"
    (msg,) = import_messages(data)
    assert msg.content == "I'll convert that for you."
    assert msg.tool_calls[0].args == {"amount": 120, "from": "USD", "to": "JPY"}
    assert msg.tool_calls[0].id == "toolu_01T1x"


def test_gemini_camel_case():
    data = load("gemini_request_camel.json")
    assert detect(data) == "gemini"
    sample = import_conversation(data)
    assert roles(sample.messages) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert sample.messages[2].content == ""  # the thought part is not the answer
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["set_light", "set_thermostat"]
    assert calls[0].result == {"brightness": 30} and not calls[0].is_error
    assert calls[1].result == "thermostat offline" and calls[1].is_error


def test_gemini_snake_case_with_ids():
    data = load("gemini_snake.json")
    assert detect(data) == "gemini"
    sample = import_conversation(data)
    assert sample.messages[0] == SystemMessage("You are a library assistant.")
    assert sample.input == "Is 'Dune' available?"
    (call,) = sample.actual_calls()
    assert call.id == "fc-1" and call.args == {"title": "Dune"}
    assert call.result == {"copies": 2, "available": 1}


def test_gemini_response_object():
    data = load("gemini_response.json")
    assert detect(data) == "gemini"
    (msg,) = import_messages(data)
    assert msg.tool_calls[0].args == {"cuisine": "ramen", "near": "Shibuya"}


def test_langchain_messages_to_dict():
    data = load("langchain_messages_to_dict.json")
    assert detect(data) == "langchain"
    sample = import_conversation(data)
    assert roles(sample.messages) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    valid, invalid = sample.actual_calls()
    assert valid.args == {"employee_id": "E-102"} and valid.result.startswith('{"name"')
    assert invalid.name == "get_leave_balance" and invalid.parse_error
    assert invalid.raw_arguments == '{"employee_id": E-102}'
    assert invalid.is_error and invalid.result == "Error: invalid arguments"
    assert sample.final_output() == "Ines has 12 vacation days left."


def test_langchain_dumpd_with_additional_kwargs_fallback():
    data = load("langchain_dumpd.json")
    assert detect(data) == "langchain"
    sample = import_conversation(data)
    first, second = sample.actual_calls()
    assert first.args == {"customer_id": "C-9"} and first.result == "12 Elm St"
    assert second.parse_error and second.is_error and second.result == "bad arguments"
    assert sample.messages[2].name == "get_address"


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
def test_langchain_fixtures_load_in_langchain_itself():
    """The hand-written fixtures are shapes LangChain really reads."""
    from langchain_core.load import load as lc_load
    from langchain_core.messages import messages_from_dict

    objects = messages_from_dict(load("langchain_messages_to_dict.json"))
    assert objects[2].tool_calls[0]["name"] == "get_employee"
    loaded = [lc_load(d, allowed_objects="messages") for d in load("langchain_dumpd.json")]
    assert loaded[3].status == "error"


def test_langchain_live_objects():
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.messages import ToolMessage as LcToolMessage

    live = [
        HumanMessage("convert 3 miles"),
        AIMessage("", tool_calls=[{"name": "convert", "args": {"miles": 3}, "id": "t1"}]),
        LcToolMessage("4.83 km", tool_call_id="t1", status="error"),
    ]
    assert detect(live) == "langchain"
    assert detect(live[1]) == "langchain"
    (call,) = import_conversation(live).actual_calls()
    assert call.args == {"miles": 3} and call.result == "4.83 km" and call.is_error
    assert detect({"messages": live}) == "langchain"  # a LangGraph state


def test_mcp_session():
    data = load("mcp_session.json")
    assert detect(data) == "mcp"
    sample = import_conversation(data)
    assert roles(sample.messages) == [
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert sample.input == ""
    calls = sample.actual_calls()
    assert [c.name for c in calls] == ["search_files", "read_file", "get_stats", "delete_file"]
    assert [c.id for c in calls] == ["2", "3", "req-4", "5"]
    assert calls[0].result == "pyproject.toml\nruff.toml" and not calls[0].is_error
    assert calls[1].is_error
    assert calls[2].result == {"files": 42}  # structuredContent wins
    assert calls[3].is_error and calls[3].result == "Unknown tool: delete_file"


def test_ragas_sample():
    data = load("ragas_sample.json")
    assert detect(data) == "ragas"
    sample = import_conversation(data)
    assert sample.input == "What's the weather like in New York right now?"
    assert sample.expected_tools.names == ["weather_check", "temperature_conversion"]
    assert sample.expected_tools[1].args == {"temperature_fahrenheit": 75}
    assert sample.reference.startswith("About 23.9")
    assert sample.reference_topics == ["weather", "unit conversion"]
    assert sample.metadata["rubrics"]["score1_description"] == "wrong city"
    calls = sample.actual_calls()
    assert [c.result for c in calls] == ["75F, partly cloudy", "75F is approximately 23.9C"]


def test_ragas_live_sample_object():
    from ragas.dataset_schema import MultiTurnSample

    live = MultiTurnSample.model_validate(load("ragas_sample.json"))
    assert detect(live) == "ragas"
    assert import_conversation(live).expected_tools.names == [
        "weather_check",
        "temperature_conversion",
    ]


def test_ragas_class_name_types():
    data = [
        {"type": "HumanMessage", "content": "search python"},
        {
            "type": "AIMessage",
            "content": "",
            "tool_calls": [{"name": "search", "args": {"q": "py"}}],
        },
    ]
    assert detect(data) == "ragas"
    assert import_messages(data)[1].tool_calls[0].args == {"q": "py"}


@pytest.mark.parametrize("shared_case", range(3), ids=lambda i: f"case{i}")
def test_shared_ragas_fixture_cases_import(shared_data, shared_case):
    import json

    cases = json.loads((shared_data / "unit_fixtures" / "ragas_tool_call_cases.json").read_text())
    case = cases[shared_case]
    sample = import_conversation(
        {"user_input": case["user_input"], "reference_tool_calls": case["reference_tool_calls"]}
    )
    expected_names = [c["name"] for c in case["reference_tool_calls"]]
    assert sample.expected_tools.names == expected_names
    actual = [c["name"] for m in case["user_input"] for c in m.get("tool_calls") or []]
    assert [c.name for c in sample.actual_calls()] == actual
