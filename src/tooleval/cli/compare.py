"""``tooleval compare RUN_A RUN_B``: what changed between two runs, row by row, and whether it is noise.

Configuration differences come first (only one thing should change), then
per metric and per category how many rows were fixed, regressed or stayed,
then the regressed and fixed rows, then the statistics: per metric (and per
category) the paired difference Δ with its interval, McNemar or the paired t
test, the MDE and a verdict (docs/statistics.md).

The unit is the dataset row on every line (a repeated run's attempts are grouped
back into their row; a row's figure is its pass rate over its attempts), stated
at the top and in the JSON.

``--fail-on-regression`` exits 1 when a metric's verdict is a regression: its
whole interval lies below 0 (below −``--margin``), Holm-corrected across the
metrics and slices; when a metric is inconclusive it says the runs are too small
to tell and about how many rows would tell the change seen.
``--fail-on-inconclusive`` also exits 1 then. ``--fail-on-any-regressed-row``
keeps the strict rule (exit 1 when any single row regressed);
``--fail-on-score-drop`` also when a row's score dropped although it still passes.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _fraction(option: str, *, open_low: bool = True) -> Any:
    # argparse turns ArgumentTypeError into its one-line usage error (exit 2).
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        low_ok = value > 0.0 if open_low else value >= 0.0
        if not (low_ok and value < 1.0):
            raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
        return value

    return parse


def add_stats_options(parser: argparse.ArgumentParser) -> None:
    """``--confidence``, ``--power``, ``--cluster-key``, ``--seed``: shared by compare and power."""
    parser.add_argument(
        "--confidence",
        type=_fraction("--confidence"),
        default=0.95,
        help="confidence of the intervals (default 0.95)",
    )
    parser.add_argument(
        "--power",
        type=_fraction("--power"),
        default=0.8,
        help="power for the minimum detectable effect (default 0.8)",
    )
    parser.add_argument(
        "--cluster-key",
        metavar="FIELD",
        help="rows sharing this metadata field (or 'category') are one cluster: clustered SEs",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the bootstrap and sign-flip test (default 0)"
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "compare",
        help="per-row deltas between two runs, the paired difference and a verdict",
        description="Compare run B against run A: configuration differences first, then "
        "per-metric and per-category deltas, the rows that moved, and the paired statistics "
        "(interval of the difference, McNemar, MDE, regression / improvement / inconclusive).",
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
    add_stats_options(parser)
    parser.add_argument(
        "--margin",
        type=_fraction("--margin", open_low=False),
        default=0.0,
        help="a regression must be worse than this (0-1, e.g. 0.02 = 2 points; default 0)",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a metric's verdict is a regression (its interval below -margin)",
    )
    parser.add_argument(
        "--fail-on-inconclusive",
        action="store_true",
        help="exit 1 also when a metric's verdict is inconclusive (the runs too small to tell)",
    )
    parser.add_argument(
        "--fail-on-any-regressed-row",
        action="store_true",
        help="exit 1 when any single row regressed, noise or not",
    )
    parser.add_argument(
        "--fail-on-score-drop",
        action="store_true",
        help="exit 1 when any row regressed or its score dropped (even if it still passes)",
    )
    parser.set_defaults(handler=compare)


def print_stats(stats: list[Any], stream: Any) -> None:
    """The statistics block: one line per metric and slice, with its details."""
    from tooleval.analysis.stat_lines import compare_detail, compare_line

    if not stats:
        print("\nstatistics: no row is scored in both runs", file=stream)
        return
    first = stats[0].stats
    print(f"\nstatistics (B − A, paired over rows, {first.confidence:.0%}):", file=stream)
    for c in stats:
        where = c.metric if c.slice == "(all)" else f"  {c.metric} · {c.slice}"
        print(f"  {where}: {compare_line(c)}", file=stream)
        print(f"  {' ' * len(where)}  {compare_detail(c)}", file=stream)
        for note in c.stats.notes:
            print(f"  {' ' * len(where)}  note: {note}", file=stream)


def compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    import orjson

    from tooleval.analysis.compare import compare_runs
    from tooleval.analysis.figures import run_figures
    from tooleval.cli._render import make_console, print_comparison
    from tooleval.cli.run import open_cli_store

    if args.json:
        from tooleval.io_atomic import check_output_path

        check_output_path(args.json, option="--json", stores=[args.store], kind="json")
    with open_cli_store(args) as store:
        run_a, run_b = store.resolve_run_id(args.run_a), store.resolve_run_id(args.run_b)
        sides = (
            run_figures(store, store.get_run(run_a)),
            run_figures(store, store.get_run(run_b)),
        )
        comparison = compare_runs(
            store,
            run_a,
            run_b,
            figures=sides,
            statistics={
                "confidence": args.confidence,
                "power": args.power,
                "margin": args.margin,
                "cluster_key": args.cluster_key,
                "seed": args.seed,
            },
        )
    print_comparison(make_console(sys.stdout), comparison, limit=max(args.rows, 0))
    sys.stdout.flush()
    stats = list(comparison.statistics)
    print_stats(stats, sys.stdout)
    for small in comparison.too_small:
        print(f"  {small.text}", file=sys.stdout)
    if args.json:
        from tooleval.io_atomic import atomic_write

        with atomic_write(Path(args.json)) as handle:
            handle.write(
                orjson.dumps(comparison.to_dict(), default=str, option=orjson.OPT_INDENT_2)
            )
    overall = [c for c in stats if c.slice == "(all)"]
    regressions = [c for c in overall if c.verdict.kind == "regression"]
    if args.fail_on_regression and regressions:
        return 1
    if (args.fail_on_regression or args.fail_on_inconclusive) and comparison.too_small:
        fails = args.fail_on_inconclusive
        print(
            "compare: no regression shown, but the runs are too small to tell for "
            f"{', '.join(t.metric for t in comparison.too_small)}"
            + (
                " (--fail-on-inconclusive: exit 1)"
                if fails
                else "; add rows (see above), or --fail-on-inconclusive to fail on this"
            ),
            file=sys.stderr,
        )
        if fails:
            return 1
    if args.fail_on_any_regressed_row and comparison.changed("regressed"):
        return 1
    if args.fail_on_score_drop and (
        comparison.changed("regressed") or comparison.changed("score_down")
    ):
        return 1
    return 0
