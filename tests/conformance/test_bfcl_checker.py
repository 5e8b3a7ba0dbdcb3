"""bfcl_ast rules, one per error type, on hand-made cases."""

from __future__ import annotations

import pytest

from tooleval.benchmarks.bfcl.checker import check_answer, standardize_string
from tooleval.benchmarks.bfcl.literals import java_value, js_value
from tooleval.benchmarks.bfcl.metric import bfcl_ast, bfcl_category_kind, bfcl_language
from tooleval.benchmarks.bfcl.reader import sample_from_entry
from tooleval.errors import ConfigError
from tooleval.model import Sample, ToolCall

SCHEMA = {
    "name": "geo.route",
    "parameters": {
        "type": "dict",
        "required": ["start", "points"],
        "properties": {
            "start": {"type": "string"},
            "points": {"type": "array", "items": {"type": "float"}},
            "speed": {"type": "float"},
            "mode": {"type": "string"},
            "opts": {"type": "dict"},
            "legs": {"type": "array", "items": {"type": "dict"}},
            "loop": {"type": "boolean"},
        },
    },
}
ANSWER = {
    "geo.route": {
        "start": ["New York, NY", "NYC"],
        "points": [[1.0, 3.0]],
        "speed": [2.0, ""],
        "mode": ["car", ""],
        "opts": [{"avoid": ["tolls"], "units": ["km", ""]}, ""],
        "legs": [[{"to": ["Boston"]}], ""],
        "loop": [False, ""],
    }
}


def verdict(args, *, name="geo_route", category="simple_python"):
    sample = sample_from_entry(
        {"id": "t_0", "function": [SCHEMA], "question": [[{"role": "user", "content": "go"}]]},
        {"id": "t_0", "ground_truth": [ANSWER]},
        {"id": "t_0", "result": [{name: args}]},
        category=category,
    )
    return bfcl_ast(sample)


def error_of(args, **kw):
    result = verdict(args, **kw)
    return None if result.passed else result.diagnosis.details["error"]


BASE = {"start": "NYC", "points": [1.0, 3.0]}


def test_pass_with_normalised_string_and_dotted_or_underscored_name():
    assert verdict({"start": "new york ny", "points": [1.0, 3.0]}).passed
    assert verdict(BASE, name="geo.route").passed
    assert verdict(BASE).score == 1.0


def test_wrong_func_name():
    assert error_of(BASE, name="route") == "wrong_func_name"


def test_missing_required():
    assert error_of({"start": "NYC"}) == "missing_required"


def test_unexpected_param():
    assert error_of({**BASE, "colour": "red"}) == "unexpected_param"


def test_type_errors():
    assert error_of({**BASE, "loop": "no"}) == "type_error"
    assert error_of({**BASE, "loop": 0}) == "type_error"  # bool is not int
    # int accepted for float at the top level only
    assert error_of({**BASE, "speed": 2}) is None
    result = verdict({"start": "NYC", "points": [1, 3]})
    assert result.diagnosis.details["bfcl_error_type"] == "type_error:nested"


def test_value_errors_by_kind():
    cases = {
        "value_error:string": {**BASE, "start": "Boston"},
        "value_error:list/tuple": {"start": "NYC", "points": [3.0, 1.0]},
        "value_error:dict_value": {**BASE, "opts": {"avoid": "ferries"}},
        "value_error:dict_key": {**BASE, "opts": {"avoid": "tolls", "fast": True}},
        "value_error:list_dict_count": {**BASE, "legs": [{"to": "Boston"}, {"to": "NYC"}]},
        "value_error:others": {**BASE, "speed": 3.5},
    }
    for label, args in cases.items():
        result = verdict(args)
        assert result.diagnosis.details["error"] == "value_error", label
        assert result.diagnosis.details["bfcl_error_type"] == label
    assert verdict({**BASE, "opts": {"avoid": "Tolls"}, "legs": [{"to": "boston"}]}).passed


def test_missing_optional_vs_really_optional():
    answer_without_blank = {"geo.route": {**ANSWER["geo.route"], "mode": ["car"]}}
    sample = sample_from_entry(
        {"id": "t_1", "function": [SCHEMA]},
        {"id": "t_1", "ground_truth": [answer_without_blank]},
        {"id": "t_1", "result": [{"geo_route": BASE}]},
        category="simple_python",
    )
    assert bfcl_ast(sample).diagnosis.details["error"] == "missing_optional"
    assert verdict(BASE).passed  # every other parameter is marked with ""


def test_empty_list_accepted_for_optional_list_param():
    assert verdict({**BASE, "legs": []}).passed


def test_wrong_count_and_decode_error():
    sample = sample_from_entry(
        {"id": "t_2", "function": [SCHEMA]},
        {"id": "t_2", "ground_truth": [ANSWER]},
        {"id": "t_2", "result": [{"geo_route": BASE}, {"geo_route": BASE}]},
        category="simple_python",
    )
    assert bfcl_ast(sample).diagnosis.details["error"] == "wrong_count"
    broken = sample_from_entry(
        {"id": "t_3", "function": [SCHEMA]},
        {"id": "t_3", "ground_truth": [ANSWER]},
        {"id": "t_3", "result": [{"geo_route": "{oops"}]},
        category="simple_python",
    )
    result = bfcl_ast(broken)
    assert result.diagnosis.details["error"] == "decode_error"
    assert "invalid JSON" in result.reason


def _call(name, **args):
    return ToolCall(name, args)


def _parallel_case():
    schema = [
        {
            "name": "f",
            "parameters": {"required": ["x"], "properties": {"x": {"type": "integer"}}},
        }
    ]
    from tooleval.benchmarks.bfcl.reader import expected_from_ground_truth

    # expected 0 accepts x=1 or 2; expected 1 accepts only x=1
    expected = expected_from_ground_truth([{"f": {"x": [1, 2]}}, {"f": {"x": [1]}}]).calls
    return schema, expected


def test_parallel_is_order_free_and_counts_must_match():
    schema, expected = _parallel_case()
    ok = check_answer("parallel", schema, expected, [_call("f", x=2), _call("f", x=1)])
    assert ok.passed
    assert check_answer("parallel", schema, expected, [_call("f", x=1)]).error == "wrong_count"
    duplicated = check_answer("parallel", schema, expected, [_call("f", x=2), _call("f", x=2)])
    assert duplicated.error == "no_match"


def test_greedy_versus_optimal_assignment():
    schema, expected = _parallel_case()
    actual = [_call("f", x=1), _call("f", x=2)]
    # expected 0 grabs x=1 first under greedy; then expected 1 has nothing left
    assert not check_answer("parallel", schema, expected, actual, assignment="greedy").passed
    assert check_answer("parallel", schema, expected, actual, assignment="optimal").passed


def test_irrelevance_and_relevance():
    none = Sample(tools_called=[], category="live_irrelevance")
    some = Sample(tools_called=[ToolCall("f", {})], category="live_irrelevance")
    assert bfcl_ast(none).passed and not bfcl_ast(some).passed
    assert bfcl_ast(some).diagnosis.details["error"] == "unexpected_call"
    assert bfcl_ast(some, category="live_relevance").passed
    assert bfcl_ast(none, category="live_relevance").diagnosis.details["error"] == "no_call"
    undecodable = Sample(tools_called=[ToolCall.parse("f", "{bad")], category="irrelevance")
    assert bfcl_ast(undecodable).passed  # BFCL: no decodable call is "no call"


def test_unscored_cases_and_bad_params():
    assert bfcl_ast(Sample(tools_called=[])).score is None
    no_expected = Sample(tools_called=[], category="simple_python")
    assert "no expected calls" in bfcl_ast(no_expected).reason
    no_schema = Sample(tools_called=[], expected_tools=["f"], category="multiple")
    assert "function schemas" in bfcl_ast(no_schema).reason
    with pytest.raises(ConfigError):
        bfcl_ast(no_schema, assignment="best")


def test_category_kinds_and_languages():
    assert bfcl_category_kind("live_multiple") == "multiple"
    assert bfcl_category_kind("parallel") == "parallel"
    assert bfcl_category_kind("irrelevance") == "irrelevance"
    assert bfcl_category_kind("simple_python") == "simple"
    assert bfcl_language("simple_javascript") == "javascript"
    assert bfcl_language("simple_java") == "java"
    assert bfcl_language("live_simple") == "python"


def test_standardize_string():
    assert standardize_string("April 1, 2024") == "april12024"
    assert standardize_string("it's") == 'it"s'


def test_java_conversion():
    assert java_value("42", "integer") == 42
    assert java_value("42L", "long") == 42
    assert java_value("42", "long") == "42"  # a long literal needs its L
    assert java_value("1.5f", "float") == 1.5
    assert java_value("1.5", "double") == 1.5
    assert java_value("true", "boolean") is True
    assert java_value("new int[]{2, 7, 11}", "Array", "integer") == [2, 7, 11]
    assert java_value('new String[]{"a", "b"}', "Array", "String") == ['"a"', '"b"']
    assert java_value('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String") == [
        "a",
        "b",
    ]
    assert java_value("new ArrayList<Integer>() {{ add(1); add(2); }}", "ArrayList", "integer") == [
        1,
        2,
    ]
    assert java_value("new ArrayList<>()", "ArrayList") == []
    assert java_value(
        'new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); put("b", true); }}',
        "HashMap",
    ) == {"k": 1, "s": "v", "b": True}
    assert java_value("new HashMap<>()", "HashMap") == {}
    assert java_value("someMap", "HashMap") == "someMap"


def test_js_conversion():
    assert js_value("'abc'", "String") == "abc"
    assert js_value("abc", "String") == "abc"
    assert js_value("5", "integer") == 5
    assert js_value("5n", "Bigint") == 5
    assert js_value("2.5", "float") == 2.5
    assert js_value("false", "Boolean") is False
    assert js_value("[1, 2]", "array", "integer") == [1, 2]
    assert js_value("['a', 'b']", "array", "String") == ["a", "b"]
    assert js_value("new Array(1, 'x', true)", "array") == [1, "x", True]
    assert js_value("[[1, 2], [3, 4]]", "array", "array") == [[1, 2], [3, 4]]
    assert js_value("{'a': 1, 'b': 'x', 'c': [1, 2]}", "dict") == {"a": 1, "b": "x", "c": [1, 2]}
    assert js_value("{}", "dict") == {}


def test_java_values_must_arrive_as_text():
    schema = {
        "name": "C.m",
        "parameters": {"required": ["flag"], "properties": {"flag": {"type": "boolean"}}},
    }

    def run(value):
        sample = sample_from_entry(
            {"id": "simple_java_0", "function": [schema]},
            {"id": "simple_java_0", "ground_truth": [{"C.m": {"flag": [True]}}]},
            {"id": "simple_java_0", "result": [{"C.m": {"flag": value}}]},
        )
        return bfcl_ast(sample)

    assert run("true").passed
    assert run(True).diagnosis.details["bfcl_error_type"] == "type_error:java"
    assert run("yes").diagnosis.details["bfcl_error_type"] == "type_error:simple"
