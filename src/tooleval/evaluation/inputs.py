"""What :func:`tooleval.evaluate` is given, read into bound metrics and ``(row number, Sample)``.

Datasets: a path (JSONL read as ``tooleval score`` reads it; CSV, TSV, JSON
arrays and Parquet through :func:`tooleval.datasets.load_dataset`), an
iterable of row dicts or Samples, or a pandas DataFrame. ``bind`` maps a
Sample field to another column, as ``--bind`` does. Every row is read before
any metric scores (an input error costs no judge call) and raises naming the
row and column; a field a metric needs that no row holds is a DatasetError
naming the field, the columns there are and the likely one.

>>> specs = metric_specs(["tool_correctness", ("tool_call_f1", {"args": "ignore"})])
>>> [(name, options) for name, options, _ in specs]
[('tool_correctness', {}), ('tool_call_f1', {'args': 'ignore'})]
>>> from tooleval.metrics import bind
>>> rows = [{"id": "r1", "called": ["a"], "expected_tools": ["a"]}]
>>> number, sample = read_dataset(rows, [bind("tool_call_f1")], bind={"tools_called": "called"})[0]
>>> number, sample.id, sample.tools_called[0].name
(1, 'r1', 'a')
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError, DatasetError, InputError, ToolEvalError
from tooleval.evaluation.file_input import empty_cell
from tooleval.model import Sample

__all__ = [
    "JUDGE_ENV",
    "check_fields",
    "metric_specs",
    "read_dataset",
    "resolve_judge",
    "table_samples",
]

JUDGE_ENV = "TOOLEVAL_JUDGE"  # the judge when judge= is not given (as for `tooleval score`)

# Fields the agent's record supplies; the others are the reference a metric scores against.
_RECORDED = frozenset({"tools_called", "messages", "output"})


def metric_specs(metrics: Any) -> list[tuple[str, dict[str, Any], Any]]:
    """``(name, options, bound metric or None)`` for each metric given.

    A metric is a name, a bound metric (:func:`tooleval.metrics.bind`) or a
    ``(name, options)`` pair; one name alone is a list of one, and a mapping
    of names to options is read as its pairs.
    """
    if isinstance(metrics, str) or _is_bound(metrics) or _is_pair(metrics):
        metrics = [metrics]
    elif isinstance(metrics, Mapping):  # {"tool_call_f1": {"args": "ignore"}, ...}
        metrics = list(metrics.items())
    if not isinstance(metrics, Iterable):
        raise ConfigError(
            f"expected metric names, bound metrics or (name, options) pairs, got "
            f"{type(metrics).__name__}",
            field="metrics",
        )
    from tooleval.metrics.registry import get_metric

    specs: list[tuple[str, dict[str, Any], Any]] = []
    for index, given in enumerate(metrics):
        where = f"metrics[{index}]"
        if _is_bound(given):
            specs.append((given.name, dict(given.params), given))
            continue
        if _is_pair(given):
            name, options = given
            if not isinstance(options, Mapping):
                raise ConfigError(
                    f"the options of {name!r} must be a mapping, got {type(options).__name__}",
                    field=where,
                )
        elif isinstance(given, str):
            name, options = given, {}
        else:
            raise ConfigError(
                "expected a metric name, a bound metric or a (name, options) pair, got "
                f"{type(given).__name__}",
                field=where,
            )
        name = name.strip()
        try:
            get_metric(name)  # unknown: ConfigError with the closest name
        except ConfigError as exc:
            raise ConfigError(exc.message, field=where) from None
        specs.append((name, dict(options), None))
    if not specs:
        raise ConfigError("give at least one metric (see tooleval.list_metrics())", field="metrics")
    seen: set[str] = set()
    for name, _, _ in specs:
        if name in seen:
            raise ConfigError(
                f"metric {name!r} is given twice; give it once, with all its options",
                field="metrics",
            )
        seen.add(name)
    return specs


def _is_bound(value: Any) -> bool:
    from tooleval.metrics.registry import BoundMetric

    return isinstance(value, BoundMetric)


def _is_pair(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)


def resolve_judge(judge: Any, judged: Sequence[str]) -> Any:
    """The judge object for ``judge=`` (a judge, a spec or None for ``$TOOLEVAL_JUDGE``)."""
    from tooleval.llm import judge_from_config
    from tooleval.llm.spec import judge_config

    if judge is not None and hasattr(judge, "acomplete") and hasattr(judge, "complete"):
        return judge  # a judge object (OpenAIJudge, LocalJudge, your own)
    field = "judge"
    if judge is None:
        judge = os.environ.get(JUDGE_ENV) or None
        field = JUDGE_ENV
    if judge is None:
        raise ConfigError(
            f"{', '.join(judged)} need(s) an LLM judge: pass judge='local' (the bundled model, "
            "tooleval[local]), judge={'type': 'openai', 'model': ..., 'base_url': ...}, a judge "
            f"file, or set ${JUDGE_ENV}",
            field="judge",
        )
    return judge_from_config(judge_config(judge, field=field), field=field)


def read_dataset(
    dataset: Any,
    metrics: Sequence[Any],
    *,
    bind: Mapping[str, str] | None = None,
    format: str | None = None,
    empty: dict[int, str] | None = None,
) -> list[tuple[int, Sample]]:
    """``(row number, Sample)`` of every row, checked for each bound metric of ``metrics``.

    The first input error raises naming its row (and column). ``empty`` gets,
    per row number, why the row's bound ``expected_tools`` column gave no
    reference (an empty cell, a missing key), for the row's reason.
    """
    empty = {} if empty is None else empty
    if isinstance(dataset, str | os.PathLike):
        return _read_file(Path(dataset), bind, metrics, format, empty)
    if isinstance(dataset, bytes | bytearray):
        raise InputError(
            "expected a path, rows or a DataFrame, got bytes (write them to a file)",
            field="dataset",
        )
    if _is_dataframe(dataset):
        columns = [str(column) for column in dataset.columns]
        rows: list[Any] = [_plain_row(row) for row in dataset.to_dict(orient="records")]
        return _read_rows(rows, columns, bind, metrics, empty=empty)
    if isinstance(dataset, Mapping | Sample):
        raise InputError(
            f"expected rows, got one {type(dataset).__name__}; pass a list of rows ([row])",
            field="dataset",
        )
    if not isinstance(dataset, Iterable):
        raise InputError(
            f"expected a path, an iterable of rows or Samples, or a DataFrame, got "
            f"{type(dataset).__name__}",
            field="dataset",
        )
    rows = list(dataset)
    columns = list(dict.fromkeys(k for r in rows if isinstance(r, Mapping) for k in r))
    return _read_rows(rows, [str(c) for c in columns], bind, metrics, empty=empty)


def _is_dataframe(value: Any) -> bool:
    kind = type(value)
    return kind.__name__ == "DataFrame" and kind.__module__.partition(".")[0] == "pandas"


def _plain_row(row: Mapping[Any, Any]) -> dict[str, Any]:
    """A DataFrame record with pandas' and numpy's cell types made plain (NaN is no value)."""
    return {str(key): _plain(value) for key, value in row.items()}


def _plain(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    kind = type(value).__module__.partition(".")[0]
    if kind in ("numpy", "pandas"):
        if hasattr(value, "tolist"):  # numpy arrays and scalars (a Parquet list cell)
            return _plain(value.tolist())
        if type(value).__name__ in ("NAType", "NaTType"):
            return None
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _read_rows(
    rows: list[Any],
    columns: list[str],
    bind: Mapping[str, str] | None,
    metrics: Sequence[Any],
    numbers: Sequence[int] | None = None,
    *,
    empty: dict[int, str],
) -> list[tuple[int, Sample]]:
    """Each row read (``numbers``: the file's line numbers; else positions from 1)."""
    from tooleval.datasets.binding import resolve_bindings
    from tooleval.scoring import check_calls_given, row_sample

    if not rows:
        raise InputError("no rows to evaluate: the dataset is empty", field="dataset")
    renames = {}
    if bind:
        bound = resolve_bindings(columns, bind)  # unknown field or column: named, with a guess
        renames = {column: name for name, column in bound.items() if name != column}
    reference = (bind or {}).get("expected_tools")
    calls = (bind or {}).get("tools_called", "tools_called")
    read: list[tuple[int, Sample]] = []
    for number, row in zip(numbers or range(1, len(rows) + 1), rows, strict=True):
        if isinstance(row, Sample):
            read.append((number, row))
            continue
        if not isinstance(row, Mapping):
            raise InputError(
                f"expected a row dict or a Sample, got {type(row).__name__}", row=number
            )
        if reference is not None:
            why = empty_cell(row, reference, number)
            if why is not None:
                empty[number] = why
        if renames:
            row = {renames.get(key, key): value for key, value in row.items()}
        try:
            sample = row_sample(metrics[0], number, row, max_depth=100)
        except InputError as exc:  # name the file's column bound to tools_called
            if exc.context.get("column") != "tools_called" or calls == "tools_called":
                raise
            raise InputError(exc.message, row=number, column=calls) from None
        for metric in metrics[1:]:
            if sample.tools_called is None and not sample.messages:
                check_calls_given(metric, number, row)
        read.append((number, sample))
    check_fields(read, metrics, columns, rows, bind)
    return read


def _read_file(
    path: Path,
    bind: Mapping[str, str] | None,
    metrics: Sequence[Any],
    format: str | None,
    empty: dict[int, str],
) -> list[tuple[int, Sample]]:
    from tooleval.datasets.readers import detect_format

    if path.is_dir():
        raise InputError(f"{path} is a directory; expected a dataset file", field="dataset")
    if not path.is_file():
        raise InputError(f"no such dataset file: {path}", field="dataset")
    kind = format.lower() if format else file_kind(path)
    try:
        if kind in ("jsonl", "ndjson"):
            return _read_jsonl(path, bind, metrics, empty)
        detect_format(path, kind)  # an unknown format= is named
        return _read_table(path, kind, bind, metrics, empty)
    except ToolEvalError as exc:
        if "file" in exc.context:
            raise
        raise exc.with_context(file=str(path)) from None


def file_kind(path: Path) -> str:
    """How :func:`read_dataset` reads ``path`` by its extension (``jsonl`` when it says nothing)."""
    from tooleval.datasets.readers import FORMATS

    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    return "jsonl"  # as `tooleval score`: a file that is not JSONL is "row 1: invalid JSON"


def _read_jsonl(
    path: Path, bind: Mapping[str, str] | None, metrics: Sequence[Any], empty: dict[int, str]
) -> list[tuple[int, Sample]]:
    from tooleval.scoring import read_rows

    with path.open("rb") as handle:
        parsed = list(read_rows(handle))
    if not parsed:
        raise InputError(
            "no rows to evaluate: the file is empty or holds only blank lines", file=str(path)
        )
    numbers = [number for number, _ in parsed]
    rows = [row for _, row in parsed]
    columns = list(dict.fromkeys(str(k) for row in rows for k in row))
    return _read_rows(rows, columns, bind, metrics, numbers, empty=empty)  # blank lines numbered


def _read_table(
    path: Path,
    kind: str,
    bind: Mapping[str, str] | None,
    metrics: Sequence[Any],
    empty: dict[int, str],
) -> list[tuple[int, Sample]]:
    from tooleval.datasets.load import load_dataset

    dataset = load_dataset(path, bind=bind, format=kind)
    if not dataset.rows:
        raise InputError("no rows to evaluate: the file has no data rows", file=str(path))
    whys: deque[str | None] = deque()
    read = list(table_samples(dataset, metrics, whys))
    empty.update((number, why) for (number, _), why in zip(read, whys, strict=True) if why)
    raw = dataset.raw_values()
    check_fields(read, metrics, dataset.columns, raw, bind)
    return read


def table_samples(
    dataset: Any, metrics: Sequence[Any], empty: deque[str | None] | None = None
) -> Iterator[tuple[int, Sample]]:
    """``(row number, Sample)`` for each row of a loaded table (a ``load_dataset`` Dataset).

    The first row that cannot be read raises its error (row and column); a
    row that says nothing about the agent's calls is refused for any of
    ``metrics`` that needs them (its cells read under their bound field names,
    as ``tooleval score`` reads a JSONL row). ``empty`` gets, per row, why its
    ``expected_tools`` cell gave no reference (None when it gave one).

    >>> import pathlib, tempfile
    >>> from tooleval.datasets.load import load_dataset
    >>> from tooleval.metrics import bind
    >>> table = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> _ = table.write_text('id,called,expected_tools\\nr1,"[""a""]","[""a""]"\\n')
    >>> found = load_dataset(table, bind={"tools_called": "called"})
    >>> [(n, s.id) for n, s in table_samples(found, [bind("tool_call_f1")])]
    [(1, 'r1')]
    >>> found = load_dataset(table, bind={"expected_tools": "called"})  # no calls column left
    >>> try:
    ...     list(table_samples(found, [bind("tool_call_f1")]))
    ... except InputError as exc:
    ...     print(exc.row, exc.message.split(":")[0])
    1 no 'tools_called' or 'messages'
    """
    from tooleval.scoring import check_calls_given

    raw = dataset.raw_values()
    for row in dataset.rows:
        if row.errors:
            raise row.errors[0]
        if row.error is not None:
            raise DatasetError(row.error, row=row.number)
        sample = row.sample
        if metrics and sample.tools_called is None and not sample.messages:
            cells = dict(raw[row.index])
            for name, column in dataset.bindings.items():
                if column in cells:
                    cells[name] = cells.pop(column)
            column = dataset.bindings.get("tools_called", "tools_called")
            for metric in metrics:
                check_calls_given(metric, row.number, cells, column=column)
        if empty is not None:
            empty.append(row.empty_cells.get("expected_tools"))
        yield row.number, sample


def check_fields(
    read: Sequence[tuple[int, Sample]],
    metrics: Sequence[Any],
    columns: Sequence[str],
    raw: Sequence[Any],
    bind: Mapping[str, str] | None,
) -> None:
    """Refuse a metric whose reference field no row holds (every row would be unscored)."""
    for metric in metrics:
        for name in metric.info.requires:
            if name in _RECORDED or any(getattr(s, name, None) is not None for _, s in read):
                continue
            cells = [r for r in raw[:50] if isinstance(r, Mapping)]
            message = unbound_field_message(metric.name, name, list(columns), cells, bind)
            raise DatasetError(message, field=name)


def unbound_field_message(
    metric: str,
    name: str,
    columns: list[str],
    cells: list[Any],
    bind: Mapping[str, str] | None,
) -> str:
    """What :func:`tooleval.evaluate` says of a field ``metric`` needs that no row holds.

    ``cells``: the first rows (for the likely column, which is named with the
    ``bind=`` that takes it and the CLI's ``--bind``).
    """
    from tooleval.datasets.binding import bind_option, suggest_column

    guess = suggest_column(name, columns, cells, exclude=set((bind or {}).values()))
    message = (
        f"metric {metric} needs {name!r}, but no row has it; the columns are "
        f"{columns}. Name a column {name!r} or bind one: bind={{{name!r}: COLUMN}}"
    )
    if guess:
        message += (
            f"; the likely one is {guess!r} (bind={{{name!r}: {guess!r}}}, "
            f"CLI {bind_option(name, guess)})"
        )
    return message
