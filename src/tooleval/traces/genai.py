"""What one span says about tool calls: every trace convention, walked from one list.

:func:`span_facts` reads a decoded :class:`~tooleval.traces.otlp.OtlpSpan`
and returns :class:`~tooleval.traces.facts.SpanFacts`: the tool calls it ran
or requested, tool responses it carries, the user input / assistant output it
records, the model call's figures and the conversation id. Each convention is
one module behind :class:`~tooleval.traces.facts.Convention`, listed in
:data:`CONVENTIONS` (the order is the order of precedence):

* :mod:`~tooleval.traces.otel_genai`: OTel GenAI ``execute_tool`` spans and
  ``gen_ai.input.messages`` / ``gen_ai.output.messages``;
* :mod:`~tooleval.traces.mcp`: MCP ``tools/call`` spans;
* :mod:`~tooleval.traces.openinference`: OpenInference TOOL / LLM / root
  AGENT and CHAIN spans;
* :mod:`~tooleval.traces.traceloop`: Traceloop (legacy OpenLLMetry) tool spans;
* :mod:`~tooleval.traces.langchain`: LangGraph's ``tools`` node.

Calls that a span *ran* are ``executed``; calls found in model messages are
requests that :mod:`tooleval.monitor.session` deduplicates against executed
ones. Nothing here groups spans: one span in, facts out.

>>> from tooleval.traces.otlp import OtlpSpan
>>> span = OtlpSpan("ab" * 16, "cd" * 8, attributes={"gen_ai.operation.name": "execute_tool",
...     "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.arguments": '{"city": "Paris"}'})
>>> facts = span_facts(span)
>>> facts.calls[0].name, facts.calls[0].arguments, facts.calls[0].executed
('get_weather', '{"city": "Paris"}', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.traces.facts import (
    Convention,
    SpanCall,
    SpanFacts,
    error_text,
    result_is_error,
    span_error,
)
from tooleval.traces.langchain import LangChain
from tooleval.traces.mcp import Mcp
from tooleval.traces.openinference import OpenInference
from tooleval.traces.otel_genai import MODEL_OPERATIONS, OtelGenAI
from tooleval.traces.otlp import OtlpSpan
from tooleval.traces.traceloop import Traceloop

__all__ = [
    "CONVENTIONS",
    "MODEL_OPERATIONS",
    "SESSION_KEYS",
    "SpanCall",
    "SpanFacts",
    "error_text",
    "result_is_error",
    "span_facts",
]

#: Every convention read, in order of precedence.
CONVENTIONS: tuple[Convention, ...] = (
    OtelGenAI(),
    Mcp(),
    OpenInference(),
    Traceloop(),
    LangChain(),
)


SESSION_KEYS = tuple(k for c in CONVENTIONS for k in c.session_keys)
_MODEL_KEYS = tuple(k for c in CONVENTIONS for k in c.model_keys)
_INPUT_TOKEN_KEYS = tuple(k for c in CONVENTIONS for k in c.input_token_keys)
_OUTPUT_TOKEN_KEYS = tuple(k for c in CONVENTIONS for k in c.output_token_keys)
_FINISH_KEYS = tuple(k for c in CONVENTIONS for k in c.finish_keys)
_TOOL_FINISH = frozenset({"tool_calls", "tool_call", "function_call", "tool_use"})
# Which conventions a span's keys call for, looked up once per span (most spans follow one).
_ALWAYS = tuple(c for c in CONVENTIONS if c.marker_keys is None)
_MARKERS = tuple(dict.fromkeys(k for c in CONVENTIONS for k in c.marker_keys or ()))


_MARKER_SET = frozenset(_MARKERS)
# marker keys found -> the conventions they call for (few sets occur: most spans follow one)
_CHOSEN: dict[frozenset[str], tuple[Convention, ...]] = {}


def _conventions(a: Mapping[str, Any]) -> tuple[Convention, ...]:
    """The conventions that can find something in attributes ``a``, in list order."""
    found = _MARKER_SET.intersection(a)
    if not found:
        return _ALWAYS
    chosen = _CHOSEN.get(found)
    if chosen is None:
        chosen = tuple(
            c for c in CONVENTIONS if c.marker_keys is None or not found.isdisjoint(c.marker_keys)
        )
        if len(_CHOSEN) < 4096:
            _CHOSEN[found] = chosen
    return chosen


_AGENT_OPS = frozenset({"invoke_agent", "create_agent"})


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
    failed, error_type = span_error(span)
    if failed:
        facts.error = error_text(span) or error_type
    for key in SESSION_KEYS:
        if a.get(key) not in (None, ""):
            facts.session_id = str(a[key])
            break
    conventions = _conventions(a)
    for convention in conventions:
        call = convention.tool_call(span)
        if call is not None:
            facts.calls.append(call)
            facts.kind = "tool"
            return facts  # a tool span's input/output are the tool's, not the conversation's
    for convention in conventions:
        convention.read(span, facts)
    # When several conventions claim a model call, the later (more specific) names the settings.
    missing = [m for m in (c.model_call(span) for c in conventions) if m is not None]
    if missing:
        _model_usage(facts, a)
        facts.unreadable = _unreadable_tool_use(facts, a, missing[-1])
    if facts.output_text:
        facts.output_priority = max(
            [facts.output_priority] + [c.answer_priority(span) for c in conventions]
        )
    if facts.kind is None and (
        str(a.get("openinference.span.kind", "")).upper() == "AGENT"
        or a.get("gen_ai.operation.name") in _AGENT_OPS
    ):
        facts.kind = "agent"
    return facts


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None and value != "" else None
    except (TypeError, ValueError):
        return None


def _model_usage(facts: SpanFacts, a: Mapping[str, Any]) -> None:
    facts.kind = "llm"
    facts.model = str(next((a[k] for k in _MODEL_KEYS if a.get(k)), "")) or None
    facts.input_tokens = next(
        (_int(a[k]) for k in _INPUT_TOKEN_KEYS if _int(a.get(k)) is not None), None
    )
    facts.output_tokens = next(
        (_int(a[k]) for k in _OUTPUT_TOKEN_KEYS if _int(a.get(k)) is not None), None
    )


def _unreadable_tool_use(facts: SpanFacts, a: Mapping[str, Any], missing: str) -> str | None:
    """Why a model span that asked for tools shows no readable call (None when it does)."""
    reasons = next((a[k] for k in _FINISH_KEYS if a.get(k)), ())
    if isinstance(reasons, str):
        reasons = [reasons]
    asked = any(str(r).lower() in _TOOL_FINISH for r in reasons)
    if not asked or any(not c.from_input for c in facts.calls):
        return None
    return f"finish reason tool_calls but no {missing}"
