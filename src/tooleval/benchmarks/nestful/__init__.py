"""NESTFUL: nested-call predictions (+ the reference file) scored by NESTFUL's official scorer.

Reader :mod:`~tooleval.benchmarks.nestful.reader`, metric ``nestful`` and
its corpus numbers (:mod:`~tooleval.benchmarks.nestful.metric`), and
:data:`BENCHMARK`.

>>> BENCHMARK.detect({"input": "q", "generated_text": "[]"})
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


BENCHMARK = Benchmark(
    name="nestful",
    title="NESTFUL",
    description="NESTFUL predictions (+ --data reference)",
    read=lazy("tooleval.benchmarks.nestful.reader:load_nestful", data="reference"),
    default_metric="nestful",
    metrics=lazy("tooleval.benchmarks.nestful.metric:METRICS"),
    detect=_detect,
    jsonl_rows=True,
    data="FILE: the NESTFUL reference file the predictions answer",
    summaries={"nestful": lazy("tooleval.benchmarks.nestful.metric:nestful_summary")},
    docs="docs/benchmarks/nestful.md",
)
