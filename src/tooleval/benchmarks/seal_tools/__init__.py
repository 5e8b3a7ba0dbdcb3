"""Seal-Tools: predictions (+ the reference file) scored by Seal-Tools' official P/R/F1.

Reader :mod:`~tooleval.benchmarks.seal_tools.reader`, metric ``seal_tools``
and its corpus numbers (:mod:`~tooleval.benchmarks.seal_tools.metric`), and
:data:`BENCHMARK`.

>>> BENCHMARK.detect({"calling": [], "query": "q"})
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.benchmarks._shape import first_record, is_canonical
from tooleval.benchmarks.base import Benchmark, lazy

__all__ = ["BENCHMARK"]


def _detect(value: Any) -> bool:
    row = first_record(value)
    if row is None or is_canonical(row):
        return False
    if "calling" in row and "query" in row:
        return True
    return "predict" in row and isinstance(row.get("gold_data"), Mapping)


BENCHMARK = Benchmark(
    name="seal-tools",
    title="Seal-Tools",
    description="Seal-Tools predictions (+ --data reference)",
    read=lazy("tooleval.benchmarks.seal_tools.reader:load_seal_tools", data="reference"),
    default_metric="seal_tools",
    metrics=lazy("tooleval.benchmarks.seal_tools.metric:METRICS"),
    detect=_detect,
    jsonl_rows=True,
    data="FILE: the Seal-Tools reference file the predictions answer",
    summaries={"seal_tools": lazy("tooleval.benchmarks.seal_tools.metric:seal_tools_summary")},
    docs="docs/benchmarks/seal-tools.md",
)
