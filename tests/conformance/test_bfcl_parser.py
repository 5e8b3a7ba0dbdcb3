"""The Python-call parser and BFCL result decoding."""

from __future__ import annotations

import pytest

from tooleval.errors import FormatError
from tooleval.formats.bfcl import (
    category_from_filename,
    decode_result,
    expected_from_ground_truth,
    function_names_match,
    parse_python_calls,
)
from tooleval.matching.any_of import AnyOf


def test_nested_lists_and_dicts():
    (call,) = parse_python_calls("[f(points=[[1, 2], [3, 4]], opts={'a': {'b': [True, None]}})]")
    assert call.args == {"points": [[1, 2], [3, 4]], "opts": {"a": {"b": [True, None]}}}


def test_negative_and_signed_numbers():
    (call,) = parse_python_calls("f(a=-1, b=-2.5, c=+3, d=1e-3)")
    assert call.args == {"a": -1, "b": -2.5, "c": 3, "d": 0.001}


def test_tuples_stay_tuples_and_sets_become_lists():
    (call,) = parse_python_calls("f(t=(1, 2), s={3})")
    assert call.args == {"t": (1, 2), "s": [3]}


def test_several_calls_dotted_names_and_wrappers():
    calls = parse_python_calls("```python\n[math.factorial(number=5), g(x='y')]\n```")
    assert [c.name for c in calls] == ["math.factorial", "g"]
    assert parse_python_calls("f(a=1), g(b=2)")[1].args == {"b": 2}
    assert parse_python_calls("'[f(a=1)]'")[0].args == {"a": 1}
    assert parse_python_calls("[]") == []


def test_keyword_only():
    with pytest.raises(FormatError, match="positional argument '5' is not accepted"):
        parse_python_calls("f(5)")
    with pytest.raises(FormatError, match="'\\*\\*' unpacking"):
        parse_python_calls("f(**kw)")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f(x=y)", "Name"),
        ("f(x=1 + 2)", "BinOp"),
        ("f(x=os.system('rm -rf /'))", "Call"),
        ("f(x=a.b)", "Attribute"),
        ("f(x=lambda: 1)", "Lambda"),
        ("f(x=[i for i in range(3)])", "ListComp"),
        ("f(x=...)", "Constant"),
    ],
)
def test_rejects_non_literal_code(text, fragment):
    with pytest.raises(FormatError) as info:
        parse_python_calls(text)
    message = str(info.value)
    assert "only literal values are accepted" in message
    assert fragment in message
    assert "f.x" in message  # names the call and argument


def test_rejects_non_calls_and_bad_syntax():
    with pytest.raises(FormatError, match="expected a function call"):
        parse_python_calls("[f(a=1), 3]")
    with pytest.raises(FormatError, match="not a Python call list"):
        parse_python_calls("I cannot help with that.")
    with pytest.raises(FormatError, match="dotted"):
        parse_python_calls("f()(a=1)")


def test_decode_function_calling_results():
    calls = decode_result([{"f": '{"a": 1}'}, {"g": {"b": "x"}}, {"h": ""}])
    assert [(c.name, c.args) for c in calls] == [("f", {"a": 1}), ("g", {"b": "x"}), ("h", {})]
    assert decode_result([]) == []
    assert decode_result("") == []


@pytest.mark.parametrize(
    "result",
    [[{"f": "{not json"}], [{"f": "[1]"}], [{}], [{"a": "{}", "b": "{}"}], ["f"], 42],
)
def test_undecodable_results_raise_format_error(result):
    with pytest.raises(FormatError):
        decode_result(result)


def test_ground_truth_to_any_of():
    expected = expected_from_ground_truth(
        [{"f": {"unit": ["cm", ""], "xs": [[1.0, 3.0]], "d": [{"k": ["v"]}]}}]
    )
    args = expected.calls[0].args
    assert args["unit"] == AnyOf(["cm"], optional=True)
    assert args["xs"].values == ([1.0, 3.0],)
    assert args["d"].values == ({"k": ["v"]},)
    assert expected.before == ()
    with pytest.raises(FormatError, match="list of acceptable values"):
        expected_from_ground_truth([{"f": {"a": 1}}])


def test_name_normalisation():
    assert function_names_match("math.factorial", "math_factorial")
    assert function_names_match("math.factorial", "math.factorial")
    assert function_names_match("a.b.c", "a_b_c")
    assert not function_names_match("math_factorial", "math.factorial")
    assert not function_names_match("math.factorial", "factorial")


def test_category_from_filename():
    assert category_from_filename("BFCL_v4_parallel_multiple_result.json") == "parallel_multiple"
    assert category_from_filename("BFCL_v3_simple_result.json") == "simple"
    assert category_from_filename("notes.json") is None
