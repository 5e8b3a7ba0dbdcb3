"""The MCP semantic conventions: ``tools/call`` spans of MCP clients and servers.

The tool name is ``gen_ai.tool.name`` or ``mcp.tool.name`` (else the span
name's suffix); the arguments are ``gen_ai.tool.call.arguments`` or the
flattened ``mcp.request.argument.*`` attributes, each recorded as JSON text.

>>> from tooleval.traces.otlp import OtlpSpan
>>> span = OtlpSpan("ab" * 16, "cd" * 8, name="tools/call search", attributes={
...     "mcp.method.name": "tools/call", "mcp.request.argument.q": '"shoes"'})
>>> call = Mcp().tool_call(span)
>>> call.name, call.arguments
('search', {'q': 'shoes'})
"""

from __future__ import annotations

from tooleval.traces.facts import Convention, SpanCall, json_value, suffix_name, tool_call
from tooleval.traces.otlp import OtlpSpan

__all__ = ["Mcp"]

_ARGUMENT = "mcp.request.argument."


class Mcp(Convention):
    name = "mcp"
    marker_keys = ("mcp.method.name",)

    def tool_call(self, span: OtlpSpan) -> SpanCall | None:
        a = span.attributes
        if a.get("mcp.method.name") != "tools/call":
            return None
        name = (
            a.get("gen_ai.tool.name")
            or a.get("mcp.tool.name")
            or suffix_name(span.name, "tools/call")
        )
        if not name:
            return None
        arguments = a.get("gen_ai.tool.call.arguments")
        if arguments is None:
            flat = {k[len(_ARGUMENT) :]: v for k, v in a.items() if k.startswith(_ARGUMENT)}
            arguments = {k: json_value(v) for k, v in flat.items()} if flat else None
        return tool_call(
            span,
            name,
            arguments,
            a.get("gen_ai.tool.call.result"),
            a.get("gen_ai.tool.call.id"),
            "mcp",
        )
