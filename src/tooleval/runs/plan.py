"""Evaluation plans: one YAML file says what to run, against what, scored how.

::

    name: support-agent nightly
    tags: [nightly]
    dataset:
      path: cases.jsonl            # relative to the plan file
      bind: {expected_tools: gold_tools}
    connector:                     # see docs/connectors.md
      type: http
      url: http://127.0.0.1:8000/agent
      tools_called: "$.steps[?(@.type=='tool_call')].tool.name"
    metrics:
      - tool_correctness           # a bare name: default parameters
      - name: tool_call_f1
        params: {args: ignore}
        threshold: 0.8
    preset: release                # options that decide verdicts (tooleval.metrics.presets);
                                   # a metric's own params and threshold win
    concurrency: 8
    repeat: 3                      # run every row 3 times (pass^k / pass@k)
    max_rps: 20                    # at most 20 agent calls a second
    cache: true                    # or a file: responses.db (relative to the plan file)
    environment: {name: orders, config: {}}  # where state_match replays (docs/environments.md);
                                   # an openai connector's tool loop is served it (docs/episodes.md)
    judge: {type: local}           # only for judged metrics
    gate:
      min_pass_rate: 0.9           # every metric
      max_error_rate: 0.05
      metrics:
        tool_correctness: 0.95     # this metric's pass rate
        tool_call_f1: {min_pass_rate: 0.8, min_mean_score: 0.9}
      confidence: 0.95             # floors checked on the interval (docs/statistics.md)
      on_uncertain: fail           # fail (default) | pass | point
      cluster_key: task_id         # rows sharing this metadata field (or category): one cluster
      # require_any_pass: false    # accept a run where nothing passed (default: it fails)
    # no floor at all: `tooleval run` fails when any scored row fails


Every mistake is a :class:`ConfigError` naming the key path:

>>> plan_from_dict({"dataset": {"path": "d.jsonl"}, "connector": {}, "metrics": ["m"],
...                 "concurency": 4})
Traceback (most recent call last):
...
tooleval.errors.ConfigError: field concurency: unknown key (did you mean 'concurrency'?); expected one of cache, concurrency, connector, dataset, environment, gate, judge, max_rps, metrics, name, preset, repeat, tags
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tooleval.analysis.gate import GateSpec, MetricGate
from tooleval.errors import ConfigError, did_you_mean
from tooleval.metrics.presets import preset_options
from tooleval.runs.rate_limit import check_rps
from tooleval.runs.repeats import check_repeat
from tooleval.store.records import MetricSpec

__all__ = [
    "DEFAULT_FLOOR_LINE",
    "DatasetSpec",
    "GateSpec",
    "MetricGate",
    "Plan",
    "default_floor",
    "has_floor",
    "load_plan",
    "plan_from_dict",
]

DEFAULT_CONCURRENCY = 8
_TOP_KEYS = (
    "name",
    "tags",
    "dataset",
    "connector",
    "metrics",
    "concurrency",
    "judge",
    "gate",
    "repeat",
    "max_rps",
    "cache",
    "environment",
    "preset",
)


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """Where the rows come from and how columns bind to Sample fields."""

    path: Path
    bind: dict[str, str] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"path": str(self.path), "bind": dict(self.bind)}


@dataclass(frozen=True, slots=True)
class Plan:
    """A validated plan (see the module docstring for the file format).

    ``repeat``, ``max_rps`` and ``cache`` / ``cache_file`` are the plan's
    defaults for ``tooleval run``'s ``--repeat``, ``--max-rps`` and
    ``--cache`` / ``--cache-file``; the command line overrides them.
    """

    name: str
    dataset: DatasetSpec
    connector: dict[str, Any]
    metrics: tuple[MetricSpec, ...]
    tags: tuple[str, ...] = ()
    concurrency: int = DEFAULT_CONCURRENCY
    judge: dict[str, Any] | None = None
    gate: GateSpec = field(default_factory=GateSpec)
    path: Path | None = None
    repeat: int | None = None
    max_rps: float | None = None
    cache: bool = False
    cache_file: Path | None = None
    #: The checked top-level ``environment`` ({name, config}); served to an openai connector.
    environment: dict[str, Any] | None = None


def load_plan(path: str | Path) -> Plan:
    """Read and validate a YAML plan; relative dataset paths resolve from its folder."""
    import yaml

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("plan file not found", file=str(file)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the plan: {exc}", file=str(file)) from None
    try:
        data = yaml.load(text, Loader=_loader())  # noqa: S506  (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"invalid YAML{where}: {problem}", file=str(file)) from None
    try:
        return plan_from_dict(
            data, base_dir=file.resolve().parent, default_name=file.stem, path=file
        )
    except ConfigError as exc:
        raise exc.with_context(file=str(file)) from None


def _loader() -> Any:
    """A YAML SafeLoader that refuses a key given twice in one mapping (YAML keeps the last)."""
    import yaml

    class _OnceLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, str | int | float | bool) and key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key!r} is given twice in one mapping (first at line "
                        f"{seen[key].line + 1}); give it once",
                        key_node.start_mark,
                    )
                if isinstance(key, str | int | float | bool):
                    seen[key] = key_node.start_mark
            return super().construct_mapping(node, deep=deep)

    return _OnceLoader


def plan_from_dict(
    data: Any,
    *,
    base_dir: Path | None = None,
    default_name: str = "run",
    path: Path | None = None,
) -> Plan:
    """Validate a plan given as a mapping (what :func:`load_plan` parsed)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"a plan is a mapping of keys, got {_kind(data)}")
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key{did_you_mean(str(unknown[0]), _TOP_KEYS)}; expected one of "
            f"{', '.join(sorted(_TOP_KEYS))}",
            field=unknown[0],
        )
    for key in ("dataset", "connector", "metrics"):
        if key not in data:
            raise ConfigError("required key is missing", field=key)
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"expected a non-empty text, got {_kind(name)}", field="name")
    connector = data["connector"]
    if not isinstance(connector, Mapping):
        raise ConfigError(f"expected a mapping, got {_kind(connector)}", field="connector")
    judge = data.get("judge")
    if judge is not None and not isinstance(judge, Mapping):
        raise ConfigError(f"expected a mapping, got {_kind(judge)}", field="judge")
    metrics = _metrics(data["metrics"], base_dir)
    if data.get("preset") is not None:
        metrics = _with_preset(metrics, data["preset"])
    environment = None
    if data.get("environment") is not None:
        metrics, environment = _plan_environment(
            metrics, data["environment"], base_dir, serves=_serves(connector)
        )
    gate = _gate(data.get("gate"))
    for gated in gate.metrics:
        if gated not in {m.name for m in metrics}:
            raise ConfigError(
                f"the gate names a metric the plan does not run; metrics are "
                f"{', '.join(m.name for m in metrics)}",
                field=f"gate.metrics.{gated}",
            )
    repeat = data.get("repeat")
    cache, cache_file = _cache(data.get("cache", False), base_dir)
    return Plan(
        name=name.strip(),
        dataset=_dataset(data["dataset"], base_dir),
        connector=dict(connector),
        metrics=metrics,
        tags=_tags(data.get("tags", [])),
        concurrency=_concurrency(data.get("concurrency", DEFAULT_CONCURRENCY), "concurrency"),
        judge=None if judge is None else dict(judge),
        gate=gate,
        path=path,
        repeat=None if repeat is None else check_repeat(repeat, "repeat"),
        max_rps=check_rps(data.get("max_rps"), "max_rps"),
        cache=cache,
        cache_file=cache_file,
        environment=environment,
    )


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "a text", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


def _dataset(value: Any, base_dir: Path | None) -> DatasetSpec:
    if isinstance(value, str):
        value = {"path": value}
    if not isinstance(value, Mapping):
        raise ConfigError(f"expected a mapping with a path, got {_kind(value)}", field="dataset")
    unknown = sorted(set(value) - {"path", "bind"})
    if unknown:
        raise ConfigError("unknown key; expected path or bind", field=f"dataset.{unknown[0]}")
    raw_path = value.get("path")
    if not isinstance(raw_path, str) or not raw_path.strip():
        raise ConfigError(f"expected a file path, got {_kind(raw_path)}", field="dataset.path")
    path = Path(raw_path).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    bind = value.get("bind") or {}
    if not isinstance(bind, Mapping):
        raise ConfigError(
            f"expected a mapping of field: column, got {_kind(bind)}", field="dataset.bind"
        )
    for key, column in bind.items():
        if not isinstance(column, str) or not column:
            raise ConfigError(
                f"expected a column name, got {_kind(column)}", field=f"dataset.bind.{key}"
            )
    return DatasetSpec(path=path, bind={str(k): v for k, v in bind.items()})


def _takes_environment(name: str) -> bool:
    """Whether metric ``name`` replays in an environment (an unknown name is reported later)."""
    from tooleval.errors import ToolEvalError
    from tooleval.metrics.registry import get_metric

    try:
        return "environment" in get_metric(name).params
    except ToolEvalError:
        return False


def _serves(connector: Mapping[str, Any]) -> bool:
    """Whether the plan's environment is served to the connector's tool loop (docs/episodes.md)."""
    from tooleval.connectors.config import connector_kind

    if connector.get("serve") is not None:  # served over MCP or HTTP (tooleval.serving)
        return True
    return connector_kind(connector) == "openai" and connector.get("tool_executor") is None


def _plan_environment(
    metrics: tuple[MetricSpec, ...], value: Any, base_dir: Path | None, *, serves: bool = False
) -> tuple[tuple[MetricSpec, ...], dict[str, Any]]:
    """The plan-level ``environment`` given to every metric that replays and names none."""
    from tooleval.environments.plan_key import plan_environment

    takers = [m for m in metrics if _takes_environment(m.name)]
    if not takers and not serves:
        raise ConfigError(
            "no metric of the plan replays calls in an environment (state_match does)",
            field="environment",
        )
    environment = plan_environment(value, where="environment", base_dir=base_dir)
    return tuple(
        MetricSpec(m.name, {**m.params, "environment": environment}, m.threshold)
        if m in takers and "environment" not in m.params
        else m
        for m in metrics
    ), environment


def _metric_environment(
    item: Mapping[str, Any], params: dict[str, Any], where: str, base_dir: Path | None
) -> None:
    """A metric's own ``environment`` key, checked, into its params."""
    from tooleval.environments.plan_key import plan_environment

    name = str(item.get("name"))
    if not _takes_environment(name):
        raise ConfigError(
            f"metric {name!r} does not replay calls in an environment (state_match does)",
            field=f"{where}.environment",
        )
    if "environment" in params:
        raise ConfigError(
            "the environment is given twice (environment and params.environment); give it once",
            field=f"{where}.environment",
        )
    where = f"{where}.environment"
    params["environment"] = plan_environment(item["environment"], where=where, base_dir=base_dir)


def _metrics(value: Any, base_dir: Path | None = None) -> tuple[MetricSpec, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError(
            f"expected a non-empty list of metrics, got {_kind(value)}", field="metrics"
        )
    specs: list[MetricSpec] = []
    for i, item in enumerate(value):
        where = f"metrics[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, Mapping):
            raise ConfigError(f"expected a name or a mapping, got {_kind(item)}", field=where)
        unknown = sorted(set(item) - {"name", "params", "threshold", "environment"})
        if unknown:
            raise ConfigError(
                f"unknown key{did_you_mean(unknown[0], ('name', 'params', 'threshold', 'environment'))}; "
                "expected name, params, threshold or environment",
                field=f"{where}.{unknown[0]}",
            )
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"expected a metric name, got {_kind(name)}", field=f"{where}.name")
        params = item.get("params") or {}
        if not isinstance(params, Mapping):
            raise ConfigError(f"expected a mapping, got {_kind(params)}", field=f"{where}.params")
        threshold = _fraction(item.get("threshold"), f"{where}.threshold")
        if any(s.name == name for s in specs):
            raise ConfigError(f"metric {name!r} is listed twice", field=f"{where}.name")
        checked = {str(k): v for k, v in params.items()}
        if item.get("environment") is not None:
            _metric_environment(item, checked, where, base_dir)
        specs.append(MetricSpec(name.strip(), checked, threshold))
    return tuple(specs)


def _with_preset(specs: tuple[MetricSpec, ...], preset: Any) -> tuple[MetricSpec, ...]:
    """Each metric's params and threshold with the preset's values where the plan gave none."""
    out = []
    for spec in specs:
        params = preset_options(preset, spec.name, spec.params, field="preset")
        threshold = spec.threshold
        if "threshold" not in spec.params:  # the preset's threshold goes where the plan's would
            preset_threshold = params.pop("threshold", None)
            threshold = preset_threshold if threshold is None else threshold
        out.append(MetricSpec(spec.name, params, threshold))
    return tuple(out)


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, str) and t for t in value):
        raise ConfigError(f"expected a list of texts, got {_kind(value)}", field="tags")
    return tuple(dict.fromkeys(value))


def _concurrency(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"expected a whole number >= 1, got {value!r}", field=where)
    return value


def _cache(value: Any, base_dir: Path | None) -> tuple[bool, Path | None]:
    """``cache: true`` / ``false``, or a cache file (relative to the plan's folder)."""
    if value is None or isinstance(value, bool):
        return bool(value), None
    if isinstance(value, str) and value.strip():
        file = Path(value.strip())
        if base_dir is not None and not file.is_absolute():
            file = base_dir / file
        return True, file
    raise ConfigError(
        f"expected true, false or a cache file path, got {_kind(value)}", field="cache"
    )


def _fraction(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ConfigError(f"expected a number between 0 and 1, got {value!r}", field=where)
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"expected a number between 0 and 1, got {value!r}", field=where)
    return float(value)


_GATE_KEYS = (
    "min_pass_rate",
    "max_error_rate",
    "metrics",
    "metric",
    "min",
    "confidence",
    "on_uncertain",
    "require_any_pass",
    "cluster_key",
)


def _gate_stats(value: Mapping[str, Any]) -> dict[str, Any]:
    """The noise-aware keys: ``confidence``, ``on_uncertain``, ``require_any_pass``, ``cluster_key``."""
    from tooleval.stats import ON_UNCERTAIN

    out: dict[str, Any] = {}
    confidence = value.get("confidence")
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise ConfigError(
                f"expected a number between 0 and 1 (e.g. 0.95), got {confidence!r}",
                field="gate.confidence",
            )
        if not 0.0 < float(confidence) < 1.0:
            raise ConfigError(
                f"expected a number between 0 and 1 (e.g. 0.95), got {confidence!r}",
                field="gate.confidence",
            )
        out["confidence"] = float(confidence)
    policy = value.get("on_uncertain", "fail")
    if policy not in ON_UNCERTAIN:
        raise ConfigError(
            f"expected one of {', '.join(ON_UNCERTAIN)}, got {policy!r}", field="gate.on_uncertain"
        )
    out["on_uncertain"] = policy
    any_pass = value.get("require_any_pass", True)
    if not isinstance(any_pass, bool):
        raise ConfigError(
            f"expected true or false, got {any_pass!r}", field="gate.require_any_pass"
        )
    out["require_any_pass"] = any_pass
    cluster_key = value.get("cluster_key")
    if cluster_key is not None:
        if not isinstance(cluster_key, str) or not cluster_key.strip():
            raise ConfigError(
                f"expected a metadata field name (or category), got {cluster_key!r}",
                field="gate.cluster_key",
            )
        out["cluster_key"] = cluster_key.strip()
    return out


def _gate(value: Any) -> GateSpec:
    if value is None:
        return GateSpec()
    if not isinstance(value, Mapping):
        raise ConfigError(f"expected a mapping, got {_kind(value)}", field="gate")
    unknown = sorted(set(value) - set(_GATE_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key; expected one of {', '.join(sorted(_GATE_KEYS))}",
            field=f"gate.{unknown[0]}",
        )
    per_metric = value.get("metrics") or {}
    if not isinstance(per_metric, Mapping):
        raise ConfigError(
            f"expected a mapping of metric: floor, got {_kind(per_metric)}", field="gate.metrics"
        )
    gates: dict[str, MetricGate] = {}
    for name, floor in per_metric.items():
        where = f"gate.metrics.{name}"
        if isinstance(floor, Mapping):
            unknown = sorted(
                set(floor) - {"min_pass_rate", "min_mean_score", "require_calibration"}
            )
            if unknown:
                raise ConfigError(
                    "unknown key; expected min_pass_rate, min_mean_score or require_calibration",
                    field=f"{where}.{unknown[0]}",
                )
            required = floor.get("require_calibration", False)
            if not isinstance(required, bool):
                raise ConfigError(
                    f"expected true or false, got {required!r}",
                    field=f"{where}.require_calibration",
                )
            gates[str(name)] = MetricGate(
                _fraction(floor.get("min_pass_rate"), f"{where}.min_pass_rate"),
                _fraction(floor.get("min_mean_score"), f"{where}.min_mean_score"),
                require_calibration=required,
            )
        else:
            gates[str(name)] = MetricGate(min_pass_rate=_fraction(floor, where))
    if ("metric" in value) != ("min" in value):
        missing = "min" if "metric" in value else "metric"
        raise ConfigError("gate: {metric: NAME, min: X} needs both keys", field=f"gate.{missing}")
    if "metric" in value:
        name = value["metric"]
        if not isinstance(name, str) or not name:
            raise ConfigError(f"expected a metric name, got {name!r}", field="gate.metric")
        if name in gates:
            raise ConfigError(
                f"{name} has a floor in gate.metrics too; give it once", field="gate.metric"
            )
        gates[name] = MetricGate(min_pass_rate=_fraction(value["min"], "gate.min"))
    return GateSpec(
        min_pass_rate=_fraction(value.get("min_pass_rate"), "gate.min_pass_rate"),
        max_error_rate=_fraction(value.get("max_error_rate"), "gate.max_error_rate"),
        metrics=gates,
        **_gate_stats(value),
    )


DEFAULT_FLOOR_LINE = (
    "gate: no floor in the plan, so every scored row must pass (set gate: min_pass_rate "
    "in the plan or --min-pass-rate to allow failures)"
)


def default_floor(gate: GateSpec) -> GateSpec:
    """A gate without any floor gets the default one: every scored row of each metric passes.

    ``tooleval run`` and :func:`tooleval.runs.run_plan` both apply it (as pytest fails on any
    failed test); :data:`DEFAULT_FLOOR_LINE` is what their summaries say then.

    ``require_any_pass: false`` keeps a gate without floors (any run passes but for its
    errors, which the error budget judges).

    >>> from tooleval.analysis.gate import GateSpec
    >>> default_floor(GateSpec()).require_all_pass
    True
    >>> default_floor(GateSpec(min_pass_rate=0.8)).require_all_pass
    False
    """
    if has_floor(gate) or not gate.require_any_pass:
        return gate
    return replace(gate, require_all_pass=True)


def has_floor(gate: GateSpec) -> bool:
    """Whether the gate sets a pass-rate or mean-score floor (overall or for a metric)."""
    floors = [
        g for g in gate.metrics.values() if (g.min_pass_rate, g.min_mean_score) != (None,) * 2
    ]
    return gate.min_pass_rate is not None or bool(floors)
