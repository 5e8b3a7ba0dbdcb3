"""A plan's ``environment`` key: plan level and per metric, checked before any agent call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooleval.environments import FunctionEnvironment, register_environment
from tooleval.errors import ConfigError
from tooleval.runs.plan import plan_from_dict

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "orders_env"


def _counting_factory(config):
    if config.get("explode"):
        raise ValueError("no such warehouse")
    return FunctionEnvironment({"noop": lambda state: None}, initial_state=dict(config))


register_environment("test_plan_orders", _counting_factory)


def _plan(**extra):
    base = {"dataset": "d.jsonl", "connector": {"type": "python", "target": "agent:run"}}
    return plan_from_dict({"metrics": ["state_match", "tool_correctness"], **base, **extra})


def _params(plan, name="state_match"):
    return next(m.params for m in plan.metrics if m.name == name)


def test_plan_level_environment_goes_to_the_metrics_that_replay():
    plan = _plan(environment={"name": "test_plan_orders", "config": {"currency": "EUR"}})
    assert _params(plan)["environment"] == {
        "name": "test_plan_orders",
        "config": {"currency": "EUR"},
    }
    assert "environment" not in _params(plan, "tool_correctness")


def test_a_name_alone_and_a_metric_of_its_own():
    plan = _plan(
        environment="test_plan_orders",
        metrics=[
            {"name": "state_match", "environment": {"name": "test_plan_orders", "config": {"a": 1}}}
        ],
    )
    assert _params(plan)["environment"] == {"name": "test_plan_orders", "config": {"a": 1}}
    plain = _plan(environment="test_plan_orders")
    assert _params(plain)["environment"] == {"name": "test_plan_orders", "config": {}}


def test_a_file_path_is_relative_to_the_plan_folder(tmp_path):
    plan = plan_from_dict(
        {
            "dataset": "d.jsonl",
            "connector": {},
            "metrics": ["state_match"],
            "environment": "orders.py:make_environment",
        },
        base_dir=EXAMPLE,
    )
    assert _params(plan)["environment"]["name"] == f"{EXAMPLE / 'orders.py'}:make_environment"


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ({"enviroment": "test_plan_orders"}, "enviroment", "did you mean 'environment'"),
        ({"environment": {"nme": "x"}}, "environment.nme", "did you mean 'name'"),
        (
            {"environment": {"name": "test_plan_ordrs"}},
            "environment.name",
            "did you mean 'test_plan_orders'",
        ),
        (
            {"environment": {"name": "test_plan_orders", "config": [1]}},
            "environment.config",
            "expected a mapping",
        ),
        (
            {"environment": {"name": "test_plan_orders", "config": {"explode": True}}},
            "environment.config",
            "ValueError: no such warehouse",
        ),
        ({"environment": 7}, "environment", "environment name or a mapping"),
        ({"environment": {"name": ""}}, "environment.name", "expected an environment name"),
        ({"environment": {"name": "no_such_file.py:make"}}, "environment.name", "cannot import"),
        ({"environment": {"name": "os:__import__"}}, "environment", "not a public name"),
        ({"environment": {"name": "json:dumps"}}, "environment.name", "built a str"),
    ],
)
def test_mistakes_are_named_before_any_agent_call(extra, field, words):
    with pytest.raises(ConfigError) as caught:
        _plan(**extra)
    assert caught.value.context.get("field", "").startswith(field), caught.value
    assert words in str(caught.value)


def test_the_environment_key_only_where_a_metric_replays():
    base = {"dataset": "d.jsonl", "connector": {}}
    with pytest.raises(ConfigError, match="no metric of the plan replays"):
        plan_from_dict({**base, "metrics": ["tool_correctness"], "environment": "test_plan_orders"})
    with pytest.raises(ConfigError, match="does not replay") as caught:
        plan_from_dict(
            {**base, "metrics": [{"name": "tool_correctness", "environment": "test_plan_orders"}]}
        )
    assert caught.value.context["field"] == "metrics[0].environment"
    with pytest.raises(ConfigError, match="given twice"):
        plan_from_dict(
            {
                **base,
                "metrics": [
                    {
                        "name": "state_match",
                        "environment": "test_plan_orders",
                        "params": {"environment": "test_plan_orders"},
                    }
                ],
            }
        )
    with pytest.raises(ConfigError, match="did you mean 'environment'"):
        plan_from_dict({**base, "metrics": [{"name": "state_match", "enviroment": "x"}]})


def test_a_built_object_must_be_an_environment():
    register_environment("test_plan_not_env", lambda config: object())
    with pytest.raises(ConfigError, match="has no reset, call, state"):
        _plan(environment="test_plan_not_env")
