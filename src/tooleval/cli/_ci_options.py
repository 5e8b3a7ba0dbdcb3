"""The CI options of ``tooleval run``: repeats, the response cache, the rate limit, summaries.

Kept apart from :mod:`tooleval.cli.run` so that module only wires them in:
:func:`add_ci_options` adds them, :func:`run_kwargs` turns them into
:func:`~tooleval.runs.runner.run_plan` arguments, :func:`after_run` reads a
repeated run's pass^k / pass@k into the gate and :func:`write_ci_outputs`
writes the Markdown summary (and ``$GITHUB_STEP_SUMMARY``).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooleval.store import StoreReader


def add_ci_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="run every row N times (1-100); each attempt is stored; reports pass^k, pass@k "
        "and flaky rows",
    )
    parser.add_argument(
        "--gate-on",
        choices=("attempts", "pass^k", "pass@k"),
        default="attempts",
        help="with --repeat: read --min-pass-rate and the plan's pass-rate floors on pass^k "
        "(every attempt passed), pass@k (one passed) or attempts (each attempt a row; default)",
    )
    parser.add_argument(
        "--max-rps",
        type=float,
        metavar="X",
        help="start at most X agent calls per second (token bucket shared by every worker)",
    )
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache",
        action="store_true",
        help="answer from the response cache when the request was seen before, store new answers",
    )
    cache.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the cache (the default)"
    )
    cache.add_argument(
        "--refresh-cache",
        action="store_true",
        help="call the agent for every row and overwrite the cached answers",
    )
    parser.add_argument(
        "--cache-file",
        metavar="FILE",
        help="the response cache (default: responses.db beside the store file)",
    )
    parser.add_argument(
        "--summary-md",
        metavar="FILE",
        help="write a Markdown summary (pass rate, errors, regressions, top failure clusters); "
        "also appended to $GITHUB_STEP_SUMMARY when set",
    )
    parser.add_argument(
        "--baseline",
        metavar="RUN_ID",
        help="the run the summary lists regressions against",
    )


def apply_plan_defaults(args: argparse.Namespace, plan: Any) -> None:
    """Fill ``--repeat``, ``--max-rps`` and the cache from the plan where the command line is silent.

    The command line wins: ``--repeat 1`` runs once a plan that says ``repeat: 3``,
    ``--no-cache`` turns off a plan's ``cache: true``, ``--cache-file`` replaces its file.
    """
    if args.repeat is None:
        args.repeat = plan.repeat
    if args.max_rps is None:
        args.max_rps = plan.max_rps
    if plan.cache and not (args.cache or args.no_cache or args.refresh_cache):
        args.cache = True
    if args.cache_file is None and plan.cache_file is not None and not args.no_cache:
        args.cache_file = str(plan.cache_file)


def check_ci_options(args: argparse.Namespace, inputs: list[Any]) -> None:
    """Usage errors before any call: bad numbers, an unwritable summary path."""
    from tooleval.errors import ConfigError
    from tooleval.io_atomic import check_output_path
    from tooleval.runs.rate_limit import check_rps
    from tooleval.runs.repeats import check_repeat

    if args.repeat is not None:
        check_repeat(args.repeat)
    if args.gate_on != "attempts" and (args.repeat or 1) < 2 and not args.resume:
        raise ConfigError("pass^k and pass@k need --repeat N with N >= 2", field="--gate-on")
    check_rps(args.max_rps)
    if args.cache_file and not (args.cache or args.refresh_cache):
        raise ConfigError("--cache-file needs --cache or --refresh-cache", field="--cache-file")
    if args.cache_file:
        _check_cache_file(args, inputs)
    if args.summary_md:
        check_output_path(args.summary_md, option="--summary-md", inputs=inputs, kind="md")
    refuse_baseline_alone(args.baseline, args.summary_md)


def _check_cache_file(args: argparse.Namespace, inputs: list[Any]) -> None:
    """The response cache never shares a file with the run store or an input."""
    from tooleval.errors import ConfigError
    from tooleval.io_atomic import same_file, store_file

    cache = str(args.cache_file)
    store = store_file(args.store or os.environ.get("TOOLEVAL_STORE") or None)
    if store is not None and same_file(cache, store):
        raise ConfigError(
            f"--cache-file {cache} is the run store's file; the cache needs its own file "
            "(the default is responses.db beside the store)",
            field="--cache-file",
        )
    for given in inputs:
        if given is not None and os.fspath(given) not in ("", "-") and same_file(cache, given):
            raise ConfigError(
                f"--cache-file {cache} is also an input file; give the cache its own file",
                field="--cache-file",
            )


def refuse_baseline_alone(baseline: str | None, summary_md: str | None) -> None:
    """``--baseline`` only changes the Markdown summary: alone it is refused, not ignored."""
    from tooleval.analysis.summary_md import step_summary_path
    from tooleval.errors import ConfigError

    if baseline and not summary_md and step_summary_path() is None:
        raise ConfigError(
            "--baseline needs --summary-md FILE (or $GITHUB_STEP_SUMMARY): the regressions "
            "against the baseline are listed in the Markdown summary",
            field="--baseline",
        )


def make_cache(args: argparse.Namespace) -> Any:
    """The response cache asked for, or None."""
    if not (args.cache or args.refresh_cache):
        return None
    from tooleval.runs.response_cache import ResponseCache, default_cache_path

    store = args.store or os.environ.get("TOOLEVAL_STORE") or None
    path = args.cache_file or default_cache_path(store)
    return ResponseCache(path, refresh=args.refresh_cache)


def run_kwargs(args: argparse.Namespace, cache: Any) -> dict[str, Any]:
    return {"repeat": args.repeat, "max_rps": args.max_rps, "cache": cache}


def after_run(args: argparse.Namespace, store: StoreReader, outcome: Any, console: Any) -> Any:
    """Print a repeated run's pass^k / pass@k and flaky rows.

    The gate itself (on what ``--gate-on`` says) was checked by the runner and is stored
    with the run.
    """
    from tooleval.analysis.repeats import repeat_lines, summarise_run

    summary = summarise_run(store, outcome.run)
    if summary is not None:
        for line in repeat_lines(summary):
            console.print(line, markup=False, highlight=False)
    return outcome


def write_ci_outputs(
    args: argparse.Namespace, store: StoreReader, outcome: Any, cache: Any, console: Any
) -> None:
    """The cache's tally, the Markdown summary and ``$GITHUB_STEP_SUMMARY``."""
    from tooleval.analysis.summary_md import run_summary_markdown, step_summary_path, write_summary

    if cache is not None:
        console.print(cache.describe(), markup=False, highlight=False)
        cache.close()
    if args.summary_md or step_summary_path() is not None:
        text = run_summary_markdown(
            store, outcome.run_id, gate=outcome.gate, baseline=args.baseline
        )
        write_summary(text, args.summary_md)
