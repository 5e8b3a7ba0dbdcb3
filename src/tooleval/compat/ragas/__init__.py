"""Drop-in, ragas-free replacements for ragas 0.4.3's tool-call metrics.

Change one import and keep every score::

    # from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
    # from ragas.dataset_schema import MultiTurnSample
    # from ragas.metrics import ToolCallAccuracy, ToolCallF1
    from tooleval.compat.ragas import (
        AIMessage, HumanMessage, MultiTurnSample, ToolCall, ToolCallAccuracy, ToolCallF1,
        ToolMessage,
    )

Scores equal ragas 0.4.3's on every input ragas accepts (checked against the
real library on 10,000+ random samples in ``tests/compat``). Where ragas'
rules differ from tooleval's own metrics, ``docs/ragas-compat.md`` says how
and why.

>>> sample = MultiTurnSample(
...     user_input=[HumanMessage(content="weather in Paris?"),
...                 AIMessage(content="", tool_calls=[
...                     ToolCall(name="weather", args={"city": "Paris"})])],
...     reference_tool_calls=[ToolCall(name="weather", args={"city": "Paris"})],
... )
>>> ToolCallAccuracy(strict_order=False).multi_turn_score(sample)
1.0
"""

from tooleval.compat.ragas.messages import (
    AIMessage,
    HumanMessage,
    MultiTurnSample,
    ToolCall,
    ToolMessage,
)
from tooleval.compat.ragas.metrics import MetricResult, ToolCallAccuracy, ToolCallF1
from tooleval.compat.ragas.similarity import DistanceMeasure, ExactMatch, NonLLMStringSimilarity

__all__ = [
    "AIMessage",
    "DistanceMeasure",
    "ExactMatch",
    "HumanMessage",
    "MetricResult",
    "MultiTurnSample",
    "NonLLMStringSimilarity",
    "ToolCall",
    "ToolCallAccuracy",
    "ToolCallF1",
    "ToolMessage",
]
