"""parse_expected_tools / parse_tool_calls: every accepted shape and every error."""

from __future__ import annotations

import json

import pytest

from tooleval.errors import FormatError
from tooleval.formats import call_from_value, parse_expected_tools, parse_tool_calls
from tooleval.model import ExpectedTools, ToolCall

NAMES_ONLY = ExpectedTools((ToolCall("search", None), ToolCall("fetch", None)))


@pytest.mark.parametrize(
    "value",
    [
        ["search", "fetch"],
        ("search", "fetch"),
        "search, fetch",
        "search,fetch",
        " search ,\n fetch ",
        "search\nfetch",
        '["search", "fetch"]',
        '"search, fetch"',  # a JSON-encoded text
        [{"name": "search"}, {"name": "fetch", "args": None}],
        [{"search": None}, "fetch"],
    ],
)
def test_names_only(value):
    assert parse_expected_tools(value) == NAMES_ONLY


@pytest.mark.parametrize("value", [None, "", "   ", float("nan"), "null"])
def test_missing_means_not_bound(value):
    assert parse_expected_tools(value) is None


@pytest.mark.parametrize("value", [[], "[]", " [ ] ", ()])
def test_empty_list_is_a_restraint_row(value):
    parsed = parse_expected_tools(value)
    assert parsed is not None and parsed.calls == () and len(parsed) == 0


WITH_ARGS = ExpectedTools((ToolCall("get_weather", {"city": "Paris"}), ToolCall("get_time", {})))


@pytest.mark.parametrize(
    "value",
    [
        [{"name": "get_weather", "args": {"city": "Paris"}}, {"name": "get_time", "args": {}}],
        [
            {"name": "get_weather", "arguments": {"city": "Paris"}},
            {"name": "get_time", "arguments": "{}"},
        ],
        [{"name": "get_weather", "args": '{"city": "Paris"}'}, {"get_time": {}}],
        [{"get_weather": {"city": "Paris"}}, {"get_time": "{}"}],
        [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {"function": {"name": "get_time", "arguments": {}}},
        ],
        json.dumps([{"get_weather": {"city": "Paris"}}, {"name": "get_time", "args": {}}]),
    ],
)
def test_calls_with_args(value):
    assert parse_expected_tools(value) == WITH_ARGS


def test_names_and_calls_mix():
    parsed = parse_expected_tools(["lookup", {"refund": {"amount": 5}}])
    assert parsed.calls == (ToolCall("lookup", None), ToolCall("refund", {"amount": 5}))
    assert parsed.args_given and parsed.before is None


def test_single_call_object():
    assert parse_expected_tools({"name": "f", "args": {"x": 1}}).calls == (ToolCall("f", {"x": 1}),)
    assert parse_expected_tools({"f": {"x": 1}}).calls == (ToolCall("f", {"x": 1}),)


def test_expected_tools_instance_passes_through():
    assert parse_expected_tools(NAMES_ONLY) is NAMES_ONLY


# ----------------------------------------------------------- partial order

BOOKING = [
    "check_availability",
    "fetch_user_preferences",
    "reserve",
    "capture_payment",
    "send_confirmation_email",
]


def test_order_listed_and_any():
    assert parse_expected_tools({"calls": ["a", "b"]}).before is None
    assert parse_expected_tools({"calls": ["a", "b"], "order": "listed"}).before is None
    assert parse_expected_tools({"calls": ["a", "b"], "order": "any"}).before == ()
    assert parse_expected_tools({"calls": ["a", "b"], "before": []}).before == ()


def test_before_with_names_and_indices():
    parsed = parse_expected_tools(
        {
            "calls": BOOKING,
            "before": [["capture_payment", "send_confirmation_email"], [1, "reserve"]],
        }
    )
    assert parsed.before == ((1, 2), (3, 4))


def test_groups_in_sequence():
    parsed = parse_expected_tools(
        {
            "calls": BOOKING[:3],
            "groups": [["check_availability", "fetch_user_preferences"], ["reserve"]],
        }
    )
    assert parsed.before == ((0, 2), (1, 2))


def test_groups_constrain_every_earlier_group_not_only_neighbours():
    parsed = parse_expected_tools({"calls": ["a", "b", "c"], "groups": [["a"], ["b"], ["c"]]})
    assert parsed.before == ((0, 1), (0, 2), (1, 2))


def test_before_and_groups_combine_and_calls_outside_groups_are_free():
    parsed = parse_expected_tools(
        {"calls": BOOKING, "groups": [[0, 1], [2]], "before": [["capture_payment", 4]]}
    )
    assert parsed.before == ((0, 2), (1, 2), (3, 4))


def test_repeated_names_are_addressed_by_index():
    parsed = parse_expected_tools({"calls": ["search", "search", "buy"], "before": [[1, 2]]})
    assert parsed.before == ((1, 2),)


def test_order_object_round_trips_through_to_dict():
    parsed = parse_expected_tools({"calls": [{"f": {"x": 1}}, "g"], "before": [["g", "f"]]})
    assert parse_expected_tools(parsed.to_dict()) == parsed
    assert parse_expected_tools(json.dumps(parsed.to_dict())) == parsed


# ----------------------------------------------------------- errors

ERRORS = [
    ("search,,fetch", "expected_tools", "empty tool name at position 1"),
    (
        'get_weather(city="Paris")',
        "expected_tools",
        "is not a tool name; write calls with arguments as JSON",
    ),
    ("[search, fetch]", "expected_tools", "looks like JSON but cannot be parsed"),
    (42, "expected_tools", "expected a list of tool names or calls, got a number (42)"),
    ([42], "expected_tools[0]", "expected a tool name or a call object"),
    ([""], "expected_tools[0]", "empty string"),
    ([{"name": ""}], "expected_tools[0].name", "expected a tool name"),
    ([{"name": "f", "args": [1]}], "expected_tools[0].args", "as an object, got a list"),
    ([{"name": "f", "args": "{x}"}], "expected_tools[0].args", "not a JSON object: invalid JSON"),
    (
        [{"name": "f", "args": {}, "arguments": {}}],
        "expected_tools[0]",
        "both 'args' and 'arguments'",
    ),
    ([{"name": "f", "weight": 2}], "expected_tools[0]", "unknown key(s) ['weight']"),
    ([{"f": {}, "g": {}}], "expected_tools[0]", "expected a call as"),
    (
        [{"function": {"arguments": "{}"}}],
        "expected_tools[0].function.name",
        "expected a tool name",
    ),
    ({"calls": ["a"], "order": "sorted"}, "expected_tools.order", "expected 'listed' or 'any'"),
    (
        {"calls": ["a", "b"], "order": "listed", "before": [[0, 1]]},
        "expected_tools.order",
        "contradicts",
    ),
    ({"calls": ["a"], "sort": True}, "expected_tools", "unknown key(s) ['sort']"),
    ({"calls": "a, b"}, "expected_tools.calls", "expected a list of tool names or calls"),
    ({"calls": ["a", "b"], "before": [["a"]]}, "expected_tools.before[0]", "expected a pair"),
    (
        {"calls": ["a", "b"], "before": "a<b"},
        "expected_tools.before",
        "list of [earlier, later] pairs",
    ),
    (
        {"calls": ["a", "b"], "before": [["a", "z"]]},
        "expected_tools.before[0][1]",
        "'z' names no expected call",
    ),
    (
        {"calls": ["a", "a", "b"], "before": [["a", "b"]]},
        "expected_tools.before[0][0]",
        "'a' occurs 2 times",
    ),
    (
        {"calls": ["a", "b"], "before": [[0, 5]]},
        "expected_tools.before[0][1]",
        "index 5 is out of range",
    ),
    (
        {"calls": ["a", "b"], "before": [[True, 1]]},
        "expected_tools.before[0][0]",
        "expected a call index or name",
    ),
    (
        {"calls": ["a", "b"], "before": [["a", "a"]]},
        "expected_tools.before[0]",
        "cannot come before itself",
    ),
    (
        {"calls": ["a", "b"], "before": [["a", "b"], ["b", "a"]]},
        "expected_tools",
        "contradictory order",
    ),
    (
        {"calls": ["a", "b"], "groups": [["a"], ["a", "b"]]},
        "expected_tools.groups[1][0]",
        "already in expected_tools.groups[0]",
    ),
    (
        {"calls": ["a", "b"], "groups": ["a", "b"]},
        "expected_tools.groups[0]",
        "list of call names or indices",
    ),
    ({"calls": ["a", "b"], "groups": {"a": 1}}, "expected_tools.groups", "list of groups"),
]


@pytest.mark.parametrize(("value", "field", "words"), ERRORS)
def test_errors_name_the_field_and_row(value, field, words):
    with pytest.raises(FormatError) as info:
        parse_expected_tools(value, row=8)
    assert info.value.field == field
    assert info.value.row == 8
    assert words in info.value.message


def test_custom_field_name_is_used():
    with pytest.raises(FormatError) as info:
        parse_expected_tools([1], field="reference_tool_calls")
    assert info.value.field == "reference_tool_calls[0]"


# ----------------------------------------------------------- tools_called


def test_tools_called_names_mean_no_arguments():
    assert parse_tool_calls("a, b") == [ToolCall("a", {}), ToolCall("b", {})]
    assert parse_tool_calls([]) == [] and parse_tool_calls(None) is None


def test_tools_called_keep_unparsable_arguments():
    (call,) = parse_tool_calls([{"name": "f", "arguments": "{bad"}])
    assert call.args == {} and call.raw_arguments == "{bad" and call.parse_error


def test_tools_called_read_canonical_call_dicts_back():
    calls = [
        ToolCall("f", {"x": 1}, id="1", result={"ok": True}, is_error=True),
        ToolCall.parse("g", "{oops", id="2"),
    ]
    assert parse_tool_calls([c.to_dict() for c in calls]) == calls


def test_call_from_value_rejects_reserved_single_keys():
    with pytest.raises(FormatError, match="expected a call as"):
        call_from_value({"args": {}}, "x")
