"""What a span says about tool calls, and the interface each trace convention implements.

:class:`SpanFacts` is what one span (or GenAI log event) contributes to a
session; :class:`SpanCall` one tool call in it. A :class:`Convention` reads
one semantic convention's attributes into them; the conventions are walked
in order by :func:`tooleval.traces.genai.span_facts` (see the list there).
The helpers below are shared by several conventions: a tool result's error
flag, the error a failed span reports, JSON text that may or may not be JSON.

>>> result_is_error('{"error": "timeout"}'), result_is_error({"isError": False})
(True, False)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.traces.otlp import OtlpSpan, loads

__all__ = [
    "Convention",
    "SpanCall",
    "SpanFacts",
    "error_text",
    "maybe_json",
    "result_is_error",
    "span_error",
    "tool_call",
]


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

    def copy(self) -> SpanCall:
        """A shallow copy (what ``dataclasses.replace`` makes, at a fraction of its cost)."""
        return SpanCall(
            self.name,
            self.arguments,
            self.call_id,
            self.result,
            self.is_error,
            self.error_type,
            self.source,
            self.executed,
            self.from_input,
            self.arguments_missing,
            self.single_value,
        )


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


class Convention:
    """One semantic convention: which attributes it reads, and what they say.

    Every hook has a do-nothing default; a convention overrides what it knows.
    The walker asks each convention in list order: the first :meth:`tool_call`
    found makes the span a tool span (nothing else is read); otherwise every
    :meth:`read` runs, then the model-call figures are read from the keys all
    conventions declare, in list order (first found wins).
    """

    #: the convention's name, as docs and ``SpanCall.source`` give it
    name: ClassVar[str] = ""
    #: attributes holding the conversation id
    session_keys: ClassVar[tuple[str, ...]] = ()
    #: attributes holding the model name and the token counts of a model call
    model_keys: ClassVar[tuple[str, ...]] = ()
    input_token_keys: ClassVar[tuple[str, ...]] = ()
    output_token_keys: ClassVar[tuple[str, ...]] = ()
    #: attributes holding a model call's finish reasons
    finish_keys: ClassVar[tuple[str, ...]] = ()
    #: attributes without which no hook below finds anything (None: always asked); the
    #: walker asks a convention only when the span has one of them
    marker_keys: ClassVar[tuple[str, ...] | None] = None

    def tool_call(self, span: OtlpSpan) -> SpanCall | None:
        """The tool call this span ran, when it is a tool span of this convention."""
        return None

    def read(self, span: OtlpSpan, facts: SpanFacts) -> None:
        """Add what a model, agent or chain span says (messages, answers, responses)."""

    def model_call(self, span: OtlpSpan) -> str | None:
        """When the span is a model call: where its messages go, and the settings that record them."""
        return None

    def answer_priority(self, span: OtlpSpan) -> int:
        """How final this span's answer is (2: the agent's own answer); 0 says nothing."""
        return 0


def maybe_json(value: Any) -> Any:
    """JSON text (an object, a list, true/false/null) decoded; anything else as is."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") or text in ("true", "false", "null"):
            try:
                return loads(text)
            except ValueError:
                return value
    return value


def json_value(value: Any) -> Any:
    """A value recorded as JSON text decoded; non-JSON (or too deep) text kept as is."""
    if isinstance(value, str):
        try:
            return loads_text(value)
        except (ValueError, NestingTooDeep):
            return value  # too deep: kept as the text it was recorded as
    return value


def as_text(value: Any) -> str | None:
    """A value as text (JSON for structures); empty is None."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def result_is_error(result: Any) -> bool:
    """True when a tool result reports an error (``is_error``/``isError`` or an ``error`` field).

    >>> result_is_error({"isError": True, "content": []}), result_is_error({"error": None})
    (True, False)
    """
    value = maybe_json(result)
    if not (type(value) is dict or isinstance(value, Mapping)):  # dict first: cheaper
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


def span_error(span: OtlpSpan) -> tuple[bool, str | None]:
    """Whether a span failed (ERROR status or an ``error.type``), and the error type it names."""
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


def tool_call(
    span: OtlpSpan, name: Any, arguments: Any, result: Any, call_id: Any, source: str
) -> SpanCall:
    """The call a tool span ran, failed when its status, ``error.type`` or result says so."""
    is_error, error_type = span_error(span)
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


def suffix_name(span_name: str, prefix: str) -> str | None:
    """The tool name after ``prefix`` in a span name (``"execute_tool get_weather"``)."""
    if span_name.startswith(prefix + " "):
        return span_name[len(prefix) + 1 :].strip() or None
    return None
