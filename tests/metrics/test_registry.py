"""The metric registry."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tooleval.errors import ConfigError, JudgeError
from tooleval.metrics import registry
from tooleval.metrics.registry import (
    MetricInfo,
    Param,
    ascore_sample,
    get_metric,
    list_metrics,
    register_metric,
    rescore,
    score_sample,
)
from tooleval.model import AssistantMessage, Result, Sample, ToolCall, UserMessage

BUILTIN = {
    "tool_call_accuracy",
    "tool_call_f1",
    "tool_correctness",
    "trajectory_match",
    "output_contains",
}


def sample(**kw):
    base = dict(
        messages=[
            UserMessage("cancel 4471"),
            AssistantMessage("", (ToolCall("lookup_order", {"order_id": "4471"}),)),
            AssistantMessage("", (ToolCall("cancel_order", {"order_id": "4471"}),)),
            AssistantMessage("Order 4471 cancelled."),
        ],
        expected_tools=[
            ToolCall("lookup_order", {"order_id": "4471"}),
            ToolCall("cancel_order", {"order_id": "4471"}),
        ],
    )
    base.update(kw)
    return Sample(**base)


def test_builtin_metrics_listed_with_params_requires_and_judge_flag():
    infos = {m.name: m for m in list_metrics()}
    assert set(infos) >= BUILTIN
    for name in BUILTIN:
        info = infos[name]
        assert not info.needs_judge and info.requires and info.description
        assert "threshold" in info.params
        for param in info.params.values():
            assert isinstance(param, Param) and param.help
            json.dumps(param.default)
    assert infos["tool_correctness"].params["threshold"].default == 0.5
    assert infos["tool_call_accuracy"].requires == ("tools_called", "expected_tools")
    assert [m.name for m in list_metrics()] == sorted(m.name for m in list_metrics())


def test_score_sample_fills_every_param():
    r = score_sample("tool_correctness", sample())
    assert r.score == 1.0
    assert set(r.params) == set(get_metric("tool_correctness").params)
    assert r.params["threshold"] == 0.5 and r.params["args"] == "exact"
    json.dumps(r.to_dict())


def test_unknown_metric_lists_known_names():
    with pytest.raises(ConfigError) as info:
        score_sample("tool_acuracy", sample())
    assert "tool_call_accuracy" in str(info.value) and info.value.field == "metric"


def test_unknown_param_names_it_and_valid_ones():
    with pytest.raises(ConfigError) as info:
        score_sample("tool_call_accuracy", sample(), ordr="flexible")
    text = str(info.value)
    assert "'ordr'" in text and "order" in text and "args" in text and info.value.field == "ordr"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("tool_call_accuracy", {"order": "sideways"}),
        ("tool_call_f1", {"empty": "maybe"}),
        ("tool_correctness", {"exact_match": "true"}),
        ("trajectory_match", {"coverage": "loose"}),
        ("trajectory_match", {"mode": "loose"}),
        ("output_contains", {"require": "most"}),
        ("tool_call_accuracy", {"args": {"tools": 3}}),
        ("tool_call_accuracy", {"threshold": 7}),
    ],
)
def test_bad_values_are_config_errors(name, params):
    with pytest.raises(ConfigError):
        score_sample(name, sample(), **params)


def test_rescore_reproduces_with_json_round_trip():
    s = sample(
        tools_called=[
            ToolCall("cancel_order", {"order_id": "4471 "}),
            ToolCall("lookup_order", {"order_id": "4471"}),
        ]
    )
    cases = [
        ("tool_call_accuracy", {"order": "flexible", "args": {"keys": {"order_id": "normalized"}}}),
        ("tool_call_f1", {"args": "normalized", "empty": "zero"}),
        (
            "tool_correctness",
            {"order": "strict", "argument_keys": ["order_id"], "threshold": 0.4},
        ),
        ("trajectory_match", {"order": "flexible", "args": '{"default": "normalized"}'}),
        ("output_contains", {"values": ["4471"], "require": "any"}),
    ]
    for name, params in cases:
        first = score_sample(name, s, **params)
        stored = Result.from_dict(json.loads(json.dumps(first.to_dict())))
        again = rescore(stored, s)
        assert (
            again.score == first.score
            and again.params == first.params
            and again.reason == first.reason
        )


def test_callable_matcher_recorded_by_name_and_rescored_when_registered():
    from tooleval.matching import register_matcher

    def loose_id(expected, actual):
        return str(expected).strip() == str(actual).strip()

    s = sample(
        tools_called=[
            ToolCall("lookup_order", {"order_id": " 4471"}),
            ToolCall("cancel_order", {"order_id": "4471"}),
        ]
    )
    r = score_sample("tool_call_accuracy", s, args=loose_id)
    assert r.score == 1.0 and r.params["args"] == "loose_id"
    with pytest.raises(ConfigError, match="loose_id"):
        rescore(r, s)
    register_matcher("loose_id", loose_id)
    assert rescore(r, s).score == 1.0


def test_ascore_sample_matches_sync():
    r = asyncio.run(ascore_sample("tool_call_f1", sample()))
    assert r.score == score_sample("tool_call_f1", sample()).score


def test_registering_and_judge_requirement():
    calls = []

    def judged(sample, *, judge, threshold):
        calls.append(judge)
        return Result.scored("test_judged_metric", 1.0, reason="ok", threshold=threshold)

    register_metric(
        MetricInfo(
            name="test_judged_metric",
            description="test only",
            params={"threshold": Param(0.5, "pass mark")},
            requires=("messages",),
            needs_judge=True,
            score_sample=judged,
        )
    )
    try:
        with pytest.raises(JudgeError):
            score_sample("test_judged_metric", sample())
        r = score_sample("test_judged_metric", sample(), judge="J")
        assert r.params == {"threshold": 0.5} and calls == ["J"]
        assert asyncio.run(ascore_sample("test_judged_metric", sample(), judge="K")).score == 1.0
        assert calls == ["J", "K"]
        # a different provider may not take the name silently
        other = MetricInfo(
            "test_judged_metric", "x", {}, (), False, lambda s: None, provider="other"
        )
        with pytest.raises(ConfigError, match="already registered"):
            register_metric(other)
    finally:
        registry._metrics.pop("test_judged_metric", None)


def test_sample_type_checked():
    with pytest.raises(ConfigError, match="Sample"):
        score_sample("tool_call_f1", {"expected_tools": []})  # type: ignore[arg-type]


def _plugin(tmp_path, monkeypatch, name: str, module_source: str) -> None:
    """An installed third-party distribution declaring a ``tooleval.metrics`` entry point."""
    (tmp_path / f"{name}.py").write_text(module_source)
    dist = tmp_path / f"{name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[tooleval.metrics]\n{name} = {name}:provide\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry._state, "loaded", False)


def test_third_party_metric_comes_through_the_entry_point_group(tmp_path, monkeypatch):
    _plugin(
        tmp_path,
        monkeypatch,
        "tooleval_plugin_ok",
        "from tooleval.metrics import MetricInfo, Param\n"
        "from tooleval.model import Result\n"
        "def _score(sample, **params):\n"
        "    return Result(metric='plugin_metric', score=1.0, passed=True, reason='ok')\n"
        "def provide():\n"
        "    return [MetricInfo(name='plugin_metric', description='from a plugin', params={},\n"
        "                       requires=(), needs_judge=False, score_sample=_score)]\n",
    )
    try:
        names = {m.name for m in list_metrics()}
        assert "plugin_metric" in names and names >= BUILTIN
        assert "goal_accuracy" in names  # tooleval.judged plugs in through the same group
    finally:
        registry._metrics.pop("plugin_metric", None)
        sys.modules.pop("tooleval_plugin_ok", None)


def test_broken_provider_raises_naming_its_entry_point(tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, "tooleval_plugin_bad", "import tooleval_no_such_module_xyz\n")
    try:
        with pytest.raises(ConfigError, match="tooleval_plugin_bad.*tooleval_no_such_module_xyz"):
            list_metrics()
    finally:
        sys.modules.pop("tooleval_plugin_bad", None)


def test_provider_giving_something_else_than_metric_info_raises(tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, "tooleval_plugin_odd", "def provide():\n    return ['x']\n")
    try:
        with pytest.raises(
            ConfigError, match="expected a function declared with tooleval.model.metric"
        ):
            list_metrics()
    finally:
        sys.modules.pop("tooleval_plugin_odd", None)


def test_registry_imports_no_module_by_name():
    import inspect

    source = inspect.getsource(registry)
    assert "import_module" not in source and '"tooleval.judged"' not in source


def test_a_core_metric_loads_no_provider_any_other_name_loads_them(tmp_path, monkeypatch):
    # `tooleval score --metric tool_call_accuracy` need not import every plugin (start-up);
    # a provider can never take a core name, so the answer is the same.
    _plugin(tmp_path, monkeypatch, "tooleval_plugin_late", "import tooleval_no_such_module_xyz\n")
    try:
        assert get_metric("tool_call_accuracy").provider == "tooleval.metrics.builtin"
        assert not registry._state["loaded"]
        # a benchmark's metric: the benchmark records only, no judged or other provider
        assert get_metric("bfcl_ast").provider == "tooleval.benchmarks.bfcl.metric"
        assert not registry._state["loaded"]
        with pytest.raises(ConfigError, match="tooleval_plugin_late"):
            get_metric("goal_accuracy")  # every provider is loaded first
    finally:
        sys.modules.pop("tooleval_plugin_late", None)
