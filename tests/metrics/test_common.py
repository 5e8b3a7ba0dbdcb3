"""Invariants every registered deterministic metric must keep.

Each metric needs an entry in ``IDENTICAL``: a sample whose actual behaviour
is exactly the reference (so it must score 1.0). A metric registered without
one fails ``test_every_deterministic_metric_is_covered``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooleval.metrics.registry import list_metrics, score_sample
from tooleval.model import AssistantMessage, ExpectedTools, Sample, ToolCall

C = ToolCall

_CALLS = [
    C("lookup_order", {"order_id": "4471", "filters": {"status": "open", "limit": 5}}),
    C("cancel_order", {"order_id": "4471", "reason": "late", "notify": True}),
    C("issue_refund", {"amount": 30.5, "order_id": "4471", "lines": [1, 2]}),
]

_BFCL_FUNCTIONS = [
    {
        "name": "get_weather",
        "description": "weather for a city",
        "parameters": {
            "type": "dict",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    }
]


def _calls_sample() -> Sample:
    return Sample(
        input="cancel 4471 and refund",
        messages=[AssistantMessage("", tuple(_CALLS)), AssistantMessage("Order 4471 refunded.")],
        expected_tools=ExpectedTools(tuple(_CALLS)),
    )


IDENTICAL: dict[str, Callable[[], Sample]] = {
    "tool_call_accuracy": _calls_sample,
    "tool_call_f1": _calls_sample,
    "tool_correctness": _calls_sample,
    "trajectory_match": _calls_sample,
    "tau2_actions": _calls_sample,
    "output_contains": lambda: Sample(
        output="Order 4471 refunded.", metadata={"output_contains": ["4471", "refunded"]}
    ),
    "tau_bench_actions": lambda: Sample(
        tools_called=[
            C("find_user_id_by_email", {"email": "a@example.com"}),
            C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}),
        ],
        expected_tools=[
            C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
        ],
    ),
    "bfcl_ast": lambda: Sample(
        category="simple",
        metadata={"bfcl": {"functions": _BFCL_FUNCTIONS}},
        expected_tools=[C("get_weather", {"city": ["Paris"], "days": [2]})],
        tools_called=[C("get_weather", {"city": "Paris", "days": 2})],
    ),
}

DETERMINISTIC = sorted(m.name for m in list_metrics() if not m.needs_judge)


def test_every_deterministic_metric_is_covered():
    missing = [name for name in DETERMINISTIC if name not in IDENTICAL]
    assert not missing, f"add these metrics to IDENTICAL in tests/metrics/test_common.py: {missing}"


def _reverse_keys(value):
    if isinstance(value, dict):
        return {k: _reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reverse_keys(v) for v in value]
    return value


def _reordered(call: ToolCall) -> ToolCall:
    return call if call.args is None else C(call.name, _reverse_keys(call.args), id=call.id)


def _with_calls(sample: Sample, calls) -> Sample:
    return Sample(**{**_fields(sample), "tools_called": list(calls), "messages": []})


def _fields(sample: Sample) -> dict:
    return {name: getattr(sample, name) for name in Sample.__dataclass_fields__}


def _check_range(result, name):
    assert result.metric == name
    if result.score is None:
        assert result.passed is None and result.reason
    else:
        assert 0.0 <= result.score <= 1.0 and isinstance(result.passed, bool) and result.reason


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_identical_input_scores_one(name):
    result = score_sample(name, IDENTICAL[name]())
    assert result.score == 1.0, result.reason
    assert result.passed


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_argument_key_order_does_not_matter(name):
    sample = IDENTICAL[name]()
    actual = sample.actual_calls()
    base = score_sample(name, sample)
    flipped = _with_calls(sample, [_reordered(c) for c in actual])
    if sample.expected_tools is not None:
        flipped.expected_tools = ExpectedTools(
            tuple(_reordered(c) for c in sample.expected_tools.calls), sample.expected_tools.before
        )
    assert score_sample(name, flipped).score == base.score
    # and with one argument wrong, the (lower) score is still order-free
    if actual and actual[0].args:
        key = next(iter(actual[0].args))
        wrong = [C(actual[0].name, {**actual[0].args, key: "WRONG"}), *actual[1:]]
        a = score_sample(name, _with_calls(sample, wrong)).score
        b = score_sample(name, _with_calls(sample, [_reordered(c) for c in wrong])).score
        assert a == b


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_scores_stay_in_range_on_perturbed_input(name):
    sample = IDENTICAL[name]()
    actual = sample.actual_calls()
    variants = [
        actual[::-1],
        actual[:1],
        [*actual, *actual],
        [],
        [C("unrelated_tool", {})],
    ]
    for calls in variants:
        _check_range(score_sample(name, _with_calls(sample, calls)), name)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_malformed_input_is_unscored_or_scored_never_a_crash(name):
    sample = IDENTICAL[name]()
    actual = sample.actual_calls()
    bad_call = ToolCall.parse(actual[0].name if actual else "f", '{"order_id": 44')
    assert bad_call.parse_error
    cases = [
        _with_calls(sample, [bad_call, *actual[1:]]),
        _with_calls(sample, [ToolCall.parse("f", "[1, 2]")]),
        Sample(**{**_fields(sample), "expected_tools": None}),
        Sample(**{**_fields(sample), "expected_tools": ExpectedTools(())}),
        Sample(**{**_fields(sample), "output": None, "messages": [], "metadata": {}}),
        Sample(),
    ]
    for case in cases:
        _check_range(score_sample(name, case), name)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_result_params_cover_every_declared_param(name):
    from tooleval.metrics.registry import get_metric

    result = score_sample(name, IDENTICAL[name]())
    assert set(get_metric(name).params) <= set(result.params)
