"""tau-bench: a trajectories JSON list scored by tau-bench's reward, by replay or by calls.

Reader :mod:`~tooleval.benchmarks.tau_bench.reader` (messages shared with
tau2 in :mod:`~tooleval.benchmarks.tau_bench.messages`), metrics
``tau_bench_reward`` (replay on tau-bench's own environment,
:mod:`~tooleval.benchmarks.tau_bench.reward_metric`) and ``tau_bench_actions``
(``r_actions`` predicted from the calls, :mod:`~tooleval.benchmarks.tau_bench.metric`,
rules in :mod:`~tooleval.benchmarks.tau_bench.rules`), and :data:`BENCHMARK`,
whose grader picks replay when tau-bench's source is found (``--data``).

>>> BENCHMARK.detect([{"task_id": 0, "traj": [], "info": {}}])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.benchmarks._shape import first_record
from tooleval.benchmarks.base import Benchmark, lazy
from tooleval.model import MetricInfo

__all__ = ["BENCHMARK"]


def _detect(value: Any) -> bool:
    first = first_record(value)
    return (
        isinstance(value, list)
        and first is not None
        and "traj" in first
        and isinstance(first.get("info"), Mapping)
        and "task_id" in first
    )


def _grader(data: Any) -> tuple[str, dict[str, Any], str | None]:
    """Replay on tau-bench's environment when its source is found, else call matching (said)."""
    from tooleval.benchmarks.tau_bench.replay_source import domain_versions, find_source
    from tooleval.errors import ConfigError

    try:
        root = find_source(data)
    except ConfigError as exc:
        if data is not None:  # a folder the user named that holds no tau-bench: refuse
            raise ConfigError(str(exc.message), field="--data") from None
        return (
            "tau_bench_actions",
            {},
            f"tau-bench: graded by call matching (tau_bench_actions), not replay: {exc.message}",
        )
    versions = ", ".join(f"{d} {v}" for d, v in domain_versions(root).items())
    return (
        "tau_bench_reward",
        {"source": str(root)},
        f"tau-bench: reward by replay (tau_bench_reward) on tau-bench's environment at {root} "
        f"({versions or 'no domain found'})",
    )


def _near_miss(value: Any, head: str) -> str | None:
    if value is None and head.startswith("[") and '"traj"' in head and '"task_id"' in head:
        return "looks like tau-bench results, but the file is not valid JSON (cut short?)"
    return None


def _metrics() -> tuple[MetricInfo, ...]:
    from tooleval.benchmarks.tau_bench.metric import METRICS
    from tooleval.benchmarks.tau_bench.reward_metric import REWARD_METRICS

    return (*METRICS, *REWARD_METRICS)


BENCHMARK = Benchmark(
    name="tau-bench",
    title="tau-bench",
    description="a tau-bench trajectories JSON list",
    # --data is the grader's (tau-bench's source, for replay); the reader takes none.
    read=lazy("tooleval.benchmarks.tau_bench.reader:load_tau_bench", data=None),
    default_metric="tau_bench_actions",
    metrics=_metrics,
    detect=_detect,
    near_miss=_near_miss,
    data="DIR: tau-bench's source folder (holds tau_bench/envs), to replay the reward; "
    "default $TOOLEVAL_TAU_BENCH_SOURCE or an installed tau_bench, else call matching",
    docs="docs/benchmarks/tau-bench.md",
    grader=_grader,
)
