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

import json
from dataclasses import dataclass, field
from typing import Any

from tooleval.datasets.binding import suggest_column
from tooleval.datasets.load import Dataset

__all__ = ["ColumnFinding", "DatasetCheck", "check_dataset", "format_check", "shape_of"]


@dataclass(slots=True)
class ColumnFinding:
    column: str
    field: str
    non_empty: int = 0
    total: int = 0
    shapes: dict[str, int] = field(default_factory=dict)
    errors: list[tuple[int, str]] = field(default_factory=list)


@dataclass(slots=True)
class DatasetCheck:
    dataset: Dataset
    columns: list[ColumnFinding]
    row_errors: list[tuple[int, str]]
    notes: list[str]

    @property
    def error_rows(self) -> int:
        return len(self.dataset.error_rows)

    @property
    def ok(self) -> bool:
        return self.error_rows == 0

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
            "ok": self.ok,
        }


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _decoded(value: Any) -> tuple[Any, bool]:
    """A JSON-looking text cell decoded (and whether it was text JSON)."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value), True
        except ValueError:
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
            column = err.context.get("column")
            where = err.context.get("field")
            message = err.message if not where else f"({where}) {err.message}"
            if column in findings:
                findings[column].errors.append((row.number, message))
            else:
                row_errors.append((row.number, message))
    notes = list(dataset.warnings)
    if not dataset.is_bound("expected_tools"):
        guess = suggest_column(
            "expected_tools", dataset.columns, raw_rows[:50], exclude=set(dataset.bindings.values())
        )
        notes.append(
            "no column is bound to expected_tools: reference-based tool metrics cannot score "
            "this file"
            + (f"; the likely column is {guess!r} (--bind expected_tools={guess})" if guess else "")
        )
    return DatasetCheck(dataset, list(findings.values()), row_errors, notes)


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
    problems = [(c.column, r, m) for c in report.columns for r, m in c.errors]
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
    lines.append("")
    if report.ok:
        lines.append(f"OK: {len(ds.rows)} rows, no parse errors")
    else:
        lines.append(
            f"{report.error_rows} of {len(ds.rows)} rows have errors "
            "(they would be kept as unscored rows with the reason)"
        )
    return "\n".join(lines)
