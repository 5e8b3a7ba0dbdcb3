"""Label files: human verdicts read from CSV or JSONL, written back the same way.

One line per row and metric. Columns (CSV header or JSONL keys):

- ``row_id`` (the row's ``id``) or ``row_index`` (its 0-based dataset index): which row;
- ``metric``: which metric the verdict is about (or give ``--metric`` for the whole file);
- ``label``: ``pass`` or ``fail`` (also ``passed``/``failed``, ``true``/``false``,
  ``yes``/``no``, ``1``/``0``, JSON booleans);
- ``note``, ``labeller``, ``labelled_at`` (ISO 8601): optional.

Any other column is refused (nothing a user gives is silently dropped), and
every error names the file's line and the column.

>>> rows = parse_labels('{"row_id": "a", "metric": "task_success", "label": "pass"}\\n', "x.jsonl")
>>> rows[0].passed, rows[0].row_id
(True, 'a')
>>> parse_labels("row_id,label\\na,maybe\\n", "x.csv", metric="task_success")
Traceback (most recent call last):
...
tooleval.errors.InputError: field label, line 2: expected pass or fail, got 'maybe'
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.errors import InputError
from tooleval.store.records import Label

__all__ = [
    "LABEL_COLUMNS",
    "LabelLine",
    "labels_text",
    "parse_labels",
    "read_label_file",
    "resolve_labels",
]

LABEL_COLUMNS = ("row_id", "row_index", "metric", "label", "note", "labeller", "labelled_at")
_PASS = {"pass", "passed", "true", "yes", "1", "p"}
_FAIL = {"fail", "failed", "false", "no", "0", "f"}


@dataclass(frozen=True, slots=True)
class LabelLine:
    """One line of a label file, before its row is looked up in a run."""

    line: int
    metric: str
    passed: bool
    row_id: str | None = None
    row_index: int | None = None
    note: str | None = None
    labeller: str | None = None
    labelled_at: str | None = None


def read_label_file(
    path: str | Path, *, metric: str | None = None, labeller: str | None = None
) -> list[LabelLine]:
    """Read a CSV or JSONL label file (by extension, else by its first character)."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the label file: {exc.strerror}", path=str(file)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the label file is not UTF-8 text (byte {exc.start}); expected CSV or JSONL",
            path=str(file),
        ) from None
    return parse_labels(text, file.name, metric=metric, labeller=labeller)


def parse_labels(
    text: str, name: str, *, metric: str | None = None, labeller: str | None = None
) -> list[LabelLine]:
    """The label lines of a CSV or JSONL text (``name`` decides which, by its extension)."""
    if "\x00" in text:
        raise InputError("the label file holds NUL bytes; expected CSV or JSONL text", path=name)
    lower = name.lower()
    jsonl = lower.endswith((".jsonl", ".json", ".ndjson")) or (
        not lower.endswith(".csv") and text.lstrip().startswith("{")
    )
    records = _jsonl_records(text) if jsonl else _csv_records(text)
    lines = [_line(number, record, metric, labeller) for number, record in records]
    if not lines:
        raise InputError("the label file holds no labels", path=name)
    return lines


def _jsonl_records(text: str) -> Iterable[tuple[int, Mapping[str, Any]]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            message = getattr(exc, "msg", "nested too deeply")
            raise InputError(f"not a JSON object: {message}", line=number) from None
        if not isinstance(value, dict):
            raise InputError(f"expected a JSON object, got {type(value).__name__}", line=number)
        yield number, value


def _csv_records(text: str) -> Iterable[tuple[int, Mapping[str, Any]]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InputError(f"unreadable CSV header: {exc}", line=1) from None
    header = [column.strip() for column in header]
    if len(set(header)) != len(header):
        raise InputError("the CSV header repeats a column", line=1)
    try:
        for values in reader:
            number = reader.line_num
            if not any(value.strip() for value in values):
                continue
            if len(values) != len(header):
                raise InputError(
                    f"expected {len(header)} cells (the header's columns), got {len(values)}",
                    line=number,
                )
            yield number, {k: v for k, v in zip(header, values, strict=True) if v != ""}
    except csv.Error as exc:
        raise InputError(f"unreadable CSV line: {exc}", line=reader.line_num) from None


def _text(record: Mapping[str, Any], key: str, number: int) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError(f"expected text, got {type(value).__name__}", line=number, field=key)
    return str(value).strip() or None


def _verdict(value: Any, number: int) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, str | int) else None
    if word in _PASS:
        return True
    if word in _FAIL:
        return False
    raise InputError(f"expected pass or fail, got {value!r}", line=number, field="label")


def _line(
    number: int, record: Mapping[str, Any], metric: str | None, labeller: str | None
) -> LabelLine:
    unknown = [key for key in record if key not in LABEL_COLUMNS]
    if unknown:
        raise InputError(
            f"unknown column {unknown[0]!r}; label files have {', '.join(LABEL_COLUMNS)}",
            line=number,
            field=unknown[0],
        )
    if "label" not in record:
        raise InputError("expected pass or fail, the cell is empty", line=number, field="label")
    row_id = _text(record, "row_id", number)
    raw_index = record.get("row_index")
    row_index: int | None = None
    if raw_index is not None:
        try:
            row_index = int(str(raw_index).strip()) if not isinstance(raw_index, bool) else -1
        except ValueError:
            row_index = -1
        if row_index < 0:
            raise InputError(
                f"expected a row index (0 or more), got {raw_index!r}",
                line=number,
                field="row_index",
            )
    if row_id is None and row_index is None:
        raise InputError("expected row_id or row_index for each label", line=number, field="row_id")
    named = _text(record, "metric", number) or metric
    if named is None:
        raise InputError(
            "expected the metric (a metric column or --metric)", line=number, field="metric"
        )
    return LabelLine(
        line=number,
        metric=named,
        passed=_verdict(record["label"], number),
        row_id=row_id,
        row_index=row_index,
        note=_text(record, "note", number),
        labeller=_text(record, "labeller", number) or labeller,
        labelled_at=_text(record, "labelled_at", number),
    )


def resolve_labels(
    lines: Iterable[LabelLine], rows_by_id: Mapping[str, list[int]], metrics: Iterable[str]
) -> list[Label]:
    """The labels of ``lines`` for a run whose rows and metrics are given; errors name the line.

    ``rows_by_id`` maps each row id of the run to its indexes (``store.labels.row_indexes_by_id``).
    A label for a metric the run did not score is refused: it could never be compared.
    """
    known = list(metrics)
    indexes = {index for found in rows_by_id.values() for index in found}
    labels: list[Label] = []
    seen: dict[tuple[int, str], int] = {}
    for line in lines:
        if known and line.metric not in known:
            raise InputError(
                f"the run did not score {line.metric!r}; its metrics: {', '.join(known)}",
                line=line.line,
                field="metric",
            )
        index = _row_index(line, rows_by_id, indexes)
        first = seen.setdefault((index, line.metric), line.line)
        if first != line.line:
            raise InputError(
                f"row {index} already has a {line.metric} label on line {first}",
                line=line.line,
                field="row_id" if line.row_id is not None else "row_index",
            )
        labels.append(
            Label(
                row_index=index,
                metric=line.metric,
                passed=line.passed,
                note=line.note,
                labeller=line.labeller,
                labelled_at=line.labelled_at,
            )
        )
    return labels


def _row_index(line: LabelLine, rows_by_id: Mapping[str, list[int]], indexes: set[int]) -> int:
    if line.row_index is not None:
        if line.row_index not in indexes:
            raise InputError(
                f"the run has no row {line.row_index}", line=line.line, field="row_index"
            )
        if line.row_id is not None and line.row_index not in rows_by_id.get(line.row_id, []):
            raise InputError(
                f"row {line.row_index} is not row id {line.row_id!r}",
                line=line.line,
                field="row_id",
            )
        return line.row_index
    found = rows_by_id.get(line.row_id or "", [])
    if not found:
        raise InputError(f"the run has no row {line.row_id!r}", line=line.line, field="row_id")
    if len(found) > 1:
        raise InputError(
            f"row id {line.row_id!r} is stored {len(found)} times (repeats); give row_index",
            line=line.line,
            field="row_id",
        )
    return found[0]


def labels_text(labels: Iterable[Label], *, fmt: str) -> str:
    """The labels as a CSV or JSONL text that :func:`parse_labels` reads back."""
    dicts = [label.to_dict() for label in labels]
    if fmt == "jsonl":
        return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dicts)
    if fmt != "csv":
        raise InputError(f"expected csv or jsonl, got {fmt!r}", field="--format")
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(LABEL_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for d in dicts:
        writer.writerow({key: "" if d.get(key) is None else d[key] for key in LABEL_COLUMNS})
    return out.getvalue()
