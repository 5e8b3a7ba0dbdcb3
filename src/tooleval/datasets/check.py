"""Per-column findings for ``tooleval dataset check``.

For each column: the field it binds to, how many cells are non-empty, the
value shapes seen ("list of names 40 rows, text 'a, b' 3 rows, calls with
args 7 rows") and the parse errors with their row numbers.

>>> import tempfile, pathlib
>>> from tooleval.datasets.load import load_dataset
>>> path = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
>>> _ = path.write_text('{"input": "a b", "expected_tools": ["x"]}\\n'
...                     '{"input": "c d", "expected_tools": "x, y"}\\n')
>>> report = check_dataset(load_dataset(path))
>>> report.column("expected_tools").shapes
{'list of names': 1, "text 'a, b'": 1}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from tooleval.datasets.binding import bind_option, suggest_column
from tooleval.datasets.load import Dataset
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.formats.missing import MISSING_CALLS

__all__ = [
    "ColumnFinding",
    "DatasetCheck",
    "check_dataset",
    "format_check",
    "run_problems",
    "shape_of",
]


@dataclass(slots=True)
class ColumnFinding:
    column: str
    field: str
    non_empty: int = 0
    total: int = 0
    # ``field`` above shadows dataclasses.field inside this class body
    shapes: dict[str, int] = dataclasses.field(default_factory=dict)
    errors: list[tuple[int, str]] = dataclasses.field(default_factory=list)


@dataclass(slots=True)
class DatasetCheck:
    dataset: Dataset
    columns: list[ColumnFinding]
    row_errors: list[tuple[int, str]]
    notes: list[str]
    #: What would stop ``tooleval run`` (the same findings as its preflight).
    problems: list[str] = field(default_factory=list)
    #: Rows with no value in the bound ``tools_called`` column, which ``tooleval score``
    #: refuses (a missing value is not "no calls": ``[]`` is).
    missing_calls: list[int] = field(default_factory=list)

    @property
    def error_rows(self) -> int:
        return len(self.dataset.error_rows) + len(self.missing_calls)

    @property
    def ok(self) -> bool:
        return self.error_rows == 0 and not self.problems

    def column(self, name: str) -> ColumnFinding:
        return next(c for c in self.columns if c.column == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset.describe(),
            "columns": [
                {
                    "column": c.column,
                    "field": c.field,
                    "non_empty": c.non_empty,
                    "total": c.total,
                    "shapes": c.shapes,
                    "errors": [{"row": r, "message": m} for r, m in c.errors],
                }
                for c in self.columns
            ],
            "row_errors": [{"row": r, "message": m} for r, m in self.row_errors],
            "notes": self.notes,
            "problems": self.problems,
            "ok": self.ok,
        }


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _decoded(value: Any) -> tuple[Any, bool]:
    """A JSON-looking text cell decoded (and whether it was text JSON)."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return loads_text(value), True
        except (ValueError, NestingTooDeep):  # the row's own parse error names it
            return value, False
    return value, False


def _calls_shape(value: Any) -> str:
    if isinstance(value, str):
        return "text 'a, b'"
    if isinstance(value, dict):
        return "calls with ordering" if "calls" in value else "one call object"
    if isinstance(value, list | tuple):
        if not value:
            return "empty list (no call expected)"
        if all(isinstance(v, str) for v in value):
            return "list of names"
        return "calls with args"
    return type(value).__name__


def shape_of(field_name: str, value: Any) -> str:
    """A short name for the shape of one cell, as bound to ``field_name``.

    >>> shape_of("expected_tools", '[{"name": "f", "args": {"x": 1}}]')
    'calls with args'
    >>> shape_of("expected_tools", "search, fetch")
    "text 'a, b'"
    """
    decoded, was_json = _decoded(value)
    if field_name in ("expected_tools", "tools_called"):
        if isinstance(value, str) and value.strip()[:1] in ("[", "{") and not was_json:
            return "invalid JSON"
        return _calls_shape(decoded)
    if field_name in ("messages",) or (field_name == "input" and isinstance(decoded, list | dict)):
        try:
            from tooleval.formats import detect

            return f"conversation ({detect(decoded)})"
        except Exception:
            return "unrecognised conversation"
    if isinstance(decoded, bool):
        return "boolean"
    if isinstance(decoded, int | float):
        return "number"
    if isinstance(decoded, dict):
        return "JSON object" if was_json else "object"
    if isinstance(decoded, list):
        return "JSON list" if was_json else "list"
    return "text"


def check_dataset(dataset: Dataset) -> DatasetCheck:
    """Findings per column, plus row errors that no column explains."""
    field_of = {column: name for name, column in dataset.bindings.items()}
    findings = {c: ColumnFinding(c, field_of.get(c, f"metadata.{c}")) for c in dataset.columns}
    raw_rows = dataset.raw_values()
    for values in raw_rows:
        for column, finding in findings.items():
            finding.total += 1
            value = values.get(column)
            if _empty(value):
                continue
            finding.non_empty += 1
            shape = shape_of(finding.field, value)
            finding.shapes[shape] = finding.shapes.get(shape, 0) + 1
    row_errors: list[tuple[int, str]] = []
    for row in dataset.error_rows:
        for err in row.errors:
            err_column = err.context.get("column")
            where = err.context.get("field")
            message = err.message if not where else f"({where}) {err.message}"
            if err_column in findings:
                findings[err_column].errors.append((row.number, message))
            else:
                row_errors.append((row.number, message))
    missing_calls: list[int] = []
    if dataset.is_bound("tools_called"):
        column = dataset.bindings.get("tools_called", "tools_called")
        for row in dataset.rows:
            if not row.error and "tools_called" in row.empty_cells and not row.sample.messages:
                missing_calls.append(row.number)
                if column in findings:
                    findings[column].errors.append((row.number, f"no value: {MISSING_CALLS}"))
    notes = [w for w in dataset.warnings if " is also used by row " not in w]
    problems = run_problems(dataset, raw_rows)
    if not dataset.is_bound("expected_tools"):
        guess = suggest_column(
            "expected_tools", dataset.columns, raw_rows[:50], exclude=set(dataset.bindings.values())
        )
        notes.append(
            "no column is bound to expected_tools: reference-based tool metrics cannot score "
            "this file"
            + (
                f"; the likely column is {guess!r} ({bind_option('expected_tools', guess)})"
                if guess
                else ""
            )
        )
    return DatasetCheck(
        dataset, list(findings.values()), row_errors, notes, problems, missing_calls
    )


def _rows_text(numbers: list[int], limit: int = 5) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = f" and {len(numbers) - limit} more" if len(numbers) > limit else ""
    return f"row{'s' if len(numbers) != 1 else ''} {shown}{more}"


def run_problems(dataset: Dataset, raw_rows: list[dict[str, Any]] | None = None) -> list[str]:
    """What would stop ``tooleval run`` on this file: no prompt, repeated ids.

    A file without a ``tools_called`` column is meant for a live run, so
    every row needs a prompt; a file that holds the calls is scored offline
    and needs none.
    """
    problems: list[str] = []
    raw_rows = dataset.raw_values() if raw_rows is None else raw_rows
    live = not dataset.is_bound("tools_called")
    if live and not dataset.is_bound("input"):
        guess = suggest_column(
            "input", dataset.columns, raw_rows[:50], exclude=set(dataset.bindings.values())
        )
        problems.append(
            "no column is bound to input, so a run would send empty prompts; bind the prompt "
            "column with --bind input=COLUMN (plan: dataset: {bind: {input: COLUMN}})"
            + (f"; the likely one is {guess!r} ({bind_option('input', guess)})" if guess else "")
        )
    elif live:
        empty = [
            row.number
            for row in dataset.rows
            if not row.error
            and not (isinstance(row.sample.input, str) and row.sample.input.strip())
            and not row.sample.messages
        ]
        if empty:
            column = dataset.bindings.get("input") or dataset.bindings.get("messages")
            problems.append(
                f"column {column}: the prompt is empty in {_rows_text(empty)} "
                "(a run would send an empty prompt)"
            )
    for row_id, numbers in list(dataset.duplicate_ids.items())[:5]:
        problems.append(
            f"column {dataset.bindings.get('id', 'id')}: id {row_id!r} is used by "
            f"{_rows_text(numbers)}; give every row its own id (runs are compared by id)"
        )
    if len(dataset.duplicate_ids) > 5:
        problems.append(f"... and {len(dataset.duplicate_ids) - 5} more repeated ids")
    return problems


def _shapes_text(shapes: dict[str, int]) -> str:
    ordered = sorted(shapes.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{name} {n} row{'s' if n != 1 else ''}" for name, n in ordered)


def format_check(report: DatasetCheck, *, max_errors: int = 20) -> str:
    """The text printed by ``tooleval dataset check``."""
    ds = report.dataset
    lines = [
        f"dataset: {ds.path} ({ds.format}, {len(ds.rows)} rows, {len(ds.columns)} columns)",
        "",
    ]
    width_c = max([len("column"), *(len(c.column) for c in report.columns)])
    width_f = max([len("bound to"), *(len(c.field) for c in report.columns)])
    lines.append(f"{'column':<{width_c}}  {'bound to':<{width_f}}  {'non-empty':>9}  shapes")
    for c in report.columns:
        counts = f"{c.non_empty}/{c.total}"
        lines.append(
            f"{c.column:<{width_c}}  {c.field:<{width_f}}  {counts:>9}  {_shapes_text(c.shapes) or '-'}"
        )
    problems: list[tuple[str | None, int, str]] = [
        (c.column, r, m) for c in report.columns for r, m in c.errors
    ]
    problems += [(None, r, m) for r, m in report.row_errors]
    if problems:
        lines += ["", "parse errors:"]
        for column, row, message in sorted(problems, key=lambda p: p[1])[:max_errors]:
            where = f"row {row}" + (f", column {column}" if column else "")
            sep = " " if message.startswith("(") else ": "
            lines.append(f"  {where}{sep}{message}")
        if len(problems) > max_errors:
            lines.append(f"  ... and {len(problems) - max_errors} more")
    if report.notes:
        lines.append("")
        lines += [f"note: {n}" for n in report.notes]
    if report.problems:
        lines.append("")
        lines += [f"problem: {p}" for p in report.problems]
    lines.append("")
    if report.ok:
        lines.append(f"OK: {len(ds.rows)} rows, no parse errors")
    else:
        if ds.error_rows:
            lines.append(
                f"{len(ds.error_rows)} of {len(ds.rows)} rows have errors "
                "(a run keeps them as error rows with the reason; they fail its gate)"
            )
        if report.missing_calls:
            lines.append(
                f"{len(report.missing_calls)} of {len(ds.rows)} rows have no tools_called "
                "value: tooleval score refuses the file until each holds the calls or []"
            )
        if report.problems:
            n = len(report.problems)
            lines.append(f"{n} problem{'s' if n != 1 else ''} would stop `tooleval run`")
    return "\n".join(lines)
