"""``tooleval trace``: look at trace sessions and turn one into a dataset row.

* ``tooleval trace sessions TRACES``: one line per session (id, calls, tools).
* ``tooleval trace to-case TRACES --session ID [-o FILE] [--append]``: the
  session as a canonical dataset row with ``expected_tools: null`` and
  ``metadata.needs_expected_tools: true`` for a person to fill in.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tooleval.cli._groups import add_verb_group


def register(subparsers: Any) -> None:
    verbs = add_verb_group(
        subparsers,
        "trace",
        help="list trace sessions; turn a session into a regression case",
        metavar="ACTION",
    )

    sessions = verbs.add_parser("sessions", help="list the sessions of a traces file")
    sessions.add_argument("traces", metavar="TRACES")
    sessions.add_argument(
        "--prices",
        metavar="FILE",
        help="price table (JSON/YAML: model -> {input, output} per million tokens) for a cost column",
    )
    sessions.set_defaults(handler=handle_sessions)

    to_case = verbs.add_parser(
        "to-case",
        help="write one session as a dataset row whose expected_tools a person fills in",
    )
    to_case.add_argument("traces", metavar="TRACES")
    to_case.add_argument("--session", required=True, metavar="ID", help="session (or trace) id")
    to_case.add_argument("-o", "--output", metavar="FILE", help="write the row here (JSONL)")
    to_case.add_argument(
        "--append", action="store_true", help="append to FILE instead of replacing it"
    )
    to_case.set_defaults(handler=handle_to_case)


def handle_sessions(args: argparse.Namespace) -> int:
    from tooleval.cli.monitor_serve import prices_from_args, usage_columns
    from tooleval.monitor.ingest import read_sessions
    from tooleval.textsafe import visible  # ids and tool names come from the traces

    prices = prices_from_args(args)
    read = 0
    with read_sessions(args.traces) as sessions:
        for session in sessions:
            read += 1
            tools = visible(",".join(dict.fromkeys(c.name for c in session.calls))) or "-"
            errors = sum(1 for c in session.calls if c.is_error)
            usage = usage_columns(session, prices)
            sid = visible(str(session.id))
            print(f"{sid}\t{len(session.calls)} calls\t{errors} errors\t{tools}{usage}", flush=True)
            for reason in session.unreadable:
                print(f"unreadable in session {sid}: {visible(str(reason))}", file=sys.stderr)
        if not read:  # nothing understood: exit 2 with one line, not an empty listing
            from tooleval.monitor.run import MonitorReport, check_something_read

            check_something_read(MonitorReport({}, ingest=sessions.report), args.traces)
        for problem in sessions.report.problems:
            print(f"skipped: {visible(str(problem))}", file=sys.stderr)
        if sessions.report.status_warning():
            print(f"note: {sessions.report.status_warning()}", file=sys.stderr)
    return 0


def handle_to_case(args: argparse.Namespace) -> int:
    from tooleval.errors import InputError
    from tooleval.monitor.ingest import read_sessions
    from tooleval.monitor.to_case import session_to_case

    if args.output:  # before reading the traces: a bad path must not cost the work
        from tooleval.io_atomic import check_output_path

        check_output_path(args.output, option="--output", inputs=[args.traces], kind="jsonl")
    with read_sessions(args.traces) as sessions:
        session = sessions.get(args.session)
        if session is None:
            session = next((s for s in sessions if args.session in s.trace_ids), None)
        if session is None:
            raise InputError(
                f"no session {args.session!r} in the traces (list them with "
                "`tooleval trace sessions TRACES`)",
                path=args.traces,
            )
        row = session_to_case(session)
    line = json.dumps(row, ensure_ascii=False, default=str)
    if args.output:
        from pathlib import Path

        from tooleval.io_atomic import atomic_write

        target = Path(args.output)
        kept = target.read_bytes() if args.append and target.is_file() else b""
        if kept and not kept.endswith(b"\n"):
            kept += b"\n"
        with atomic_write(target) as handle:  # the old rows and the new one, or nothing new
            handle.write(kept + line.encode("utf-8") + b"\n")
        print(
            f"wrote session {session.id} to {args.output}; fill in expected_tools "
            "and remove metadata.needs_expected_tools",
            file=sys.stderr,
        )
    else:
        print(line)
    return 0
