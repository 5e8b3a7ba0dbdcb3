"""``state_match`` as the registry lists it (loaded through the ``tooleval.metrics`` entry point).

A row says which environment its calls run in with ``metadata.environment``::

    {"metadata": {"environment": {
        "name": "orders",                      # a registered or declared environment
        "config": {"currency": "EUR"},         # optional, given to its factory
        "initial_state": {"orders": {...}}}}}  # optional, the state both replays start from

The metric option ``environment`` (a name, or ``"module:attribute"`` in a plan
or on the command line, or ``{"name": ..., "config": {...}}``, what a plan's
``environment`` key gives) names the environment for rows that do not; a row's
own name wins, and a row's own ``config`` wins over the option's. The expected calls are the row's ``expected_tools`` (with
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
from tooleval.environments.protocol import CallOutcome
from tooleval.errors import ConfigError
from tooleval.model import MetricInfo, Param, Result, Sample
from tooleval.user_deadline import DEADLINE_ENV, DeadlinePassed, bounded, user_code_seconds

__all__ = [
    "BoundedEnvironment",
    "metric_infos",
    "row_environment",
    "state_match_info",
]


class BoundedEnvironment:
    """An environment each of whose calls runs under a deadline (:func:`bounded`).

    A call that does not return in time raises
    :class:`~tooleval.user_deadline.DeadlinePassed` naming the
    environment, the method and the deadline; ``state_match`` makes the row
    unscored with that reason.
    """

    def __init__(self, inner: Any, seconds: float, name: str) -> None:
        self._inner = inner
        self._seconds = seconds
        self._name = name

    def _what(self, method: str) -> str:
        return f"environment {self._name!r} {method}"

    def reset(self, initial_state: Any = None) -> None:
        inner = self._inner
        bounded(lambda: inner.reset(initial_state), self._seconds, what=self._what("reset()"))

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        inner = self._inner
        outcome: CallOutcome = bounded(
            lambda: inner.call(name, arguments), self._seconds, what=self._what(f"call({name!r})")
        )
        return outcome

    def state(self) -> Any:
        return bounded(self._inner.state, self._seconds, what=self._what("state()"))


def row_environment(sample: Sample, option: Any) -> tuple[str, Mapping[str, Any], Any]:
    """(environment spec, factory config, initial state) for one row; ConfigError when unusable.

    ``option`` is the metric option: None, a name, or ``{"name", "config"}``.
    """
    default_spec, default_config = _option(option)
    spec: Any = None
    config: Any = None
    initial_state: Any = None
    field = sample.metadata.get("environment")
    if field is not None:
        if isinstance(field, str):
            spec = field
        elif isinstance(field, Mapping):
            spec = field.get("name")
            config = field.get("config")
            initial_state = field.get("initial_state")
        else:
            raise ConfigError(
                f"metadata.environment must be a name or an object, got {type(field).__name__}",
                field="metadata.environment",
            )
        if spec is not None and ":" in str(spec):
            environment_factory(str(spec))  # refuses: rows never name modules
    if spec is None:
        spec = default_spec
        config = default_config if config is None else config
    if spec is None:
        raise ConfigError(
            "no environment: give metadata.environment.name in the row or the "
            "state_match option environment",
            field="metadata.environment",
        )
    config = {} if config is None else config
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"metadata.environment.config must be an object, got {type(config).__name__}",
            field="metadata.environment.config",
        )
    return str(spec), config, initial_state


def _option(option: Any) -> tuple[str | None, Mapping[str, Any] | None]:
    """The ``environment`` option as (name, config)."""
    if option is None or isinstance(option, str):
        return option, None
    if isinstance(option, Mapping) and isinstance(option.get("name"), str):
        config = option.get("config")
        if config is not None and not isinstance(config, Mapping):
            raise ConfigError(
                f"environment.config must be an object, got {type(config).__name__}",
                field="environment.config",
            )
        return option["name"], config
    raise ConfigError(
        "the environment option is a name, 'module:attribute', or {name, config}; "
        f"got {option!r}",
        field="environment",
    )


def _check_environment(option: Any) -> Any:
    """The validator of the ``environment`` option: it must name an environment that loads.

    Run when the metric is bound, before any row: an unknown name or a
    ``module:attribute`` that does not import is a ConfigError then, never
    every row's "cannot replay". The option is kept as given.
    """
    spec, _config = _option(option)
    if spec is not None:
        environment_factory(spec, allow_import=True)
    return option


def _prepare(params: dict[str, Any]) -> dict[str, Any]:
    """What ``_score`` takes: the options and the deadline of each call into the environment."""
    params["deadline"] = user_code_seconds()
    return params


def _score(
    sample: Sample,
    *,
    environment: Any = None,
    list_order: str = "strict",
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    outputs: list[str] | None = None,
    threshold: float | None = None,
    deadline: float | None = None,
) -> Result:
    try:
        spec, config, initial_state = row_environment(sample, environment)
        factory = environment_factory(spec, allow_import=spec == _option(environment)[0])
    except ConfigError as exc:
        return Result.unscored(NAME, f"cannot replay: {exc}")
    expected = sample.expected_tools.calls if sample.expected_tools is not None else None
    seconds = user_code_seconds() if deadline is None else deadline

    def make() -> Any:
        try:
            return factory(dict(config))
        except ConfigError:
            raise
        except Exception as exc:  # the user's factory: a row it cannot build is unscored
            raise ConfigError(
                f"environment {spec!r} could not be built: {type(exc).__name__}: {exc}"
            ) from None

    def build() -> Any:
        built = bounded(make, seconds, what=f"environment {spec!r} factory")
        return BoundedEnvironment(built, seconds, spec)

    try:
        result = state_match(
            list(expected) if expected is not None else None,
            sample.actual_calls(),
            environment=build,
            initial_state=initial_state,
            list_order=list_order,
            include=include,
            exclude=exclude or (),
            outputs=outputs,
            threshold=threshold,
        )
    except DeadlinePassed as exc:
        return Result.unscored(
            NAME,
            f"not scored: {exc} (${DEADLINE_ENV} sets it)",
            params={"list_order": list_order, "include": include, "environment": spec},
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
                None,
                "environment for rows without metadata.environment: a name, module:attr, "
                "or {name, config} (a plan's environment key)",
                check=_check_environment,
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
        prepare=_prepare,
    )


def metric_infos() -> list[MetricInfo]:
    """The entry point ``tooleval.metrics: environments``."""
    return [state_match_info()]
