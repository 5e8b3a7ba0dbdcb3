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


def iter_rows(stream: IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(row_number, row)`` for each non-blank JSONL line (1-based)."""
    import orjson

    for number, line in enumerate(stream, start=1):
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
    import orjson

    from tooleval.formats import sample_from_row
    from tooleval.metrics.registry import bind, get_metric

    options = parse_options(args.option)
    info = get_metric(args.metric)
    if info.needs_judge:
        raise ConfigError(
            f"metric {args.metric!r} needs an LLM judge; run it with `tooleval run PLAN` "
            "and a `judge:` section in the plan",
            field="--metric",
        )
    metric = bind(args.metric, **options)  # parameters checked once, not per row
    dumps, option = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    source = sys.stdin.buffer if args.dataset == "-" else _open(args.dataset)
    out = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    table_rows: list[tuple[str, Any]] = []
    try:
        for number, row in iter_rows(source):
            try:
                sample = sample_from_row(row, row_number=number)
            except ToolEvalError as exc:
                raise exc.with_context(row=number) from None
            result = metric.score(sample)
            row_id = sample.id if sample.id is not None else str(number)
            record = {"id": row_id, **result.to_dict()}
            out.write(dumps(record, option=option, default=str))
            if args.table:
                table_rows.append((row_id, sample, result))
    finally:
        if source is not sys.stdin.buffer:
            source.close()
        if out is not sys.stdout.buffer:
            out.close()
        else:
            out.flush()
    if args.table:
        from tooleval.cli._table import print_score_table

        print_score_table(table_rows, metric=args.metric, to_stderr=not args.output)
    return 0


def _open(path: str) -> IO[bytes]:
    file = Path(path)
    if not file.is_file():
        raise InputError(f"no such dataset file: {path}", field="DATASET")
    return file.open("rb")
