"""Invariants every registered metric must keep, and the vocabulary they share.

Each deterministic metric needs an entry in ``IDENTICAL``: a sample whose
actual behaviour is exactly the reference (so it must score 1.0). A metric
registered without one fails ``test_every_deterministic_metric_is_covered``.

Every registered metric (deterministic and judged) shares one vocabulary: a
parameter name has the same choices and meaning wherever it appears, every
call-comparing metric has ``order``, ``empty``, ``args`` and ``threshold``
unless ``EXEMPT`` says why not, and every former name (``MetricInfo.aliases``)
scores and rescores exactly like the current one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tooleval.environments import FunctionEnvironment, register_environment
from tooleval.metrics.registry import list_metrics, score_sample
from tooleval.model import AssistantMessage, ExpectedTools, Sample, ToolCall, UserMessage

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


def _flat_calls_sample() -> Sample:
    calls = [
        C(c.name, {k: v for k, v in c.arguments.items() if not isinstance(v, dict)}) for c in _CALLS
    ]
    return Sample(tools_called=calls, expected_tools=ExpectedTools(tuple(calls)))


def _orders_environment(config: Any) -> FunctionEnvironment:
    def put(state: dict[str, Any], **arguments: Any) -> str:
        state.setdefault("calls", []).append(arguments)
        return "ok"

    tools = {name: put for name in ("lookup_order", "cancel_order", "issue_refund")}
    return FunctionEnvironment(tools, initial_state=dict(config))


register_environment("test_common_orders", _orders_environment)


IDENTICAL: dict[str, Callable[[], Sample]] = {
    "state_match": lambda: Sample(
        tools_called=list(_CALLS),
        expected_tools=ExpectedTools(tuple(_CALLS)),
        metadata={"environment": {"name": "test_common_orders"}},
    ),
    "tool_call_accuracy": _calls_sample,
    "tool_call_f1": _calls_sample,
    "tool_correctness": _calls_sample,
    "trajectory_match": _calls_sample,
    "tau2_actions": _calls_sample,
    # Seal-Tools and NESTFUL compare values as Python ``str`` text, so the key order
    # *inside* a dict value matters there (the benchmarks' rule): flat arguments only.
    "seal_tools": lambda: _flat_calls_sample(),
    "nestful": lambda: _flat_calls_sample(),
    "output_contains": lambda: Sample(
        output="Order 4471 refunded.", metadata={"output_contains": ["4471", "refunded"]}
    ),
    "tau2_communicate": lambda: Sample(
        messages=[AssistantMessage("Your refund is 1,628 dollars.")],
        output="Your refund is 1,628 dollars.",
        metadata={"tau2": {"communicate_info": ["1628"]}},
    ),
    "tau_bench_reward": lambda: Sample(
        tools_called=[C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})],
        expected_tools=[
            C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
        ],
        category="retail",
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
    "bfcl_multi_turn": lambda: Sample(
        tools_called=[C("add", {"a": 1, "b": 2})],
        metadata={
            "bfcl": {
                "multi_turn": {
                    "entry": {
                        "id": "multi_turn_base_900",
                        "involved_classes": ["MathAPI"],
                        "initial_config": {},
                    },
                    "ground_truth": [["add(a=1, b=2)"]],
                    "result": [[[{"add": '{"a": 1, "b": 2}'}], "3"]],
                    "mode": "fc",
                }
            }
        },
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


# --------------------------------------------------------------------------
# One vocabulary: a parameter name means one thing in every metric that has it.

ALL_METRICS = {info.name: info for info in list_metrics()}  # deterministic and judged

# What each shared option's values mean, in every metric's help text.
MEANING = {
    "order": ("strict", "flexible"),
    "empty": ("perfect (1.0)", "zero (0.0)", "unscored"),
    "coverage": ("exact", "subset", "superset"),
    "extra_keys": ("mismatch", "ignore"),
}

CALL_METRICS = sorted(
    name
    for name, info in ALL_METRICS.items()
    if {"tools_called", "expected_tools"} <= set(info.requires)
)
SHARED_BY_CALL_METRICS = ("order", "empty", "args", "threshold")

# Call-comparing metrics that leave out a shared option, and why.
EXEMPT: dict[str, dict[str, str]] = {
    "state_match": {
        "order": "end states are compared; the order of calls counts only through them",
        "empty": "no calls on both sides is two untouched states, compared like any other",
        "args": "arguments are passed to the tools, not matched; list_order governs the states",
    },
    "bfcl_ast": {
        "order": "BFCL's checker decides per category (parallel calls are order free)",
        "empty": "BFCL's irrelevance/relevance categories are its own rule for 'no call'",
        "args": "BFCL's type-aware value rules and possible-answer lists, not a matcher",
        "threshold": "a BFCL verdict is pass or fail",
    },
    "tau2_actions": {
        "order": "tau2's action check is order free by definition",
        "args": "tau2 compares arguments with Python equality under compare_args",
        "threshold": "tau2 passes a row only when every gold action matched",
    },
    "tau_bench_actions": {
        "order": "tau-bench compares database states: the writes as a multiset",
        "args": "arguments compare as tau-bench's database hash sees them",
        "threshold": "r_actions is 1 or 0",
    },
    "tool_call_f1": {"order": "F1 counts matches; order is not part of its definition"},
    "seal_tools": {
        "order": "Seal-Tools' metric is order free by definition",
        "args": "values compare as str(pred) == str(gold), the benchmark's rule",
        "threshold": "a row passes when every API and parameter count agrees",
    },
    "nestful": {
        "order": "NESTFUL's scorer aligns the sequences by name its own way",
        "args": "values compare as the scorer's 'key = value' text, after its label grounding",
        "threshold": "a row passes on a full sequence match",
    },
}
# Metrics without a "called" side have no `empty` case: output_contains reads the
# final answer (no values at all is already unscored); the judged metrics other than
# topic_adherence ask a judge about a conversation, never compare two lists.
NO_EMPTY_CASE = {
    "state_match": "compares two end states; no calls on both sides is two untouched states",
    "tau_bench_reward": "tau-bench's reward: no gold, no calls is two untouched databases",
    "output_contains": "reads the output, no expected-vs-called lists",
    "tau2_communicate": "reads the replies; nothing to communicate is 1 by tau2's own rule",
    "goal_accuracy": "a judge verdict on the conversation",
    "task_success": "a judge verdict on the conversation",
    "tools_error": "a judge verdict per call made (no calls: nothing to judge, unscored)",
    "bfcl_multi_turn": "BFCL's replay of a live entry: its checker's rules, no lists compared",
}


def _params_named(param: str) -> list[tuple[str, Any]]:
    return [(n, i.params[param]) for n, i in ALL_METRICS.items() if param in i.params]


def test_a_parameter_name_has_the_same_choices_in_every_metric():
    names = {p for info in ALL_METRICS.values() for p in info.params}
    for param in sorted(names):
        found = _params_named(param)
        choices = {n: (None if p.choices is None else frozenset(p.choices)) for n, p in found}
        assert len(set(choices.values())) == 1, f"{param} has different choices: {choices}"


@pytest.mark.parametrize("param", sorted(MEANING))
def test_shared_options_say_the_same_thing(param):
    for name, p in _params_named(param):
        for word in MEANING[param]:
            assert word in p.help, f"{name}.{param} help does not explain {word!r}: {p.help}"


def test_no_former_name_is_a_current_parameter_anywhere():
    current = {p for info in ALL_METRICS.values() for p in info.params}
    former = {a for info in ALL_METRICS.values() for a in info.aliases.names}
    assert former, "the seeds' names should still be declared"
    assert not (current & former), f"these names mean two things: {sorted(current & former)}"


@pytest.mark.parametrize("name", CALL_METRICS)
def test_call_metrics_share_order_empty_args_threshold(name):
    exempt = EXEMPT.get(name, {})
    for param in SHARED_BY_CALL_METRICS:
        if param in exempt:
            assert param not in ALL_METRICS[name].params, f"{name}.{param} exists: unexempt it"
        else:
            assert param in ALL_METRICS[name].params, f"{name} lacks {param}"


def test_every_metric_with_nothing_to_compare_has_empty():
    for name, info in ALL_METRICS.items():
        if name in NO_EMPTY_CASE or name == "bfcl_ast":
            assert "empty" not in info.params, f"{name} has empty: drop it from NO_EMPTY_CASE"
        else:
            assert "empty" in info.params, f"{name} has no empty option"


def test_exemptions_name_registered_metrics():
    assert set(EXEMPT) | set(NO_EMPTY_CASE) <= set(ALL_METRICS)


def _alias_cases():
    cases = []
    for name, info in sorted(ALL_METRICS.items()):
        for alias, spec in info.aliases.names.items():
            for old, new in spec.values.items():
                cases.append((name, {alias: old}, dict(new)))
        for param, renames in info.aliases.values.items():
            for old, new in renames.items():
                cases.append((name, {param: old}, {param: new}))
    return cases


ALIAS_CASES = _alias_cases()


def _alias_sample(name: str) -> Sample:
    if name in IDENTICAL:
        sample = IDENTICAL[name]()
        actual = sample.actual_calls()
        return _with_calls(sample, [*actual[1:], actual[0]] if actual else [])
    return Sample(
        messages=[UserMessage("Tell me about relativity."), AssistantMessage("I can't help.")],
        reference_topics=["physics"],
    )


def _scripted_judge():
    """A judge replying like a model that found one on-topic subject, refused.

    Precision is then undefined (nothing answered): the ``empty`` case of
    topic_adherence, so ``zero_division`` / ``empty`` change the score.
    """
    import json

    from tooleval.llm.base import BaseJudge
    from tooleval.llm.reply import JudgeReply

    class Scripted(BaseJudge):
        def __init__(self):
            super().__init__(cache=False)
            self.model = "scripted"

        def _generate(self, messages, schema):
            if "verdicts" in json.dumps(schema):
                reply = {"verdicts": [{"subject": 1, "answered": False, "on_topic": True}]}
            else:
                reply = {"topics": ["relativity"]}
            return JudgeReply(text=json.dumps(reply), tokens_in=10, tokens_out=10)

    return Scripted()


def _judge_for(name: str):
    from tooleval.metrics.registry import get_metric

    return _scripted_judge() if get_metric(name).needs_judge else None


@pytest.mark.parametrize(("name", "old", "new"), ALIAS_CASES, ids=lambda v: str(v))
def test_an_alias_scores_exactly_like_the_current_name(name, old, new):
    from tooleval.metrics.registry import bind, get_metric

    judge = _judge_for(name)
    sample = _alias_sample(name)
    with_alias = score_sample(name, sample, judge=judge, **old)
    with_new = score_sample(name, sample, judge=_judge_for(name), **new)
    assert with_alias == with_new
    assert set(with_alias.params) <= set(get_metric(name).params)
    assert bind(name, judge=judge, **old).params == bind(name, judge=judge, **new).params


@pytest.mark.parametrize(("name", "old", "new"), ALIAS_CASES, ids=lambda v: str(v))
def test_a_result_stored_with_former_names_rescores_identically(name, old, new):
    import json

    from tooleval.metrics.registry import get_metric, rescore
    from tooleval.model import Result

    sample = _alias_sample(name)
    current = score_sample(name, sample, judge=_judge_for(name), **new)
    # As the seed stored it: the former name in place of the current one(s).
    params = {k: v for k, v in current.params.items() if k not in new}
    params.update(old)
    stored = Result.from_dict(json.loads(json.dumps({**current.to_dict(), "params": params})))
    again = rescore(stored, sample, judge=_judge_for(name))
    assert again == current
    assert not set(again.params) & set(get_metric(name).aliases.names)


def test_former_and_current_names_that_disagree_are_a_config_error():
    from tooleval.errors import ConfigError

    sample = IDENTICAL["tool_correctness"]()
    with pytest.raises(ConfigError, match=r"check_ordering=True .* order='flexible'") as info:
        score_sample("tool_correctness", sample, check_ordering=True, order="flexible")
    assert info.value.field == "check_ordering"
    agreed = score_sample("tool_correctness", sample, check_ordering=True, order="strict")
    assert agreed.params["order"] == "strict" and "check_ordering" not in agreed.params
    with pytest.raises(ConfigError, match="check_ordering"):
        score_sample("tool_correctness", sample, check_ordering="yes")
    with pytest.raises(ConfigError, match="aliases: check_ordering"):
        score_sample("tool_correctness", sample, ordering=True)


def test_the_seed_files_of_old_runs_still_rescore():
    """Literal result lines as tooleval stored them before the rename."""
    from tooleval.metrics.registry import rescore
    from tooleval.model import Result

    sample = _alias_sample("trajectory_match")
    old_lines = [
        ("trajectory_match", {"mode": "unordered", "args": "exact", "threshold": None}),
        ("tool_correctness", {"check_ordering": True, "exact_match": False, "threshold": 0.5}),
        ("output_contains", {"mode": "any", "case_sensitive": False, "threshold": None}),
        ("tau2_actions", {"empty": "pass", "termination": "tau2"}),
    ]
    for name, params in old_lines:
        row = sample if name != "output_contains" else IDENTICAL[name]()
        stored = Result.from_dict({"metric": name, "score": 1.0, "params": params})
        again = rescore(stored, row)
        assert again == score_sample(name, row, **params)
        assert not {"mode", "check_ordering"} & set(again.params)
