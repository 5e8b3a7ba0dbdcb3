"""``tooleval runs list`` and ``tooleval runs show RUN_ID``: read stored runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tooleval.cli._groups import add_verb_group


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    verbs = add_verb_group(
        subparsers,
        "runs",
        help="list stored runs, or show one with its failures clustered by cause",
        description="Read the run store.",
    )
    listing = verbs.add_parser("list", help="stored runs, newest first")
    add_store_option(listing)
    listing.add_argument("--tag", help="only runs with this tag")
    listing.add_argument("--search", help="only runs whose id or name contains this")
    listing.add_argument("--limit", type=int, default=20, help="at most this many (default 20)")
    listing.set_defaults(handler=list_runs)
    show = verbs.add_parser(
        "show",
        help="summary per metric and category, failure clusters, failing rows",
    )
    show.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, latest or -N")
    add_store_option(show)
    show.add_argument("--category", help="only rows of this category")
    show.add_argument("--limit", type=int, default=20, help="failing rows to print (default 20)")
    from tooleval.cli.compare import add_stats_options

    add_stats_options(show)
    show.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="N",
        help="add a seeded BCa bootstrap interval with N resamples as a cross-check (default off)",
    )
    show.set_defaults(handler=show_run)
    from tooleval.cli._run_export import add_export_verb

    add_export_verb(verbs)


def list_runs(args: argparse.Namespace) -> int:

    from tooleval.analysis.figures import run_figures
    from tooleval.cli._render import make_console, print_run_list, run_status
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError

    if args.limit < 1:
        raise ConfigError(f"expected a whole number >= 1, got {args.limit}", field="--limit")
    with open_cli_store(args) as store:
        runs = store.list_runs(search=args.search, tag=args.tag, limit=args.limit)
        statuses = {run.id: run_status(store, run) for run in runs}
        figures = {run.id: run_figures(store, run) for run in runs}
        print_run_list(make_console(sys.stdout), runs, statuses, figures)
    return 0


def show_run(args: argparse.Namespace) -> int:

    from tooleval.cli._render import make_console
    from tooleval.cli._render import show_run as render
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError

    if args.limit < 0:
        raise ConfigError(f"expected a whole number >= 0, got {args.limit}", field="--limit")
    if args.bootstrap < 0:
        raise ConfigError(
            f"expected a whole number >= 0, got {args.bootstrap}", field="--bootstrap"
        )
    with open_cli_store(args) as store:
        run_id = store.resolve_run_id(args.run_id)
        render(make_console(sys.stdout), store, run_id, category=args.category, limit=args.limit)
        lines = _interval_lines(store, run_id, args)
    sys.stdout.flush()
    print("\n".join(lines))
    return 0


def _interval_lines(store: Any, run_id: str, args: argparse.Namespace) -> list[str]:
    """Each metric's pass rate (and score) with its interval, per category (``--category``: one),
    from the run's read model (:func:`tooleval.analysis.figures.run_figures`)."""
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.gate import stored_gate
    from tooleval.analysis.stat_lines import gate_lines, interval_lines
    from tooleval.calibration import gate_calibrations
    from tooleval.report.judged_rates import judged_rate_lines

    run = store.get_run(run_id)
    figures = run_figures(store, run, confidence=args.confidence, cluster_key=args.cluster_key)
    bootstrap = None
    if args.bootstrap:
        from tooleval.analysis.noise import ALL, read_attempts, run_intervals

        rows = store.iter_rows(run.id, category=args.category)
        table = read_attempts(run, rows, cluster_key=args.cluster_key)
        options = {"confidence": args.confidence, "bootstrap": args.bootstrap, "seed": args.seed}
        bootstrap = {
            metric: per[ALL].bootstrap
            for metric, per in run_intervals(table, **options).items()
            if ALL in per
        }
    calibrations = gate_calibrations(store, run)
    gate = gate_lines(stored_gate(run, store=store, calibrations=calibrations))
    lines = interval_lines(figures, category=args.category, bootstrap=bootstrap)
    return [*lines, *judged_rate_lines(calibrations), *gate]
