"""A promptfoo Python assertion that scores a reply's tool calls with a tooleval metric.

promptfoo calls ``get_assert(output, context)`` for ``type: python`` assertions. Point it at
this module's file (or at ``examples/promptfoo/tooleval_assert.py``, which imports it)::

    tests:
      - vars: {question: "Cancel order 4471"}
        assert:
          - type: python
            value: file://tooleval_assert.py
            config:
              expected_tools: [lookup_order, cancel_order]
              metric: tool_correctness     # optional; any deterministic metric
              options: {argument_keys: [order_id], threshold: 1.0}   # optional

The reply (``output``) is read as whatever promptfoo hands over: an OpenAI message or
response with ``tool_calls``, a list of calls, a JSON text of either, or plain text (no call).
The result is a GradingResult dict: ``pass``, ``score`` and ``reason`` (tooleval's one-sentence
reason). A case tooleval cannot score (no ``expected_tools``) fails with the reason, and its
score is left out rather than reported as 0.

>>> get_assert('[{"name": "lookup_order", "arguments": {"order_id": "4471"}}]',
...            {"config": {"expected_tools": ["lookup_order"]}})["pass"]
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tooleval.errors import ToolEvalError
from tooleval.formats import import_conversation, parse_expected_tools, parse_tool_calls
from tooleval.metrics.registry import score_sample
from tooleval.model import Sample

__all__ = ["get_assert", "sample_from_output"]


def _decoded(output: Any) -> Any:
    if isinstance(output, str | bytes):
        try:
            return json.loads(output)
        except ValueError:
            return output
    return output


def sample_from_output(output: Any, expected: Any) -> Sample:
    """The reply's calls (in any shape promptfoo passes) and the reference, as a Sample."""
    value = _decoded(output)
    if isinstance(value, Mapping) and isinstance(value.get("choices"), list) and value["choices"]:
        value = value["choices"][0].get("message", value)  # a whole chat completion
    calls: Any
    if isinstance(value, Mapping) and ("tool_calls" in value or "role" in value):
        calls = import_conversation([dict(value)]).actual_calls()
    elif isinstance(value, list):
        calls = parse_tool_calls(value, field="output") or []
    else:
        calls = []  # plain text: the model called nothing
    reference = parse_expected_tools(expected, field="config.expected_tools")
    text = value if isinstance(value, str) else None
    return Sample(tools_called=calls, expected_tools=reference, output=text)


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's entry point: a GradingResult for ``output`` against the config's reference."""
    config = dict((context or {}).get("config") or {})
    metric = str(config.get("metric", "tool_correctness"))
    options = dict(config.get("options") or {})
    try:
        sample = sample_from_output(output, config.get("expected_tools"))
        result = score_sample(metric, sample, **options)
    except ToolEvalError as exc:
        return {"pass": False, "score": 0.0, "reason": f"tooleval: {exc}"}
    if result.score is None:
        return {"pass": False, "reason": f"tooleval could not score this case: {result.reason}"}
    return {"pass": bool(result.passed), "score": result.score, "reason": result.reason}
