"""What a plan names, made ready to run: its metrics checked, judge, dataset and connector.

Everything here runs before the first agent call (and for ``check_plan``):
metric names and parameters are checked against the registry (former
parameter names translated by each metric's declared aliases), the dataset
must bind every field the metrics need, a judged metric needs a judge, and a
resumed run must have been started with the same metrics and dataset.

>>> from types import SimpleNamespace
>>> from tooleval.store.records import MetricSpec
>>> plan = SimpleNamespace(metrics=(MetricSpec("tool_correctness", {"check_ordering": True}),))
>>> [(m.spec.name, m.params) for m in resolve_metrics(plan)]
[('tool_correctness', {'order': 'strict', 'threshold': 0.5})]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError, ToolEvalError
from tooleval.runs.plan import Plan
from tooleval.store.records import MetricSpec, RunInfo

__all__ = [
    "PlannedMetric",
    "aclose",
    "check_resumable",
    "describe",
    "describe_dataset",
    "load_dataset_for",
    "make_connector",
    "make_judge",
    "resolve_metrics",
]


@dataclass(slots=True)
class PlannedMetric:
    """A metric of the plan with its checked parameters (what the runner scores with)."""

    spec: MetricSpec
    info: Any
    params: dict[str, Any]
    bound: Any = None  # the BoundMetric, made on first use (parameters checked once)


def resolve_metrics(plan: Plan) -> list[PlannedMetric]:
    from tooleval.metrics.registry import check_params, get_metric

    resolved = []
    for i, spec in enumerate(plan.metrics):
        try:
            info = get_metric(spec.name)
        except ToolEvalError as exc:
            raise ConfigError(exc.message, field=f"metrics[{i}].name") from None
        try:  # former names (e.g. check_ordering) become current ones; all checked
            spec = MetricSpec(spec.name, check_params(spec.name, spec.params), spec.threshold)
        except ConfigError as exc:
            field = exc.context.get("field", "")
            raise ConfigError(exc.message, field=f"metrics[{i}].params.{field}") from None
        known = dict(getattr(info, "params", {}) or {})
        params = dict(spec.params)
        if spec.threshold is None and "threshold" in known:
            # Store the threshold in effect, so reports and comparisons show it.
            default = spec.params.get("threshold", getattr(known["threshold"], "default", None))
            if isinstance(default, int | float) and not isinstance(default, bool):
                spec = MetricSpec(spec.name, dict(spec.params), float(default))
        if spec.threshold is not None and "threshold" in known:
            params["threshold"] = spec.threshold
        resolved.append(PlannedMetric(spec, info, params))
    return resolved


def make_judge(plan: Plan, metrics: Sequence[PlannedMetric]) -> Any:
    judged = [m.spec.name for m in metrics if getattr(m.info, "needs_judge", False)]
    if not judged:
        return None
    if plan.judge is None:
        raise ConfigError(
            f"{', '.join(judged)} need(s) an LLM judge; add a judge: section to the plan "
            "(e.g. judge: {type: local} or judge: {type: openai, model: ..., base_url: ...})",
            field="judge",
        )
    from tooleval.llm import judge_from_config

    return judge_from_config(plan.judge)


def load_dataset_for(plan: Plan, metrics: Sequence[PlannedMetric]) -> Any:
    from tooleval.datasets.load import dataset_from_table
    from tooleval.datasets.readers import RawRow, read_rows
    from tooleval.serving.tau_bench import tau2_task_rows_of

    table = read_rows(plan.dataset.path)
    # tau2's tasks file, named as it is: each task is read as its episode row
    rows = tau2_task_rows_of(table.path, table.columns, [r.values for r in table.rows])
    if rows is not None:
        table.columns = list(dict.fromkeys(key for row in rows for key in row))
        table.rows = [RawRow(number, row) for number, row in enumerate(rows, start=1)]
    dataset = dataset_from_table(table, bind=plan.dataset.bind or None)
    for metric in metrics:
        needed = tuple(getattr(metric.info, "requires", ()) or ())
        if needed:
            dataset.require(needed, metric=metric.spec.name)
    return dataset


def describe_dataset(plan: Plan, dataset: Any) -> dict[str, Any]:
    described = dict(dataset.describe())
    described["bind"] = dict(plan.dataset.bind)
    return described


def make_connector(plan: Plan) -> Any:
    from tooleval.serving import connector_from_config

    try:
        # Relative tool files and module:function targets resolve from the plan's folder.
        base = plan.path.resolve().parent if plan.path else None
        return connector_from_config(plan.connector, base_dir=base, environment=plan.environment)
    except ToolEvalError as exc:
        raise exc.with_context(field="connector") from None


def describe(component: Any) -> dict[str, Any]:
    describe = getattr(component, "describe", None)
    return dict(describe()) if callable(describe) else {"type": type(component).__name__}


async def aclose(component: Any) -> None:
    close = getattr(component, "aclose", None)
    if close is not None:
        await close()
        return
    close = getattr(component, "close", None)
    if close is not None:
        close()


def check_resumable(
    plan: Plan, run: RunInfo, dataset_info: dict[str, Any], metrics: Sequence[PlannedMetric]
) -> None:
    planned = [(m.spec.name, m.spec.params, m.spec.threshold) for m in metrics]
    stored = [(m.name, m.params, m.threshold) for m in run.metrics]
    if planned != stored:
        raise ConfigError(
            f"run {run.id} was started with other metrics ({', '.join(m.name for m in run.metrics)} "
            "and their parameters); resume it with the same plan, or start a new run",
            field="--resume",
        )
    if run.dataset.get("sha256") and run.dataset.get("sha256") != dataset_info.get("sha256"):
        raise ConfigError(
            f"the dataset {dataset_info['path']} changed since run {run.id} started; "
            "rows would not line up, so start a new run",
            field="--resume",
        )
