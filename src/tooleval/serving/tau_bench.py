"""tau-bench's airline and retail domains as environments an agent can be put into.

The domain's tools and data are tau-bench's own, found the way replay finds
them (:func:`~tooleval.benchmarks.tau_bench.replay_source.load_domain`: the
``source`` config key, ``$TOOLEVAL_TAU_BENCH_SOURCE``, or an installed
``tau_bench``). Each :meth:`TauBenchEnvironment.reset` starts from a fresh
copy of the domain's data; a call runs the tool's ``invoke(data, **kwargs)``
as tau-bench's ``Env.step`` does, and a tool that raises answers
``Error: ...``, the text tau-bench's agent would see. Registered as the
environments ``tau_bench_airline`` and ``tau_bench_retail`` (entry-point
group ``tooleval.environments``)::

    environment: {name: tau_bench_retail, config: {source: ../tau-bench}}

tau2's airline and retail domains are ports of these two: a plan whose
dataset is tau2's own tasks file (``airline_tasks.json``, ``retail_tasks.json``,
or a domain's ``tasks.json``) reads each task as its episode row
(:func:`tau2_task_rows_of`, :func:`~tooleval.benchmarks.tau2.tasks.tau2_task_rows`)
and serves it on tau-bench's tools of the same domain.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.benchmarks.tau2.tasks import tau2_task_rows
from tooleval.benchmarks.tau_bench.replay_source import TauDomain, load_domain
from tooleval.environments.protocol import CallOutcome, Limits
from tooleval.environments.python import json_value_error
from tooleval.errors import ConfigError, DatasetError, FormatError
from tooleval.user_deadline import CallTimeout, deadline

__all__ = ["TauBenchEnvironment", "airline", "retail", "tau2_task_rows_of"]

_CONFIG_KEYS = ("source",)


class TauBenchEnvironment:
    """One tau-bench domain over its own data (see the module docstring)."""

    def __init__(self, domain: TauDomain, *, limits: Limits | None = None) -> None:
        self.domain = domain
        self.limits = limits or Limits()
        self._data: dict[str, Any] | None = None  # loaded at the first reset or call
        self._calls = 0

    def tool_specs(self) -> list[dict[str, Any]]:
        return [dict(spec) for spec in self.domain.tool_specs]

    def reset(self, initial_state: Any = None) -> None:
        if initial_state is None:
            self._data = self.domain.fresh_data()
        elif isinstance(initial_state, dict):
            self._data = copy.deepcopy(initial_state)
        else:
            raise ConfigError(
                f"a tau-bench {self.domain.name} state is an object (its database), got "
                f"{type(initial_state).__name__}",
                field="metadata.environment.initial_state",
            )
        self._calls = 0

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        tool = self.domain.tools.get(name)
        if tool is None:
            return CallOutcome.error(f"Unknown action {name}")
        why = json_value_error(arguments, "arguments")
        if why is not None:
            return CallOutcome.error(f"Error: {name}: {why}")
        if self.limits.calls is not None and self._calls >= self.limits.calls:
            return CallOutcome.error(f"Error: more than {self.limits.calls} calls in one episode")
        self._calls += 1
        data = self.state()
        try:
            with deadline(self.limits.call_seconds):
                return CallOutcome(result=str(tool(data=data, **arguments)))
        except CallTimeout:
            return CallOutcome.error(
                f"Error: {name} ran past {self.limits.call_seconds} s", executed=True
            )
        except Exception as exc:  # tau-bench's step answers every raised error as text
            return CallOutcome.error(f"Error: {exc}", executed=True)

    def state(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self.domain.fresh_data()
        return self._data


def _make(domain: str, config: Mapping[str, Any]) -> TauBenchEnvironment:
    unknown = sorted(set(config) - set(_CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key; a tau-bench environment takes {', '.join(_CONFIG_KEYS)}",
            field=f"environment.config.{unknown[0]}",
        )
    return TauBenchEnvironment(load_domain(domain, config.get("source")))


def airline(config: Mapping[str, Any]) -> TauBenchEnvironment:
    """The factory of ``tau_bench_airline``."""
    return _make("airline", config)


def retail(config: Mapping[str, Any]) -> TauBenchEnvironment:
    """The factory of ``tau_bench_retail``."""
    return _make("retail", config)


_TAU2_COLUMNS = ("id", "user_scenario", "evaluation_criteria")


def tau2_task_rows_of(
    path: Path, columns: Sequence[str], values: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]] | None:
    """The episode rows of a dataset file that is tau2's tasks file, else None.

    A tau2 tasks file is a JSON list of objects with ``id``, ``user_scenario``
    and ``evaluation_criteria``; its domain is the file's name before
    ``_tasks`` (``retail_tasks.json``), or its folder's for ``tasks.json``
    (tau2's ``domains/<domain>/tasks.json``).

    >>> tau2_task_rows_of(Path("rows.jsonl"), ["input"], [{"input": "hi"}]) is None
    True
    """
    if not all(column in columns for column in _TAU2_COLUMNS):
        return None
    stem = path.stem
    domain = path.parent.name if stem == "tasks" else stem.removesuffix("_tasks")
    try:
        return tau2_task_rows(values, domain=domain)
    except FormatError as exc:
        raise DatasetError(f"tau2 tasks: {exc.message}", file=str(path), field=exc.field) from None
