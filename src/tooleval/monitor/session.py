"""Sessions: the tool calls of one conversation, in order, with where each came from.

A :class:`Session` is what detectors read. It is built from trace spans
(:func:`assemble_session` over :class:`~tooleval.traces.genai.SpanFacts`)
or from a logged conversation (:meth:`Session.from_sample`).

Assembling a session from spans follows fixed rules:

* calls a span *ran* (``execute_tool``, MCP ``tools/call``, OpenInference
  TOOL, Traceloop tool) are kept; a tool span whose parent span is a tool span
  of the same tool (an MCP transport span under ``execute_tool``, a server span
  under its client span) is the same call and is folded into the parent;
* calls *requested* in model messages are dropped when an executed call has
  the same call id, or, when ids are missing, the same tool name and
  canonical arguments and did not start before the message's span (each
  executed call absorbs one request); a request repeated in later history
  (same id) is kept once; a request from history without an id is dropped;
* tool responses found in messages attach to the remaining requested calls by id;
* calls are ordered by start time (a requested call by its model span's end),
  except that calls the model asked for together win their order from the
  model: when a model message lists call ids, the calls with those ids keep
  their places in the timeline but fill them in the message's order (tools
  run concurrently, as LangGraph runs them, start in any order).

>>> from tooleval.model import Sample, ToolCall
>>> s = Session.from_sample(Sample(input="hi", tools_called=[ToolCall("f", {"a": 1})], id="s1"))
>>> s.id, [c.name for c in s.calls], canonical_arguments(s.calls[0].call)
('s1', ['f'], '{"a":1}')
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tooleval.formats.outcome import error_in_result
from tooleval.model import (
    AssistantMessage,
    Message,
    Sample,
    ToolCall,
    ToolMessage,
    UserMessage,
    message_from_dict,
)
from tooleval.monitor.usage import session_usage
from tooleval.traces.genai import SpanCall, SpanFacts

__all__ = [
    "Session",
    "TracedCall",
    "assemble_session",
    "canonical_arguments",
    "sessions_from_samples",
]


def canonical_arguments(call: ToolCall) -> str:
    """Arguments as canonical JSON: sorted keys, no whitespace (raw text if unparsable).

    >>> canonical_arguments(ToolCall.parse("f", '{ "b": 1,  "a": [1, 2] }'))
    '{"a":[1,2],"b":1}'
    """
    if call.parse_error is not None and call.raw_arguments is not None:
        return "raw:" + " ".join(call.raw_arguments.split())
    return json.dumps(
        call.args or {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


@dataclass(frozen=True, slots=True)
class TracedCall:
    """A tool call plus where it was seen (span ids are None for logged conversations)."""

    call: ToolCall
    span_id: str | None = None
    trace_id: str | None = None
    start_ns: int | None = None
    source: str = "log"
    error_type: str | None = None
    executed: bool = True
    arguments_missing: bool = False
    duration_ms: float | None = None

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def is_error(self) -> bool:
        return self.call.is_error

    @property
    def outcome_known(self) -> bool:
        """False for a requested call whose result was never seen (it may have failed)."""
        return self.executed or self.call.is_error or self.call.result is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.call.to_dict(),
            "span_id": self.span_id,
            "trace_id": self.trace_id,
            "start_ns": self.start_ns,
            "source": self.source,
            "error_type": self.error_type,
            "executed": self.executed,
            "arguments_missing": self.arguments_missing,
            "duration_ms": self.duration_ms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TracedCall:
        return cls(
            call=ToolCall.from_dict(data["call"]),
            span_id=data.get("span_id"),
            trace_id=data.get("trace_id"),
            start_ns=data.get("start_ns"),
            source=data.get("source", "log"),
            error_type=data.get("error_type"),
            executed=bool(data.get("executed", True)),
            arguments_missing=bool(data.get("arguments_missing", False)),
            duration_ms=data.get("duration_ms"),
        )


@dataclass(slots=True)
class Session:
    """One conversation's tool calls in order, with the user input and final answer."""

    id: str
    calls: list[TracedCall] = field(default_factory=list)
    input: str = ""
    output: str | None = None
    output_ns: int | None = None
    trace_ids: tuple[str, ...] = ()
    source: str = "otel"
    messages: list[Message] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # tool use seen but not readable

    def tool_calls(self) -> list[ToolCall]:
        return [c.call for c in self.calls]

    def to_sample(self) -> Sample:
        """The session as a dataset Sample (messages rebuilt from calls when not logged)."""
        messages = list(self.messages) or self._rebuilt_messages()
        metadata: dict[str, Any] = {"session_id": self.id, "source": self.source}
        if self.trace_ids:
            metadata["trace_ids"] = list(self.trace_ids)
        span_ids = [c.span_id for c in self.calls if c.span_id]
        if span_ids:
            metadata["span_ids"] = span_ids
        return Sample(
            input=self.input,
            messages=messages,
            tools_called=self.tool_calls(),
            output=self.output,
            id=self.id,
            metadata=metadata,
        )

    def _rebuilt_messages(self) -> list[Message]:
        messages: list[Message] = []
        if self.input:
            messages.append(UserMessage(self.input))
        for index, traced in enumerate(self.calls):
            call = traced.call
            if call.id is None:
                call = ToolCall(
                    call.name,
                    call.args,
                    id=f"call_{index}",
                    raw_arguments=call.raw_arguments,
                    parse_error=call.parse_error,
                    result=call.result,
                    is_error=call.is_error,
                )
            messages.append(AssistantMessage("", (call,)))
            if call.result is not None or call.is_error:
                messages.append(
                    ToolMessage(
                        call.result, tool_call_id=call.id, name=call.name, is_error=call.is_error
                    )
                )
        if self.output:
            messages.append(AssistantMessage(self.output))
        return messages

    @classmethod
    def from_sample(cls, sample: Sample, *, id: str | None = None, source: str = "log") -> Session:
        """A logged conversation as a session (calls from ``Sample.actual_calls``)."""
        output = sample.final_output() or None
        return cls(
            id=str(id if id is not None else sample.id),
            calls=read_outcomes([TracedCall(c, source=source) for c in sample.actual_calls()]),
            input=sample.user_input(),
            output=output,
            source=source,
            messages=list(sample.messages),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "calls": [c.to_dict() for c in self.calls],
            "input": self.input,
            "output": self.output,
            "output_ns": self.output_ns,
            "trace_ids": list(self.trace_ids),
            "source": self.source,
            "messages": [m.to_dict() for m in self.messages],
            "usage": self.usage,
            "unreadable": list(self.unreadable),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Session:
        return cls(
            id=str(data["id"]),
            calls=[TracedCall.from_dict(c) for c in data.get("calls") or []],
            input=data.get("input") or "",
            output=data.get("output"),
            output_ns=data.get("output_ns"),
            trace_ids=tuple(data.get("trace_ids") or ()),
            source=data.get("source", "otel"),
            messages=[message_from_dict(m) for m in data.get("messages") or []],
            usage=dict(data.get("usage") or {}),
            unreadable=list(data.get("unreadable") or []),
        )


# ---------------------------------------------------------------- from spans


def read_outcomes(calls: list[TracedCall]) -> list[TracedCall]:
    """``calls`` with each failure its result reports by convention marked as an error.

    A call already marked (a status said so) is kept; a result such as
    ``"Error: payment gateway unavailable"`` or ``{"error": "timeout"}`` marks
    its call failed (``error_type`` ``"error_text"``): see
    :func:`~tooleval.formats.outcome.error_in_result`.

    >>> [c.is_error for c in read_outcomes([TracedCall(ToolCall("pay", result="Error: down"))])]
    [True]
    """
    out = []
    for traced in calls:
        call = traced.call
        if not call.is_error and call.result is not None and error_in_result(call.result):
            traced = replace(traced, call=replace(call, is_error=True), error_type="error_text")
        out.append(traced)
    return out


def _to_tool_call(call: SpanCall) -> ToolCall:
    return ToolCall.parse(
        call.name, call.arguments, id=call.call_id, result=call.result, is_error=call.is_error
    )


def _time(value: int | None) -> int:
    return value if value is not None else 0


_Entry = tuple[int, SpanFacts, SpanCall]


def assemble_session(session_id: str, facts: Sequence[SpanFacts]) -> Session:
    """Build one session from the facts of its spans (see the module docstring for the rules)."""
    ordered = sorted(enumerate(facts), key=lambda p: (_time(p[1].start_ns), p[0]))
    executed, requested = _split_calls(ordered)
    _join_langchain(executed, requested, ordered)
    kept = _fold_nested(executed)
    requests = _unanswered_requests(kept, requested)
    _attach_responses(ordered, kept, requests)
    timed = _in_model_order(_timeline(kept, requests), requested)
    output, output_ns = _final_output(ordered)
    return Session(
        id=session_id,
        calls=read_outcomes([t for _, _, t in timed]),
        input=next((f.user_input for _, f in ordered if f.user_input), ""),
        output=output,
        output_ns=output_ns,
        trace_ids=tuple(dict.fromkeys(f.trace_id for _, f in ordered)),
        source="otel",
        usage=session_usage(f for _, f in ordered),
        unreadable=_unreadable(ordered, timed),
    )


def _split_calls(ordered: Sequence[tuple[int, SpanFacts]]) -> tuple[list[_Entry], list[_Entry]]:
    """The calls of every span split into ran and requested; ran calls copied (folding edits
    them; the input stays untouched), requests copied once kept (most repeat the history)."""
    executed: list[_Entry] = []
    requested: list[_Entry] = []
    for seq, fact in ordered:
        for call in fact.calls:
            if call.executed:
                executed.append((seq, fact, call.copy()))
            else:
                requested.append((seq, fact, call))
    return executed, requested


def _fold_nested(executed: list[_Entry]) -> list[_Entry]:
    """Fold a tool span into a same-named tool span that is its parent (one call, two layers)."""
    by_span = {f.span_id: c for _, f, c in executed}
    kept: list[_Entry] = []
    for seq, fact, call in executed:
        parent = by_span.get(fact.parent_span_id) if fact.parent_span_id else None
        if parent is not None and parent.name == call.name:
            if call.is_error and not parent.is_error:
                parent.is_error, parent.error_type = True, call.error_type
            if parent.result is None:
                parent.result = call.result
            if parent.arguments is None:
                parent.arguments = call.arguments
            continue
        kept.append((seq, fact, call))
    return kept


def _unanswered_requests(kept: list[_Entry], requested: list[_Entry]) -> list[_Entry]:
    """The model's tool requests that no ran call accounts for, each once.

    A request is accounted for by a ran call with its call id, or (when one of
    the two has no id) by the first unclaimed ran call with the same name and
    arguments that started no earlier. Ran calls are indexed by (name,
    arguments), so each request looks only at its own candidates.
    """
    ids = {c.call_id for _, _, c in kept if c.call_id}
    candidates: dict[tuple[str, str], list[int]] | None = None  # built when first needed
    seen_request_ids: set[str] = set()
    requests: list[_Entry] = []
    for seq, fact, call in requested:
        if call.call_id and (call.call_id in ids or call.call_id in seen_request_ids):
            continue
        if call.call_id is None and call.from_input:
            continue
        if candidates is None:
            candidates = {}
            for i, (_, _, ran) in enumerate(kept):
                key = (ran.name, canonical_arguments(_to_tool_call(ran)))
                candidates.setdefault(key, []).append(i)
        pool = candidates.get((call.name, canonical_arguments(_to_tool_call(call))), [])
        start = _time(fact.start_ns)
        match = next(
            (
                i
                for i in pool
                if (kept[i][2].call_id is None or call.call_id is None)
                and _time(kept[i][1].start_ns) >= start
            ),
            None,
        )
        if call.call_id:
            # the same request shows up again in later history: handled once, here
            seen_request_ids.add(call.call_id)
        if match is not None:
            pool.remove(match)  # absorbed: no later request can claim it
            continue
        requests.append((seq, fact, call.copy()))  # responses are attached to the copy
    return requests


def _attach_responses(
    ordered: Sequence[tuple[int, SpanFacts]], kept: list[_Entry], requests: list[_Entry]
) -> None:
    """Give calls the tool responses later model calls saw (first response per call id)."""
    responses: dict[str, dict[str, Any]] = {}
    for _, fact in ordered:
        for response in fact.responses:
            if response.get("call_id"):
                responses.setdefault(response["call_id"], response)
    for _, _, call in requests:
        found = responses.get(call.call_id) if call.call_id else None
        if found is not None:
            call.result = found.get("result")
            call.is_error = bool(found.get("is_error"))
    for _, _, call in kept:
        # a ran call that recorded no result: the tool response the next model call saw
        found = responses.get(call.call_id) if call.call_id else None
        if found is not None and call.result is None:
            call.result = found.get("result")
            if found.get("is_error") and not call.is_error:
                call.is_error, call.error_type = True, "tool_error"


def _timeline(kept: list[_Entry], requests: list[_Entry]) -> list[tuple[int, int, TracedCall]]:
    """Ran calls (at their start) and unanswered requests (at their span's end), in time order."""
    timed: list[tuple[int, int, TracedCall]] = []
    for seq, fact, call in kept:
        traced = TracedCall(
            _to_tool_call(call),
            span_id=fact.span_id,
            trace_id=fact.trace_id,
            start_ns=fact.start_ns,
            source=call.source,
            error_type=call.error_type,
            arguments_missing=call.arguments_missing,
            duration_ms=_duration(fact),
        )
        timed.append((_time(fact.start_ns), seq, traced))
    for seq, fact, call in requests:
        when = fact.end_ns if fact.end_ns is not None else fact.start_ns
        traced = TracedCall(
            _to_tool_call(call),
            span_id=fact.span_id,
            trace_id=fact.trace_id,
            start_ns=when,
            source=call.source,
            error_type="tool_error" if call.is_error else None,
            executed=False,
            arguments_missing=call.arguments_missing,
        )
        timed.append((_time(when), seq, traced))
    timed.sort(key=lambda t: (t[0], t[1]))
    return timed


def _in_model_order(
    timed: list[tuple[int, int, TracedCall]], requested: list[_Entry]
) -> list[tuple[int, int, TracedCall]]:
    """``timed`` with each model message's calls (by call id) in the message's order.

    The calls of one message keep the slots they hold in time order and are
    permuted into the order the model listed them; other calls do not move.
    A call id is ranked by the first message that lists it (model outputs
    before the history a later request repeats).
    """
    rank: dict[str, tuple[str, int]] = {}
    for _, fact, call in sorted(requested, key=lambda e: e[2].from_input):
        if call.call_id and call.call_id not in rank:
            rank[call.call_id] = (f"{fact.trace_id}/{fact.span_id}", len(rank))
    if not rank:
        return timed
    slots: dict[str, list[int]] = {}
    for index, (_, _, traced) in enumerate(timed):
        found = rank.get(traced.call.id or "")
        if found is not None:
            slots.setdefault(found[0], []).append(index)
    out = list(timed)
    for indexes in slots.values():
        if len(indexes) < 2:
            continue
        wanted = sorted(indexes, key=lambda i: rank[timed[i][2].call.id or ""][1])
        for slot, source in zip(indexes, wanted, strict=True):
            out[slot] = timed[source]
    return out


def _final_output(ordered: Sequence[tuple[int, SpanFacts]]) -> tuple[str | None, int | None]:
    """The answer: the highest-priority output text, the latest among equals."""
    output, output_ns, best = None, None, (-1, -1)
    for _, fact in ordered:
        if fact.output_text:
            rank = (fact.output_priority, _time(fact.end_ns or fact.start_ns))
            if rank >= best:
                best = rank
                output, output_ns = fact.output_text, fact.end_ns or fact.start_ns
    return output, output_ns


def _duration(fact: SpanFacts) -> float | None:
    if fact.start_ns is None or fact.end_ns is None or fact.end_ns < fact.start_ns:
        return None
    return round((fact.end_ns - fact.start_ns) / 1e6, 3)


def _unreadable(
    ordered: Sequence[tuple[int, SpanFacts]], timed: Sequence[tuple[int, int, TracedCall]]
) -> list[str]:
    """Why tool use in this session could not be read (one line per reason, with counts)."""
    read_spans = {t.span_id for _, _, t in timed}  # calls whose names at least were read
    reasons: dict[str, int] = {}
    for _, fact in ordered:
        if fact.unreadable and fact.span_id not in read_spans:
            reasons[fact.unreadable] = reasons.get(fact.unreadable, 0) + 1
    missing = sum(1 for _, _, t in timed if t.arguments_missing)
    if missing:
        key = (
            "tool calls recorded without their arguments (gen_ai.choice / gen_ai.assistant.message "
            "events with content capture off): set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"
        )
        reasons[key] = reasons.get(key, 0) + missing
    return [f"{count} span(s): {reason}" for reason, count in reasons.items()]


def _single_value(arguments: Any) -> Any:
    """The bare value a one-argument tool span recorded (JSON-decoded when it is JSON)."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _join_langchain(
    executed: list[tuple[int, SpanFacts, SpanCall]],
    requested: list[tuple[int, SpanFacts, SpanCall]],
    ordered: Sequence[tuple[int, SpanFacts]],
) -> None:
    """Give LangChain tool spans the call id and arguments of the model's request.

    A tool span under a LangGraph tools-node span takes that node's
    ``tool_call`` (id and arguments). A one-argument tool span (``input.value``
    is the bare value) takes the arguments object of the request with its call
    id, or, with no id, of the one unclaimed request of that tool whose only
    argument equals the value.
    """
    hints: dict[str, list[dict[str, Any]]] = {}
    for _, fact in ordered:
        if fact.call_hints:
            hints.setdefault(fact.span_id, []).extend(fact.call_hints)
    by_id = {c.call_id: c for _, _, c in requested if c.call_id}
    claimed = {c.call_id for _, _, c in executed if c.call_id}
    for _, fact, call in executed:
        if call.call_id is None and fact.parent_span_id in hints:
            hint = next((h for h in hints[fact.parent_span_id] if h["name"] == call.name), None)
            if hint is not None:
                call.call_id = hint["call_id"]
                if call.arguments is None or call.single_value:
                    call.arguments, call.single_value = hint["arguments"], False
                claimed.add(call.call_id)
        if not call.single_value:
            continue
        request = by_id.get(call.call_id) if call.call_id else None
        if request is None and call.call_id is None:
            value = _single_value(call.arguments)
            request = next(
                (
                    r
                    for _, _, r in requested
                    if r.name == call.name
                    and r.call_id not in claimed
                    and isinstance(args := _single_value(r.arguments), dict)
                    and len(args) == 1
                    and next(iter(args.values())) == value
                ),
                None,
            )
            if request is not None:
                call.call_id = request.call_id
                if request.call_id:
                    claimed.add(request.call_id)
        if request is not None and isinstance(_single_value(request.arguments), dict):
            call.arguments, call.single_value = request.arguments, False


def sessions_from_samples(samples: Iterable[Sample]) -> list[Session]:
    """Sessions for in-memory samples (ids from ``Sample.id``, else the position)."""
    return [
        Session.from_sample(s, id=s.id if s.id is not None else str(i))
        for i, s in enumerate(samples)
    ]
