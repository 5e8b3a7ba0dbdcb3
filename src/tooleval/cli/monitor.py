"""``tooleval monitor TRACES``: run the trace detectors and report what they found.

Exit codes: 0 done (or no ``--fail-on`` detector found anything), 1 a
``--fail-on`` detector found something, 2 bad input or options: among them a
traces file that is empty, binary, CSV or a JSON array, or of which not one
line or span could be read, so that a ``--fail-on`` gate never passes on
nothing. ``--json`` and ``--emit`` paths are checked before any work.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

STORE_ENV = "TOOLEVAL_STORE"

#: What a line ``--emit`` writes holds (an existing file is replaced only when it has both):
#: an OTLP logs request from tooleval's monitor scope.
EMIT_KEYS = ("resourceLogs",)
EMIT_MARK = b'"tooleval.monitor"'


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "monitor",
        help="find tool misuse in production traces (OTLP JSON or conversation logs)",
        description=(
            "Read OTLP JSON traces (one request per line, or one document) or JSONL "
            "conversation logs, group them into sessions and run detectors that need no "
            "expected calls: redundancy, retry_loop, error_ignored, excessive_calls."
        ),
        epilog=(
            "To monitor live traces instead, run the OTLP/HTTP receiver: "
            "`tooleval monitor serve` (see `tooleval monitor serve --help`)."
        ),
    )
    parser.add_argument("traces", metavar="TRACES", help="OTLP JSON / JSONL traces file")
    parser.add_argument("--json", metavar="FILE", help="write every finding as JSON to FILE")
    parser.add_argument(
        "--store",
        metavar="URL",
        help=f"store findings as a run in this run store (default: ${STORE_ENV} when set)",
    )
    parser.add_argument(
        "--no-store", action="store_true", help=f"do not store findings even if ${STORE_ENV} is set"
    )
    parser.add_argument(
        "--fail-on",
        metavar="DETECTOR",
        nargs="+",
        default=[],
        help="exit 1 when any of these detectors found something",
    )
    add_detector_options(parser)
    parser.add_argument(
        "--emit",
        metavar="FILE",
        help="write gen_ai.evaluation.result events (OTLP JSON logs, one request per line)",
    )
    parser.add_argument(
        "--emit-passes", action="store_true", help="--emit also clean verdicts, not only findings"
    )
    parser.add_argument(
        "--show",
        type=int,
        default=5,
        metavar="N",
        help="findings printed per detector and tool (5)",
    )
    from tooleval.cli.monitor_serve import add_shared_options

    add_shared_options(parser)  # --prices, --judge, --judge-metric, --sample
    parser.set_defaults(handler=handle)


def add_detector_options(parser: argparse.ArgumentParser) -> None:
    """The detectors' options of ``monitor`` and ``monitor serve`` (read by detector_options)."""
    parser.add_argument(
        "--detector",
        dest="detectors",
        metavar="NAME",
        action="append",
        help="run only this detector (repeatable; default: all)",
    )
    parser.add_argument(
        "--min-run", type=int, default=3, help="retry_loop: identical calls that make a loop (3)"
    )
    parser.add_argument(
        "--max-calls", type=int, default=25, help="excessive_calls: calls allowed per session (25)"
    )
    parser.add_argument(
        "--z-threshold",
        type=float,
        default=3.5,
        help="excessive_calls: robust z-score above a tool's usual count that is flagged (3.5)",
    )
    parser.add_argument(
        "--min-sessions",
        type=int,
        default=5,
        help="excessive_calls: sessions using a tool needed before its usual count is trusted (5)",
    )
    parser.add_argument(
        "--after-error",
        action="store_true",
        help="redundancy: also count repeats of a call that had failed",
    )


def detector_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    return {
        "redundancy": {"after_error": args.after_error},
        "retry_loop": {"min_run": args.min_run},
        "excessive_calls": {
            "max_calls": args.max_calls,
            "z_threshold": args.z_threshold,
            "min_sessions": args.min_sessions,
        },
    }


def handle(args: argparse.Namespace) -> int:
    from tooleval.errors import ConfigError
    from tooleval.monitor.detectors import DETECTORS
    from tooleval.monitor.run import monitor

    for name in [*(args.detectors or []), *args.fail_on]:
        if name not in DETECTORS:
            raise ConfigError(f"unknown detector {name!r}; known: {', '.join(DETECTORS)}")
    detectors = args.detectors
    if detectors is not None:
        detectors = list(dict.fromkeys([*detectors, *args.fail_on]))
    options = detector_options(args)
    if detectors is not None:
        options = {k: v for k, v in options.items() if k in detectors}
    from tooleval.io_atomic import atomic_write, check_output_path

    store = None if args.no_store else (args.store or os.environ.get(STORE_ENV) or None)
    if args.json is not None:
        check_output_path(
            args.json, option="--json", inputs=[args.traces], stores=[store], kind="json"
        )
    if args.emit is not None:
        check_output_path(
            args.emit, option="--emit", inputs=[args.traces], stores=[store], kind="jsonl",
            keys=EMIT_KEYS, mark=EMIT_MARK, writes="monitor events",
        )  # fmt: skip
    if args.json is not None and args.emit is not None:
        from tooleval.io_atomic import same_file

        if same_file(args.json, args.emit):
            raise ConfigError(
                "--json and --emit name the same file; give two paths", field="--emit"
            )
    from tooleval.cli.monitor_serve import (
        judging_from_args,
        prices_from_args,
        print_usage,
        with_error_ignored_options,
    )

    report = monitor(
        args.traces,
        detectors=detectors,
        options=with_error_ignored_options(args, options, detectors),
        store=store,
        emit=args.emit,
        emit_passes=args.emit_passes,
        prices=prices_from_args(args),
        judging=judging_from_args(args),
    )
    # (input of which no session could be read stopped monitor() with exit 2 before
    # it stored a run or wrote events: monitor.run.check_something_read)
    if args.json:
        with atomic_write(args.json, "w") as handle:
            json.dump(report.to_dict(), handle, indent=2, default=str)
            handle.write("\n")
    _print(report, show=args.show, emitted=args.emit)
    if report.ingest.status_warning():
        print(f"note: {report.ingest.status_warning()}", file=sys.stderr)
    if print_usage(report):  # tool use it could not read: a gate cannot pass on it
        from tooleval.cli.monitor_serve import unreadable_line

        if args.fail_on:
            print(
                f"monitor: cannot gate: tool use not readable: {unreadable_line(report)}",
                file=sys.stderr,
            )
            return 2
        print(f"warning: tool use not readable: {unreadable_line(report)}", file=sys.stderr)
    failed = [name for name in args.fail_on if report.counts().get(name)]
    if failed:
        print(f"monitor: failing because {', '.join(failed)} found something", file=sys.stderr)
        return 1
    return 0


def _print(report: Any, *, show: int, emitted: str | None) -> None:
    from tooleval.textsafe import visible  # trace text reaches the terminal escaped

    out = sys.stdout
    ingest = report.ingest
    print(
        f"{report.sessions} sessions, {report.calls} tool calls, "
        f"{len(report.findings)} findings ({report.source})",
        file=out,
    )
    if ingest.spans_skipped or ingest.problems:
        print(
            f"skipped: {ingest.spans_skipped} malformed spans, "
            f"{len(ingest.problems) + ingest.problems_dropped} problems",
            file=out,
        )
        for problem in ingest.problems[:show]:
            print(f"  {visible(str(problem))}", file=out)
    for detector, by_tool in report.grouped().items():
        total = sum(len(found) for found in by_tool.values())
        print(f"\n{detector}: {total} finding{'s' if total != 1 else ''}", file=out)
        for tool, found in sorted(by_tool.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {visible(str(tool))}: {len(found)}", file=out)
            for finding in found[:show]:
                spans = visible(",".join(finding.span_ids[:3])) or "-"
                where = f"session {visible(str(finding.session_id))} [spans {spans}]"
                print(f"    {where} {visible(finding.message)}", file=out)
            if len(found) > show:
                print(f"    ... {len(found) - show} more (see --json)", file=out)
    if report.run_id:
        print(f"\nstored as run {report.run_id}", file=out)
    if emitted:
        print(f"evaluation events written to {emitted}", file=out)
