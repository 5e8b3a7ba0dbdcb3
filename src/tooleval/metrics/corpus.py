"""Corpus-level numbers of the benchmark profiles whose official score is not a mean of rows.

Seal-Tools sums counts over the file before dividing; NESTFUL macro-averages
F1 over labels across the file. :func:`corpus_summary` computes them from the
per-row results (their ``diagnosis.details``), for ``tooleval score --table``
and for callers.

>>> from tooleval.model import Sample, ToolCall
>>> from tooleval.metrics.registry import score_sample
>>> s = Sample(tools_called=[ToolCall("a", {"x": 1})], expected_tools=[ToolCall("a", {"x": 1})])
>>> corpus_summary("seal_tools", [score_sample("seal_tools", s)])["F1_api"]
1.0
>>> corpus_summary("tool_call_f1", []) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tooleval.metrics.profile_nestful import nestful_summary
from tooleval.metrics.profile_seal_tools import seal_tools_summary
from tooleval.model import Result

__all__ = ["CORPUS_SUMMARIES", "corpus_summary"]

CORPUS_SUMMARIES: dict[str, Callable[[Iterable[Result]], dict[str, Any]]] = {
    "seal_tools": seal_tools_summary,
    "nestful": nestful_summary,
}


def corpus_summary(metric: str, results: Iterable[Result]) -> dict[str, Any] | None:
    """The benchmark's own corpus-level numbers for ``metric``'s results, or None."""
    summarize = CORPUS_SUMMARIES.get(metric)
    return None if summarize is None else summarize(results)
