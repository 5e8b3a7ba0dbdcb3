"""Read a dataset file into raw rows (one dict per data row), nothing more.

CSV (``.csv``, ``.tsv``), JSON Lines (``.jsonl``, ``.ndjson``, or a ``.json`` file of one
object per line, as BFCL writes its data), a JSON array of
objects (``.json``) and Parquet (``.parquet``, ``.pq``; pyarrow, imported only
then). A problem with the whole file is a DatasetError naming it; a problem
with one row (a JSONL line that is not JSON, a CSV line with too many cells)
is returned with that row so loading goes on.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
>>> _ = path.write_text('input,expected_tools\\n"cancel 4471","lookup_order, cancel_order"\\n')
>>> raw = read_rows(path)
>>> raw.columns, raw.rows[0].values["expected_tools"]
(['input', 'expected_tools'], 'lookup_order, cancel_order')
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval._extras import install_hint
from tooleval.errors import DatasetError
from tooleval.formats.json_limits import MAX_DEPTH, NestingTooDeep, check_depth, loads_text

__all__ = ["FORMATS", "RawRow", "RawTable", "detect_format", "read_rows"]

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}


@dataclass(slots=True)
class RawRow:
    """One data row: 1-based ``number`` among data rows, cells by column."""

    number: int
    values: dict[str, Any]
    error: str | None = None
    error_column: str | None = None


@dataclass(slots=True)
class RawTable:
    path: Path
    format: str
    columns: list[str]
    rows: list[RawRow]
    sha256: str
    text_cells: bool = False  # CSV: every cell is text (JSON inside must be decoded)
    warnings: list[str] = field(default_factory=list)


def detect_format(path: Path, format: str | None = None) -> str:
    """The reader for a file: ``format`` when given, else from its extension."""
    if format is not None:
        name = format.lower().lstrip(".")
        known = sorted(set(FORMATS.values()))
        if name == "ndjson":
            name = "jsonl"
        if name not in known:
            raise DatasetError(
                f"unknown dataset format {format!r}; expected one of {known}", file=str(path)
            )
        return name
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise DatasetError(
            f"cannot tell the format from the extension {suffix or '(none)'!r}; use one of "
            f"{sorted(FORMATS)} or pass format= (CLI: --format)",
            file=str(path),
        )
    return FORMATS[suffix]


def _decode_text(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DatasetError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save the file as UTF-8",
            file=str(path),
        ) from None


def read_rows(path: str | Path, *, format: str | None = None) -> RawTable:
    """Read every data row of a dataset file (see the module docstring)."""
    path = Path(path)
    kind = detect_format(path, format)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError("file not found", file=str(path)) from None
    except IsADirectoryError:
        raise DatasetError("is a directory, expected a dataset file", file=str(path)) from None
    except OSError as exc:
        raise DatasetError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    digest = hashlib.sha256(data).hexdigest()
    if not data.strip():
        raise DatasetError("the file is empty", file=str(path))
    if kind == "parquet":
        columns, rows = _parquet(data, path)
        text_cells = False
    else:
        text = _decode_text(data, path)
        if kind in ("csv", "tsv"):
            columns, rows = _csv(text, path, "\t" if kind == "tsv" else ",")
            text_cells = True
        elif kind == "jsonl":
            columns, rows = _jsonl(text, path)
            text_cells = False
        elif _is_json_lines(text):  # a .json file of one object per line (BFCL's data files)
            columns, rows = _jsonl(text, path)
            kind, text_cells = "jsonl", False
        else:
            columns, rows = _json_array(text, path)
            text_cells = False
    if not rows:
        raise DatasetError("the file has no data rows", file=str(path))
    if not columns and all(r.error for r in rows):  # JSON rows name the columns; none read
        first = rows[0]
        more = f" (and {len(rows) - 1} more rows)" if len(rows) > 1 else ""
        raise DatasetError(
            f"no row can be read: row {first.number}: {first.error}{more}", file=str(path)
        )
    return RawTable(path, kind, columns, rows, digest, text_cells)


def _csv(text: str, path: Path, delimiter: str) -> tuple[list[str], list[RawRow]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise DatasetError("the file is empty", file=str(path)) from None
    except csv.Error as exc:
        raise DatasetError(f"cannot read the header: {exc}", file=str(path)) from None
    columns = [h.strip() for h in header]
    _check_delimiter(columns, path)
    seen: set[str] = set()
    for i, name in enumerate(columns):
        if not name:
            raise DatasetError(
                f"header cell {i + 1} is empty; every column needs a name", file=str(path)
            )
        if name in seen:
            raise DatasetError(f"column {name!r} appears twice in the header", file=str(path))
        seen.add(name)
    rows: list[RawRow] = []
    number = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            number += 1
            rows.append(RawRow(number, {}, f"cannot parse this CSV line: {exc}"))
            continue
        if not cells or all(not c.strip() for c in cells):
            continue  # blank line
        number += 1
        values = {c: (cells[i] if i < len(cells) else "") for i, c in enumerate(columns)}
        row = RawRow(number, values)
        if len(cells) > len(columns):
            row.error = (
                f"has {len(cells)} cells but the header has {len(columns)} columns; a cell that "
                "contains the delimiter (like 'search, fetch') must be quoted"
            )
        rows.append(row)
    return columns, rows


def _check_delimiter(columns: list[str], path: Path) -> None:
    """A one-column header holding another separator: the file uses a delimiter we don't read."""
    if len(columns) != 1:
        return
    header = columns[0]
    for sep, name in ((";", "semicolons"), ("|", "bars"), ("\t", "tabs"), (",", "commas")):
        if sep in header:
            raise DatasetError(
                f"the header {header!r} is one column separated by {name}; tooleval reads "
                "comma-separated CSV (or tab-separated .tsv): save the file with commas",
                file=str(path),
            )


def _collect_columns(columns: list[str], seen: set[str], obj: dict[str, Any]) -> None:
    for key in obj:
        if key not in seen:
            seen.add(key)
            columns.append(key)


def _jsonl(text: str, path: Path) -> tuple[list[str], list[RawRow]]:
    columns: list[str] = []
    seen: set[str] = set()
    rows: list[RawRow] = []
    number = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        number += 1
        try:
            obj = loads_text(line)
        except NestingTooDeep as exc:
            rows.append(RawRow(number, {}, f"line {line_no}: {exc.message}"))
            continue
        except ValueError as exc:
            rows.append(RawRow(number, {}, f"line {line_no} is not valid JSON: {exc}"))
            continue
        if not isinstance(obj, dict):
            rows.append(
                RawRow(
                    number, {}, f"line {line_no} is a JSON {type(obj).__name__}, expected an object"
                )
            )
            continue
        _collect_columns(columns, seen, obj)
        rows.append(RawRow(number, obj))
    return columns, rows


def _is_json_lines(text: str) -> bool:
    """Whether a ``.json`` file is JSON Lines: an object on its first line, then another line."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    first, _, rest = stripped.partition("\n")
    if not rest.strip():
        return False
    try:
        return isinstance(loads_text(first), dict)
    except ValueError:
        return False


def _json_array(text: str, path: Path) -> tuple[list[str], list[RawRow]]:
    try:
        # The array is level 1, so each row object may nest the usual limit below it.
        data = loads_text(text, limit=MAX_DEPTH + 1)
    except NestingTooDeep:
        raise DatasetError(
            f"a row holds JSON nested deeper than {MAX_DEPTH} levels; tooleval reads at most "
            f"{MAX_DEPTH} (flatten the value or store it as a JSON string)",
            file=str(path),
        ) from None
    except ValueError as exc:
        raise DatasetError(f"not valid JSON: {exc}", file=str(path)) from None
    if isinstance(data, dict) and isinstance(data.get("rows"), list):
        data = data["rows"]
    if not isinstance(data, list):
        raise DatasetError(
            f"expected a JSON array of row objects, got {type(data).__name__}", file=str(path)
        )
    columns: list[str] = []
    seen: set[str] = set()
    rows: list[RawRow] = []
    for number, obj in enumerate(data, start=1):
        if not isinstance(obj, dict):
            rows.append(RawRow(number, {}, f"is a JSON {type(obj).__name__}, expected an object"))
            continue
        _collect_columns(columns, seen, obj)
        rows.append(RawRow(number, obj))
    return columns, rows


def _parquet(data: bytes, path: Path) -> tuple[list[str], list[RawRow]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(
            f"reading Parquet needs pyarrow: {install_hint('parquet')}", file=str(path)
        ) from None
    try:
        # on the calling thread: no Arrow pool threads left running at exit (a native pool
        # torn down at interpreter exit can abort the process: 'terminate called ...')
        table = pq.read_table(pa.BufferReader(data), use_threads=False, pre_buffer=False)
    except (pa.ArrowException, OSError) as exc:
        raise DatasetError(f"not a readable Parquet file: {exc}", file=str(path)) from None
    columns = list(table.column_names)
    rows: list[RawRow] = []
    for number, values in enumerate(table.to_pylist(), start=1):
        try:
            rows.append(RawRow(number, check_depth(values)))
        except NestingTooDeep as exc:
            rows.append(RawRow(number, {}, exc.message))
    return columns, rows
