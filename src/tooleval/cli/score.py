"""``tooleval score``: score a JSONL file of canonical rows with one metric.

Contract (other tools rely on it): one JSON object per input row, in input
order, with ``id``, ``metric``, ``score`` (null when unscored), ``passed``,
``reason``, ``diagnosis``, ``params`` and ``threshold``. Exit 0 on success,
2 with a one-line message naming the row and field on unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.errors import ConfigError, InputError, ToolEvalError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a JSONL dataset of canonical rows with one metric",
        description="Score every row of a JSONL dataset with one metric and write JSONL results.",
    )
    parser.add_argument("dataset", help="JSONL file of canonical rows ('-' for stdin)")
    parser.add_argument("--metric", required=True, help="metric name (see `tooleval metrics`)")
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
        default=1,
        metavar="N",
        help="score chunks of rows in N processes, output order kept (default 1: in-process; "
        "ignored with --table)",
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


def iter_rows(stream: IO[bytes], *, start: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(row_number, row)`` for each non-blank JSONL line (numbered from ``start``)."""
    import orjson

    for number, line in enumerate(stream, start=start):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", row=number) from None
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object per line, got {type(row).__name__}", row=number
            )
        yield number, row


def run(args: argparse.Namespace) -> int:
    from tooleval.metrics.registry import bind, get_metric

    options = parse_options(args.option)
    info = get_metric(args.metric)
    if info.needs_judge:
        raise ConfigError(
            f"metric {args.metric!r} needs an LLM judge; run it with `tooleval run PLAN` "
            "and a `judge:` section in the plan",
            field="--metric",
        )
    if args.workers < 1:
        raise ConfigError(f"--workers must be 1 or more, got {args.workers}", field="--workers")
    metric = bind(args.metric, **options)  # parameters checked once, not per row
    source = sys.stdin.buffer if args.dataset == "-" else _open(args.dataset)
    out = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    table_rows: list[tuple[str, Any, Any]] | None = [] if args.table else None
    try:
        if args.workers > 1 and table_rows is None:
            _score_in_processes(source, out, args.metric, options, args.workers)
        else:
            for number, row in iter_rows(source):
                out.write(_score_row(metric, number, row, table_rows))
    finally:
        if source is not sys.stdin.buffer:
            source.close()
        if out is not sys.stdout.buffer:
            out.close()
        else:
            out.flush()
    if table_rows is not None:
        from tooleval.cli._table import print_score_table

        print_score_table(table_rows, metric=args.metric, to_stderr=not args.output)
    return 0


_hot: list[Any] = []  # sample_from_row and orjson.dumps, imported on first use


def _load_hot() -> list[Any]:
    import orjson

    from tooleval.formats import sample_from_row

    _hot[:] = [sample_from_row, orjson.dumps, orjson.OPT_APPEND_NEWLINE]
    return _hot


def _score_row(metric: Any, number: int, row: dict[str, Any], table_rows: list | None) -> bytes:
    """One output line for one parsed input row."""
    # Looked up once: two import statements per row cost about a microsecond.
    sample_from_row, dumps, newline = _hot or _load_hot()
    try:
        sample = sample_from_row(row, row_number=number)
    except ToolEvalError as exc:
        raise exc.with_context(row=number) from None
    result = metric.score(sample)
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


def _score_chunk(chunk: tuple[int, list[bytes]]) -> tuple[bytes, ToolEvalError | None]:
    """Score lines numbered from ``start``; on a bad row, what came before it and the error."""
    import io

    start, lines = chunk
    metric = _worker_metric[0]
    parts: list[bytes] = []
    try:
        for number, row in iter_rows(io.BytesIO(b"".join(lines)), start=start):
            parts.append(_score_row(metric, number, row, None))
    except ToolEvalError as exc:
        return b"".join(parts), exc
    return b"".join(parts), None


def _chunks(source: IO[bytes]) -> Iterator[tuple[int, list[bytes]]]:
    lines: list[bytes] = []
    start = 1
    for number, line in enumerate(source, start=1):
        if not lines:
            start = number
        lines.append(line if line.endswith(b"\n") else line + b"\n")
        if len(lines) == _CHUNK_LINES:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _score_in_processes(
    source: IO[bytes], out: IO[bytes], name: str, options: dict[str, Any], workers: int
) -> None:
    """Score chunks of lines in a process pool, writing results in input order.

    At most ``2 * workers`` chunks are in flight, so memory stays flat on
    large files; the first bad row stops the run after every row before it
    has been written, as in-process scoring does.
    """
    import collections
    import multiprocessing

    with multiprocessing.get_context().Pool(
        workers, initializer=_init_worker, initargs=(name, options)
    ) as pool:
        pending: collections.deque = collections.deque()

        def drain_one() -> None:
            data, error = pending.popleft().get()
            out.write(data)
            if error is not None:
                raise error

        for chunk in _chunks(source):
            pending.append(pool.apply_async(_score_chunk, (chunk,)))
            if len(pending) >= 2 * workers:
                drain_one()
        while pending:
            drain_one()


def _open(path: str) -> IO[bytes]:
    file = Path(path)
    if not file.is_file():
        raise InputError(f"no such dataset file: {path}", field="DATASET")
    return file.open("rb")
