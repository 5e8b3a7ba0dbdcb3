"""Deterministic tool-call metrics and the metric registry.

Each metric is a pure function ``fn(expected, actual, *, options) -> Result``;
the registry (:mod:`tooleval.metrics.registry`) scores a
:class:`~tooleval.model.Sample` by metric name and re-scores stored results.

>>> from tooleval.model import ToolCall
>>> tool_call_f1(["search"], [ToolCall("search", {"q": "x"})]).score
1.0
"""

from tooleval.metrics.accuracy import tool_call_accuracy
from tooleval.metrics.correctness import tool_correctness
from tooleval.metrics.f1 import tool_call_f1
from tooleval.metrics.output import output_contains
from tooleval.metrics.registry import (
    BoundMetric,
    MetricInfo,
    Param,
    ascore_sample,
    bind,
    get_metric,
    list_metrics,
    register_metric,
    rescore,
    score_sample,
)
from tooleval.metrics.trajectory import trajectory_match

__all__ = [
    "BoundMetric",
    "MetricInfo",
    "Param",
    "ascore_sample",
    "bind",
    "get_metric",
    "list_metrics",
    "output_contains",
    "register_metric",
    "rescore",
    "score_sample",
    "tool_call_accuracy",
    "tool_call_f1",
    "tool_correctness",
    "trajectory_match",
]
