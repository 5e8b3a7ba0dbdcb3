"""``tooleval aggregate RUN_ID|--all``: (re)build the stored per-run aggregates.

The viewer and ``tooleval report`` read a finished run's histograms,
per-category and per-class counts and failure clusters from the store; they
are written on first use. This command writes them ahead of time (after a
big run, or for runs stored by an older tooleval).
"""

from __future__ import annotations

import argparse
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "aggregate",
        help="store a finished run's histograms, counts and failure clusters for fast views",
        description="Compute and store the per-run aggregates that the viewer and the report "
        "read (score histograms, per-category and per-class counts, failure clusters), so "
        "their pages read these and one page of rows instead of every row.",
    )
    parser.add_argument(
        "run_id", nargs="?", metavar="RUN_ID", help="run id, unique prefix, latest or -N"
    )
    parser.add_argument(
        "--all", action="store_true", help="every stopped run in the store (running runs skipped)"
    )
    add_store_option(parser)
    parser.set_defaults(handler=aggregate)


def aggregate(args: argparse.Namespace) -> int:
    from tooleval.analysis.aggregates import FINISHED, aggregate_run
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError

    if bool(args.run_id) == bool(args.all):
        raise ConfigError("give one RUN_ID or --all", field="RUN_ID")
    with open_cli_store(args) as store:
        if args.all:
            ids = [r.id for r in store.list_runs() if r.status in FINISHED]
        else:
            ids = [store.resolve_run_id(args.run_id)]
        for run_id in ids:
            started = time.perf_counter()
            run = aggregate_run(store, run_id)
            took = time.perf_counter() - started
            print(f"{run.id}: aggregates stored ({run.row_count} rows, {took:.1f} s)")
        if not ids:
            print("no stopped runs to aggregate", file=sys.stderr)
    return 0
