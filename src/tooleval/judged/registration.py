"""Registry entries for the judged metrics (name, options, judge needed).

The metric registry finds them through this package's ``tooleval.metrics``
entry point (``judged_metrics``), the same route a third-party metric takes.

>>> [info.name for info in judged_metrics()]
['topic_adherence', 'goal_accuracy', 'tools_error', 'task_success']
"""

from __future__ import annotations

from typing import Any

__all__ = ["JUDGED_METRICS", "judged_metrics"]

JUDGED_METRICS = ("topic_adherence", "goal_accuracy", "tools_error", "task_success")

# ``requires`` feeds the runner's up-front dataset check: only reference_topics must come
# from the file; messages / tools_called come from the agent in a live run.
_MAX_CHARS_HELP = "cut each tool result or argument shown to the judge at this many characters"


def judged_metrics() -> list[Any]:
    """The four judged metrics' registry entries (``MetricInfo``), in a fixed order."""
    from tooleval.judged.goal_accuracy import agoal_accuracy, goal_accuracy
    from tooleval.judged.task_success import atask_success, task_success
    from tooleval.judged.tools_error import atools_error, tools_error
    from tooleval.judged.topic_adherence import (
        ALIASES,
        EMPTY_CHOICES,
        MEASURES,
        atopic_adherence,
        topic_adherence,
    )
    from tooleval.model import MetricInfo, Param

    max_chars = Param(2000, _MAX_CHARS_HELP)
    threshold = Param(None, "pass when score >= threshold (null: score == 1)")
    return [
        MetricInfo(
            name="topic_adherence",
            description=(
                "LLM judge: share of the agent's answers that stay within the row's "
                "reference_topics (precision), or of on-topic requests it answered (recall), or F1"
            ),
            params={
                "measure": Param("precision", "precision, recall or f1", choices=MEASURES),
                "empty": Param(
                    "unscored",
                    "nothing to compare (the measure's denominator is 0, e.g. precision "
                    "when nothing was answered): perfect (1.0), zero (0.0) or unscored",
                    choices=EMPTY_CHOICES,
                ),
                "max_chars": max_chars,
                "threshold": threshold,
            },
            requires=("messages", "reference_topics"),
            needs_judge=True,
            score_sample=topic_adherence,
            ascore_sample=atopic_adherence,
            aliases=ALIASES,
        ),
        MetricInfo(
            name="goal_accuracy",
            description=(
                "LLM judge, binary: did the conversation end with the user's goal achieved "
                "(against the row's reference when given, else the goal inferred from the chat)"
            ),
            params={"max_chars": max_chars, "threshold": threshold},
            requires=("messages",),
            needs_judge=True,
            score_sample=goal_accuracy,
            ascore_sample=agoal_accuracy,
        ),
        MetricInfo(
            name="tools_error",
            description=(
                "LLM judge: share of tool calls free of parameter_error, invalid_function, "
                "sequence_error, ignored_result, repeated_failure and error_handling"
            ),
            params={"max_chars": max_chars, "threshold": threshold},
            requires=("tools_called",),
            needs_judge=True,
            score_sample=tools_error,
            ascore_sample=atools_error,
        ),
        MetricInfo(
            name="task_success",
            description=(
                "LLM judge, binary: was the user's task accomplished, reading tool results "
                "(a success claimed after a failed tool call is a failure)"
            ),
            params={"max_chars": max_chars, "threshold": threshold},
            requires=("messages", "tools_called"),
            needs_judge=True,
            score_sample=task_success,
            ascore_sample=atask_success,
        ),
    ]
