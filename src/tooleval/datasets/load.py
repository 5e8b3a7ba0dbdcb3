"""Load a dataset file into rows of Samples, keeping bad rows with their reason.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
>>> _ = path.write_text('question,expected\\n"cancel 4471","lookup_order, cancel_order"\\n'
...                     '"cancel all","[oops"\\n')
>>> ds = load_dataset(path, bind={"input": "question", "expected_tools": "expected"})
>>> ds.rows[0].sample.expected_tools.names
['lookup_order', 'cancel_order']
>>> ds.rows[1].error.split(": ")[0]
'row 2, column expected, field expected_tools'
>>> ds.rows[1].sample.input
'cancel all'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.datasets.binding import BINDABLE, bind_option, resolve_bindings, suggest_column
from tooleval.datasets.readers import RawRow, RawTable, read_rows
from tooleval.errors import DatasetError, ToolEvalError
from tooleval.formats.missing import NULL_MARKERS
from tooleval.model import Sample

__all__ = [
    "NULL_MARKERS",
    "Dataset",
    "DatasetRow",
    "dataset_from_table",
    "is_null_marker",
    "load_dataset",
    "sample_from_cells",
]

# Ragas-shaped rows carry these fields under their own column names.
_IMPLIED = {"expected_tools": "reference_tool_calls", "input": "user_input"}

#: Cells that spreadsheets and pandas write for "no value". In a tool column a
#: whole cell like this means the row has no reference (it is not scored, with
#: that reason); inside a list of calls it is an error naming row and column.
_CALL_FIELDS = ("expected_tools", "tools_called")


def is_null_marker(value: Any) -> bool:
    """Is ``value`` a "no value" cell (NaN, ``None``, ``"NULL"``, ``"nan"``, ...)?

    >>> is_null_marker(float("nan")), is_null_marker(" NULL "), is_null_marker("lookup")
    (True, True, False)
    """
    if isinstance(value, float):
        return value != value
    return isinstance(value, str) and value.strip().lower() in NULL_MARKERS


@dataclass(slots=True)
class DatasetRow:
    """One data row: 0-based ``index``, a stable ``row_id``, the Sample, and why it is bad.

    ``error`` is ``None`` for a clean row; otherwise it names the row number
    and column, and ``sample`` holds every field that could still be read.
    """

    index: int
    row_id: str
    sample: Sample
    error: str | None = None
    errors: tuple[DatasetError, ...] = ()
    number: int = 0
    #: field -> why its cell counts as empty (e.g. "column gold holds 'nan'").
    empty_cells: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(slots=True)
class Dataset:
    """A loaded dataset: rows, the file's columns, and the field -> column bindings."""

    path: Path
    format: str
    columns: list[str]
    bindings: dict[str, str]
    rows: list[DatasetRow]
    sha256: str = ""
    warnings: list[str] = field(default_factory=list)
    _raw: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: id -> the row numbers using it, for every id used more than once.
    duplicate_ids: dict[str, list[int]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[DatasetRow]:
        return iter(self.rows)

    @property
    def error_rows(self) -> list[DatasetRow]:
        return [r for r in self.rows if r.error is not None]

    def samples(self) -> list[Sample]:
        """Every row's Sample (bad rows included, as complete as they could be read)."""
        return [r.sample for r in self.rows]

    def is_bound(self, name: str) -> bool:
        if name in self.bindings:
            return True
        if name == "reference" and "expected_output" in self.bindings:
            return True
        if name == "input" and "messages" in self.bindings:
            return True
        implied = _IMPLIED.get(name)
        return implied is not None and implied in self.columns and "user_input" in self.columns

    def require(
        self,
        fields: Iterable[str],
        *,
        metric: str | None = None,
        produced: Iterable[str] = ("tools_called", "output", "messages"),
    ) -> None:
        """Raise DatasetError unless every field is bound to a column.

        Call it before any agent call: a metric that needs ``expected_tools``
        on a dataset without that binding would otherwise fail every row.
        ``produced`` lists the fields the agent itself supplies in a live run
        (skipped); pass ``produced=()`` when the file must hold them too.
        """
        skip = set(produced)
        for name in sorted(set(fields)):
            if name in skip or self.is_bound(name):
                continue
            who = f"metric {metric} needs {name!r}" if metric else f"{name!r} is needed"
            bound = set(self.bindings.values())
            guess = suggest_column(name, self.columns, self._raw[:50], exclude=bound)
            message = (
                f"{who}, but no column is bound to it. The file's columns are "
                f"{self.columns}. Bind one with --bind {name}=COLUMN "
                f"(plan: dataset: {{bind: {{{name}: COLUMN}}}}) or name the column {name!r}"
            )
            if guess:
                message += f"; the likely one is {guess!r} ({bind_option(name, guess)})"
            raise DatasetError(message, file=str(self.path), field=name)

    def raw_values(self) -> list[dict[str, Any]]:
        """Each row's cells as read from the file (column -> value), in order."""
        return self._raw

    def describe(self) -> dict[str, Any]:
        """What a run stores about its dataset (path, format, hash, bindings, counts)."""
        return {
            "path": str(self.path),
            "format": self.format,
            "sha256": self.sha256,
            "rows": len(self.rows),
            "error_rows": len(self.error_rows),
            "columns": list(self.columns),
            "bindings": dict(self.bindings),
        }


def _root(field_path: Any) -> str | None:
    if not isinstance(field_path, str) or not field_path:
        return None
    return re.split(r"[.\[]", field_path, maxsplit=1)[0]


def _canonical_row(
    raw: RawRow, bindings: Mapping[str, str], text_cells: bool, empty: dict[str, str]
) -> tuple[dict, dict]:
    """The row as sample_from_row reads it, and the shadowed columns kept aside.

    A tool-call cell holding a "no value" marker becomes None and ``empty``
    records why, so the row's unscored reason can say so.
    """

    def cell(value: Any) -> Any:
        if text_cells and isinstance(value, str) and not value.strip():
            return None  # an empty CSV cell is "no value", not ""
        return value

    row: dict[str, Any] = {}
    bound_columns = set(bindings.values())
    for name, column in bindings.items():
        value = cell(raw.values.get(column))
        if name in _CALL_FIELDS and is_null_marker(value):
            shown = "NaN" if isinstance(value, float) else repr(value)
            empty[name] = f"column {column} holds {shown}, read as no value"
            value = None
        elif name in _CALL_FIELDS and value is None:
            empty[name] = f"row {raw.number}, column {column} is empty"
        row[name] = value
    aside: dict[str, Any] = {}
    for column, value in raw.values.items():
        if column in bound_columns:
            continue
        if column in BINDABLE or column in row:
            aside[column] = cell(value)  # a field-named column shadowed by an explicit binding
        else:
            row[column] = cell(value)
    return row, aside


def sample_from_cells(
    row: dict[str, Any],
    *,
    number: int,
    column_of: Mapping[str, str],
) -> tuple[Sample, list[DatasetError]]:
    """Build a Sample, dropping each cell that cannot be read and recording why.

    ``sample_from_row`` stops at the first bad field; to keep the row as
    complete as possible the bad field is removed and the row read again.
    """
    from tooleval.formats.rows import sample_from_row

    errors: list[DatasetError] = []
    current = dict(row)
    for _ in range(len(row) + 1):
        try:
            return sample_from_row(current, row_number=number), errors
        except ToolEvalError as exc:
            root = _root(exc.field)
            column = column_of.get(root, root) if root else None
            errors.append(
                DatasetError(
                    exc.message,
                    row=number,
                    column=column,
                    field=exc.field if exc.field and exc.field != column else None,
                )
            )
            if root is None or root not in current:
                break
            del current[root]
    text = row.get("input")
    return Sample(input=text if isinstance(text, str) else ""), errors


def _finish(raw: RawRow, index: int, table: RawTable, bindings: Mapping[str, str]) -> DatasetRow:
    if raw.error is not None and not raw.values:
        err = DatasetError(raw.error, row=raw.number, column=raw.error_column)
        return DatasetRow(index, f"row-{raw.number}", Sample(), str(err), (err,), raw.number)
    empty: dict[str, str] = {}
    row, aside = _canonical_row(raw, bindings, table.text_cells, empty)
    sample, errors = sample_from_cells(row, number=raw.number, column_of=bindings)
    errors.extend(_null_calls(sample, raw.number, bindings))
    for column, value in aside.items():
        if value is not None:
            sample.metadata.setdefault(column, value)
    if raw.error is not None:
        errors.insert(0, DatasetError(raw.error, row=raw.number, column=raw.error_column))
    row_id = sample.id if sample.id is not None else f"row-{raw.number}"
    if sample.id is None:
        sample.id = row_id
    error = "; ".join(str(e) for e in errors) if errors else None
    return DatasetRow(index, row_id, sample, error, tuple(errors), raw.number, empty)


def _null_calls(sample: Sample, number: int, bindings: Mapping[str, str]) -> list[DatasetError]:
    """Errors for "no value" markers read as tool names inside a list of calls.

    The field is cleared, so the marker is never scored as a tool the agent
    should have called.
    """
    errors = []
    expected = sample.expected_tools
    if expected is not None:
        bad = [c.name for c in expected.calls if is_null_marker(c.name)]
        if bad:
            column = bindings.get("expected_tools", "expected_tools")
            errors.append(
                DatasetError(
                    f"{bad[0]!r} is not a tool name (an empty cell written as text?); "
                    "write the list without it, or leave the whole cell empty for no reference",
                    row=number,
                    column=column,
                )
            )
            sample.expected_tools = None
    if sample.tools_called:
        bad = [c.name for c in sample.tools_called if is_null_marker(c.name)]
        if bad:
            column = bindings.get("tools_called", "tools_called")
            errors.append(
                DatasetError(
                    f"{bad[0]!r} is not a tool name (an empty cell written as text?)",
                    row=number,
                    column=column,
                )
            )
            sample.tools_called = None
    return errors


def load_dataset(
    path: str | Path,
    *,
    bind: Mapping[str, str] | None = None,
    format: str | None = None,
) -> Dataset:
    """Load CSV, JSONL, JSON or Parquet rows into Samples.

    Columns named like a Sample field bind themselves; ``bind`` maps any
    field to another column (``{"expected_tools": "my_column"}``). Other
    columns go to ``sample.metadata``. A row whose cell cannot be read is
    kept with ``error`` set (row number and column) and loading goes on; a
    missing, empty, unreadable or unknown-format file raises DatasetError.
    """
    return dataset_from_table(read_rows(path, format=format), bind=bind)


def dataset_from_table(table: RawTable, *, bind: Mapping[str, str] | None = None) -> Dataset:
    """:func:`load_dataset` on rows already read (a benchmark's file turned into rows)."""
    bindings = resolve_bindings(table.columns, bind, file=str(table.path))
    rows = [_finish(raw, index, table, bindings) for index, raw in enumerate(table.rows)]
    dataset = Dataset(
        path=table.path,
        format=table.format,
        columns=table.columns,
        bindings=bindings,
        rows=rows,
        sha256=table.sha256,
        warnings=list(table.warnings),
        _raw=[r.values for r in table.rows],
    )
    seen: dict[str, int] = {}
    for row in rows:
        if row.row_id in seen:
            dataset.duplicate_ids.setdefault(row.row_id, [seen[row.row_id]]).append(row.number)
            dataset.warnings.append(
                f"row {row.number}: id {row.row_id!r} is also used by row {seen[row.row_id]}"
            )
        else:
            seen[row.row_id] = row.number
    nulls = [
        (r.number, why)
        for r in rows
        for why in r.empty_cells.values()
        if why.endswith("read as no value")  # a marker; a plain empty cell is no reference
    ]
    if nulls:
        number, why = nulls[0]
        dataset.warnings.append(
            f"{len(nulls)} tool-call "
            + ("cells hold" if len(nulls) != 1 else "cell holds")
            + " a no-value marker "
            f"(first: row {number}, {why}); "
            + (
                "those rows have no reference and are not scored"
                if len(nulls) != 1
                else "that row has no reference and is not scored"
            )
        )
    return dataset
