"""What ``tooleval score`` reads from a JSONL stream besides the rows: ``--bind`` and a watch.

:func:`bind_spec` checks ``--bind FIELD=COLUMN`` before any row is read
(:mod:`tooleval.datasets.binding` parses it, as for ``dataset check``);
:func:`renamed_lines` applies it to each JSONL line; :class:`InputTap` sits
between the file and the scorer (the compiled kernel reads it by blocks,
Python line by line) and refuses, once the file is read, a file where no row
holds a field a metric needs, with the likely key (``--bind expected_tools=gold``).
CSV/TSV/Parquet files are bound and checked by :func:`tooleval.datasets.load_dataset`
and ``Dataset.require`` before scoring.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.errors import ConfigError, DatasetError, InputError, ToolEvalError, did_you_mean

__all__ = [
    "ExplainedLines",
    "InputTap",
    "bind_spec",
    "empty_cell",
    "existing_file",
    "open_dataset",
    "rename_keys",
    "renamed_lines",
    "sniff_dataset",
    "tabular_samples",
]

_BOM = b"\xef\xbb\xbf"  # the same as tooleval.scoring.rows.BOM


def bind_spec(given: list[str], chosen: Any) -> dict[str, str]:
    """``--bind`` as field -> column; unknown fields refused before any row is read."""
    from tooleval.datasets.binding import BINDABLE, parse_bind_options

    columns = parse_bind_options(given)
    if columns and chosen.benchmark:
        raise ConfigError(
            f"--bind applies to files of rows (JSONL, CSV, TSV, Parquet, JSON), not to "
            f"--format {chosen.format}, whose reader knows its fields",
            field="--bind",
        )
    for field_name in columns:
        if field_name not in BINDABLE:
            raise DatasetError(
                f"cannot bind unknown field {field_name!r}; fields are {list(BINDABLE)}"
                + did_you_mean(field_name, BINDABLE),
                field=f"bind.{field_name}",
            )
    return columns


# Keys that also give a field (sample_from_row): ragas' reference_tool_calls, the final answer
# read from the conversation.
_ALIASES = {
    "expected_tools": ("reference_tool_calls",),
    "reference": ("expected_output",),
    "output": ("messages", "user_input"),
}
_HEAD_ROWS = 50  # rows read for a suggestion (as dataset check reads them)


class InputTap:
    """The JSONL input as the scorer reads it (``read`` or line by line), watched on the way.

    It notes which of the keys ``watch`` names occur in the file (a byte
    search per block read; a key inside a string value only makes the check
    lenient), keeps the first rows' keys for suggestions, and with
    ``keep_lines`` keeps each line until :meth:`pop` hands it back (the
    compiled kernel's results carry no Sample; ``--table`` shows one): no more
    than the blocks in flight. :meth:`check` then refuses a file where no row
    holds a field a metric needs, naming the likely key (``--bind``).
    """

    def __init__(self, source: Any, columns: dict[str, str], *, keep_lines: bool) -> None:
        self._source = source
        self._columns = columns
        self._keep = keep_lines
        self._pending: deque[bytes] = deque()
        self._tokens: dict[str, bytes] = {}
        self.seen: set[str] = set()
        self.heads: list[dict[str, Any]] = []
        self.broken = False
        self._rest = b""
        self._tail = b""
        self._first = True

    def over(self, source: Any) -> InputTap:
        self._source = source
        return self

    def watch(self, keys: Iterable[str]) -> None:
        self._tokens.update({key: b'"' + key.encode() + b'"' for key in keys})

    def read(self, size: int = -1) -> bytes:
        chunk = self._source.read(size)
        self._see(chunk, final=not chunk)
        return chunk

    def __iter__(self) -> Iterator[bytes]:
        for line in self._source:
            self._see(line, final=False)
            yield line
        self._see(b"", final=True)

    def _see(self, chunk: bytes, *, final: bool) -> None:
        window = self._tail + chunk
        for key, token in self._tokens.items():
            if key not in self.seen and token in window:
                self.seen.add(key)
        self._tail = chunk[-64:] if len(chunk) >= 64 else window[-64:]
        if not self._keep and len(self.heads) >= _HEAD_ROWS:
            return
        lines = (self._rest + chunk).split(b"\n")
        self._rest = b"" if final else lines.pop()
        for line in lines:
            if self._first:
                line = line.removeprefix(_BOM)
                self._first = False
            if not line.strip():
                continue
            if self._keep:
                self._pending.append(line)
            if len(self.heads) < _HEAD_ROWS:
                self._head(line)

    def _head(self, line: bytes) -> None:
        import orjson

        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            self.broken = True  # a broken row is named by the scoring, as the broken row
            return
        if isinstance(row, dict):
            self.heads.append(row)

    def pop(self) -> bytes:
        """The oldest line not yet handed back (the row of the next result)."""
        return self._pending.popleft()

    def sample_of(self, line: bytes) -> Any:
        """The Sample of a line (bound as ``--bind`` says), or None when it cannot be read."""
        import orjson

        from tooleval.formats import sample_from_row

        try:
            return sample_from_row(rename_keys(orjson.loads(line), self._columns))
        except (ToolEvalError, ValueError, TypeError):
            return None

    def check(
        self, needed: dict[str, tuple[str, ...]], columns: dict[str, str], *, entry: str = "score"
    ) -> None:
        """Refuse a bound column no row has, and a needed field no row holds.

        ``entry``: ``score`` words the remedy as ``--bind``, ``evaluate`` as ``bind={...}``.
        """
        keys = list(dict.fromkeys(k for row in self.heads for k in row))
        for field_name, column in columns.items():
            if column not in self.seen:
                raise DatasetError(
                    f"bind {field_name}={column}: no row has a key {column!r}; the rows' keys "
                    f"are {keys}" + did_you_mean(column, keys),
                    field=f"bind.{field_name}",
                )
        for metric, fields in needed.items():
            for field_name in fields:
                if self.broken:  # the scoring stops at the unreadable row and names it
                    break
                if not ({field_name, *_ALIASES.get(field_name, ())} & self.seen) and (
                    field_name not in columns
                ):
                    if entry == "evaluate":
                        from tooleval.evaluation.inputs import unbound_field_message

                        message = unbound_field_message(
                            metric, field_name, keys, self.heads, columns
                        )
                    else:
                        message = _unbound_message(metric, field_name, keys, self.heads)
                    raise DatasetError(message, field=field_name)

    def watched(self, needed: dict[str, tuple[str, ...]], columns: dict[str, str]) -> InputTap:
        self.watch(columns.values())
        for fields in needed.values():
            for field_name in fields:
                self.watch((field_name, *_ALIASES.get(field_name, ())))
        return self


def _unbound_message(metric: str, field_name: str, keys: list[str], heads: list[Any]) -> str:
    """The message of ``Dataset.require`` for a JSONL file, with the likely key to bind."""
    from tooleval.datasets.binding import BINDABLE, bind_option, suggest_column

    guess = suggest_column(field_name, keys, heads, exclude=set(keys) & set(BINDABLE))
    message = (
        f"metric {metric} needs {field_name!r}, but no row of the file has it, so every row "
        f"would be unscored. The rows' keys are {keys}. Bind one with --bind "
        f"{field_name}=KEY or name the key {field_name!r}"
    )
    if guess:
        message += f"; the likely one is {guess!r} ({bind_option(field_name, guess)})"
    return message


def rename_keys(row: Any, columns: dict[str, str]) -> Any:
    """A JSONL row with each bound column's value under its field (``--bind FIELD=COLUMN``).

    A key the field already had is kept in ``metadata`` under its name (never dropped).

    >>> rename_keys({"gold": ["a"], "expected_tools": ["b"]}, {"expected_tools": "gold"})
    {'metadata': {'expected_tools': ['b']}, 'expected_tools': ['a']}
    """
    if not isinstance(row, dict):
        return row
    for field_name, column in columns.items():
        if column not in row or column == field_name:
            continue
        value = row.pop(column)
        if field_name in row:
            metadata = row.get("metadata")
            if not isinstance(metadata, dict):
                metadata = {} if metadata is None else {"metadata": metadata}
                row["metadata"] = metadata
            metadata.setdefault(field_name, row.pop(field_name))
        row[field_name] = value
    return row


def renamed_lines(
    lines: Iterable[bytes],
    columns: dict[str, str],
    empty: deque[str | None] | None = None,
    noted: dict[int, str] | None = None,
) -> Iterator[bytes]:
    """JSONL lines with ``--bind`` applied; a line that is not a JSON object passes unchanged
    (the scorer reports it with its row number).

    ``empty``: for each row, why its bound ``expected_tools`` column gave no
    reference (None when it gave one), for :class:`ExplainedLines`; ``noted``
    the same by row number, for the rows a table shows.
    """
    import orjson

    column = columns.get("expected_tools")
    first = True
    for number, line in enumerate(lines, start=1):
        text = line.removeprefix(_BOM) if first else line
        first = False
        if not text.strip():
            yield line
            continue
        try:
            row = orjson.loads(text)
        except orjson.JSONDecodeError:
            yield line
            continue
        if not isinstance(row, dict):
            yield line
            continue
        if empty is not None and column is not None:
            why = empty_cell(row, column, number)
            empty.append(why)
            if why is not None and noted is not None:
                noted[number] = why
        yield orjson.dumps(rename_keys(row, columns)) + b"\n"


def empty_cell(row: Any, column: str, number: int) -> str | None:
    """Why the bound ``column`` of a JSONL row gives no reference, or None when it gives one."""
    if column not in row:
        return f"row {number} has no key {column!r}"
    value = row[column]
    if value is None or (isinstance(value, str) and not value.strip()):
        return f"row {number}, column {column} is empty"
    return None


_UNBOUND_REASON = b'"reason":"no expected_tools bound for this row'


class ExplainedLines:
    """The results stream with each row's "no expected_tools bound" reason made specific.

    Rows come ``metrics`` lines each, in input order; ``empty`` holds, per row,
    why its bound column was empty (filled as the input is read, ahead of the
    results), and a row's unbound reason is replaced by it
    (:func:`tooleval.scoring.explain_unbound_line`).
    """

    def __init__(self, out: Any, metrics: int, empty: deque[str | None]) -> None:
        self._out, self._metrics, self._empty = out, metrics, empty
        self._rest = b""
        self._lines = 0
        self._why: str | None = None

    def write(self, data: bytes) -> int:
        from tooleval.scoring import explain_unbound_line

        if not self._rest and data.endswith(b"\n") and _UNBOUND_REASON not in data:
            count, at, each = data.count(b"\n"), self._lines, self._metrics
            for _ in range(-(-(at + count) // each) + (at // -each)):  # the rows starting here
                self._why = self._empty.popleft() if self._empty else None
            self._lines += count
            self._out.write(data)  # nothing to explain: the bytes as they are
            return len(data)
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        done = []
        for line in lines:
            if self._lines % self._metrics == 0:
                self._why = self._empty.popleft() if self._empty else None
            self._lines += 1
            done.append(explain_unbound_line(line, self._why))
        if done:
            self._out.write(b"\n".join(done) + b"\n")
        return len(data)

    def flush(self) -> None:
        self._out.flush()


# ------------------------------------------------------------ the dataset file itself


def existing_file(path: str) -> Path:
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory; expected a dataset file", field="DATASET")
    if not file.is_file():
        raise InputError(f"no such dataset file: {path}", field="DATASET")
    return file


def open_dataset(path: str) -> IO[bytes]:
    return existing_file(path).open("rb")


_TABULAR_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def sniff_dataset(path: Path) -> str:
    """How to read a dataset file: ``jsonl``, ``json`` (an array), ``csv``, ``tsv`` or ``parquet``.

    The extension decides for CSV/TSV/Parquet; otherwise the first bytes do
    (``{`` JSONL, ``[`` a JSON array, ``PAR1`` Parquet, a delimited header
    CSV/TSV). An empty or binary file is an InputError naming it.
    """
    with path.open("rb") as handle:
        head = handle.read(65536)
    if not head.strip().removeprefix(_BOM).strip():
        raise InputError("the file is empty; expected rows to score", file=str(path))
    suffix = path.suffix.lower()
    if suffix in _TABULAR_SUFFIXES:
        return _TABULAR_SUFFIXES[suffix]
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.removeprefix(_BOM).lstrip()
    if text[:1] == b"{":
        return "jsonl"
    if text[:1] == b"[":
        return "json"
    if b"\x00" in head:
        raise InputError(
            "a binary file; expected JSONL, CSV, TSV, JSON or Parquet rows", file=str(path)
        )
    first = text.split(b"\n", 1)[0]
    if b"\t" in first:
        return "tsv"
    if b"," in first or b";" in first:
        return "csv"
    return "jsonl"  # reported as "row 1: invalid JSON" with the parser's reason


def tabular_samples(
    path: Path,
    kind: str,
    metric: Any = None,
    *,
    bind: dict[str, str] | None = None,
    needed: dict[str, tuple[str, ...]] | None = None,
    empty: deque[str | None] | None = None,
    entry: str = "score",
) -> Iterable[tuple[int, Any]]:
    """``(row_number, Sample)`` for each data row of a CSV/TSV/Parquet/JSON-array file.

    ``metric``: a bound metric or a list of them. ``bind``: field -> column
    (``--bind``). ``needed``: per metric, the fields a column must be bound
    to (no column for one is a DatasetError suggesting the likely column,
    before any row is scored). ``empty``: each row's empty expected_tools
    cell, as :func:`renamed_lines` gives it. ``entry``: ``score`` words the
    remedy for a field no column holds as ``--bind``, ``evaluate`` as ``bind={...}``
    (as :meth:`InputTap.check` does for JSONL).

    Columns named like canonical fields bind themselves; the first row that
    cannot be read stops with its DatasetError (row and column), as in JSONL;
    with ``metric``, so does a row without the agent's calls (see ``_no_calls``).
    """
    from tooleval.datasets.load import load_dataset
    from tooleval.evaluation.inputs import table_samples

    # (a CSV header that is one column holding semicolons is refused by the reader)
    dataset = load_dataset(path, format=kind, bind=bind or None)
    for name, fields in (needed or {}).items():
        if dataset.is_bound("messages"):  # the final answer is read from the conversation
            fields = tuple(f for f in fields if f != "output")
        try:
            dataset.require(fields, metric=name, produced=())
        except DatasetError as exc:
            field_name = exc.context.get("field")
            if entry != "evaluate" or field_name not in fields:
                raise
            from tooleval.evaluation.inputs import unbound_field_message

            cells = [row for row in dataset.raw_values()[:50] if isinstance(row, dict)]
            columns = list(dataset.columns)
            message = unbound_field_message(name, field_name, columns, cells, bind)
            raise DatasetError(message, field=field_name) from None
    metrics = [] if metric is None else metric if isinstance(metric, list) else [metric]
    yield from table_samples(dataset, metrics, empty)
