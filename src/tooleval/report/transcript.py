"""A row's conversation as a transcript: every turn, each call's arguments and result.

The transcript shows why the agent did what it did: the system and user
turns, each assistant turn with its tool calls (numbered as the chips number
them, arguments in full), each tool result (errors marked), the final answer,
and the raw response collapsed. Each expected call is linked to the call that
matched it (``#call-N`` anchors in the same card) or, when it was never made,
shown as a missing turn at the point it should have come: after the call that
matched the expected call before it.

A row stored without messages (a connector that reads calls from a JSON path,
a benchmark file) gets the same transcript rebuilt from its input, its calls
and its output, so every row card has one.

>>> from tooleval.model import ExpectedTools, Sample, ToolCall
>>> from tooleval.store.records import RowRecord
>>> row = RowRecord("r", 0, "r0", Sample(input="hi", tools_called=[ToolCall("a")],
...     expected_tools=ExpectedTools.of(["a", "b"]), output="done"))
>>> [t.role for t in turns(row.sample)]
['user', 'assistant', 'assistant']
>>> expected_links(row)
[(0, 0), (1, None)]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.model import AssistantMessage, Sample, SystemMessage, ToolCall, ToolMessage
from tooleval.report.html import Safe, el, frag, href
from tooleval.report.markdown import markdown
from tooleval.report.names import shown_name
from tooleval.store.records import RowRecord

__all__ = [
    "Turn",
    "call_anchor",
    "expected_links",
    "result_block",
    "span_timeline",
    "transcript",
    "turns",
]

_RAW_LIMIT = 20_000
# A tool result longer than this is folded (its first line and size shown).
_FOLD_CHARS = 600
_FOLD_LINES = 12


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a transcript; ``calls`` are ``(call number, call)`` pairs."""

    role: str
    text: Any = ""
    calls: tuple[tuple[int, ToolCall], ...] = ()
    error: bool = False
    answers: int | None = None  # the call number a tool turn answers
    extra: dict[str, Any] = field(default_factory=dict)


def _from_messages(sample: Sample) -> list[Turn]:
    out: list[Turn] = []
    numbers: dict[str, int] = {}
    pending: list[int] = []
    count = 0
    for message in sample.messages:
        if isinstance(message, AssistantMessage):
            calls = []
            for call in message.tool_calls:
                if call.id is not None:
                    numbers[call.id] = count
                pending.append(count)
                calls.append((count, call))
                count += 1
            out.append(Turn("assistant", message.content, tuple(calls)))
        elif isinstance(message, ToolMessage):
            answered = numbers.get(message.tool_call_id or "")
            if answered is None and pending:
                answered = pending[0]
            if answered in pending:
                pending.remove(answered)
            out.append(Turn("tool", message.content, error=message.is_error, answers=answered))
        elif isinstance(message, SystemMessage):
            out.append(Turn("system", message.content))
        else:
            out.append(Turn("user", message.content))
    return out


def turns(sample: Sample) -> list[Turn]:
    """The row's turns in order: its messages, or input, calls and output rebuilt.

    When ``tools_called`` overrides the messages' calls (a connector read them
    from a JSON path), the calls shown are those the metrics scored.
    """
    if sample.messages and sample.tools_called is None:
        out = _from_messages(sample)
        final = sample.output
        if final and not any(t.role == "assistant" and t.text == final for t in out):
            out.append(Turn("assistant", final))
        return out
    out = []
    if sample.messages:
        out = [t for t in _from_messages(sample) if t.role in ("system", "user")]
    elif sample.input:
        out.append(Turn("user", sample.input))
    for number, call in enumerate(sample.actual_calls()):
        out.append(Turn("assistant", "", ((number, call),)))
        if call.result is not None or call.is_error:
            out.append(Turn("tool", call.result, error=call.is_error, answers=number))
    final = sample.final_output()
    if final:
        out.append(Turn("assistant", final))
    return out


def expected_links(row: RowRecord) -> list[tuple[int, int | None]]:
    """Per expected call, the agent's call that matched it (None: never made).

    Read from the metrics' diagnoses (their matched ``pairs``); calls no
    diagnosis pairs are matched by name, in order, to calls not yet taken.
    """
    expected = row.sample.expected_tools
    if expected is None:
        return []
    actual = row.sample.actual_calls()
    pairs: dict[int, int] = {}
    for result in row.results:
        for pair in result.diagnosis.details.get("pairs") or ():
            if not isinstance(pair, dict):
                continue
            i, j = pair.get("expected_index"), pair.get("actual_index")
            if isinstance(i, int) and isinstance(j, int) and 0 <= j < len(actual):
                pairs.setdefault(i, j)
    missing = {
        call.get("index")
        for result in row.results
        for call in result.diagnosis.missing
        if isinstance(call, dict)
    }
    taken = set(pairs.values())
    links: list[tuple[int, int | None]] = []
    for i, call in enumerate(expected.calls):
        if i in pairs:
            links.append((i, pairs[i]))
            continue
        found = None
        if i not in missing:
            found = next(
                (j for j, c in enumerate(actual) if c.name == call.name and j not in taken), None
            )
        if found is not None:
            taken.add(found)
        links.append((i, found))
    return links


def call_anchor(prefix: str, number: int) -> str:
    """The id of call ``number`` inside a card whose ids start with ``prefix``.

    >>> call_anchor("row-3-", 0)
    'row-3-call-1'
    """
    return f"{prefix}call-{number + 1}"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _json_block(value: Any, *, limit: int = 4000) -> Safe:
    text = _text(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return el("pre", text, tabindex="0")


def result_block(value: Any) -> Safe:
    """A tool result: shown whole when short, else folded under its first line and size.

    The folded text stays in the page (the browser's find opens it) and is cut
    only past 20,000 characters, where the cut is said.

    >>> "<details" in result_block("x" * 5000), "<details" in result_block({"ok": True})
    (True, False)
    """
    text = _text(value)
    if len(text) <= _FOLD_CHARS and text.count("\n") < _FOLD_LINES:
        return el("pre", text, tabindex="0")
    shown = text if len(text) <= _RAW_LIMIT else text[:_RAW_LIMIT] + "…"
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    cut = f" (first {_RAW_LIMIT:,} shown)" if len(text) > _RAW_LIMIT else ""
    return el(
        "details",
        el(
            "summary",
            el("code", first[:120] + ("…" if len(first) > 120 else "")),
            f" {len(text):,} characters, {text.count(chr(10)) + 1:,} lines{cut}",
        ),
        el("pre", shown, tabindex="0"),
        class_="t-result-fold",
    )


def _call_item(number: int, call: ToolCall, prefix: str, expected_for: list[int] | None) -> Safe:
    """One call; ``expected_for`` None when the row has no reference (nothing to match)."""
    marks = []
    if call.parse_error:
        marks.append(el("span", f"bad JSON: {call.parse_error}", class_="chip-note"))
    if expected_for:
        marks.append(
            el(
                "span",
                "expected " + ", ".join(f"#{i + 1}" for i in expected_for),
                class_="t-match",
            )
        )
    elif expected_for is not None:
        marks.append(el("span", "not expected", class_="t-extra"))
    args: Any = call.raw_arguments if call.parse_error else call.args
    return el(
        "li",
        el(
            "div",
            el("span", f"call {number + 1}", class_="chip-pos"),
            el("code", shown_name(call.name), class_="t-name"),
            *marks,
            class_="t-call-head",
        ),
        _json_block(args if args else {}),
        class_="t-call",
        id=call_anchor(prefix, number),
    )


def _missing_turn(index: int, call: ToolCall) -> Safe:
    args = "" if call.args is None else json.dumps(call.args, ensure_ascii=False, default=str)
    return el(
        "li",
        el("span", "missing", class_="t-role"),
        el(
            "p",
            f"expected call #{index + 1} ",
            el("code", shown_name(call.name)),
            f" {args}" if args else "",
            " was never made; it should have come here.",
        ),
        class_="turn turn-missing",
    )


def _turn_item(turn: Turn, prefix: str, expected_for: dict[int, list[int]] | None) -> Safe:
    role = {"tool": "tool result"}.get(turn.role, turn.role)
    label = [el("span", role, class_="t-role")]
    if turn.answers is not None:
        label.append(
            el(
                "a",
                f"for call {turn.answers + 1}",
                href=href("#", fragment=call_anchor(prefix, turn.answers)),
            )
        )
    if turn.error:
        label.append(el("span", "error", class_="badge badge-error"))
    if turn.text in ("", None):
        body = []
    elif turn.role == "tool":
        body = [result_block(turn.text)]
    elif turn.role == "assistant" and isinstance(turn.text, str):
        body = [markdown(turn.text[:_RAW_LIMIT])]
    else:
        body = [_json_block(turn.text)]
    calls = (
        el(
            "ol",
            [
                _call_item(n, c, prefix, None if expected_for is None else expected_for.get(n, []))
                for n, c in turn.calls
            ],
            class_="t-calls",
        )
        if turn.calls
        else None
    )
    classes = f"turn turn-{turn.role}" + (" turn-error" if turn.error else "")
    return el("li", el("div", *label, class_="t-head"), *body, calls, class_=classes)


def _expected_list(row: RowRecord, links: Sequence[tuple[int, int | None]], prefix: str) -> Safe:
    expected = row.sample.expected_tools
    if expected is None or not expected.calls:
        return Safe("")
    items = []
    for i, j in links:
        call = expected.calls[i]
        where = (
            el("a", f"made as call {j + 1}", href=href("#", fragment=call_anchor(prefix, j)))
            if j is not None
            else el("span", "missing", class_="t-extra")
        )
        items.append(el("li", el("code", shown_name(call.name)), " ", where))
    return el("div", "Expected calls: ", el("ol", items, class_="t-expected"), class_="small")


def transcript(row: RowRecord, *, level: int = 4, prefix: str = "") -> Safe:
    """The row's conversation, calls linked to the expected calls, raw response collapsed.

    ``prefix`` keeps the anchors of two cards on one page apart (compare).
    """
    listed = turns(row.sample)
    links = expected_links(row)
    expected_for: dict[int, list[int]] = {}
    for i, j in links:
        if j is not None:
            expected_for.setdefault(j, []).append(i)
    # A missing call goes after the call that matched the expected call before it.
    after: dict[int, list[int]] = {}
    for i, j in links:
        if j is None:
            before = next((k for e, k in reversed(links[:i]) if k is not None), -1)
            after.setdefault(before, []).append(i)
    expected = row.sample.expected_tools
    missing = {
        key: [_missing_turn(i, expected.calls[i]) for i in group]
        for key, group in after.items()
        if expected is not None
    }
    # Where each call's exchange ends: its result turn, else its assistant turn.
    ends: dict[int, int] = {}
    for place, turn in enumerate(listed):
        for number, _ in turn.calls:
            ends.setdefault(number, place)
        if turn.role == "tool" and turn.answers is not None:
            ends[turn.answers] = place
    slots: dict[int, list[Safe]] = {}
    first_call = next((p for p, t in enumerate(listed) if t.calls), None)
    final = next((p for p in range(len(listed) - 1, -1, -1) if listed[p].role == "assistant"), None)
    for key, shown in missing.items():
        if key == -1:
            slot = (
                first_call
                if first_call is not None
                else final
                if final is not None
                else len(listed)
            ) - 1
        else:
            slot = ends.get(key, len(listed) - 1)
        slots.setdefault(slot, []).extend(shown)
    items: list[Safe] = list(slots.get(-1, []))
    reference = expected_for if row.sample.expected_tools is not None else None
    for place, turn in enumerate(listed):
        items.append(_turn_item(turn, prefix, reference))
        items.extend(slots.get(place, []))
    items.extend(s for k, v in slots.items() if k >= len(listed) for s in v)
    raw = _raw_block(row)
    return el(
        "section",
        el(f"h{level}", "Transcript", class_="sub"),
        _expected_list(row, links, prefix),
        el("ol", items, class_="transcript"),
        raw,
        class_="transcript-block",
    )


def _raw_block(row: RowRecord) -> Safe:
    raw = row.raw_response
    if raw is None:
        return Safe("")
    spans = raw.get("spans") if isinstance(raw, dict) else None
    return frag(
        span_timeline(spans) if isinstance(spans, list) and spans else None,
        el(
            "details",
            el("summary", "raw response"),
            _json_block(raw, limit=_RAW_LIMIT),
            class_="raw-response",
        ),
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _span_order(rows: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """``(depth, span)`` depth first: children under their parent (by id), each level in time.

    A span whose parent was not recorded is a root; a cycle of parent ids
    (corrupt input) cannot loop: every span is placed once.
    """

    def when(span: dict[str, Any]) -> tuple[bool, float]:
        start = _number(span.get("start_ms"))
        return start is None, start or 0.0

    ids = {s.get("span_id") for s in rows if s.get("span_id") is not None}
    children: dict[Any, list[dict[str, Any]]] = {}
    roots = []
    for span in rows:
        parent = span.get("parent_span_id")
        if parent is not None and parent in ids and parent != span.get("span_id"):
            children.setdefault(parent, []).append(span)
        else:
            roots.append(span)
    out: list[tuple[int, dict[str, Any]]] = []
    placed: set[int] = set()
    stack = [(0, s) for s in sorted(roots, key=when, reverse=True)]
    while stack:
        depth, span = stack.pop()
        if id(span) in placed:
            continue
        placed.add(id(span))
        out.append((depth, span))
        below = children.get(span.get("span_id"), []) if span.get("kind") != "tool" else []
        stack.extend((depth + 1, c) for c in sorted(below, key=when, reverse=True))
    # Spans only reachable through a cycle: shown as roots rather than lost.
    out.extend((0, s) for s in sorted(rows, key=when) if id(s) not in placed)
    return out


def _tokens(span: dict[str, Any]) -> str:
    tokens = [span.get("input_tokens"), span.get("output_tokens")]
    return "" if tokens == [None, None] else f"{tokens[0] or 0} in / {tokens[1] or 0} out"


def span_timeline(spans: Sequence[Any]) -> Safe:
    """The session's spans as a tree in time: agent, model and tool spans nested by parent id.

    Each row: kind, name (indented by depth), offset, duration (a bar on the
    session's time axis), tokens, and the error status with its message.

    >>> html = span_timeline([
    ...     {"kind": "agent", "span_id": "a", "name": "invoke_agent", "start_ms": 0,
    ...      "latency_ms": 30},
    ...     {"kind": "tool", "span_id": "t", "parent_span_id": "a", "tool": "lookup",
    ...      "start_ms": 10, "latency_ms": 5, "is_error": True, "error": "order service 503"}])
    >>> html.count('<tr class="t-span'), "depth-1" in html, "order service 503" in html
    (2, True, True)
    """
    rows = [s for s in spans if isinstance(s, dict)]
    ends = [(_number(s.get("start_ms")) or 0) + (_number(s.get("latency_ms")) or 0) for s in rows]
    total = max(ends, default=0) or 1
    body = []
    for depth, span in _span_order(rows):
        start, latency = _number(span.get("start_ms")), _number(span.get("latency_ms"))
        kind = span.get("kind") or ("tool" if span.get("tool") else "llm")
        name = span.get("tool") or span.get("model") or span.get("name") or kind
        left = 100 * (start or 0) / total
        width = min(max(1.0, 100 * (latency or 0) / total), 100 - left)
        # The bar's place is a class per 5%: the CSP forbids inline styles.
        bar = el(
            "span",
            el(
                "span",
                class_=f"t-bar t-bar-{kind} at-{round(left / 5) * 5} "
                f"w-{min(100, round(width / 5) * 5 or 5)}",
            ),
            class_="t-track",
            aria_hidden="true",
        )
        failed = bool(span.get("is_error"))
        status = (
            el(
                "span",
                el("span", "error", class_="badge badge-error"),
                " ",
                str(span.get("error") or ""),
                class_="t-span-error",
            )
            if failed
            else ""
        )
        label = str(span.get("name") or "")
        body.append(
            el(
                "tr",
                el("td", kind),
                el(
                    "td",
                    el("code", shown_name(str(name))),
                    el("span", f" {label}", class_="muted small")
                    if label and label != str(name)
                    else None,
                    class_=f"t-span-name depth-{min(depth, 8)}",
                ),
                el("td", "" if start is None else f"+{start:.0f} ms", class_="num"),
                el("td", "" if latency is None else f"{latency:.0f} ms", class_="num"),
                el("td", _tokens(span), class_="num"),
                el("td", status),
                el("td", bar, class_="t-span-bar"),
                class_=f"t-span t-span-{kind}" + (" t-span-failed" if failed else ""),
                data_depth=str(depth),
            )
        )
    axis = el(
        "span",
        el("span", "0 ms"),
        el("span", f"{total / 2:.0f} ms"),
        el("span", f"{total:.0f} ms"),
        class_="t-axis",
    )
    head = el(
        "tr",
        *(el("th", h) for h in ("kind", "name", "start", "duration", "tokens", "status")),
        el("th", "timeline ", axis),
    )
    return el(
        "div",
        el(
            "table",
            el("caption", "Spans (nested by parent)"),
            el("thead", head),
            el("tbody", body),
            class_="spans",
        ),
        class_="table-scroll",
        tabindex="0",
    )
