"""``tooleval compare RUN_A RUN_B``: what changed between two runs, row by row.

Configuration differences come first (only one thing should change), then
per metric and per category how many rows were fixed, regressed or stayed,
then the regressed and fixed rows. ``--fail-on-regression`` exits 1 when any
row regressed (a CI check for a prompt change); ``--fail-on-score-drop`` also
when a row's score dropped although it still passes.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "compare",
        help="per-row deltas between two runs (fixed, regressed, unchanged)",
        description="Compare run B against run A: configuration differences first, then "
        "per-metric and per-category deltas and the rows that moved.",
    )
    parser.add_argument(
        "run_a", metavar="RUN_A", help="the baseline run (id, unique prefix, latest or -N)"
    )
    parser.add_argument(
        "run_b", metavar="RUN_B", help="the new run (id, unique prefix, latest or -N)"
    )
    add_store_option(parser)
    parser.add_argument("--rows", type=int, default=20, help="moved rows to list per kind")
    parser.add_argument("--json", metavar="FILE", help="write the comparison as JSON")
    parser.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when any row regressed"
    )
    parser.add_argument(
        "--fail-on-score-drop",
        action="store_true",
        help="exit 1 when any row regressed or its score dropped (even if it still passes)",
    )
    parser.set_defaults(handler=compare)


def compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    import orjson

    from tooleval.analysis.compare import compare_runs
    from tooleval.cli.run import open_cli_store
    from tooleval.runs.render import make_console, print_comparison

    if args.json:
        from tooleval.io_atomic import check_output_path

        check_output_path(args.json, option="--json")
    with open_cli_store(args) as store:
        comparison = compare_runs(
            store, store.resolve_run_id(args.run_a), store.resolve_run_id(args.run_b)
        )
    print_comparison(make_console(sys.stdout), comparison, limit=max(args.rows, 0))
    if args.json:
        from tooleval.io_atomic import atomic_write

        with atomic_write(Path(args.json)) as handle:
            handle.write(
                orjson.dumps(comparison.to_dict(), default=str, option=orjson.OPT_INDENT_2)
            )
    if args.fail_on_regression and comparison.changed("regressed"):
        return 1
    if args.fail_on_score_drop and (
        comparison.changed("regressed") or comparison.changed("score_down")
    ):
        return 1
    return 0
