"""``tooleval rescore RUN_ID --metric NAME``: score a stored run again, calling nothing.

A new run is stored from the source run's answers with the metrics and
options given; ``tooleval compare RUN_ID NEW`` then shows what the metric
change did. Exit 0, or 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli._options import refuse_repeats
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "rescore",
        help="score a stored run again with other metrics or options (no agent call)",
        description="Make a new run from RUN_ID's stored agent answers, scored with the "
        "metrics given; compare the two with `tooleval compare`.",
    )
    parser.add_argument(
        "run_id", metavar="RUN_ID", help="the stored run (id, unique prefix, latest or -N)"
    )
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        help="a metric to score with (repeat for several; see `tooleval metrics`)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="[METRIC.]KEY=VALUE",
        help="a metric parameter, VALUE as JSON when it parses (args=ignore, "
        "tool_call_f1.order=flexible); METRIC. may be left out with one --metric",
    )
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="[METRIC=]X",
        help="pass threshold (0-1) for a metric",
    )
    parser.add_argument("--name", help="name of the new run (default: SOURCE (rescored))")
    add_store_option(parser)
    refuse_repeats(parser)
    parser.set_defaults(handler=rescore)


def rescore(args: argparse.Namespace) -> int:
    from tooleval.cli._render import make_console, print_summary
    from tooleval.cli.run import open_cli_store
    from tooleval.runs.rescore import parse_metric_specs, rescore_run

    specs = parse_metric_specs(args.metric, args.option, args.threshold)
    with open_cli_store(args) as store:
        source = store.resolve_run_id(args.run_id)
        new_id = rescore_run(store, source, specs, name=args.name)
        console = make_console(sys.stdout)
        print_summary(console, store.get_run(new_id))
        console.print(f"run {new_id}: rescored from {source}; nothing was called")
        console.print(f"what changed: tooleval compare {source} {new_id}")
    return 0
