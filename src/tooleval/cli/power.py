"""``tooleval power RUN``: how many rows or repeats a wanted change needs, from a stored run.

Reads the run's variances (within-row from repeats, row-to-row from the
rows; with ``--against RUN_B`` the disagreement of the two runs too) and
prints, per metric, the smallest change the run's size detects (MDE) and,
for each ``--delta``, the rows needed at the stored repeats and the repeats
needed on the stored rows (docs/statistics.md, "Power").
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``power`` command to the CLI's subparsers.

    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["power", "r1", "--delta", "0.03", "--delta", "0.05"])
    >>> args.run, args.delta, args.confidence, args.handler.__name__
    ('r1', [0.03, 0.05], 0.95, 'power')
    """
    from tooleval.cli.compare import _fraction
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "power",
        help="rows or repeats needed to detect a change, from a stored run's variances",
        description="From a stored run (and optionally a second run on the same rows), the "
        "minimum detectable effect and the rows or repeats a wanted change needs.",
    )
    parser.add_argument("run", metavar="RUN", help="a stored run (id or unique prefix)")
    parser.add_argument(
        "--against",
        metavar="RUN_B",
        help="a second run on the same rows: measures their disagreement",
    )
    add_store_option(parser)
    parser.add_argument(
        "--delta",
        type=_fraction("--delta"),
        action="append",
        metavar="D",
        help="a change to detect, as a fraction (0.03 = 3 points); repeatable (default 0.05)",
    )
    parser.add_argument("--metric", action="append", help="only this metric (repeatable)")
    parser.add_argument(
        "--confidence",
        type=_fraction("--confidence"),
        default=0.95,
        help="confidence of the comparison's interval (default 0.95; alpha = 1 - confidence)",
    )
    parser.add_argument(
        "--power", type=_fraction("--power"), default=0.8, help="wanted power (default 0.8)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the advice as JSON")
    parser.set_defaults(handler=power)


def _lines(advice: Any, deltas: list[float]) -> list[str]:
    from tooleval.analysis.stat_lines import pts

    a = advice
    source = "measured against the second run" if a.measured else "assumed 0: one run"
    lines = [
        f"{a.metric}: n={a.n} rows, K={a.k_a}/{a.k_b}; σ²_A={a.sigma2_a:.4f}, "
        f"σ²_B={a.sigma2_b:.4f}, ω²={a.omega2:.4f} ({source})",
        f"  MDE at {1 - a.alpha:.0%} confidence and {a.power:.0%} power: {pts(a.mde)} pts",
    ]
    for delta in deltas:
        rows = a.rows_for(delta)
        repeats = a.repeats_for(delta) if a.k_a > 1 else None
        if a.k_a == 1:
            again = "(repeats: run with --repeat 2 or more to measure the within-row variance)"
        elif repeats is None:
            again = f"no number of repeats on {a.n} rows (ω² alone is too large): add rows"
        else:
            noun = "attempt" if repeats == 1 else "attempts"
            again = f"{repeats} {noun} per row on these {a.n} rows"
        joint = " " if a.k_a == 1 else ", or "
        lines.append(f"  to detect {pts(delta)} pts: {rows} rows at K={a.k_a}{joint}{again}")
    return lines


def power(args: argparse.Namespace) -> int:
    """Print (and with ``--json`` write) the power advice of each metric of a stored run.

    The library call is :func:`tooleval.analysis.power_advice.power_advice`;
    an unknown ``--metric`` or a run it cannot advise on is a ConfigError
    (exit 2). Returns 0.
    """
    from pathlib import Path

    import orjson

    from tooleval.analysis.noise import read_attempts
    from tooleval.analysis.power_advice import power_advice
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError

    if args.json:
        from tooleval.io_atomic import check_output_path

        check_output_path(args.json, option="--json", stores=[args.store], kind="json")
    deltas = args.delta or [0.05]
    with open_cli_store(args) as store:
        run = store.get_run(store.resolve_run_id(args.run))
        table = read_attempts(run, store.iter_rows(run.id))
        other = None
        if args.against:
            run_b = store.get_run(store.resolve_run_id(args.against))
            other = read_attempts(run_b, store.iter_rows(run_b.id))
    metrics = args.metric or list(table.metrics)
    unknown = [m for m in metrics if m not in table.metrics]
    if unknown:
        raise ConfigError(
            f"the run has no metric {unknown[0]!r}; it has {', '.join(table.metrics)}",
            field="--metric",
        )
    advices = []
    for metric in metrics:
        try:
            advices.append(
                power_advice(
                    table, metric, against=other, alpha=1 - args.confidence, power=args.power
                )
            )
        except ValueError as exc:
            raise ConfigError(str(exc), field="RUN") from None
    for advice in advices:
        print("\n".join(_lines(advice, deltas)))
    if args.json:
        from tooleval.io_atomic import atomic_write

        document = [
            {
                **a.to_dict(),
                "deltas": {
                    str(d): {"rows": a.rows_for(d), "repeats": a.repeats_for(d)} for d in deltas
                },
            }
            for a in advices
        ]
        with atomic_write(Path(args.json)) as handle:
            handle.write(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    sys.stdout.flush()
    return 0
