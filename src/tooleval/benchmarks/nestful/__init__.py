"""NESTFUL: nested-call predictions (+ the reference file) scored by NESTFUL's official scorer.

Reader :mod:`~tooleval.benchmarks.nestful.reader`, metric ``nestful`` and
its corpus numbers (:mod:`~tooleval.benchmarks.nestful.metric`), and
:data:`BENCHMARK`.

>>> BENCHMARK.detect({"input": "q", "generated_text": "[]"})
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks._shape import first_record, is_canonical
from tooleval.benchmarks.base import Benchmark
from tooleval.model import MetricInfo, Result, Sample

__all__ = ["BENCHMARK"]


def _read(path: Path, data: Any = None) -> list[Sample]:
    from tooleval.benchmarks.nestful.reader import load_nestful

    return load_nestful(path, reference=data)


def _detect(value: Any) -> bool:
    row = first_record(value)
    if row is None or is_canonical(row) or "input" not in row:
        return False
    if "generated_text" in row:
        return True
    output = row.get("output")
    return (
        isinstance(output, list)
        and bool(output)
        and isinstance(output[0], Mapping)
        and "name" in output[0]
        and "arguments" in output[0]
    )


def _metrics() -> tuple[MetricInfo, ...]:
    from tooleval.benchmarks.nestful.metric import METRICS

    return METRICS


def _summary(results: Iterable[Result]) -> dict[str, Any]:
    from tooleval.benchmarks.nestful.metric import nestful_summary

    return dict(nestful_summary(results))


BENCHMARK = Benchmark(
    name="nestful",
    title="NESTFUL",
    description="NESTFUL predictions (+ --data reference)",
    read=_read,
    default_metric="nestful",
    metrics=_metrics,
    detect=_detect,
    jsonl_rows=True,
    data="FILE: the NESTFUL reference file the predictions answer",
    summaries={"nestful": _summary},
    docs="docs/benchmarks/nestful.md",
)
