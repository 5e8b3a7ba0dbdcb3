"""``tooleval dataset check FILE [--bind FIELD=COLUMN ...] [--require FIELD ...]``.

Validates a dataset and prints per-column findings: bound field, non-empty
count, value shapes seen and parse errors with row numbers. Exit 0 when every
row reads cleanly, 2 when any row has an error (or the file is unusable).
"""

from __future__ import annotations

import argparse
import json

from tooleval.cli._groups import add_verb_group


def register(subparsers: argparse._SubParsersAction) -> None:
    verbs = add_verb_group(
        subparsers,
        "dataset",
        help="check a dataset file",
        description="Work with dataset files (CSV, JSONL, JSON, Parquet).",
    )
    check = verbs.add_parser(
        "check",
        help="validate a dataset and print per-column findings",
        description=(
            "Load a dataset as a run would and print, per column, the field it binds to, the "
            "non-empty count, the value shapes seen and parse errors by row number. "
            "Exit 0 clean, 2 if any row has an error."
        ),
    )
    check.add_argument(
        "file", metavar="FILE", help="dataset file (.csv .tsv .jsonl .json .parquet)"
    )
    check.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="bind a column to a Sample field, e.g. --bind expected_tools=my_column (repeatable)",
    )
    check.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="FIELD",
        help="fail (exit 2) unless FIELD is bound, e.g. --require expected_tools (repeatable)",
    )
    check.add_argument("--format", default=None, help="csv, tsv, jsonl, json or parquet")
    check.add_argument("--json", action="store_true", help="print the findings as JSON")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from tooleval.datasets import load_dataset, parse_bind_options
    from tooleval.datasets.check import check_dataset, format_check

    dataset = load_dataset(args.file, bind=parse_bind_options(args.bind), format=args.format)
    dataset.require(args.require)
    report = check_dataset(dataset)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, default=str, ensure_ascii=False))
    else:
        print(format_check(report))
    return 0 if report.ok else 2
