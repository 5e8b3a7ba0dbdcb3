"""One row of two runs side by side: scores, tool calls, arguments and output, differences marked.

Calls are aligned by name (:class:`difflib.SequenceMatcher`, so one inserted
call does not shift every later pair); an aligned pair whose arguments differ
has each differing key marked, a call with no partner is marked as only on
its side.

>>> from tooleval.model import ToolCall
>>> a = [ToolCall("lookup", {"id": "1"}), ToolCall("cancel", {"id": "1"})]
>>> b = [ToolCall("lookup", {"id": "1"}), ToolCall("cancel", {"id": "7"})]
>>> call_differences(a, b)
([[], ['id']], [[], ['id']], [True, True], [True, True])
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from tooleval.model import ToolCall
from tooleval.report.components import lookalike_note, score_text, value_text, verdict_badge
from tooleval.report.html import Href, Safe, el, frag
from tooleval.report.names import shown_name
from tooleval.store.records import RowRecord

__all__ = ["call_differences", "calls_cell", "delta_calls", "side_by_side"]


def _args_differ(a: ToolCall, b: ToolCall) -> list[str]:
    args_a, args_b = a.args or {}, b.args or {}
    return sorted(k for k in set(args_a) | set(args_b) if args_a.get(k, ...) != args_b.get(k, ...))


def call_differences(
    calls_a: list[ToolCall], calls_b: list[ToolCall]
) -> tuple[list[list[str]], list[list[str]], list[bool], list[bool]]:
    """Per call of each side: the argument keys that differ, and whether it has a partner."""
    keys_a: list[list[str]] = [[] for _ in calls_a]
    keys_b: list[list[str]] = [[] for _ in calls_b]
    paired_a = [False] * len(calls_a)
    paired_b = [False] * len(calls_b)
    matcher = SequenceMatcher(
        a=[c.name for c in calls_a], b=[c.name for c in calls_b], autojunk=False
    )
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            i, j = block.a + k, block.b + k
            paired_a[i] = paired_b[j] = True
            keys_a[i] = keys_b[j] = _args_differ(calls_a[i], calls_b[j])
    return keys_a, keys_b, paired_a, paired_b


def _call(call: ToolCall, keys: list[str], paired: bool, side: str) -> Safe:
    args = call.args or {}
    parts = [
        el(
            "span",
            f"{k}={value_text(v, limit=80)}",
            class_="arg-diff" if k in keys else None,
        )
        for k, v in args.items()
    ]
    parts += [el("span", f"{k} not given", class_="arg-diff") for k in keys if k not in args]
    classes = ["chip"] + ([] if paired else ["chip-only"]) + (["chip-args"] if keys else [])
    return el(
        "li",
        el("code", shown_name(call.name)),
        el(
            "span",
            "(",
            frag(frag(", " if i else "", p) for i, p in enumerate(parts)),
            ")",
            class_="call-args",
        )
        if parts
        else None,
        lookalike_note(call.name),
        el("span", f"only in {side}", class_="chip-note") if not paired else None,
        el("span", "args differ", class_="chip-note") if keys else None,
        class_=" ".join(classes),
    )


def calls_cell(calls: list[ToolCall], keys: list[list[str]], paired: list[bool], side: str) -> Safe:
    """One side's calls as chips, with what differs from the other side marked."""
    if not calls:
        return el("span", "no tool called", class_="muted")
    return el(
        "ol",
        [_call(c, keys[i], paired[i], side) for i, c in enumerate(calls)],
        class_="chips chips-diff",
    )


def _score_cell(row: RowRecord | None, metric: str, other: RowRecord | None) -> Safe:
    result = row.result(metric) if row else None
    other_result = other.result(metric) if other else None
    if result is None:
        return el("td", "–", class_="muted")
    differs = other_result is None or other_result.passed != result.passed
    return el(
        "td",
        verdict_badge(result.passed),
        " ",
        score_text(result.score),
        el("div", result.reason, class_="muted small") if result.reason else None,
        class_="differs" if differs else None,
    )


def side_by_side(
    row_a: RowRecord | None,
    row_b: RowRecord | None,
    *,
    metrics: list[str],
    link_a: Href | None = None,
    link_b: Href | None = None,
) -> Safe:
    """A table: one column per run, one line per metric, then calls, output and errors."""
    calls_a = row_a.sample.actual_calls() if row_a else []
    calls_b = row_b.sample.actual_calls() if row_b else []
    keys_a, keys_b, paired_a, paired_b = call_differences(calls_a, calls_b)

    def title(row: RowRecord | None, link: Href | None, label: str) -> Safe:
        if row is None:
            return el("th", f"{label}: row not in this run")
        name = el("a", f"row {row.row_id}", href=link) if link else f"row {row.row_id}"
        return el("th", f"{label}: ", name, " ", verdict_badge(row.passed, error=bool(row.error)))

    out_a = row_a.sample.final_output() if row_a else None
    out_b = row_b.sample.final_output() if row_b else None
    lines = _context_lines(row_a, row_b)
    lines += [
        el(
            "tr",
            el("th", metric, scope="row"),
            _score_cell(row_a, metric, row_b),
            _score_cell(row_b, metric, row_a),
        )
        for metric in metrics
    ]
    lines.append(
        el(
            "tr",
            el("th", "tools called", scope="row"),
            el("td", calls_cell(calls_a, keys_a, paired_a, "A")),
            el("td", calls_cell(calls_b, keys_b, paired_b, "B")),
        )
    )
    differs = out_a != out_b
    lines.append(
        el(
            "tr",
            el("th", "agent output", scope="row"),
            el("td", el("pre", out_a or "–", tabindex="0"), class_="differs" if differs else None),
            el("td", el("pre", out_b or "–", tabindex="0"), class_="differs" if differs else None),
        )
    )
    errors = (row_a.error if row_a else None, row_b.error if row_b else None)
    if any(errors):
        lines.append(
            el(
                "tr",
                el("th", "error", scope="row"),
                *(
                    el("td", el("pre", e or "–", class_="error-text" if e else None, tabindex="0"))
                    for e in errors
                ),
            )
        )
    head = el(
        "tr",
        el("td", el("span", "what", class_="sr-only"), class_="corner"),
        title(row_a, link_a, "A"),
        title(row_b, link_b, "B"),
    )
    return el("table", el("thead", head), el("tbody", lines), class_="side-by-side")


def _made(row: RowRecord | None, index: int, label: str) -> Safe:
    """Where one side made expected call ``index``: its call number, or missing."""
    from tooleval.report.transcript import expected_links

    if row is None:
        return el("td", "–", class_="muted")
    links = dict(expected_links(row))
    made = links.get(index)
    if made is None:
        return el("td", el("span", f"missing in {label}", class_="chip-note t-extra"))
    call = row.sample.actual_calls()[made]
    return el("td", el("code", f"call {made + 1}: {shown_name(call.name)}"), class_="t-made")


def _context_lines(row_a: RowRecord | None, row_b: RowRecord | None) -> list[Safe]:
    """The input (once when both sides share it) and each expected call, made where, per side."""
    lines: list[Safe] = []
    inputs = [r.sample.user_input() if r else None for r in (row_a, row_b)]
    if inputs[0] == inputs[1] or None in inputs:
        shown = inputs[0] if inputs[0] is not None else inputs[1]
        lines.append(
            el(
                "tr",
                el("th", "input", scope="row"),
                el("td", el("pre", shown or "–", tabindex="0"), colspan=2),
            )
        )
    else:
        lines.append(
            el(
                "tr",
                el("th", "input", scope="row"),
                *(el("td", el("pre", t or "–", tabindex="0"), class_="differs") for t in inputs),
            )
        )
    either = row_b if row_b is not None and row_b.sample.expected_tools else row_a
    expected = either.sample.expected_tools if either is not None else None
    if expected is None:
        return lines
    for index, call in enumerate(expected.calls):
        args = "" if call.args is None else value_text(call.args, limit=120)
        lines.append(
            el(
                "tr",
                el(
                    "th",
                    el("span", f"expected #{index + 1} ", class_="muted"),
                    el("code", shown_name(call.name)),
                    el("div", args, class_="call-args muted") if args else None,
                    scope="row",
                    class_="expected-call",
                ),
                _made(row_a, index, "A"),
                _made(row_b, index, "B"),
            )
        )
    return lines


def delta_calls(row_a: RowRecord | None, row_b: RowRecord | None) -> Any:
    """The two sides' calls for a compact table cell pair (A, B)."""
    calls_a = row_a.sample.actual_calls() if row_a else []
    calls_b = row_b.sample.actual_calls() if row_b else []
    keys_a, keys_b, paired_a, paired_b = call_differences(calls_a, calls_b)
    return (
        calls_cell(calls_a, keys_a, paired_a, "A"),
        calls_cell(calls_b, keys_b, paired_b, "B"),
    )
