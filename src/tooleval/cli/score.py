"""``tooleval score``: score a file of canonical rows with one metric.

Contract (other tools rely on it): one JSON object per input row, in input
order, with ``id``, ``metric``, ``score`` (null when unscored), ``passed``,
``reason``, ``diagnosis``, ``params`` and ``threshold``. Exit 0 on success,
2 with a one-line message naming the row and field on unreadable input.

Rows are read from JSONL, or from CSV/TSV/Parquet/JSON-array files (by
extension, or by content when the extension says nothing). ``--output`` is
checked before any row is scored and written atomically: the file appears
complete or not at all, and it may not be the input file. An empty file and a
row that says nothing about the agent's calls (no ``tools_called``, no
``messages``) are input errors, not rows scored 0. See docs/errors.md.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.errors import ConfigError, DatasetError, InputError, ToolEvalError

_MAX_THREADS = 8  # default threads of the compiled kernel: past this, writing is the limit


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a JSONL dataset of canonical rows with one metric",
        description="Score every row of a JSONL dataset with one metric and write JSONL results.",
    )
    parser.add_argument(
        "dataset",
        help="file of canonical rows ('-' for stdin), or a benchmark's result file or folder "
        "(see --format)",
    )
    parser.add_argument(
        "--metric",
        help="metric name (see `tooleval metrics`); default with --format: the benchmark's profile",
    )
    parser.add_argument(
        "--format",
        help="a benchmark (`tooleval metrics` lists them, with their default metric), jsonl or "
        "json; any case, - or _ (default: detected when unambiguous, else canonical rows); "
        "see docs/benchmarks/",
    )
    parser.add_argument(
        "--data",
        metavar="PATH",
        help="the benchmark's data, when it reads any: its folder or reference file "
        "(`tooleval metrics` says what each benchmark takes)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="metric parameter; VALUE is parsed as JSON when it can be (order=flexible, exact_match=true)",
    )
    parser.add_argument("--output", "-o", help="write JSONL results here instead of stdout")
    parser.add_argument(
        "--table", action="store_true", help="also print a readable per-row table and a summary"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="score blocks of rows on N threads with the compiled kernel (default: the CPUs "
        f"available, at most {_MAX_THREADS}), or chunks of rows in N processes in pure Python "
        "(default 1: in-process); output order and bytes kept; ignored with --table; at most "
        "the CPU count",
    )
    parser.set_defaults(handler=run)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """Turn ``KEY=VALUE`` strings into parameters, VALUE as JSON when possible.

    >>> parse_options(["order=flexible", "exact_match=true", 'argument_keys=["a"]'])
    {'order': 'flexible', 'exact_match': True, 'argument_keys': ['a']}
    """
    import orjson

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--option {pair!r} must look like KEY=VALUE", field="--option")
        try:
            options[key] = orjson.loads(value)
        except orjson.JSONDecodeError:
            options[key] = value
    return options


def iter_rows(stream: Iterable[bytes], *, start: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(row_number, row)`` for each non-blank JSONL line (numbered from ``start``).

    JSON nested deeper than :data:`~tooleval.formats.json_limits.MAX_DEPTH`
    levels is a ``NestingTooDeep`` error naming the row.
    """
    import orjson

    from tooleval.formats.json_limits import loads

    for number, line in enumerate(stream, start=start):
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not line.strip():
            continue
        try:
            row = loads(line, row=number)
        except orjson.JSONDecodeError as exc:
            hint = ""
            if line.strip() in (b"{", b"["):
                hint = " (this looks like one JSON document spread over lines, not JSONL)"
            raise InputError(f"invalid JSON: {exc}{hint}", row=number) from None
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object per line, got {type(row).__name__}", row=number
            )
        yield number, row


def run(args: argparse.Namespace) -> int:
    from tooleval.benchmarks.score_format import benchmark_samples, resolve_score_format
    from tooleval.metrics.engine import fastest_engine
    from tooleval.metrics.registry import bind, get_metric

    chosen = resolve_score_format(
        args.dataset, format=args.format, metric=args.metric, options=parse_options(args.option)
    )
    args.format, args.metric, options = chosen.format, chosen.metric, dict(chosen.options)
    info = get_metric(args.metric)
    if info.needs_judge:
        raise ConfigError(
            f"metric {args.metric!r} needs an LLM judge; run it with `tooleval run PLAN` "
            "and a `judge:` section in the plan",
            field="--metric",
        )
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be 1 or more, got {args.workers}", field="--workers")
    if args.output:  # before any work: a bad path must not cost a scored file
        from tooleval.io_atomic import check_output_path

        check_output_path(args.output, option="--output", inputs=[args.dataset])
    metric = bind(args.metric, **options)  # parameters checked once, not per row
    kind = args.format or (
        "jsonl" if args.dataset == "-" else sniff_dataset(_existing(args.dataset))
    )
    workers = cap_workers(args.workers) if args.workers and args.workers > 1 else 1
    table_rows: list[tuple[str, Any, Any]] | None = [] if args.table else None
    with _naming_input(args.dataset), _output(args.output) as out:
        if kind != "jsonl":
            samples = (
                benchmark_samples(Path(args.dataset), kind, data=args.data)
                if chosen.benchmark
                else tabular_samples(Path(args.dataset), kind, metric)
            )
            count = sum(
                out.write(_score_sample(metric, number, sample, table_rows)) > 0
                for number, sample in samples
            )
        else:
            source = sys.stdin.buffer if args.dataset == "-" else _open(args.dataset)
            try:
                engine = fastest_engine(metric)  # the compiled kernel when it can take it
                if table_rows is None and (engine.compiled or workers == 1):
                    count = 0
                    score_line = functools.partial(_score_line, metric)
                    threads = workers if args.workers else min(_cpus(), _MAX_THREADS)
                    for part in engine.score_lines(source, score_line, threads=threads):
                        count += out.write(part) > 0  # parts, not rows: "none" matters
                elif workers > 1 and table_rows is None:
                    count = _score_in_processes(source, out, args.metric, options, workers)
                else:
                    count = 0
                    for number, row in iter_rows(source):
                        out.write(_score_row(metric, number, row, table_rows))
                        count += 1
            finally:
                if source is not sys.stdin.buffer:
                    source.close()
        if count == 0:
            raise InputError(
                "no rows to score: the input is empty or holds only blank lines", field="DATASET"
            )
    if table_rows is not None:
        from tooleval.cli._table import print_score_table

        print_score_table(table_rows, metric=args.metric, to_stderr=not args.output)
    return 0


_hot: list[Any] = []  # sample_from_row and orjson.dumps, imported on first use
Result: Any = None  # tooleval.model.Result, set by _load_hot
SearchBudgetExceeded: Any = None  # set by _load_hot
UNREADABLE: Any = None  # tooleval.benchmarks.base.UNREADABLE, set by _load_hot


def _load_hot() -> list[Any]:
    import orjson

    global Result, SearchBudgetExceeded, UNREADABLE
    from tooleval.benchmarks.base import UNREADABLE
    from tooleval.formats import sample_from_row
    from tooleval.matching.partial_order import SearchBudgetExceeded
    from tooleval.model import Result

    _hot[:] = [sample_from_row, orjson.dumps, orjson.OPT_APPEND_NEWLINE]
    return _hot


def _score_line(metric: Any, number: int, line: bytes) -> bytes:
    """One output line for one raw JSONL line (a row the compiled kernel hands back)."""
    for found, row in iter_rows([line], start=number):
        return _score_row(metric, found, row, None)
    return b""


def _score_row(metric: Any, number: int, row: dict[str, Any], table_rows: list | None) -> bytes:
    """One output line for one parsed input row."""
    # Looked up once: two import statements per row cost about a microsecond.
    sample_from_row = (_hot or _load_hot())[0]
    try:
        sample = sample_from_row(row, row_number=number, max_depth=None)  # iter_rows checked
    except ToolEvalError as exc:
        raise exc.with_context(row=number) from None
    if sample.tools_called is None and not sample.messages:
        _no_calls(metric, number, row)
    return _score_sample(metric, number, sample, table_rows)


# Column names people give the agent's calls; tooleval reads them only from tools_called.
_CALL_COLUMNS = (
    "calls",
    "tool_calls",
    "actual_calls",
    "actual_tools",
    "predicted_calls",
    "predicted_tools",
    "function_calls",
    "tools_used",
    "actions",
)


def _no_calls(metric: Any, number: int, row: dict[str, Any]) -> None:
    """Stop on a row that says nothing about the agent's calls, for a metric that needs them.

    Scoring it would say "the agent called nothing" for every such row: a
    silent 0 when the calls sit in a misnamed column.
    """
    if "tools_called" not in metric.info.requires:
        return
    if "tools_called" in row or "messages" in row:
        return  # given as null or an empty conversation: an agent that called nothing
    for key in row:
        if isinstance(key, str) and key.lower() in _CALL_COLUMNS:
            raise InputError(
                f"column {key!r} looks like the agent's calls, but tooleval reads them from "
                "'tools_called' (or from 'messages'); rename the column",
                row=number,
                column=key,
            )
    raise InputError(
        "no 'tools_called' or 'messages': nothing says which tools the agent called "
        '(write "tools_called": [] for an agent that called none)',
        row=number,
    )


def _score_sample(metric: Any, number: int, sample: Any, table_rows: list | None) -> bytes:
    """One output line for one sample; a row past the ordering search budget is unscored.

    So is a benchmark record its reader could not read (the reason in its metadata).
    """
    _, dumps, newline = _hot or _load_hot()
    reason = sample.metadata.get(UNREADABLE) if sample.metadata else None
    if reason is None:
        try:
            result = metric.score(sample)
        except SearchBudgetExceeded as exc:
            reason = exc.reason
    if reason is not None:
        result = Result.unscored(
            metric.name,
            reason,
            params=metric.recorded,
            threshold=metric.params.get("threshold"),
        )
    row_id = sample.id if sample.id is not None else str(number)
    if table_rows is not None:
        table_rows.append((row_id, sample, result))
    return dumps({"id": row_id, **result.to_dict()}, option=newline, default=str)


# ---------------------------------------------------------------- --workers N

_CHUNK_LINES = 2000  # big enough that pickling a chunk costs little next to scoring it
_worker_metric: list[Any] = []


def _init_worker(name: str, options: dict[str, Any]) -> None:
    from tooleval.metrics.registry import bind

    _worker_metric[:] = [bind(name, **options)]


def _score_chunk(chunk: tuple[int, list[bytes]]) -> tuple[bytes, ToolEvalError | None, int]:
    """Score lines numbered from ``start``: the output, the error of a bad row, rows scored."""
    import io

    start, lines = chunk
    metric = _worker_metric[0]
    parts: list[bytes] = []
    try:
        for number, row in iter_rows(io.BytesIO(b"".join(lines)), start=start):
            parts.append(_score_row(metric, number, row, None))
    except ToolEvalError as exc:
        return b"".join(parts), exc, len(parts)
    return b"".join(parts), None, len(parts)


def _chunks(source: IO[bytes]) -> Iterator[tuple[int, list[bytes]]]:
    lines: list[bytes] = []
    start = 1
    for number, line in enumerate(source, start=1):
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not lines:
            start = number
        lines.append(line if line.endswith(b"\n") else line + b"\n")
        if len(lines) == _CHUNK_LINES:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _cpus() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cap_workers(requested: int) -> int:
    """``requested`` limited to the CPUs this process may use (a note on stderr if lowered)."""
    cpus = _cpus()
    if requested > cpus:
        print(
            f"tooleval score: --workers {requested} lowered to {cpus} (the CPUs available)",
            file=sys.stderr,
        )
        return cpus
    return requested


def _score_in_processes(
    source: IO[bytes], out: IO[bytes], name: str, options: dict[str, Any], workers: int
) -> int:
    """Score chunks of lines in a process pool, writing results in input order.

    No more processes start than there are chunks (a one-chunk file is scored
    in this process). At most ``2 * workers`` chunks are in flight, so memory
    stays flat on large files; the first bad row stops the run after every
    row before it has been written, as in-process scoring does. Returns the
    number of rows scored.
    """
    import collections
    import itertools
    import multiprocessing

    chunks = _chunks(source)
    ahead = list(itertools.islice(chunks, workers))
    if len(ahead) <= 1:
        _init_worker(name, options)
        count = 0
        for chunk in ahead:
            data, error, rows = _score_chunk(chunk)
            out.write(data)
            count += rows
            if error is not None:
                raise error
        return count
    count = 0
    with multiprocessing.get_context().Pool(
        min(workers, len(ahead)), initializer=_init_worker, initargs=(name, options)
    ) as pool:
        pending: collections.deque = collections.deque()

        def drain_one() -> int:
            data, error, rows = pending.popleft().get()
            out.write(data)
            if error is not None:
                raise error
            return rows

        for chunk in itertools.chain(ahead, chunks):
            pending.append(pool.apply_async(_score_chunk, (chunk,)))
            if len(pending) >= 2 * workers:
                count += drain_one()
        while pending:
            count += drain_one()
    return count


def _existing(path: str) -> Path:
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory; expected a dataset file", field="DATASET")
    if not file.is_file():
        raise InputError(f"no such dataset file: {path}", field="DATASET")
    return file


def _open(path: str) -> IO[bytes]:
    return _existing(path).open("rb")


@contextlib.contextmanager
def _naming_input(dataset: str) -> Iterator[None]:
    """Errors about rows name the input file too (``file d.jsonl, row 6: ...``)."""
    try:
        yield
    except ToolEvalError as exc:
        field_name = str(exc.field or "")
        if dataset == "-" or "file" in exc.context or field_name.startswith(("-", "DATASET")):
            raise
        raise exc.with_context(file=dataset) from None


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[bytes]]:
    """The results stream: a file written atomically, or stdout."""
    if path:
        from tooleval.io_atomic import atomic_write

        with atomic_write(path) as handle:
            yield handle
    else:
        try:
            yield sys.stdout.buffer
        finally:
            sys.stdout.buffer.flush()


# ------------------------------------------------------------ other file kinds

_BOM = b"\xef\xbb\xbf"
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


def tabular_samples(path: Path, kind: str, metric: Any = None) -> Iterable[tuple[int, Any]]:
    """``(row_number, Sample)`` for each data row of a CSV/TSV/Parquet/JSON-array file.

    Columns named like canonical fields bind themselves; the first row that
    cannot be read stops with its DatasetError (row and column), as in JSONL;
    with ``metric``, so does a row without the agent's calls (see ``_no_calls``).
    """
    from tooleval.datasets.load import load_dataset

    # (a CSV header that is one column holding semicolons is refused by the reader)
    dataset = load_dataset(path, format=kind)
    for row in dataset.rows:
        if row.errors:
            raise row.errors[0]
        if row.error is not None:
            raise DatasetError(row.error, row=row.number)
        sample = row.sample
        if metric is not None and sample.tools_called is None and not sample.messages:
            cells = dict(dataset.raw_values()[row.index])
            for field_name, column in dataset.bindings.items():
                if column in cells:
                    cells[field_name] = cells.pop(column)
            _no_calls(metric, row.number, cells)
        yield row.number, sample
