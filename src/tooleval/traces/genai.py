"""What one span says about tool calls, by semantic convention.

:func:`span_facts` reads a decoded :class:`~tooleval.traces.otlp.OtlpSpan`
and returns :class:`SpanFacts`: the tool calls it ran or requested, tool
responses it carries, the user input / assistant output it records, and the
conversation id. Conventions read:

* OTel GenAI: ``execute_tool`` spans (``gen_ai.operation.name``,
  ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``
  and ``gen_ai.tool.call.result`` as objects or JSON text), and
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` with ``tool_call`` and
  ``tool_call_response`` parts; ``gen_ai.conversation.id``.
* MCP: ``mcp.method.name = tools/call`` spans (tool name in ``gen_ai.tool.name``
  or ``mcp.tool.name``; arguments in ``gen_ai.tool.call.arguments`` or
  ``mcp.request.argument.*``).
* OpenInference: ``openinference.span.kind = TOOL`` (``tool.name``,
  ``input.value``, ``output.value``), LLM spans' flattened
  ``llm.input_messages.N.*`` / ``llm.output_messages.N.message.tool_calls.M.*``,
  ``session.id``; a root AGENT/CHAIN span's ``input.value`` / ``output.value``.
* Traceloop (legacy OpenLLMetry): ``traceloop.span.kind = tool`` with
  ``traceloop.entity.name`` / ``.input`` / ``.output``.

Calls that a span *ran* are ``executed``; calls found in model messages are
requests that :mod:`tooleval.monitor.session` deduplicates against executed
ones. Nothing here groups spans: one span in, facts out.

>>> from tooleval.traces.otlp import OtlpSpan, loads
>>> span = OtlpSpan("ab" * 16, "cd" * 8, attributes={"gen_ai.operation.name": "execute_tool",
...     "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.arguments": '{"city": "Paris"}'})
>>> facts = span_facts(span)
>>> facts.calls[0].name, facts.calls[0].arguments, facts.calls[0].executed
('get_weather', '{"city": "Paris"}', True)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.traces.langchain import (
    conversation_text,
    tool_call_with_context,
    unwrap_tool_message,
)
from tooleval.traces.otlp import OtlpSpan, loads

__all__ = ["SpanCall", "SpanFacts", "result_is_error", "span_facts"]

SESSION_KEYS = (
    "gen_ai.conversation.id",
    "session.id",
    "traceloop.association.properties.session_id",
)


@dataclass(slots=True)
class SpanCall:
    """One tool call seen in a span (ran there, or requested in a message)."""

    name: str
    arguments: Any = None  # dict, JSON text, or None, as found
    call_id: str | None = None
    result: Any = None
    is_error: bool = False
    error_type: str | None = None
    source: str = "execute_tool"  # execute_tool | mcp | openinference | traceloop | message
    executed: bool = True
    from_input: bool = False  # found in a request's history, not in a model output
    arguments_missing: bool = False  # the call was seen but its arguments were not recorded
    single_value: bool = False  # arguments are one bare value (a one-argument LangChain tool)


@dataclass(slots=True)
class SpanFacts:
    """Everything one span contributes to a session (JSON-serialisable)."""

    trace_id: str
    span_id: str
    parent_span_id: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    session_id: str | None = None
    calls: list[SpanCall] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # {call_id, result, is_error}
    user_input: str | None = None
    output_text: str | None = None
    output_priority: int = 0  # 2: agent root span, 1: model output
    line: int | None = None
    kind: str | None = None  # "llm" (a model call) | "tool" | "agent" (an agent's run) | None
    name: str | None = None  # the span's own name (the viewer's span tree shows it)
    error: str | None = None  # what a failed span says went wrong (status, exception event)
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    call_hints: list[dict[str, Any]] = field(default_factory=list)  # {call_id, name, arguments}
    unreadable: str | None = None  # why this span shows tool use whose content was not recorded
    problems: list[str] = field(default_factory=list)  # content that could not be fully read

    @property
    def has_content(self) -> bool:
        return bool(
            self.calls
            or self.responses
            or self.user_input
            or self.output_text
            or self.kind in ("llm", "tool")
            or self.call_hints
            or self.unreadable
        )

    def to_dict(self) -> dict[str, Any]:
        # Shallow on purpose (asdict deep-copies every value): this runs once per span.
        out = {name: getattr(self, name) for name in _FACT_FIELDS}
        out["calls"] = [{name: getattr(c, name) for name in _CALL_FIELDS} for c in self.calls]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpanFacts:
        values = dict(data)
        values["calls"] = [SpanCall(**c) for c in values.get("calls") or []]
        return cls(**values)


_CALL_FIELDS = tuple(f.name for f in fields(SpanCall))
_FACT_FIELDS = tuple(f.name for f in fields(SpanFacts))


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") or text in ("true", "false", "null"):
            try:
                return loads(text)
            except ValueError:
                return value
    return value


def _json_value(value: Any) -> Any:
    # mcp.request.argument.* values are recorded as JSON text; keep non-JSON text as is.
    if isinstance(value, str):
        try:
            return loads_text(value)
        except (ValueError, NestingTooDeep):
            return value  # too deep: kept as the text it was recorded as
    return value


def result_is_error(result: Any) -> bool:
    """True when a tool result reports an error (``is_error``/``isError`` or an ``error`` field).

    >>> result_is_error({"isError": True, "content": []}), result_is_error({"error": None})
    (True, False)
    """
    value = _maybe_json(result)
    if not isinstance(value, Mapping):
        return False
    if value.get("is_error") is True or value.get("isError") is True:
        return True
    error = value.get("error")
    return error not in (None, "", False, {}, [])


def _exception(span: OtlpSpan) -> tuple[str | None, str | None]:
    for name, attributes in span.events:
        if name == "exception":
            kind = attributes.get("exception.type")
            message = attributes.get("exception.message")
            return (str(kind) if kind else None), (str(message) if message else None)
    return None, None


def _span_error(span: OtlpSpan) -> tuple[bool, str | None]:
    error_type = span.attributes.get("error.type")
    if span.status == "ERROR":
        exception_type, _ = _exception(span)
        return True, str(error_type or exception_type or "error")
    if error_type:
        return True, str(error_type)
    return False, None


def error_text(span: OtlpSpan) -> str | None:
    """What a failed span says went wrong: the ``exception`` event, else ``status.message``.

    A status message that holds a whole traceback is cut before it.

    >>> error_text(OtlpSpan("ab" * 16, "cd" * 8, status="ERROR", status_message="card declined"))
    'card declined'
    """
    _, message = _exception(span)
    if message:
        return message
    text = (span.status_message or "").strip()
    if not text:
        return None
    head = text.split("Traceback (most recent call last)")[0].strip()
    lines = [line.strip() for line in (head or text).splitlines() if line.strip()]
    return (lines[0] if head else lines[-1]) if lines else None


def _tool_call(
    span: OtlpSpan, name: Any, arguments: Any, result: Any, call_id: Any, source: str
) -> SpanCall:
    is_error, error_type = _span_error(span)
    if not is_error and result_is_error(result):
        is_error, error_type = True, "tool_error"
    if is_error and result in (None, ""):
        message = error_text(span)
        if message:
            result = {"error": message}
    return SpanCall(
        name=str(name),
        arguments=arguments,
        call_id=None if call_id in (None, "") else str(call_id),
        result=result,
        is_error=is_error,
        error_type=error_type,
        source=source,
    )


def _suffix_name(span_name: str, prefix: str) -> str | None:
    if span_name.startswith(prefix + " "):
        return span_name[len(prefix) + 1 :].strip() or None
    return None


def _executed_call(span: OtlpSpan) -> SpanCall | None:
    a = span.attributes
    if a.get("gen_ai.operation.name") == "execute_tool":
        name = a.get("gen_ai.tool.name") or _suffix_name(span.name, "execute_tool")
        if name:
            return _tool_call(
                span,
                name,
                a.get("gen_ai.tool.call.arguments"),
                a.get("gen_ai.tool.call.result"),
                a.get("gen_ai.tool.call.id"),
                "execute_tool",
            )
    if a.get("mcp.method.name") == "tools/call":
        name = (
            a.get("gen_ai.tool.name")
            or a.get("mcp.tool.name")
            or _suffix_name(span.name, "tools/call")
        )
        if name:
            arguments = a.get("gen_ai.tool.call.arguments")
            if arguments is None:
                prefix = "mcp.request.argument."
                flat = {k[len(prefix) :]: v for k, v in a.items() if k.startswith(prefix)}
                arguments = {k: _json_value(v) for k, v in flat.items()} if flat else None
            return _tool_call(
                span,
                name,
                arguments,
                a.get("gen_ai.tool.call.result"),
                a.get("gen_ai.tool.call.id"),
                "mcp",
            )
    if str(a.get("openinference.span.kind", "")).upper() == "TOOL":
        name = a.get("tool.name") or span.name
        if name:
            result, envelope_id, envelope_error = unwrap_tool_message(a.get("output.value"))
            arguments = (
                a.get("input.value")
                if a.get("input.value") is not None
                else a.get("tool.parameters")
            )
            call = _tool_call(
                span,
                name,
                arguments,
                result,
                a.get("tool_call.id") or a.get("tool.id") or envelope_id,
                "openinference",
            )
            if envelope_error and not call.is_error:
                call.is_error, call.error_type = True, "tool_error"
            if arguments is not None and not isinstance(_maybe_json(arguments), Mapping):
                call.single_value = True
            return call
    if str(a.get("traceloop.span.kind", "")).lower() == "tool":
        name = a.get("traceloop.entity.name") or span.name
        if name:
            return _tool_call(
                span,
                name,
                _traceloop_arguments(a.get("traceloop.entity.input")),
                _maybe_json(a.get("traceloop.entity.output")),
                None,
                "traceloop",
            )
    return None


def _traceloop_arguments(value: Any) -> Any:
    # Traceloop records a function's inputs as {"args": [...], "kwargs": {...}}.
    data = _maybe_json(value)
    if isinstance(data, Mapping) and set(data) <= {"args", "kwargs"} and data:
        kwargs = dict(data.get("kwargs") or {})
        if data.get("args"):
            kwargs["args"] = list(data["args"])
        return kwargs
    return data


# ---------------------------------------------------------------- GenAI messages


def _parts_text(parts: Any) -> str:
    texts = []
    for part in parts or []:
        if isinstance(part, Mapping) and part.get("type") == "text":
            content = part.get("content")
            if content is None:
                content = part.get("text")
            if content:
                texts.append(str(content))
    return "\n".join(texts)


def salvage_json_list(text: str) -> list[Any]:
    """The complete items at the start of a JSON list that was cut short.

    >>> salvage_json_list('[{"a": 1}, {"b": 2}, {"c": [1, 2')
    [{'a': 1}, {'b': 2}]
    """
    decoder = json.JSONDecoder()
    start = text.find("[")
    if start < 0:
        return []
    items: list[Any] = []
    position = start + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            item, position = decoder.raw_decode(text, position)
        except ValueError:
            return items
        items.append(item)


def _genai_messages(facts: SpanFacts, value: Any, *, output: bool) -> None:
    key = "gen_ai.output.messages" if output else "gen_ai.input.messages"
    messages = _maybe_json(value)
    if isinstance(messages, str):
        messages = salvage_json_list(value)
        facts.problems.append(
            f"{key} is not valid JSON ({len(value)} characters, cut short: an attribute "
            f"length limit such as OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT?); kept the "
            f"{len(messages)} complete message(s) before the cut"
        )
    if not isinstance(messages, list):
        return
    texts = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        parts = message.get("parts")
        if parts is None and "content" in message:
            parts = [{"type": "text", "content": message.get("content")}]
        for part in parts or []:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind == "tool_call" and part.get("name"):
                facts.calls.append(
                    SpanCall(
                        name=str(part["name"]),
                        arguments=part.get("arguments"),
                        call_id=part.get("id") or None,
                        source="message",
                        executed=False,
                        from_input=not output,
                    )
                )
            elif kind == "tool_call_response":
                response = part.get("response", part.get("result"))
                facts.responses.append(
                    {
                        "call_id": part.get("id") or None,
                        "result": response,
                        "is_error": result_is_error(response),
                    }
                )
        if not output and role == "user" and facts.user_input is None:
            text = _parts_text(parts)
            if text:
                facts.user_input = text
        if output and role in (None, "assistant"):
            text = _parts_text(parts)
            if text:
                texts.append(text)
    if output and texts:
        facts.output_text = "\n".join(texts)
        facts.output_priority = max(facts.output_priority, 1)


# ---------------------------------------------------------------- OpenInference messages

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


def _openinference_messages(facts: SpanFacts, a: Mapping[str, Any], *, output: bool) -> None:
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


def _as_text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------- entry point


def span_facts(span: OtlpSpan) -> SpanFacts:
    """Read every convention this span follows; an unrelated span gives empty facts."""
    a = span.attributes
    facts = SpanFacts(
        trace_id=span.trace_id,
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
        start_ns=span.start_ns,
        end_ns=span.end_ns,
        line=span.line,
        name=span.name or None,
    )
    failed, error_type = _span_error(span)
    if failed:
        facts.error = error_text(span) or error_type
    for key in SESSION_KEYS:
        if a.get(key) not in (None, ""):
            facts.session_id = str(a[key])
            break
    call = _executed_call(span)
    if call is not None:
        facts.calls.append(call)
        facts.kind = "tool"
        return facts  # a tool span's input/output are the tool's, not the conversation's
    if "gen_ai.input.messages" in a:
        _genai_messages(facts, a["gen_ai.input.messages"], output=False)
    if "gen_ai.output.messages" in a:
        _genai_messages(facts, a["gen_ai.output.messages"], output=True)
    kind = str(a.get("openinference.span.kind", "")).upper()
    if kind == "LLM":
        _openinference_messages(facts, a, output=False)
        _openinference_messages(facts, a, output=True)
    if kind == "LLM" or a.get("gen_ai.operation.name") in MODEL_OPERATIONS:
        _model_usage(facts, a)
        facts.unreadable = _unreadable_tool_use(facts, a, kind)
    if kind == "CHAIN":
        _langgraph_tools_node(facts, a)
    if kind in ("AGENT", "CHAIN") and span.parent_span_id is None:
        user, answer = conversation_text(a.get("input.value"))
        text = user or _as_text(a.get("input.value"))
        if text and facts.user_input is None:
            facts.user_input = text
        _, answer = conversation_text(a.get("output.value"))
        out = answer or _as_text(a.get("output.value"))
        if out:
            facts.output_text, facts.output_priority = out, 2
    if a.get("gen_ai.operation.name") == "invoke_agent" and facts.output_text:
        facts.output_priority = 2
    if facts.kind is None and (kind == "AGENT" or a.get("gen_ai.operation.name") in _AGENT_OPS):
        facts.kind = "agent"
    return facts


# ---------------------------------------------------------------- usage, gaps, LangGraph

_AGENT_OPS = frozenset({"invoke_agent", "create_agent"})
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "responses"})
_TOOL_FINISH = frozenset({"tool_calls", "tool_call", "function_call", "tool_use"})
CONTENT_SETTINGS = (
    "message content is not recorded: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="
    "true (with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental it takes SPAN_ONLY, "
    "EVENT_ONLY or SPAN_AND_EVENT; EVENT_ONLY content arrives as OTLP logs, read those too)"
)
OPENINFERENCE_SETTINGS = (
    "OpenInference hides messages: unset OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS "
    "(and OPENINFERENCE_HIDE_OUTPUT_MESSAGES)"
)


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None and value != "" else None
    except (TypeError, ValueError):
        return None


def _model_usage(facts: SpanFacts, a: Mapping[str, Any]) -> None:
    facts.kind = "llm"
    facts.model = (
        str(
            a.get("gen_ai.response.model")
            or a.get("gen_ai.request.model")
            or a.get("llm.model_name")
            or ""
        )
        or None
    )
    for attr, key in (
        (
            "input_tokens",
            ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
        ),
        (
            "output_tokens",
            (
                "gen_ai.usage.output_tokens",
                "gen_ai.usage.completion_tokens",
                "llm.token_count.completion",
            ),
        ),
    ):
        value = next((_int(a[k]) for k in key if _int(a.get(k)) is not None), None)
        setattr(facts, attr, value)


def _unreadable_tool_use(facts: SpanFacts, a: Mapping[str, Any], kind: str) -> str | None:
    """Why a model span that asked for tools shows no readable call (None when it does)."""
    reasons = a.get("gen_ai.response.finish_reasons") or a.get("llm.finish_reason") or ()
    if isinstance(reasons, str):
        reasons = [reasons]
    asked = any(str(r).lower() in _TOOL_FINISH for r in reasons)
    if not asked or any(not c.from_input for c in facts.calls):
        return None
    if kind == "LLM":
        return f"finish reason tool_calls but no llm.output_messages: {OPENINFERENCE_SETTINGS}"
    return f"finish reason tool_calls but no gen_ai.output.messages: {CONTENT_SETTINGS}"


def _langgraph_tools_node(facts: SpanFacts, a: Mapping[str, Any]) -> None:
    hint = tool_call_with_context(a.get("input.value"))
    if hint is not None:
        facts.call_hints.append(hint)
    output = _maybe_json(a.get("output.value"))
    messages = output.get("messages") if isinstance(output, Mapping) else None
    for message in messages if isinstance(messages, list) else ():
        content, call_id, is_error = unwrap_tool_message(message)
        if call_id:
            facts.responses.append(
                {
                    "call_id": call_id,
                    "result": content,
                    "is_error": is_error or result_is_error(content),
                }
            )
