"""``tooleval rescore RUN_ID --metric NAME``: score a stored run again, calling no agent.

A new run is stored from the source run's answers with the metrics and
options given; ``tooleval compare RUN_ID NEW`` then shows what the metric
change did. Judged metrics call the judge of ``--judge`` / ``--judge-option``
(or ``$TOOLEVAL_JUDGE``, as ``tooleval score`` reads them), ``--concurrency``
rows at a time (default: the local judge's batch, 8, decoded together; other
judges 4), and nothing else. Exit 0, or 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli._options import refuse_repeats
    from tooleval.cli.run import add_store_option
    from tooleval.cli.score import add_judge_options

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
    add_judge_options(parser)
    add_store_option(parser)
    refuse_repeats(parser)
    parser.set_defaults(handler=rescore)


def rescore(args: argparse.Namespace) -> int:
    from tooleval.cli._render import make_console, print_summary
    from tooleval.cli.run import open_cli_store
    from tooleval.llm.base import rows_at_once
    from tooleval.runs.progress import make_progress
    from tooleval.runs.rescore import parse_metric_specs, rescore_run

    specs = parse_metric_specs(args.metric, args.option, args.threshold)
    judge = _judge(args, [spec.name for spec in specs])
    with open_cli_store(args) as store:
        source = store.resolve_run_id(args.run_id)
        new_id = rescore_run(
            store,
            source,
            specs,
            name=args.name,
            judge=judge,
            concurrency=rows_at_once(judge, args.concurrency),
            progress=make_progress(sys.stderr) if judge is not None else None,
        )
        console = make_console(sys.stdout)
        print_summary(console, store, store.get_run(new_id))
        called = "no agent was called" if judge is not None else "nothing was called"
        console.print(f"run {new_id}: rescored from {source}; {called}")
        console.print(f"what changed: tooleval compare {source} {new_id}")
    if judge is not None:
        usage = judge.usage.to_dict()
        print(
            f"tooleval rescore: judge {usage.get('calls', 0)} calls, "
            f"{usage.get('cached_calls', 0)} from the cache, "
            f"{usage.get('tokens_in', 0)} tokens in, {usage.get('tokens_out', 0)} out",
            file=sys.stderr,
        )
    return 0


def _judge(args: argparse.Namespace, names: list[str]) -> Any:
    """The judge for the judged metrics among ``names`` (as ``tooleval score`` builds it), or None.

    ``--judge`` or ``--judge-option`` without a judged metric is refused, never ignored.
    """
    from tooleval.cli.score import make_judge
    from tooleval.errors import ConfigError
    from tooleval.metrics.registry import get_metric

    judged = []
    for name in names:
        try:
            if get_metric(name).needs_judge:
                judged.append(name)
        except ConfigError:
            pass  # an unknown metric: rescore_run names it, with the closest name
    if not judged:
        given = [flag for flag, value in (("--judge", args.judge), ("--judge-option",
                 args.judge_option), ("--concurrency", args.concurrency)) if value]  # fmt: skip
        if given and all(_known(name) for name in names):
            raise ConfigError(
                f"{' and '.join(given)} given, but no metric of {', '.join(names)} is judged; "
                "drop it or add a judged metric (tooleval metrics lists them)",
                field=given[0],
            )
        return None
    return make_judge(args, judged)


def _known(name: str) -> bool:
    from tooleval.errors import ConfigError
    from tooleval.metrics.registry import get_metric

    try:
        get_metric(name)
    except ConfigError:
        return False
    return True
