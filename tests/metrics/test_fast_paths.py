"""Metric results do not depend on the remaining shortcuts, nor on binding the metric once.

Every result (score, reason, diagnosis, params) computed with the shortcuts
on is compared with the same computation with them switched off: the
disjoint-assignment shortcut (an assignment algorithm's trivial case, not a
scoring rule) and plain JSON values kept by reference in diagnoses instead
of copied. The scoring rules themselves exist once (no restated fast paths).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.errors import ConfigError
from tooleval.matching import alignment, assignment, config, json_values
from tooleval.metrics.registry import BoundMetric, bind, get_metric, score_sample
from tooleval.model import ExpectedTools, Sample, ToolCall

NAN = float("nan")
leaf = st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, None, "1", "x", " X", NAN, 2.5])
values = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["p", "q"]), inner, max_size=2)
    ),
    max_leaves=4,
)
arguments = st.dictionaries(st.sampled_from(["k1", "k2", "city"]), values, max_size=3)
names = st.sampled_from(["a", "b", "c"])


@st.composite
def samples(draw):
    expected = draw(
        st.lists(st.builds(ToolCall, names, st.one_of(st.none(), arguments)), max_size=4)
    )
    how = draw(st.sampled_from(["copy", "swap", "touch", "random"]))
    actual = [ToolCall(c.name, dict(c.args or {})) for c in expected]
    if how == "swap" and len(actual) > 1:
        actual[0], actual[-1] = actual[-1], actual[0]
    elif how == "touch" and actual:
        actual[-1] = ToolCall(actual[-1].name, draw(arguments))
    elif how == "random":
        actual = draw(st.lists(st.builds(ToolCall, names, arguments), max_size=4))
    if draw(st.booleans()):
        actual.append(ToolCall.parse(draw(names), "{not json"))
    n = len(expected)
    before = draw(st.sampled_from([None, (), "forward", "backward"]))
    if before == "forward":
        before = tuple((i, i + 2) for i in range(n - 2))
    elif before == "backward":
        before = ((n - 1, 0),) if n > 1 else None
    return Sample(tools_called=actual, expected_tools=ExpectedTools(tuple(expected), before))


VARIANTS = [
    ("tool_call_accuracy", {}),
    ("tool_call_accuracy", {"order": "flexible"}),
    ("tool_call_accuracy", {"args": "normalized"}),
    ("tool_call_f1", {}),
    ("tool_correctness", {}),
    ("tool_correctness", {"order": "strict"}),
    ("tool_correctness", {"argument_keys": ["k1", "city"], "exact_match": True}),
    ("tool_correctness", {"extra_keys": "ignore", "extra_calls": "ignore"}),
    ("trajectory_match", {}),
    ("trajectory_match", {"coverage": "superset"}),
]


def as_text(result) -> str:
    # NaN argument values survive as the token NaN, so equal texts mean equal results.
    return json.dumps(result.to_dict(), sort_keys=False)


def without_shortcuts():
    patch = pytest.MonkeyPatch()
    patch.setattr(assignment, "_disjoint_positive", lambda weights: None)
    # Diagnoses copy every value again instead of keeping plain JSON by reference.
    patch.setattr(config, "stored", json_values.json_safe)
    patch.setattr(alignment, "stored", json_values.json_safe)
    return patch


@settings(max_examples=150, deadline=None)
@given(samples())
def test_results_equal_with_and_without_fast_paths(sample):
    fast = [as_text(score_sample(name, sample, **params)) for name, params in VARIANTS]
    patch = without_shortcuts()
    try:
        slow = [as_text(score_sample(name, sample, **params)) for name, params in VARIANTS]
    finally:
        patch.undo()
    assert fast == slow


@settings(max_examples=100, deadline=None)
@given(samples())
def test_bound_metric_scores_like_score_sample(sample):
    for name, params in VARIANTS:
        bound = bind(name, **params)
        assert as_text(bound.score(sample)) == as_text(score_sample(name, sample, **params))


def test_bind_validates_once_and_records_every_param():
    bound = bind("tool_correctness", order="strict")
    assert isinstance(bound, BoundMetric) and bound.name == "tool_correctness"
    assert set(bound.params) == set(get_metric("tool_correctness").params)
    sample = Sample(tools_called=["a", "b"], expected_tools=["b", "a"])
    result = bound.score(sample)
    assert result.params["order"] == "strict" and result.params["args"] == "exact"
    assert result.score == 0.5
    with pytest.raises(ConfigError) as info:
        bind("tool_correctness", check_order=True)
    assert info.value.field == "check_order"
    with pytest.raises(ConfigError):
        bind("tool_call_accuracy", order="sideways")
    with pytest.raises(ConfigError):
        bound.score({"tools_called": []})  # not a Sample


def test_a_bad_args_spec_is_refused_when_bound_not_per_row():
    sample = Sample(tools_called=["a"], expected_tools=["a"])
    with pytest.raises(ConfigError) as bound_error:
        bind("tool_call_f1", args="no_such_matcher")
    with pytest.raises(ConfigError) as direct_error:
        score_sample("tool_call_f1", sample, args="no_such_matcher")
    assert str(bound_error.value) == str(direct_error.value)
    assert bound_error.value.field == direct_error.value.field == "args"
