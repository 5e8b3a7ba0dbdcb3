"""``tooleval report RUN_ID -o report.html``: one self-contained HTML file for a run."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report of a run (or of a comparison of two runs)",
        description="Write one HTML file (no network, CSS inlined, charts as SVG) with the run "
        "header, per-metric and per-category pass rates, failure clusters and row cards "
        "(failures first). With --compare, add what changed against a baseline run.",
    )
    parser.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, latest or -N")
    add_store_option(parser)
    parser.add_argument(
        "-o", "--output", default="report.html", metavar="FILE", help="where to write (report.html)"
    )
    parser.add_argument(
        "--compare",
        metavar="BASELINE_RUN_ID",
        help="compare with this baseline run (A); RUN_ID is the new run (B)",
    )
    parser.add_argument(
        "--max-rows",
        type=int,
        default=200,
        metavar="N",
        help="row cards to include, failures first (default 200; the report says how many "
        "were left out)",
    )
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    from tooleval.calibration import gate_calibrations
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError
    from tooleval.report.static import write_report

    if args.max_rows < 0:
        raise ConfigError(f"expected a whole number >= 0, got {args.max_rows}", field="--max-rows")
    from tooleval.errors import InputError
    from tooleval.io_atomic import check_output_path

    try:
        check_output_path(args.output, option="--output", kind="html")  # before the store is read
    except InputError as exc:
        raise InputError(f"cannot write the report: {exc.message}", field="--output") from None
    with open_cli_store(args) as store:
        run_id = store.resolve_run_id(args.run_id)
        baseline = store.resolve_run_id(args.compare) if args.compare else None
        path = write_report(
            store,
            run_id,
            args.output,
            compare_with=baseline,
            max_rows=args.max_rows,
            calibrations=gate_calibrations(store, store.get_run(run_id)),
        )
    print(f"report written to {path}", file=sys.stdout)
    return 0
