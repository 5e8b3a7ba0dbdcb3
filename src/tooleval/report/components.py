"""The shared rendering layer: chips, metric cards, row cards, run tables.

The static report (:mod:`tooleval.report.static`) and the local viewer
(:mod:`tooleval.web`) both build their pages from these functions, so a row
looks the same in a CI artifact and in the browser. Every function takes
plain records from the store's read API and returns escaped :class:`Safe`
HTML; links come from a caller-supplied function so the report can point at
anchors and the viewer at its routes.

>>> from tooleval.model import Diagnosis, ExpectedTools, Result, Sample, ToolCall
>>> from tooleval.store.records import RowRecord
>>> d = Diagnosis(missing=[{"name": "issue_refund", "args": None, "index": 1}],
...               extra=[{"name": "search_orders", "args": {}, "index": 1}])
>>> row = RowRecord("r", 0, "r0", Sample(
...     expected_tools=ExpectedTools.of(["lookup_order", "issue_refund"]),
...     tools_called=[ToolCall("lookup_order"), ToolCall("search_orders")]),
...     (Result.scored("tool_correctness", 0.5, reason="", threshold=0.6, diagnosis=d),))
>>> chip_marks(row)
([[], ['missing']], [[], ['extra']])
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tooleval.model import Result, ToolCall
from tooleval.report.html import Href, Safe, el, frag
from tooleval.report.names import name_warnings, shown_name
from tooleval.store.records import RowRecord

__all__ = [
    "RowLink",
    "call_chips",
    "chip_marks",
    "failure_reason",
    "lookalike_note",
    "marked",
    "metric_card",
    "pct",
    "row_card",
    "rows_table",
    "score_text",
    "value_text",
    "verdict_badge",
]

# How a caller turns a row into a link (or None for no link).
RowLink = Callable[[RowRecord], Href | None]
_VIOLATION = re.compile(r"^(.+?) \(expected #(\d+)\) came before (.+?) \(expected #(\d+)\)$")
_MARK_TEXT = {
    "missing": "missing",
    "extra": "extra",
    "order": "out of order",
    "args": "wrong args",
}
# Short visible marks for the compact chips of the rows table (colour is never the only cue).
_MARK_GLYPH = {"missing": "−", "extra": "+", "order": "⇅", "args": "≠"}
_NAME_LIMIT = 60


def pct(value: float | None) -> str:
    """A rate as a percentage (``–`` when undefined).

    >>> pct(0.125), pct(None)
    ('12.5%', '–')
    """
    return "–" if value is None else f"{value:.1%}"


def score_text(value: float | None) -> str:
    """A score with 2 decimals (``unscored`` for None).

    >>> score_text(0.5), score_text(None)
    ('0.50', 'unscored')
    """
    return "unscored" if value is None else f"{value:.2f}"


def value_text(value: Any, *, limit: int = 400) -> str:
    """Any JSON-ish value as compact text for display (truncated past ``limit``).

    >>> value_text({"b": 1, "a": "x"}), value_text("a" * 10, limit=5)
    ('{"a": "x", "b": 1}', '"aaa…')
    """
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_badge(passed: bool | None, *, error: bool = False) -> Safe:
    """PASS / FAIL / UNSCORED / ERROR as a coloured badge.

    >>> str(verdict_badge(True)), str(verdict_badge(None))
    ('<span class="badge badge-pass">pass</span>', '<span class="badge badge-unscored">unscored</span>')
    """
    if error:
        return el("span", "error", class_="badge badge-error")
    if passed is None:
        return el("span", "unscored", class_="badge badge-unscored")
    return el(
        "span", "pass" if passed else "fail", class_=f"badge badge-{'pass' if passed else 'fail'}"
    )


# ---------------------------------------------------------------- chips


def _mark(
    marks: list[list[str]], calls: Sequence[ToolCall], index: Any, name: Any, mark: str
) -> None:
    """Mark the call at ``index`` (or, if that does not fit, the first by that name)."""
    target: int | None
    if isinstance(index, int) and 0 <= index < len(calls) and calls[index].name == name:
        target = index
    else:
        target = next(
            (i for i, c in enumerate(calls) if c.name == name and mark not in marks[i]), None
        )
    if target is not None and mark not in marks[target]:
        marks[target].append(mark)


def chip_marks(row: RowRecord) -> tuple[list[list[str]], list[list[str]]]:
    """Per expected call and per actual call, what the diagnoses say is wrong with it.

    Marks: ``missing`` (expected, never made), ``extra`` (made, not expected),
    ``order`` (part of a broken ordering constraint), ``args`` (an argument
    compared with score < 1). Read from every Result's diagnosis on the row.
    """
    expected = list(row.sample.expected_tools.calls) if row.sample.expected_tools else []
    actual = row.sample.actual_calls()
    exp_marks: list[list[str]] = [[] for _ in expected]
    act_marks: list[list[str]] = [[] for _ in actual]
    for result in row.results:
        diagnosis = result.diagnosis
        for call in diagnosis.missing:
            _mark(exp_marks, expected, call.get("index"), call.get("name"), "missing")
        for call in diagnosis.extra:
            _mark(act_marks, actual, call.get("index"), call.get("name"), "extra")
        pairs = {
            p.get("expected_index"): p.get("actual_index")
            for p in diagnosis.details.get("pairs", ())
            if isinstance(p, dict)
        }
        for violation in diagnosis.order_violations:
            found = _VIOLATION.match(violation)
            if not found:
                continue
            for name, number in ((found[1], found[2]), (found[3], found[4])):
                position = int(number) - 1
                _mark(exp_marks, expected, position, name, "order")
                _mark(act_marks, actual, pairs.get(position), name, "order")
        for check in diagnosis.argument_mismatches:
            _mark(exp_marks, expected, check.expected_index, check.tool, "args")
            _mark(act_marks, actual, check.actual_index, check.tool, "args")
    return exp_marks, act_marks


def _short_name(name: str) -> str:
    shown = shown_name(name)
    return shown if len(shown) <= _NAME_LIMIT else shown[: _NAME_LIMIT - 1] + "…"


def _call_label(call: ToolCall) -> str:
    name = _short_name(call.name)
    if call.args is None:
        return name
    inner = ", ".join(f"{k}={value_text(v, limit=60)}" for k, v in call.args.items())
    text = f"{name}({inner})"
    return text if len(text) <= 120 else text[:119] + "…"


def lookalike_note(name: str) -> Safe | None:
    """A visible warning when a tool name could pass for another (None for plain names).

    >>> lookalike_note("refund") is None, "U+200B" in str(lookalike_note("refund\u200b"))
    (True, True)
    """
    warnings = name_warnings(name)
    if not warnings:
        return None
    return el("span", "⚠ look-alike", class_="chip-note chip-lookalike", title="; ".join(warnings))


def _chip(call: ToolCall, marks: list[str], position: int) -> Safe:
    classes = " ".join(["chip"] + [f"chip-{m}" for m in marks])
    notes = [el("span", _MARK_TEXT[m], class_="chip-note") for m in marks]
    if call.parse_error:
        notes.append(el("span", "bad JSON", class_="chip-note"))
    if call.is_error:
        notes.append(el("span", "tool error", class_="chip-note"))
    return el(
        "li",
        el("span", f"{position + 1}", class_="chip-pos"),
        el("code", _call_label(call)),
        lookalike_note(call.name),
        *notes,
        class_=classes,
        title=shown_name(str(call)),
    )


def call_chips(row: RowRecord, *, level: int = 4) -> Safe:
    """**Expected tools** chips next to **Tools called** chips, problems marked."""
    exp_marks, act_marks = chip_marks(row)
    expected = row.sample.expected_tools
    actual = row.sample.actual_calls()
    if expected is None:
        exp_body = el("p", "no expected_tools bound for this row", class_="muted")
    elif not expected.calls:
        exp_body = el("p", "none (the agent should call no tool)", class_="muted")
    else:
        exp_body = el(
            "ol",
            [_chip(c, exp_marks[i], i) for i, c in enumerate(expected.calls)],
            class_="chips",
        )
    act_body = (
        el("ol", [_chip(c, act_marks[i], i) for i, c in enumerate(actual)], class_="chips")
        if actual
        else el("p", "no tool called", class_="muted")
    )
    return el(
        "div",
        el("div", el(f"h{level}", "Expected tools", class_="sub"), exp_body, class_="chip-col"),
        el("div", el(f"h{level}", "Tools called", class_="sub"), act_body, class_="chip-col"),
        class_="chip-grid",
    )


def argument_table(row: RowRecord, *, level: int = 4) -> Safe:
    """Every argument mismatch (score < 1) as expected vs actual; empty when none."""
    seen: set[tuple[Any, ...]] = set()
    rows = []
    for result in row.results:
        for check in result.diagnosis.argument_mismatches:
            key = (check.tool, check.key, check.expected_index, check.actual_index)
            if key in seen:
                continue
            seen.add(key)
            actual = "(not given)" if check.missing else value_text(check.actual)
            rows.append(
                el(
                    "tr",
                    el("td", el("code", f"{check.tool}.{check.key}")),
                    el("td", el("code", value_text(check.expected)), class_="expected"),
                    el("td", el("code", actual), class_="actual"),
                    el("td", f"{check.score:.2f}", class_="num"),
                    el("td", check.matcher, class_="muted"),
                )
            )
    if not rows:
        return Safe("")
    head = el(
        "tr",
        *(el("th", h) for h in ("argument", "expected", "actual", "score", "matcher")),
    )
    return el(
        "div",
        el(f"h{level}", "Argument mismatches", class_="sub"),
        el("table", el("thead", head), el("tbody", rows), class_="args"),
        class_="arg-block",
    )


# ---------------------------------------------------------------- metric cards


def _judge_block(result: Result) -> Safe:
    details = result.diagnosis.details
    exchanges = details.get("exchanges") or []
    if not exchanges:
        return Safe("")
    judge = details.get("judge") or {}
    items = []
    for exchange in exchanges:
        if not isinstance(exchange, dict):
            continue
        label = f"step {exchange.get('step', '?')}, attempt {exchange.get('attempt', 1)}"
        if exchange.get("error"):
            label += f": {exchange['error']}"
        items.append(
            el(
                "li",
                el("span", label, class_="muted"),
                el("pre", exchange.get("reply"), tabindex="0"),
            )
        )
    return el(
        "details",
        el("summary", f"judge replies ({judge.get('model', 'judge')})"),
        el("ul", items, class_="judge"),
    )


def metric_card(result: Result) -> Safe:
    """One metric on one row: score over threshold, verdict, reason, judge replies."""
    threshold = "" if result.threshold is None else f" / {result.threshold:g}"
    state = "unscored" if result.passed is None else ("pass" if result.passed else "fail")
    params = ", ".join(f"{k}={value_text(v, limit=80)}" for k, v in result.params.items())
    return el(
        "div",
        el(
            "div",
            el("span", result.metric, class_="metric-name"),
            verdict_badge(result.passed),
            class_="metric-head",
        ),
        el(
            "div",
            el("span", score_text(result.score), class_="score"),
            el("span", threshold, class_="threshold"),
            class_="metric-score",
            title="score / threshold",
        ),
        el("p", result.reason, class_="reason") if result.reason else None,
        el("details", el("summary", "parameters"), el("p", params, class_="params muted"))
        if params
        else None,
        _judge_block(result),
        class_=f"metric-card metric-{state}",
    )


# ---------------------------------------------------------------- row cards


def _text_block(title: str, text: Any, *, css: str = "", level: int = 4) -> Safe:
    if text is None or text == "":
        return Safe("")
    body = text if isinstance(text, str) else value_text(text, limit=4000)
    return el(
        "div",
        el(f"h{level}", title, class_="sub"),
        el("pre", body, class_=css or None, tabindex="0"),
        class_="text-block",
    )


def row_card(
    row: RowRecord,
    *,
    link: Href | None = None,
    anchor: str | None = None,
    extra_header: Safe | None = None,
    level: int = 3,
    prefix: str = "",
) -> Safe:
    """A full row: input, metric cards, tool chips, argument mismatches, transcript, errors.

    ``level`` is the heading level of the row's title (its sections one below),
    so the card fits the page's heading outline. ``prefix`` starts the ids of
    the card's transcript anchors (two cards on one page need two prefixes).
    """
    from tooleval.report.transcript import transcript

    title = el("a", row.row_id, href=link) if link else el("span", row.row_id)
    sub = level + 1
    sample = row.sample
    meta = [
        # the row's number in its run, from 1 ("row 11 of 120" on the row page is "#11")
        el("span", f"#{row.index + 1}", class_="muted", title="row number in the run"),
        el("span", sample.category, class_="tag") if sample.category else None,
        el("span", row.failure_class.replace("_", " "), class_="tag tag-class")
        if row.failure_class
        else None,
        el("span", f"{row.latency_ms:.0f} ms", class_="muted")
        if row.latency_ms is not None
        else None,
    ]
    return el(
        "article",
        el(
            "header",
            el(f"h{level}", title),
            verdict_badge(row.passed, error=bool(row.error)),
            *meta,
            extra_header,
            class_="row-head",
        ),
        _text_block("Input", sample.user_input(), level=sub),
        el("div", [metric_card(r) for r in row.results], class_="metric-cards")
        if row.results
        else el("p", "no metric results stored", class_="muted"),
        call_chips(row, level=sub),
        argument_table(row, level=sub),
        _text_block("Final answer", sample.final_output(), level=sub),
        _text_block("Connector error", row.error, css="error-text", level=sub),
        _text_block("Reference", sample.reference, level=sub),
        transcript(row, level=sub, prefix=prefix or (f"t-{anchor}-" if anchor else "")),
        class_="row-card" + (" row-fail" if row.passed is False or row.error else ""),
        id=anchor,
    )


def _names_cell(calls: Iterable[ToolCall], marks: list[list[str]]) -> Safe:
    chips = [
        el(
            "li",
            _short_name(call.name),
            frag(el("span", _MARK_GLYPH[m], class_="chip-glyph", aria_hidden="true") for m in mark),
            el("span", f" ({', '.join(_MARK_TEXT[m] for m in mark)})", class_="sr-only")
            if mark
            else None,
            el("span", "⚠", class_="chip-glyph chip-lookalike", aria_hidden="true")
            if name_warnings(call.name)
            else None,
            class_=" ".join(["chip", "chip-small"] + [f"chip-{m}" for m in mark]),
            title="; ".join(
                [shown_name(call.name)]
                + [_MARK_TEXT[m] for m in mark]
                + [f"look-alike name: {w}" for w in name_warnings(call.name)]
            ),
        )
        for call, mark in zip(calls, marks, strict=True)
    ]
    return (
        el("ol", chips, class_="chips chips-inline") if chips else el("span", "–", class_="muted")
    )


def failure_reason(row: RowRecord) -> str:
    """Why a row did not pass, in one line: its error, else its failing (or unscored) reasons.

    Metrics giving the same reason share it (``a, b: reason``), so a reason is
    never repeated.
    """
    if row.error:
        return row.error
    failing = [r for r in row.results if r.passed is False]
    if not failing:
        failing = [r for r in row.results if r.passed is None]
    by_reason: dict[str, list[str]] = {}
    for result in failing:
        by_reason.setdefault(result.reason or "", []).append(result.metric)
    return "; ".join(
        f"{', '.join(metrics)}: {reason}" if reason else ", ".join(metrics)
        for reason, metrics in by_reason.items()
    )


def marked(text: str, needle: str | None) -> Safe:
    """``text`` with each case-insensitive match of ``needle`` in ``<mark>`` (escaped).

    >>> str(marked("Refund <b>", "refund"))
    '<mark>Refund</mark> &lt;b&gt;'
    """
    from tooleval.report.html import esc

    words = [w for w in (needle or "").split() if w]
    if not words:
        return esc(text)
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.I)
    parts: list[Any] = []
    at = 0
    for found in pattern.finditer(text):
        parts += [text[at : found.start()], el("mark", found.group(0))]
        at = found.end()
    parts.append(text[at:])
    return frag(*parts)


def _why_cell(row: RowRecord, needle: str | None = None) -> Safe:
    if row.passed is True and not row.error:
        return el("td", "", class_="why why-none")
    reason = failure_reason(row)
    short = reason if len(reason) <= 400 else reason[:399] + "…"
    # The reason is cut to three lines on screen (style.css); its whole text is the title.
    return el(
        "td",
        el("span", row.failure_class.replace("_", " "), class_="tag tag-class")
        if row.failure_class
        else None,
        " ",
        el("span", marked(short, needle), title=reason, class_="why-text"),
        class_="why",
        data_label="why",
    )


def rows_table(
    rows: Sequence[RowRecord],
    metrics: Sequence[str],
    link: RowLink,
    *,
    highlight: str | None = None,
) -> Safe:
    """A compact table of rows: id, category, verdict, per-metric score, why, chips, input.

    ``highlight`` (the search text) is marked wherever it appears in the row
    id, the reason and the input. The table scrolls inside its box when the
    page is narrower than it.
    """
    head = el(
        "tr",
        el("th", "row"),
        el("th", "category"),
        el("th", "verdict"),
        *(el("th", m, class_="num") for m in metrics),
        el("th", "why it did not pass"),
        el("th", "expected tools"),
        el("th", "tools called"),
        el("th", "input"),
    )
    body = []
    for row in rows:
        exp_marks, act_marks = chip_marks(row)
        expected = row.sample.expected_tools
        target = link(row)
        cells = [
            el(
                "td",
                el("a", marked(row.row_id, highlight), href=target)
                if target
                else marked(row.row_id, highlight),
                class_="rowid",
            ),
            el("td", row.category or "", class_="cat", data_label="category"),
            el(
                "td",
                verdict_badge(row.passed, error=bool(row.error)),
                class_="verdict",
                data_label="verdict",
            ),
        ]
        for metric in metrics:
            result = row.result(metric)
            state = (
                ""
                if result is None or result.passed is None
                else ("pass" if result.passed else "fail")
            )
            cells.append(
                el(
                    "td",
                    score_text(result.score) if result else "",
                    class_=f"num score-{state}",
                    data_label=metric,
                )
            )
        cells.append(_why_cell(row, highlight))
        cells.append(
            el(
                "td",
                _names_cell(expected.calls, exp_marks)
                if expected is not None
                else el("span", "unbound", class_="muted"),
                class_="expected",
                data_label="expected",
            )
        )
        cells.append(
            el(
                "td",
                _names_cell(row.sample.actual_calls(), act_marks),
                class_="called",
                data_label="called",
            )
        )
        text = row.sample.user_input()
        shown = text if len(text) <= 200 else text[:199] + "…"
        cells.append(
            el(
                "td",
                el("span", marked(shown, highlight), class_="input-text", title=text or None),
                class_="input",
                data_label="input",
            )
        )
        body.append(el("tr", cells, id=f"row-{row.index}"))
    return el(
        "div",
        el("table", el("thead", head), el("tbody", body), class_="rows"),
        class_="table-scroll",
        tabindex="0",
    )
