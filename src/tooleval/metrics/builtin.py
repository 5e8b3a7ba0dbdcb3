"""The deterministic metrics this package declares, as the registry collects them.

Each metric is declared once, beside its function, with
:func:`tooleval.model.metric.metric` (name, description, options read from the
signature, help, aliases, sample form); this module only lists them, so the
registry loads them explicitly rather than through import side effects.

>>> from tooleval.model.metric import declaration
>>> [declaration(function).name for function in DECLARED]
['tool_call_accuracy', 'tool_call_f1', 'tool_correctness', 'trajectory_match', 'output_contains']
"""

from __future__ import annotations

from tooleval.metrics.accuracy import tool_call_accuracy
from tooleval.metrics.correctness import tool_correctness
from tooleval.metrics.f1 import tool_call_f1
from tooleval.metrics.output import output_contains_sample
from tooleval.metrics.trajectory import trajectory_match

__all__ = ["DECLARED"]

#: The core metrics, each a function declared with ``@metric(...)``.
DECLARED = (
    tool_call_accuracy,
    tool_call_f1,
    tool_correctness,
    trajectory_match,
    output_contains_sample,
)
