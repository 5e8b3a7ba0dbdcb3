"""BFCL result decoding: Python, Java and JavaScript prompt-style text and function calling."""

from __future__ import annotations

import pytest

from tooleval.benchmarks.bfcl.decode_python import POSITIONAL, BfclDecodeError
from tooleval.benchmarks.bfcl.reader import (
    category_from_filename,
    decode_bfcl,
    decode_result,
    expected_from_ground_truth,
    function_names_match,
    parse_python_calls,
)
from tooleval.errors import ConfigError, FormatError
from tooleval.model import AnyOf


def test_nested_lists_and_dicts():
    (call,) = parse_python_calls("[f(points=[[1, 2], [3, 4]], opts={'a': {'b': [True, None]}})]")
    assert call.args == {"points": [[1, 2], [3, 4]], "opts": {"a": {"b": [True, None]}}}


def test_unary_operators_negate_the_constant_as_bfcl_does():
    (call,) = parse_python_calls("f(a=-1, b=-2.5, c=+3, d=1e-3, e=not True)")
    assert call.args == {"a": -1, "b": -2.5, "c": -3, "d": 0.001, "e": -1}


def test_tuples_stay_tuples_and_sets_fail():
    (call,) = parse_python_calls("f(t=(1, 2))")
    assert call.args == {"t": (1, 2)}
    with pytest.raises(FormatError, match="unsupported value Set"):
        parse_python_calls("f(s={3})")


def test_several_calls_dotted_names_and_wrappers():
    calls = parse_python_calls("```\n[math.factorial(number=5), g(x='y')]\n```")
    assert [c.name for c in calls] == ["math.factorial", "g"]
    assert parse_python_calls("f(a=1), g(b=2)")[1].args == {"b": 2}
    with pytest.raises(FormatError):  # a quoted list becomes a list holding a string
        parse_python_calls("'[f(a=1)]'")
    assert parse_python_calls("[]") == []
    # BFCL keeps the language tag of a fence, which then does not parse
    with pytest.raises(FormatError):
        parse_python_calls("```python\n[f(a=1)]\n```")


def test_bare_names_calls_and_subscripts_are_kept_as_text():
    (call,) = parse_python_calls("[acl_api.AclApi.retrieve(b=b, on=true, v=null, c=g(1), s=xs[0])]")
    assert call.name == "acl_api.AclApi.retrieve"
    assert call.args == {"b": "b", "on": "true", "v": "null", "c": "g(1)", "s": "xs[0]"}


def test_nested_calls_with_keywords_become_dicts():
    (call,) = parse_python_calls("f(x=g(a=1, b=h(c=2)))")
    assert call.args == {"x": {"g": {"a": 1, "b": {"h": {"c": 2}}}}}


def test_positional_arguments_are_dropped_and_star_star_kept_apart():
    assert parse_python_calls("f(5, a=1)")[0].args == {"a": 1}
    assert parse_python_calls("f(**kw)")[0].args == {POSITIONAL: "kw"}


def test_arithmetic_on_literals_is_computed_never_evaluated():
    assert parse_python_calls("f(a=2 ** 3, b='a' + 'b', c=[0] * 2)")[0].args == {
        "a": 8,
        "b": "ab",
        "c": [0, 0],
    }
    for text in ("f(x=os.system('rm') + 1)", "f(x=1/0)", "f(x=9 ** 9 ** 9)", "f(x='a' * 10**9)"):
        with pytest.raises(FormatError):
            parse_python_calls(text)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f(x=a.b)", "Attribute"),
        ("f(x=lambda: 1)", "Lambda"),
        ("f(x=[i for i in range(3)])", "ListComp"),
        ("f(x=f'{y}')", "JoinedStr"),
        ("f(x=1 < 2)", "Compare"),
        ("f(x=-y)", "unary operator on Name"),
        ("f(x={**y})", "'**' in a dict"),
    ],
)
def test_rejects_what_bfcl_rejects(text, fragment):
    with pytest.raises(FormatError, match="decoder_failed") as info:
        parse_python_calls(text)
    assert fragment in str(info.value)


def test_rejects_non_calls_and_bad_syntax():
    with pytest.raises(FormatError, match="list element is not a call"):
        parse_python_calls("[f(a=1), 3]")
    with pytest.raises(FormatError, match="not Python"):
        parse_python_calls("I cannot help with that.")
    assert parse_python_calls("f()(a=1)")[0].name == ""


def test_decode_function_calling_results():
    calls = decode_result([{"f": '{"a": 1}'}, {"g": {"b": "x"}}], mode="fc")
    assert [(c.name, c.args) for c in calls] == [("f", {"a": 1}), ("g", {"b": "x"})]
    assert decode_result([]) == []
    assert decode_result("", mode="fc") == []
    assert decode_result([{"f": "{}", "g": "{}"}], mode="fc")[0].name == "f"  # first name only


@pytest.mark.parametrize(
    ("result", "mode", "label"),
    [
        ([{"f": "{not json"}], "fc", "decoder_failed"),
        ([{"f": ""}], "fc", "decoder_failed"),
        ([{"f": "[1]"}], "fc", "wrong_output_format"),
        ([{}], "fc", "decoder_failed"),
        (["f"], "fc", "decoder_failed"),
        (42, "fc", "decoder_failed"),
        ("[f(a=1)]", "fc", "decoder_failed"),
        ([{"f": "{}"}], "prompt", "decoder_failed"),
    ],
)
def test_undecodable_results_raise_format_error(result, mode, label):
    with pytest.raises(FormatError, match=label):
        decode_result(result, mode=mode)


def test_java_and_javascript_values_stay_source_text():
    java = decode_bfcl(
        '[Db.connect(id=5, name="db1", xs=new int[]{1, 2}, verbose)]',
        mode="prompt",
        language="java",
    )
    assert java == [
        {"Db.connect": {"id": "5", "name": "db1", "xs": "new int[]{1,2}", POSITIONAL: "verbose"}}
    ]
    js = decode_bfcl(
        "[api.get(url='x', n=3, o={a: 1}, true)]", mode="prompt", language="javascript"
    )
    assert js == [{"api.get": {"url": "x", "n": "3", "o": "{a: 1}", POSITIONAL: "true"}}]
    with pytest.raises(BfclDecodeError, match="wrong_output_format|not a list") as info:
        decode_bfcl("[f(a=1), g(b=2)]", mode="prompt", language="javascript")
    assert info.value.error_type == "ast_decoder:decoder_wrong_output_format"
    with pytest.raises(BfclDecodeError, match="syntax error"):
        decode_bfcl("[f(a=1", mode="prompt", language="java")
    with pytest.raises(BfclDecodeError, match="more than once"):
        decode_bfcl("[f(a=1, a=2)]", mode="prompt", language="java")


def test_bad_mode_is_a_config_error():
    with pytest.raises(ConfigError, match="mode must be one of"):
        decode_bfcl([], mode="json")


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
