"""LLM-judged agent metrics: topic adherence, goal accuracy, tools error, task success.

Each metric takes the :class:`~tooleval.model.Sample` first and an explicit
``judge=`` (see :mod:`tooleval.llm`; none is ever created for you), returns a
:class:`~tooleval.model.Result` whose ``diagnosis.details`` keeps every prompt,
raw reply and parsed verdict plus the row's judge usage, and has an async twin
(``a``-prefixed) sharing the same prompt building and scoring.

The metric registry finds the four metrics through this package's
``tooleval.metrics`` entry point (:func:`judged_metrics`); importing the
package registers nothing.

>>> from tooleval.model import Sample
>>> tools_error(Sample(input="hi"), judge=None)
Traceback (most recent call last):
...
tooleval.errors.JudgeError: tools_error needs an LLM judge and none is configured: ...
"""

from tooleval.judged.goal_accuracy import agoal_accuracy, goal_accuracy
from tooleval.judged.registration import judged_metrics
from tooleval.judged.render import render_conversation
from tooleval.judged.task_success import atask_success, task_success
from tooleval.judged.tools_error import atools_error, tools_error
from tooleval.judged.topic_adherence import atopic_adherence, topic_adherence

__all__ = [
    "agoal_accuracy",
    "atask_success",
    "atools_error",
    "atopic_adherence",
    "goal_accuracy",
    "judged_metrics",
    "render_conversation",
    "task_success",
    "tools_error",
    "topic_adherence",
]
