"""JSONPath mapping: extraction, explain_path and every error message."""

from __future__ import annotations

import pytest

from tooleval.connectors.paths import (
    ResponseMapping,
    call_from_object,
    explain_path,
    objects_instead_of_names,
)
from tooleval.errors import ConfigError, ConnectorError

DOC = {
    "output": "Order 4471 cancelled.",
    "steps": [
        {"type": "message", "content": "looking"},
        {"type": "tool_call", "tool": {"name": "lookup_order", "args": {"id": "4471"}}},
        {"type": "tool_call", "tool": {"name": "get_shipping_eta", "args": {}}},
    ],
}
NAMES = "$.steps[?(@.type=='tool_call')].tool.name"


def test_reference_example_resolves_to_names() -> None:
    found = explain_path(NAMES, DOC)
    assert found.ok and found.values == ["lookup_order", "get_shipping_eta"]


def test_missing_key_reports_longest_matching_prefix_and_keys() -> None:
    found = explain_path("$.steps[?(@.type=='tool_call')].function.name", DOC)
    assert found.verdict == "no_match"
    assert found.matched_prefix == "$['steps'][?@['type'] == 'tool_call']"
    assert found.prefix_count == 2
    assert found.failed_segment == "['function']"
    assert found.available_keys == ["tool", "type"]
    assert "matched 2 values (dict), but ['function'] did not" in found.message
    assert "keys ['tool', 'type']" in found.message


def test_missing_key_suggests_close_name() -> None:
    found = explain_path("$.step[*].tool.name", DOC)
    assert found.matched_prefix == "$"
    assert "did you mean 'steps'?" in found.message


def test_filter_selecting_nothing_is_empty_not_an_error() -> None:
    doc = {"steps": [{"type": "message", "content": "I can't help with that"}]}
    found = explain_path(NAMES, doc)
    assert found.verdict == "empty"
    assert "selected none of them" in found.message
    mapping = ResponseMapping(tools_called=NAMES)
    extracted = mapping.extract(doc)
    assert extracted.tools_called == []
    assert extracted.warnings == (
        "tools_called: $['steps'] matched 1 value (list), and "
        "[?@['type'] == 'tool_call'] selected none of them (read as: no tools called)",
    )


def test_empty_document_is_no_content() -> None:
    assert explain_path(NAMES, {}).verdict == "no_content"
    assert explain_path(NAMES, None).verdict == "no_content"
    with pytest.raises(ConnectorError, match="response is empty"):
        ResponseMapping(tools_called=NAMES).extract({})


def test_lists_without_selector_hint() -> None:
    found = explain_path("$.steps.tool", DOC)
    assert found.verdict == "no_match"
    assert "select items first" in found.message


def test_objects_instead_of_names_is_an_error_with_suggestion() -> None:
    mapping = ResponseMapping(tools_called="$.steps[?(@.type=='tool_call')].tool")
    with pytest.raises(ConnectorError) as info:
        mapping.extract(DOC)
    message = str(info.value)
    assert "tools_called path resolved to objects with keys ['args', 'name']" in message
    assert "e.g. $.steps[?(@.type=='tool_call')].tool.name" in message
    assert "response.tool_calls" in message
    assert info.value.field == "connector.response.tools_called"


def test_objects_nested_function_suggestion() -> None:
    message = objects_instead_of_names("$.calls[*]", [{"function": {"name": "f"}, "id": "1"}])
    assert "e.g. $.calls[*].function.name" in message
    assert objects_instead_of_names("$.x", ["a", "b"]) is None


def test_non_string_names_rejected() -> None:
    with pytest.raises(ConnectorError, match="must resolve to tool names .strings., got int"):
        ResponseMapping(tools_called="$.ids").extract({"ids": [1, 2]})


def test_single_list_value_is_flattened_and_null_means_no_calls() -> None:
    mapping = ResponseMapping(tools_called="$.tools")
    assert [c.name for c in mapping.extract({"tools": ["a", "b"]}).tools_called] == ["a", "b"]
    assert mapping.extract({"tools": None}).tools_called == []
    assert mapping.extract({"tools": []}).tools_called == []


def test_missing_key_raises_unless_missing_is_empty() -> None:
    with pytest.raises(ConnectorError, match=r"tools_called path .* matched nothing"):
        ResponseMapping(tools_called="$.tools").extract({"output": "x"})
    lenient = ResponseMapping(tools_called="$.tools", missing_is_empty=True)
    assert lenient.extract({"output": "x"}).tools_called == []


def test_full_tool_calls_with_json_string_args() -> None:
    doc = {
        "tool_calls": [
            {"name": "cancel_order", "arguments": '{"order_id": "4471"}'},
            {"function": {"name": "notify", "arguments": "{bad"}, "id": "c2"},
            {"tool_name": "log", "input": {"level": "info"}},
        ]
    }
    calls = ResponseMapping(tools_called="$.ignored", tool_calls="$.tool_calls").extract(doc)
    first, second, third = calls.tools_called
    assert (first.name, first.args) == ("cancel_order", {"order_id": "4471"})
    assert second.name == "notify" and second.id == "c2" and second.parse_error
    assert (third.name, third.args) == ("log", {"level": "info"})


def test_call_object_without_name() -> None:
    with pytest.raises(ConnectorError, match=r"has no name .*keys are \['args'\]"):
        call_from_object({"args": {}})
    with pytest.raises(ConnectorError, match="expected a tool call object"):
        call_from_object(42)


def test_output_joins_and_serialises() -> None:
    assert ResponseMapping(output="$.a").extract({"a": {"x": 1}}).output == '{"x": 1}'
    assert ResponseMapping(output="$.m[*]").extract({"m": ["a", "b"]}).output == "a\nb"
    missing = ResponseMapping(output="$.answer").extract({"output": "x"})
    assert missing.output is None and "output:" in missing.warnings[0]


@pytest.mark.parametrize(
    ("config", "field", "text"),
    [
        (
            {"tools_called": "$.steps[?(@.type=="},
            "connector.response.tools_called",
            "invalid JSONPath",
        ),
        ({"output": ""}, "connector.response.output", "expected a JSONPath string"),
        ({"output": 3}, "connector.response.output", "expected a JSONPath string, got int"),
        ({"tool_called": "$.x"}, "connector.response.tool_called", "did you mean 'tools_called'"),
    ],
)
def test_invalid_mapping_config_names_field(config: dict, field: str, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        ResponseMapping.from_config(config)
    assert info.value.field == field
    assert text in str(info.value)


def test_union_and_recursive_paths() -> None:
    assert explain_path("$.a | $.b", {"b": ["x"]}).values == [["x"]]
    union = explain_path("$.a | $.b", {"c": 1})
    assert union.verdict == "no_match" and "matched nothing" in union.message
    found = explain_path("$..tool.name", DOC)
    assert found.values == ["lookup_order", "get_shipping_eta"]
    missing = explain_path("$..function.name", DOC)
    assert missing.verdict == "no_match" and missing.failed_segment == "..['function']"
