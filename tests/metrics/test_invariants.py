"""Invariants found broken by differential testing (issue 11), as properties.

* averaged scores are summed exactly: the order of calls or keys never changes a
  score, not even its last bit (so never a threshold verdict);
* an argument list that is not an object is one kind of call however it arrives
  (a Python list, a JSON array in a row, the same array as JSON text), scored,
  never a crash;
* ``tool_call_f1``'s rule for an extra actual argument, and its ``extra_keys``.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.formats import sample_from_row
from tooleval.matching import resolve_comparator
from tooleval.metrics import tool_call_accuracy, tool_call_f1, tool_correctness, trajectory_match
from tooleval.metrics.registry import list_metrics, score_sample
from tooleval.model import Sample, ToolCall

C = ToolCall


def _call_with_accuracy(name: str, hits: int, keys: int) -> tuple[ToolCall, ToolCall]:
    expected = C(name, {f"k{i}": i for i in range(keys)})
    actual = C(name, {f"k{i}": i if i < hits else -1 for i in range(keys)})
    return expected, actual


def test_issue_example_flexible_accuracy_is_order_free():
    fractions = [(3, 4), (2, 5), (1, 5), (3, 4), (2, 5)]
    pairs = [_call_with_accuracy(f"t{i}", h, k) for i, (h, k) in enumerate(fractions)]
    expected = [e for e, _ in pairs]
    actual = [a for _, a in pairs]
    forward = tool_call_accuracy(expected, actual, order="flexible", threshold=0.5)
    backward = tool_call_accuracy(expected[::-1], actual[::-1], order="flexible", threshold=0.5)
    assert forward.score == backward.score == math.fsum(h / k for h, k in fractions) / 5
    assert forward.passed is backward.passed is True


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(1, 7)).map(lambda t: (min(t), t[1])),
        min_size=1,
        max_size=8,
    ),
    st.randoms(use_true_random=False),
)
def test_flexible_accuracy_score_does_not_depend_on_call_order(fractions, rnd):
    pairs = [_call_with_accuracy(f"t{i}", h, k) for i, (h, k) in enumerate(fractions)]
    shuffled = pairs[:]
    rnd.shuffle(shuffled)
    one = tool_call_accuracy([e for e, _ in pairs], [a for _, a in pairs], order="flexible")
    two = tool_call_accuracy([e for e, _ in shuffled], [a for _, a in shuffled], order="flexible")
    assert one.score == two.score


words = st.text(alphabet="abcdefgh ", min_size=0, max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z]{1,6}", fullmatch=True),
        st.tuples(words, words),
        min_size=1,
        max_size=9,
    ),
    st.sampled_from(["similarity", "jaro_winkler", {"similarity": {"min_score": 0.3}}]),
)
def test_similarity_scores_do_not_depend_on_key_order(values, matcher):
    expected = {k: e for k, (e, _) in values.items()}
    actual = {k: a for k, (_, a) in values.items()}
    cmp = resolve_comparator(matcher)
    forward = cmp.score(C("f", expected), C("f", actual))
    backward = cmp.score(
        C("f", dict(reversed(list(expected.items())))), C("f", dict(reversed(list(actual.items()))))
    )
    assert forward == backward
    nested = resolve_comparator({"default": matcher, "keys": {"o.x": matcher}})
    a = nested.score(C("f", {"o": expected}), C("f", {"o": actual}))
    b = nested.score(
        C("f", {"o": dict(reversed(list(expected.items())))}),
        C("f", {"o": dict(reversed(list(actual.items())))}),
    )
    assert a == b


json_arrays = st.lists(st.integers() | st.text(max_size=5) | st.none(), max_size=4)


@settings(max_examples=100, deadline=None)
@given(json_arrays)
def test_list_arguments_are_one_kind_of_call(values):
    direct = C("f", values)
    parsed = C.parse("f", json.dumps(values, ensure_ascii=False))
    assert direct == parsed
    assert direct.args == {} and direct.parse_error == "arguments must be a JSON object, got list"


METRICS = (tool_call_accuracy, tool_call_f1, tool_correctness, trajectory_match)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.__name__)
def test_list_arguments_never_crash_a_metric(metric):
    invalid = C("f", [1, 2])
    valid = C("f", {"a": 1})
    as_expected = metric([invalid], [C("f", {})])
    as_actual = metric([valid], [invalid])
    assert as_expected.score == 0.0 and as_actual.score == 0.0
    assert metric([valid], [C.parse("f", "[1, 2]")]).to_dict() == as_actual.to_dict()


def test_rows_read_a_json_array_and_the_same_array_as_text_alike():
    base = {"expected_tools": [{"name": "f", "args": {"x": 1}}]}
    as_array = sample_from_row({**base, "tools_called": [{"name": "f", "args": [1, 2]}]})
    as_text = sample_from_row({**base, "tools_called": [{"name": "f", "args": "[1, 2]"}]})
    assert as_array.actual_calls() == as_text.actual_calls()
    for info in list_metrics():
        if info.needs_judge or info.name in ("bfcl_ast", "output_contains"):
            continue
        assert (
            score_sample(info.name, as_array).to_dict()
            == score_sample(info.name, as_text).to_dict()
        )


def test_f1_extra_actual_argument_rule():
    expected = [C("search", {"q": "paris"})]
    actual = [C("search", {"q": "paris", "limit": 5})]
    assert tool_call_f1(expected, actual).score == 1.0  # tooleval: extra keys ignored
    ragas_like = tool_call_f1(expected, actual, extra_keys="mismatch")
    assert ragas_like.score == 0.0 and ragas_like.params["extra_keys"] == "mismatch"
    assert (
        score_sample(
            "tool_call_f1",
            Sample(tools_called=actual, expected_tools=expected),
            extra_keys="mismatch",
        ).score
        == 0.0
    )


def test_repeated_identical_calls_pair_one_to_one():
    # DeepEval's unordered mode collapses identical calls (0.5 here); tooleval pairs
    # each expected call with its own actual call (docs/conformance.md).
    twice = [C("search", {"q": "x"}), C("search", {"q": "x"})]
    assert tool_correctness(twice, twice).score == 1.0
    assert tool_correctness(twice[:1], twice).score == 0.5
    assert tool_correctness(twice[:1], twice, extra_calls="ignore").score == 1.0
