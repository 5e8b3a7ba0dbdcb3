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

from typing import Any

__all__ = ["JUDGED_METRICS", "judged_metrics"]

JUDGED_METRICS = ("topic_adherence", "goal_accuracy", "tools_error", "task_success")


def judged_metrics() -> list[Any]:
    """The four judged metrics' declared functions, in a fixed order."""
    from tooleval.judged.goal_accuracy import goal_accuracy
    from tooleval.judged.task_success import task_success
    from tooleval.judged.tools_error import tools_error
    from tooleval.judged.topic_adherence import topic_adherence

    return [topic_adherence, goal_accuracy, tools_error, task_success]
