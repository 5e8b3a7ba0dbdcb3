"""The OTel GenAI semantic conventions: ``execute_tool`` spans and model messages.

* ``execute_tool`` spans: ``gen_ai.operation.name``, ``gen_ai.tool.name`` (or
  the span name's suffix), ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``
  and ``gen_ai.tool.call.result`` as objects or JSON text;
* model spans (``chat``, ``text_completion``, ``generate_content``,
  ``responses``): ``gen_ai.input.messages`` / ``gen_ai.output.messages`` with
  ``tool_call`` and ``tool_call_response`` parts, usage and finish reasons;
* ``invoke_agent`` spans: their answer is the agent's own;
* ``gen_ai.conversation.id``.

>>> from tooleval.traces.otlp import OtlpSpan, loads
>>> span = OtlpSpan("ab" * 16, "cd" * 8, name="execute_tool get_weather",
...     attributes={"gen_ai.operation.name": "execute_tool"})
>>> OtelGenAI().tool_call(span).name
'get_weather'
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from tooleval.errors import NestingTooDeep
from tooleval.traces.facts import (
    Convention,
    SpanCall,
    SpanFacts,
    maybe_json,
    result_is_error,
    suffix_name,
    tool_call,
)
from tooleval.traces.otlp import OtlpSpan, loads

__all__ = [
    "CONTENT_SETTINGS",
    "MODEL_OPERATIONS",
    "OtelGenAI",
    "read_messages",
    "salvage_json_list",
]

MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "responses"})
CONTENT_SETTINGS = (
    "message content is not recorded: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="
    "true (with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental it takes SPAN_ONLY, "
    "EVENT_ONLY or SPAN_AND_EVENT; EVENT_ONLY content arrives as OTLP logs, read those too)"
)


class OtelGenAI(Convention):
    name = "otel_genai"
    marker_keys = ("gen_ai.operation.name", "gen_ai.input.messages", "gen_ai.output.messages")
    session_keys = ("gen_ai.conversation.id",)
    model_keys = ("gen_ai.response.model", "gen_ai.request.model")
    input_token_keys = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
    output_token_keys = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
    finish_keys = ("gen_ai.response.finish_reasons",)

    def tool_call(self, span: OtlpSpan) -> SpanCall | None:
        a = span.attributes
        if a.get("gen_ai.operation.name") != "execute_tool":
            return None
        name = a.get("gen_ai.tool.name") or suffix_name(span.name, "execute_tool")
        if not name:
            return None
        return tool_call(
            span,
            name,
            a.get("gen_ai.tool.call.arguments"),
            a.get("gen_ai.tool.call.result"),
            a.get("gen_ai.tool.call.id"),
            "execute_tool",
        )

    def read(self, span: OtlpSpan, facts: SpanFacts) -> None:
        a = span.attributes
        if "gen_ai.input.messages" in a:
            HISTORIES.read(facts, a["gen_ai.input.messages"])
        if "gen_ai.output.messages" in a:
            read_messages(facts, a["gen_ai.output.messages"], output=True)

    def model_call(self, span: OtlpSpan) -> str | None:
        if span.attributes.get("gen_ai.operation.name") in MODEL_OPERATIONS:
            return f"gen_ai.output.messages: {CONTENT_SETTINGS}"
        return None

    def answer_priority(self, span: OtlpSpan) -> int:
        return 2 if span.attributes.get("gen_ai.operation.name") == "invoke_agent" else 0


def parts_text(parts: Any) -> str:
    """The text parts of a GenAI message, joined by lines."""
    texts = []
    for part in parts or []:
        if (type(part) is dict or isinstance(part, Mapping)) and part.get("type") == "text":
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


def read_messages(facts: SpanFacts, value: Any, *, output: bool) -> None:
    key = "gen_ai.output.messages" if output else "gen_ai.input.messages"
    messages = maybe_json(value)
    if isinstance(messages, str):
        messages = salvage_json_list(value)
        facts.problems.append(
            f"{key} is not valid JSON ({len(value)} characters, cut short: an attribute "
            f"length limit such as OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT?); kept the "
            f"{len(messages)} complete message(s) before the cut"
        )
    if isinstance(messages, list):
        _add(facts, _message_facts(messages, output), output)


_Read = tuple[list[SpanCall], list[dict[str, Any]], str | None, list[str]]


def _add(facts: SpanFacts, read: _Read, output: bool) -> None:
    calls, responses, user_input, texts = read
    facts.calls.extend(calls)
    facts.responses.extend(responses)
    if user_input is not None and facts.user_input is None:
        facts.user_input = user_input
    if output and texts:
        facts.output_text = "\n".join(texts)
        facts.output_priority = max(facts.output_priority, 1)


def _message_facts(messages: list[Any], output: bool) -> _Read:
    """The tool requests, tool responses, first user text and answer texts of ``messages``."""
    calls: list[SpanCall] = []
    responses: list[dict[str, Any]] = []
    user_input = None
    texts = []
    for message in messages:
        # decoded JSON is dict: checked first, the Mapping ABC check costs several times more
        if not (type(message) is dict or isinstance(message, Mapping)):
            continue
        role = message.get("role")
        parts = message.get("parts")
        if parts is None and "content" in message:
            parts = [{"type": "text", "content": message.get("content")}]
        for part in parts or []:
            if not (type(part) is dict or isinstance(part, Mapping)):
                continue
            kind = part.get("type")
            if kind == "tool_call" and part.get("name"):
                calls.append(
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
                responses.append(
                    {
                        "call_id": part.get("id") or None,
                        "result": response,
                        "is_error": result_is_error(response),
                    }
                )
        if not output and role == "user" and user_input is None:
            text = parts_text(parts)
            if text:
                user_input = text
        if output and role in (None, "assistant"):
            text = parts_text(parts)
            if text:
                texts.append(text)
    return calls, responses, user_input, texts


class _Histories:
    """The input history each conversation's model calls sent last, as read.

    Every ``chat`` span repeats the whole conversation so far in
    ``gen_ai.input.messages``; reading it again on every turn made the conventions
    cost grow with the square of a session's length. A history that is the last one
    read for its conversation (key: the conversation id, else the trace id) with
    messages added at the end is read only from there: the messages of the last
    read (its calls and responses, shared, never changed afterwards) followed by the
    new ones, exactly what reading the whole text gives (``tests/monitor/
    test_receiver_path.py`` checks it). Anything else (another text, a history
    that is not a JSON list, a tail that does not parse) is read whole.

    Bounded: ``max_entries`` conversations and ``max_chars`` characters of
    history text; the longest unused go first.
    """

    def __init__(self, max_entries: int = 4096, max_chars: int = 16_000_000) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._lock = threading.Lock()
        # key -> (text without its closing bracket, calls, responses, first user text)
        self._last: dict[
            str, tuple[str, tuple[SpanCall, ...], tuple[dict[str, Any], ...], str | None]
        ]
        self._last = {}
        self._chars = 0

    def read(self, facts: SpanFacts, value: Any) -> None:
        if type(value) is not str:
            read_messages(facts, value, output=False)
            return
        key = facts.session_id or facts.trace_id
        text = value.strip()
        with self._lock:
            known = self._last.get(key)
        if known is not None and text.startswith(known[0]):
            rest = text[len(known[0]) :].lstrip(" \t\n\r")
            if rest[:1] == ",":
                try:
                    added = loads("[" + rest[1:])
                except (ValueError, NestingTooDeep):
                    added = None
                if type(added) is list and added:
                    calls, responses, user_input, _ = _message_facts(added, False)
                    entry = (
                        text[:-1],
                        known[1] + tuple(calls),
                        known[2] + tuple(responses),
                        known[3] if known[3] is not None else user_input,
                    )
                    self._keep(key, entry)
                    _add(facts, (list(entry[1]), list(entry[2]), entry[3], []), False)
                    return
        messages = maybe_json(value)
        if type(messages) is not list:
            read_messages(facts, value, output=False)
            return
        calls, responses, user_input, _ = _message_facts(messages, False)
        self._keep(key, (text[:-1], tuple(calls), tuple(responses), user_input))
        _add(facts, (calls, responses, user_input, []), False)

    def _keep(
        self,
        key: str,
        entry: tuple[str, tuple[SpanCall, ...], tuple[dict[str, Any], ...], str | None],
    ) -> None:
        with self._lock:
            old = self._last.pop(key, None)
            if old is not None:
                self._chars -= len(old[0])
            self._last[key] = entry
            self._chars += len(entry[0])
            while self._last and (
                len(self._last) > self.max_entries or self._chars > self.max_chars
            ):
                dropped = self._last.pop(next(iter(self._last)))
                self._chars -= len(dropped[0])


#: The process's histories (the receiver's threads and file readers share them).
HISTORIES = _Histories()
