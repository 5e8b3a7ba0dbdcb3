"""The OpenInference conventions (Arize Phoenix; LangChain, LlamaIndex, OpenAI instrumentors).

* ``openinference.span.kind = TOOL`` spans: ``tool.name``, ``input.value``
  (else ``tool.parameters``), ``output.value`` (a LangChain ``ToolMessage``
  envelope is unwrapped: :func:`~tooleval.traces.langchain.unwrap_tool_message`),
  the call id in ``tool_call.id`` / ``tool.id`` or the envelope;
* ``LLM`` spans: the flattened ``llm.input_messages.N.*`` /
  ``llm.output_messages.N.message.tool_calls.M.*`` attributes, model name,
  token counts and finish reason;
* a root ``AGENT`` or ``CHAIN`` span: the conversation's first user text and
  final answer from ``input.value`` / ``output.value``;
* ``session.id``.

>>> from tooleval.traces.otlp import OtlpSpan
>>> span = OtlpSpan("ab" * 16, "cd" * 8, attributes={"openinference.span.kind": "TOOL",
...     "tool.name": "lookup", "input.value": '{"order": 7}', "output.value": "shipped"})
>>> call = OpenInference().tool_call(span)
>>> call.name, call.result
('lookup', 'shipped')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tooleval.traces.facts import (
    Convention,
    SpanCall,
    SpanFacts,
    as_text,
    maybe_json,
    result_is_error,
    tool_call,
)
from tooleval.traces.langchain import conversation_text, unwrap_tool_message
from tooleval.traces.otlp import OtlpSpan

__all__ = ["OPENINFERENCE_SETTINGS", "OpenInference"]

OPENINFERENCE_SETTINGS = (
    "OpenInference hides messages: unset OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS "
    "(and OPENINFERENCE_HIDE_OUTPUT_MESSAGES)"
)


def span_kind(span: OtlpSpan) -> str:
    """The span's ``openinference.span.kind``, upper case ("" when absent)."""
    return str(span.attributes.get("openinference.span.kind", "")).upper()


class OpenInference(Convention):
    name = "openinference"
    marker_keys = ("openinference.span.kind",)
    session_keys = ("session.id",)
    model_keys = ("llm.model_name",)
    input_token_keys = ("llm.token_count.prompt",)
    output_token_keys = ("llm.token_count.completion",)
    finish_keys = ("llm.finish_reason",)

    def tool_call(self, span: OtlpSpan) -> SpanCall | None:
        if span_kind(span) != "TOOL":
            return None
        a = span.attributes
        name = a.get("tool.name") or span.name
        if not name:
            return None
        result, envelope_id, envelope_error = unwrap_tool_message(a.get("output.value"))
        arguments = (
            a.get("input.value") if a.get("input.value") is not None else a.get("tool.parameters")
        )
        call = tool_call(
            span,
            name,
            arguments,
            result,
            a.get("tool_call.id") or a.get("tool.id") or envelope_id,
            "openinference",
        )
        if envelope_error and not call.is_error:
            call.is_error, call.error_type = True, "tool_error"
        if arguments is not None and not isinstance(maybe_json(arguments), Mapping):
            call.single_value = True
        return call

    def read(self, span: OtlpSpan, facts: SpanFacts) -> None:
        kind = span_kind(span)
        a = span.attributes
        if kind == "LLM":
            _messages(facts, a, output=False)
            _messages(facts, a, output=True)
        if kind in ("AGENT", "CHAIN") and span.parent_span_id is None:
            user, _ = conversation_text(a.get("input.value"))
            text = user or as_text(a.get("input.value"))
            if text and facts.user_input is None:
                facts.user_input = text
            _, answer = conversation_text(a.get("output.value"))
            out = answer or as_text(a.get("output.value"))
            if out:
                facts.output_text, facts.output_priority = out, 2

    def model_call(self, span: OtlpSpan) -> str | None:
        if span_kind(span) == "LLM":
            return f"llm.output_messages: {OPENINFERENCE_SETTINGS}"
        return None


_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def _indexed(attributes: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``prefix.N.rest = v`` attributes as ``{N: {rest: v}}``, in index order."""
    out: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith(prefix):
            match = _INDEXED.match(key[len(prefix) :])
            if match:
                out.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return dict(sorted(out.items()))


def _messages(facts: SpanFacts, a: Mapping[str, Any], *, output: bool) -> None:
    prefix = "llm.output_messages." if output else "llm.input_messages."
    texts = []
    for message in _indexed(a, prefix).values():
        role = message.get("message.role")
        for call in _indexed(message, "message.tool_calls.").values():
            name = call.get("tool_call.function.name")
            if name:
                facts.calls.append(
                    SpanCall(
                        name=str(name),
                        arguments=call.get("tool_call.function.arguments"),
                        call_id=call.get("tool_call.id") or None,
                        source="message",
                        executed=False,
                        from_input=not output,
                    )
                )
        content = message.get("message.content")
        if role == "tool" and not output:
            facts.responses.append(
                {
                    "call_id": message.get("message.tool_call_id") or None,
                    "result": content,
                    "is_error": result_is_error(content),
                }
            )
        elif role == "user" and not output and facts.user_input is None and content:
            facts.user_input = str(content)
        elif role in (None, "assistant") and output and content:
            texts.append(str(content))
    if output and texts:
        facts.output_text = "\n".join(texts)
        facts.output_priority = max(facts.output_priority, 1)
