"""tooleval's own model of agent conversations, tool calls and scores.

Everything left of :class:`Sample` (importers, datasets, connectors, traces)
converts foreign data into these types; everything right of it (metrics, the
store, reports) knows only these types. Nothing here does I/O, and nothing
here imports another part of tooleval but :mod:`tooleval.errors`.

=================  ===========================================================
module             holds
=================  ===========================================================
``calls``          :class:`ToolCall`
``messages``       the four message types and :func:`message_from_dict`
``expected``       :class:`ExpectedTools` (calls plus ordering constraints)
``sample``         :class:`Sample`, one row to score
``results``        :class:`Result`, :class:`Diagnosis`, :class:`ArgumentCheck`
``values``         :data:`MISSING` and :class:`AnyOf` (acceptable values)
``metric``         :class:`MetricInfo`, :class:`Param`, :class:`Aliases`: a metric as registries list it
``usage``          :class:`JudgeUsage`: judge calls, cache hits, tokens, latency
=================  ===========================================================

>>> call = ToolCall.parse("cancel_order", '{"order_id": "4471"}')
>>> call.args
{'order_id': '4471'}
>>> Sample(input="cancel 4471", tools_called=[call]).actual_calls()[0].name
'cancel_order'
"""

from tooleval.model.calls import ToolCall
from tooleval.model.expected import ExpectedTools, as_expected
from tooleval.model.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    message_from_dict,
)
from tooleval.model.metric import Alias, Aliases, MetricInfo, Param, accepts_aliases
from tooleval.model.results import ArgumentCheck, Diagnosis, Result
from tooleval.model.sample import Sample
from tooleval.model.usage import JudgeUsage
from tooleval.model.values import MISSING, AnyOf, values_equal

__all__ = [
    "MISSING",
    "Alias",
    "Aliases",
    "AnyOf",
    "ArgumentCheck",
    "AssistantMessage",
    "Diagnosis",
    "ExpectedTools",
    "JudgeUsage",
    "Message",
    "MetricInfo",
    "Param",
    "Result",
    "Sample",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "accepts_aliases",
    "as_expected",
    "message_from_dict",
    "values_equal",
]
