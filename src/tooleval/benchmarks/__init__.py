"""Benchmarks as plug-ins: one folder per benchmark, one :class:`Benchmark` record each.

Built in: ``bfcl``, ``tau-bench``, ``tau2``, ``api-bank``, ``seal-tools``
and ``nestful`` (``tooleval/benchmarks/<name>/``: reader, decoders, grading
metrics, detection, default metric). Every benchmark, built in or third
party, is found through the ``tooleval.benchmarks`` entry-point group
(:mod:`~tooleval.benchmarks.registry`); ``tooleval score --format NAME``,
format detection, ``tooleval metrics`` and the metric registry read the
records. See docs/benchmarks/ for each benchmark's page.

>>> [b.name for b in list_benchmarks()][:3]
['api-bank', 'bfcl', 'nestful']
>>> get_benchmark("TAU_BENCH").default_metric
'tau_bench_actions'
"""

from tooleval.benchmarks.base import (
    UNREADABLE,
    Benchmark,
    lazy,
    normalize_name,
    unreadable,
    unreadable_reason,
)
from tooleval.benchmarks.registry import (
    ENTRY_POINT_GROUP,
    canonical_format,
    format_names,
    get_benchmark,
    list_benchmarks,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "UNREADABLE",
    "Benchmark",
    "canonical_format",
    "format_names",
    "get_benchmark",
    "lazy",
    "list_benchmarks",
    "normalize_name",
    "unreadable",
    "unreadable_reason",
]
