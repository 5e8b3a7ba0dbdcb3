"""tau-bench: a trajectories JSON list scored by tau-bench's ``r_actions`` rule.

Reader :mod:`~tooleval.benchmarks.tau_bench.reader` (messages shared with
tau2 in :mod:`~tooleval.benchmarks.tau_bench.messages`), metric
``tau_bench_actions`` (:mod:`~tooleval.benchmarks.tau_bench.metric`, rules in
:mod:`~tooleval.benchmarks.tau_bench.rules`), and :data:`BENCHMARK`.

>>> BENCHMARK.detect([{"task_id": 0, "traj": [], "info": {}}])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks._shape import first_record
from tooleval.benchmarks.base import Benchmark
from tooleval.model import MetricInfo, Sample

__all__ = ["BENCHMARK"]


def _read(path: Path, data: Any = None) -> list[Sample]:
    from tooleval.benchmarks.tau_bench.reader import load_tau_bench

    return load_tau_bench(path)


def _detect(value: Any) -> bool:
    first = first_record(value)
    return (
        isinstance(value, list)
        and first is not None
        and "traj" in first
        and isinstance(first.get("info"), Mapping)
        and "task_id" in first
    )


def _near_miss(value: Any, head: str) -> str | None:
    if value is None and head.startswith("[") and '"traj"' in head and '"task_id"' in head:
        return "looks like tau-bench results, but the file is not valid JSON (cut short?)"
    return None


def _metrics() -> tuple[MetricInfo, ...]:
    from tooleval.benchmarks.tau_bench.metric import METRICS

    return METRICS


BENCHMARK = Benchmark(
    name="tau-bench",
    title="tau-bench",
    description="a tau-bench trajectories JSON list",
    read=_read,
    default_metric="tau_bench_actions",
    metrics=_metrics,
    detect=_detect,
    near_miss=_near_miss,
    docs="docs/benchmarks/tau-bench.md",
)
