"""Traceloop (legacy OpenLLMetry): ``traceloop.span.kind = tool`` spans.

The tool is ``traceloop.entity.name`` (else the span name), its inputs
``traceloop.entity.input`` (a function's ``{"args": [...], "kwargs": {...}}``,
read as keyword arguments with the positional ones under ``args``) and its
result ``traceloop.entity.output``; the session is
``traceloop.association.properties.session_id``.

>>> from tooleval.traces.otlp import OtlpSpan
>>> span = OtlpSpan("ab" * 16, "cd" * 8, name="lookup.tool", attributes={
...     "traceloop.span.kind": "tool", "traceloop.entity.name": "lookup",
...     "traceloop.entity.input": '{"args": [], "kwargs": {"order": 7}}'})
>>> Traceloop().tool_call(span).arguments
{'order': 7}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.traces.facts import Convention, SpanCall, maybe_json, tool_call
from tooleval.traces.otlp import OtlpSpan

__all__ = ["Traceloop"]


class Traceloop(Convention):
    name = "traceloop"
    marker_keys = ("traceloop.span.kind",)
    session_keys = ("traceloop.association.properties.session_id",)

    def tool_call(self, span: OtlpSpan) -> SpanCall | None:
        a = span.attributes
        if str(a.get("traceloop.span.kind", "")).lower() != "tool":
            return None
        name = a.get("traceloop.entity.name") or span.name
        if not name:
            return None
        return tool_call(
            span,
            name,
            _arguments(a.get("traceloop.entity.input")),
            maybe_json(a.get("traceloop.entity.output")),
            None,
            "traceloop",
        )


def _arguments(value: Any) -> Any:
    # Traceloop records a function's inputs as {"args": [...], "kwargs": {...}}.
    data = maybe_json(value)
    if isinstance(data, Mapping) and set(data) <= {"args", "kwargs"} and data:
        kwargs = dict(data.get("kwargs") or {})
        if data.get("args"):
            kwargs["args"] = list(data["args"])
        return kwargs
    return data
