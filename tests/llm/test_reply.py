"""Reply parsing: forgiving about form, strict about content."""

from __future__ import annotations

import pytest

from tooleval.judged.prompts import TOOLS_ERROR_SCHEMA, TOPIC_VERDICT_SCHEMA
from tooleval.llm import JudgeReply, check_schema, extract_json_object, parse_json_reply

FLAG = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "why": {"type": "string"}},
    "required": ["ok", "why"],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"ok": true, "why": "x"}',
        'Here you go:\n```json\n{"ok": true, "why": "x"}\n```',
        'prefix {"ok": "yes", "why": "x"} suffix',
        '```\n{"ok": "TRUE", "why": "x"}\n```',
    ],
)
def test_forms_that_parse(text):
    assert parse_json_reply(text, FLAG) == ({"ok": True, "why": "x"}, None)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("no json here", "no JSON object found in the reply"),
        (
            '{"ok": true, "why": "cut',
            "the JSON object is never closed (reply cut off or malformed)",
        ),
        ('{"ok": true}', "$: missing key 'why'"),
        ('{"ok": "perhaps", "why": "x"}', "$.ok: expected true or false, got 'perhaps'"),
        ('{"ok": true, "why": null}', "$.why: expected a string, got null"),
        ("[1, 2]", "no JSON object found in the reply"),
    ],
)
def test_forms_that_fail_say_why(text, error):
    assert parse_json_reply(text, FLAG) == (None, error)


def test_no_schema_returns_any_object():
    assert parse_json_reply('x {"a": 1} y', None) == ({"a": 1}, None)


def test_nested_braces_inside_strings():
    assert extract_json_object('{"a": "}{", "b": {"c": 1}}') == {"a": "}{", "b": {"c": 1}}


def test_enum_values_are_normalised_but_unknown_ones_fail():
    reply = {
        "calls": [{"call": "#1", "errors": [{"category": "Parameter Error", "evidence": "e"}]}]
    }
    value, error = check_schema(reply, TOOLS_ERROR_SCHEMA)
    assert error is None
    assert value["calls"][0] == {
        "call": 1,
        "errors": [{"category": "parameter_error", "evidence": "e"}],
    }
    bad = {"calls": [{"call": 1, "errors": [{"category": "typo", "evidence": "e"}]}]}
    assert "expected one of" in check_schema(bad, TOOLS_ERROR_SCHEMA)[1]


def test_nested_error_paths_name_the_item():
    reply = {"verdicts": [{"subject": 1, "answered": True, "on_topic": True}, {"subject": 2}]}
    assert check_schema(reply, TOPIC_VERDICT_SCHEMA)[1] == "$.verdicts[1]: missing key 'answered'"


def test_integer_and_number_coercion():
    assert check_schema("7", {"type": "integer"}) == (7, None)
    assert check_schema(2.0, {"type": "integer"}) == (2, None)
    assert check_schema(True, {"type": "integer"})[1] is not None
    assert check_schema("0.5", {"type": "number"}) == (0.5, None)
    assert check_schema("x", {"type": "number"})[1] == "$: expected a number, got 'x'"


def test_reply_round_trips_through_dict():
    reply = JudgeReply(text="t", parsed={"a": 1}, tokens_in=3, tokens_out=4, model="m")
    assert JudgeReply.from_dict(reply.to_dict()) == reply
