"""Seal-Tools: predictions (+ the reference file) scored by Seal-Tools' official P/R/F1.

Reader :mod:`~tooleval.benchmarks.seal_tools.reader`, metric ``seal_tools``
and its corpus numbers (:mod:`~tooleval.benchmarks.seal_tools.metric`), and
:data:`BENCHMARK`.

>>> BENCHMARK.detect({"calling": [], "query": "q"})
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
    from tooleval.benchmarks.seal_tools.reader import load_seal_tools

    return load_seal_tools(path, reference=data)


def _detect(value: Any) -> bool:
    row = first_record(value)
    if row is None or is_canonical(row):
        return False
    if "calling" in row and "query" in row:
        return True
    return "predict" in row and isinstance(row.get("gold_data"), Mapping)


def _metrics() -> tuple[MetricInfo, ...]:
    from tooleval.benchmarks.seal_tools.metric import METRICS

    return METRICS


def _summary(results: Iterable[Result]) -> dict[str, Any]:
    from tooleval.benchmarks.seal_tools.metric import seal_tools_summary

    return dict(seal_tools_summary(results))


BENCHMARK = Benchmark(
    name="seal-tools",
    title="Seal-Tools",
    description="Seal-Tools predictions (+ --data reference)",
    read=_read,
    default_metric="seal_tools",
    metrics=_metrics,
    detect=_detect,
    jsonl_rows=True,
    data="FILE: the Seal-Tools reference file the predictions answer",
    summaries={"seal_tools": _summary},
    docs="docs/benchmarks/seal-tools.md",
)
