"""``state_match`` as the registry lists it (loaded through the ``tooleval.metrics`` entry point).

A row says which environment its calls run in with ``metadata.environment``::

    {"metadata": {"environment": {
        "name": "orders",                      # a registered or declared environment
        "config": {"currency": "EUR"},         # optional, given to its factory
        "initial_state": {"orders": {...}}}}}  # optional, the state both replays start from

The metric option ``environment`` (a name, or ``"module:attribute"`` in a plan
or on the command line) names the environment for rows that do not; a row's
own name wins. The expected calls are the row's ``expected_tools`` (with
arguments), the actual calls every call the agent made.

>>> info = state_match_info()
>>> info.name, info.params["list_order"].default
('state_match', 'strict')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.environments.diff import LIST_ORDERS
from tooleval.environments.metric import NAME, state_match
from tooleval.environments.named import environment_factory
from tooleval.errors import ConfigError
from tooleval.model import MetricInfo, Param, Result, Sample

__all__ = ["metric_infos", "row_environment", "state_match_info"]


def row_environment(sample: Sample, option: str | None) -> tuple[str, Mapping[str, Any], Any]:
    """(environment spec, factory config, initial state) for one row; ConfigError when unusable."""
    spec: Any = None
    config: Any = {}
    initial_state: Any = None
    field = sample.metadata.get("environment")
    if field is not None:
        if isinstance(field, str):
            spec = field
        elif isinstance(field, Mapping):
            spec = field.get("name")
            config = field.get("config") or {}
            initial_state = field.get("initial_state")
        else:
            raise ConfigError(
                f"metadata.environment must be a name or an object, got {type(field).__name__}",
                field="metadata.environment",
            )
        if spec is not None and ":" in str(spec):
            environment_factory(str(spec))  # refuses: rows never name modules
    if spec is None:
        spec = option
    if spec is None:
        raise ConfigError(
            "no environment: give metadata.environment.name in the row or the "
            "state_match option environment",
            field="metadata.environment",
        )
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"metadata.environment.config must be an object, got {type(config).__name__}",
            field="metadata.environment.config",
        )
    return str(spec), config, initial_state


def _score(
    sample: Sample,
    *,
    environment: str | None = None,
    list_order: str = "strict",
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    outputs: list[str] | None = None,
    threshold: float | None = None,
) -> Result:
    try:
        spec, config, initial_state = row_environment(sample, environment)
        factory = environment_factory(spec, allow_import=spec == environment)
    except ConfigError as exc:
        return Result.unscored(NAME, f"cannot replay: {exc}")
    expected = sample.expected_tools.calls if sample.expected_tools is not None else None
    result = state_match(
        list(expected) if expected is not None else None,
        sample.actual_calls(),
        environment=lambda: factory(dict(config)),
        initial_state=initial_state,
        list_order=list_order,
        include=include,
        exclude=exclude or (),
        outputs=outputs,
        threshold=threshold,
    )
    result.params["environment"] = spec
    return result


def state_match_info() -> MetricInfo:
    return MetricInfo(
        name=NAME,
        description="replay expected and actual calls on two fresh environments and compare "
        "the end states (metadata.environment names the environment); no judge",
        params={
            "environment": Param(
                None, "environment for rows without metadata.environment: a name or module:attr"
            ),
            "list_order": Param(
                "strict",
                "strict: lists compare item by item; ignore: as multisets",
                choices=LIST_ORDERS,
            ),
            "include": Param(None, "only these state paths count (null: all)"),
            "exclude": Param(None, "these state paths do not count"),
            "outputs": Param(None, "texts that must appear in the actual calls' results"),
            "threshold": Param(None, "pass when score >= threshold (null: score == 1)"),
        },
        requires=("tools_called", "expected_tools"),
        needs_judge=False,
        score_sample=_score,
    )


def metric_infos() -> list[MetricInfo]:
    """The entry point ``tooleval.metrics: environments``."""
    return [state_match_info()]
