"""The judged metrics, as this package provides them to the metric registry.

Each judged metric is declared beside its function with
:func:`tooleval.model.metric.metric`, the form every metric takes; the
registry finds them through this package's ``tooleval.metrics`` entry point
(``judged_metrics``), the same route a third-party metric takes.

>>> from tooleval.model.metric import declaration
>>> [declaration(function).name for function in judged_metrics()]
['topic_adherence', 'goal_accuracy', 'tools_error', 'task_success']
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["JUDGED_METRICS", "judged_metric", "judged_metrics", "prompt_version"]

JUDGED_METRICS = ("topic_adherence", "goal_accuracy", "tools_error", "task_success")
# The prompt constants (tooleval.judged.prompts) each metric's dialogue is built from.
_PROMPT_PREFIXES = {
    "topic_adherence": ("TOPIC_",),
    "goal_accuracy": ("GOAL_",),
    "tools_error": ("TOOL_ERROR_", "TOOLS_ERROR_"),
    "task_success": ("TASK_SUCCESS_",),
}


def prompt_version(metric: str) -> str:
    """A hash of the prompts, schemas and shared preamble a judged metric asks its judge with.

    A calibration holds for one prompt version: any edit to the metric's prompts
    gives another hash, and the judge is uncalibrated again.

    >>> len(prompt_version("task_success")), prompt_version("task_success") != prompt_version(
    ...     "tools_error")
    (12, True)
    """
    from tooleval.judged import prompts

    prefixes = _PROMPT_PREFIXES.get(metric)
    if prefixes is None:
        raise ValueError(f"{metric!r} is not a judged metric; expected one of {JUDGED_METRICS}")
    parts = {"SYSTEM_PROMPT": prompts.SYSTEM_PROMPT, "TRANSCRIPT_LEGEND": prompts.TRANSCRIPT_LEGEND}
    parts.update(
        (name, value) for name, value in vars(prompts).items() if name.startswith(prefixes)
    )
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def judged_metric(metric: str) -> Any:
    """The declared function of one judged metric by name."""
    for function in judged_metrics():
        if function.__name__ == metric:
            return function
    raise ValueError(f"{metric!r} is not a judged metric; expected one of {JUDGED_METRICS}")


def judged_metrics() -> list[Any]:
    """The four judged metrics' declared functions, in a fixed order."""
    from tooleval.judged.goal_accuracy import goal_accuracy
    from tooleval.judged.task_success import task_success
    from tooleval.judged.tools_error import tools_error
    from tooleval.judged.topic_adherence import topic_adherence

    return [topic_adherence, goal_accuracy, tools_error, task_success]
