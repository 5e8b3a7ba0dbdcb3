"""Corpus-level numbers of the benchmarks whose official score is not a mean of rows.

Seal-Tools sums counts over the file before dividing; NESTFUL macro-averages
F1 over labels across the file. Each :class:`~tooleval.benchmarks.Benchmark`
declares these in ``summaries`` (metric name -> function over the per-row
results); :func:`corpus_summary` asks every record, for ``tooleval score
--table`` and for callers.

>>> from tooleval.model import Sample, ToolCall
>>> from tooleval.metrics.registry import score_sample
>>> s = Sample(tools_called=[ToolCall("a", {"x": 1})], expected_tools=[ToolCall("a", {"x": 1})])
>>> corpus_summary("seal_tools", [score_sample("seal_tools", s)])["F1_api"]
1.0
>>> corpus_summary("tool_call_f1", []) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tooleval.benchmarks.registry import list_benchmarks
from tooleval.model import Result

__all__ = ["corpus_summary"]


def corpus_summary(metric: str, results: Iterable[Result]) -> dict[str, Any] | None:
    """The benchmark's own corpus-level numbers for ``metric``'s results, or None."""
    for record in list_benchmarks():
        summarize = record.summaries.get(metric)
        if summarize is not None:
            return dict(summarize(results))
    return None
