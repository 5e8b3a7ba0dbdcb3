"""``tooleval run PLAN``: run a plan against the live agent, store it, gate it.

Exit codes: 0 the gate passed (or none is configured), 1 the gate failed,
2 a usage or input error (bad plan, unbound expected_tools, unreachable
store), 130 interrupted (resume with ``--resume RUN_ID``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

STORE_HELP = (
    "run store: a file path, sqlite:///FILE or postgresql://USER@HOST:PORT/DB "
    "(default: $TOOLEVAL_STORE or .tooleval/runs.db)"
)


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="URL", help=STORE_HELP)


def open_cli_store(args: argparse.Namespace) -> Any:
    from tooleval.store import open_store

    return open_store(args.store or os.environ.get("TOOLEVAL_STORE") or None)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run an evaluation plan against the agent and store every result",
        description="Run every dataset row through the agent, score it, store it row by row, "
        "and check the gate (exit 0 pass, 1 gate failed, 2 input error).",
    )
    parser.add_argument("plan", help="plan file (YAML; see docs/runs.md)")
    parser.add_argument("--concurrency", type=int, help="rows in flight at once (default: plan, 8)")
    add_store_option(parser)
    parser.add_argument("--resume", metavar="RUN_ID", help="finish a stopped run of this plan")
    parser.add_argument(
        "--min-pass-rate", type=float, metavar="X", help="gate: every metric's pass rate >= X (0-1)"
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML (row × metric testcases)")
    parser.add_argument("--json", metavar="FILE", help="write the full results as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    parser.set_defaults(handler=run)


class _Tracked:
    """Remembers the run id the runner announces, for the interrupt message."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.run_id: str | None = None

    def start(self, *, total: int, done: int, run_id: str) -> None:
        self.run_id = run_id
        if self.inner is not None:
            self.inner.start(total=total, done=done, run_id=run_id)

    def advance(self, *, error: bool) -> None:
        if self.inner is not None:
            self.inner.advance(error=error)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from tooleval.errors import ConfigError
    from tooleval.runs.export import write_json, write_junit
    from tooleval.runs.plan import load_plan
    from tooleval.runs.progress import make_progress
    from tooleval.runs.render import make_console, print_gate, print_summary
    from tooleval.runs.runner import run_plan

    plan = load_plan(args.plan)
    gate = plan.gate
    if args.min_pass_rate is not None:
        if not 0.0 <= args.min_pass_rate <= 1.0:
            raise ConfigError(
                f"expected a number between 0 and 1, got {args.min_pass_rate}",
                field="--min-pass-rate",
            )
        gate = dataclasses.replace(gate, min_pass_rate=args.min_pass_rate)
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigError(
            f"expected a whole number >= 1, got {args.concurrency}", field="--concurrency"
        )
    tracked = _Tracked(None if args.quiet else make_progress(sys.stderr))
    # CI runners stop jobs with SIGTERM: treat it like Ctrl-C, so the run is
    # marked interrupted and the resume command is printed.
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = (
        signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
        if in_main_thread
        else None
    )
    store = open_cli_store(args)
    try:
        try:
            outcome = run_plan(
                plan,
                store=store,
                concurrency=args.concurrency,
                resume=args.resume,
                progress=tracked,
                gate=gate,
            )
        except KeyboardInterrupt:
            if tracked.run_id:
                stored = store.count_rows(tracked.run_id)
                print(
                    f"tooleval run: interrupted; {stored} rows stored. Finish it with:\n"
                    f"  tooleval run {args.plan} --resume {tracked.run_id}"
                    + (f" --store {args.store}" if args.store else ""),
                    file=sys.stderr,
                )
            else:
                print("tooleval run: interrupted", file=sys.stderr)
            return 130
        console = make_console(sys.stdout)
        print_summary(console, outcome.run)
        resumed = f", {outcome.rows_skipped} were already stored" if outcome.rows_skipped else ""
        console.print(f"run {outcome.run_id}: {outcome.rows_run} rows run{resumed}")
        print_gate(console, outcome.gate)
        failing = store.count_rows(outcome.run_id, passed=False) + outcome.run.error_count
        if failing:
            console.print(f"failures by cause: tooleval runs show {outcome.run_id}")
        if args.junit:
            write_junit(args.junit, outcome.run, store.iter_rows(outcome.run_id))
        if args.json:
            write_json(args.json, outcome.run, store.iter_rows(outcome.run_id), gate=outcome.gate)
        return 0 if outcome.gate.passed else 1
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)
        store.close()
