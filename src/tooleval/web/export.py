"""The viewer's exports: the rows of a view (same filters and order) as CSV or JSONL.

JSONL lines are :func:`tooleval.analysis.export.row_to_dict` (what ``--json``
writes per row). CSV has one line per row: id, category, verdict, failure
class, error, per metric score / passed / reason, expected and called tools
(names), input, output, then ``expected_calls`` and ``calls``: the same calls
as JSON with their arguments (``[{"name": ..., "args": {...}}]``), so a
wrong-argument row differs between the two. A CSV cell that a spreadsheet would read as a formula
(starting with ``=``, ``+``, ``-``, ``@``, tab or CR) is prefixed with ``'``.

>>> safe_cell("=HYPERLINK(1)"), safe_cell("refund"), safe_cell(0.5)
("'=HYPERLINK(1)", 'refund', '0.5')
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from tooleval.store.records import RowRecord, RunInfo
from tooleval.textsafe import csv_cell

__all__ = ["EXPORT_TYPES", "calls_json", "csv_header", "csv_values", "export_lines", "safe_cell"]

EXPORT_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson"}


def safe_cell(value: Any) -> str:
    """A CSV cell as text that no spreadsheet runs as a formula."""
    return csv_cell(value)  # the one rule every CSV export shares


def _names(calls: Iterable[Any]) -> str:
    return " ".join(c.name for c in calls)


def calls_json(calls: Iterable[Any]) -> str:
    """Calls as one JSON cell: each name with its arguments (the raw text when unparsable).

    >>> from tooleval.model import ToolCall
    >>> calls_json([ToolCall("cancel_order", {"order_id": "4417"})])
    '[{"name":"cancel_order","args":{"order_id":"4417"}}]'
    """
    out = []
    for call in calls:
        args = call.raw_arguments if getattr(call, "parse_error", None) else call.args
        out.append({"name": call.name, "args": args})
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"), default=str)


def csv_header(run: RunInfo) -> list[str]:
    """The CSV columns for ``run``: fixed ones, then three per metric."""
    head = ["index", "row_id", "category", "verdict", "failure_class", "error"]
    for metric in run.summaries:
        head += [f"{metric}.score", f"{metric}.passed", f"{metric}.reason"]
    return head + [
        "expected_tools",
        "tools_called",
        "input",
        "output",
        "expected_calls",
        "calls",
    ]


def csv_values(run: RunInfo, row: RowRecord) -> list[str]:
    """One row's CSV cells, in :func:`csv_header` order."""
    verdict = "error" if row.error else {True: "pass", False: "fail", None: "unscored"}[row.passed]
    cells: list[Any] = [
        row.index,
        row.row_id,
        row.category,
        verdict,
        row.failure_class,
        row.error,
    ]
    for metric in run.summaries:
        result = row.result(metric)
        if result is None:
            cells += [None, None, None]
        else:
            cells += [result.score, result.passed, result.reason]
    expected = row.sample.expected_tools
    actual = row.sample.actual_calls()
    cells += [
        _names(expected.calls) if expected is not None else None,
        _names(actual),
        row.sample.user_input(),
        row.sample.final_output(),
        calls_json(expected.calls) if expected is not None else None,
        calls_json(actual),
    ]
    return [safe_cell(c) for c in cells]


def export_lines(kind: str, run: RunInfo, rows: Iterable[RowRecord]) -> Iterator[str]:
    """The export as text chunks (streamed: a big run is never held in memory)."""
    from tooleval.analysis.export import row_to_dict

    if kind == "jsonl":
        for row in rows:
            yield json.dumps(row_to_dict(row), ensure_ascii=False, default=str) + "\n"
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(csv_header(run))
    for row in rows:
        writer.writerow(csv_values(run, row))
        if buffer.tell() > 64_000:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
