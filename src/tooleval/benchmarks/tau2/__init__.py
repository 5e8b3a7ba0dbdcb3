"""tau2-bench: a results file (``tasks`` and ``simulations``) scored by tau2's action check.

Reader :mod:`~tooleval.benchmarks.tau2.reader`, metric ``tau2_actions``
(:mod:`~tooleval.benchmarks.tau2.metric`, rule in
:mod:`~tooleval.benchmarks.tau2.rules`), and :data:`BENCHMARK`.

>>> BENCHMARK.detect({"tasks": [], "simulations": []})
True
>>> BENCHMARK.near_miss({"simulations": [{"id": "s"}]}, "")[:33]
'looks like tau2 results (it has a'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.benchmarks.base import Benchmark, lazy

__all__ = ["BENCHMARK"]

# Keys only tau2's simulations carry: a file naming them is tau2's.
_MARKERS = ('"termination_reason"', '"evaluation_criteria"', '"reward_info"')


def _detect(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("tasks"), list)
        and isinstance(value.get("simulations"), list)
    )


def _near_miss(value: Any, head: str) -> str | None:
    if value is None:
        if '"simulations"' in head and any(m in head for m in _MARKERS):
            return "looks like tau2 results, but the file is not valid JSON (cut short?)"
        return None
    if not isinstance(value, Mapping) or _detect(value):
        return None
    sims, tasks = value.get("simulations"), value.get("tasks")
    if isinstance(sims, list) and not isinstance(tasks, list):
        return (
            "looks like tau2 results (it has a 'simulations' list), but no 'tasks' list: "
            "tau2 results carry the tasks, whose evaluation_criteria hold the gold actions; "
            "give the results file tau2 wrote, not only its simulations"
        )
    if isinstance(tasks, list) and not isinstance(sims, list) and "simulations" in value:
        return "looks like tau2 results, but 'simulations' is not a list"
    return None


BENCHMARK = Benchmark(
    name="tau2",
    title="tau2-bench",
    aliases=("tau2-bench",),
    description="a tau2-bench results JSON object",
    read=lazy("tooleval.benchmarks.tau2.reader:load_tau2_results", data=None),
    default_metric="tau2_actions",
    metrics=lazy("tooleval.benchmarks.tau2.metric:METRICS"),
    detect=_detect,
    near_miss=_near_miss,
    docs="docs/benchmarks/tau2.md",
)
