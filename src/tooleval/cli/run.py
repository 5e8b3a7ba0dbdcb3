"""``tooleval run PLAN``: run a plan against the live agent, store it, gate it.

Exit codes: 0 the gate passed, 1 the gate failed (a pass rate under its
floor, or more error rows than ``--max-error-rate`` allows: by default any;
a plan that sets no floor gets the default one, every scored row passes, as
pytest fails on any failed test),
2 a usage or input error (bad plan, failed preflight, unbound
expected_tools, unreachable store, a run another live process works),
130 interrupted by SIGINT, 143 stopped by SIGTERM (both leave the run
resumable with ``--resume RUN_ID``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooleval.store import Store, StoreReader

STORE_HELP = (
    "run store: a file path, sqlite:///FILE or postgresql://USER@HOST:PORT/DB "
    "(default: $TOOLEVAL_STORE or .tooleval/runs.db)"
)


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="URL", help=STORE_HELP)


def open_cli_store(args: argparse.Namespace, *, create: bool = False) -> Any:
    """The store ``--store`` / ``$TOOLEVAL_STORE`` names; only writers create a missing one."""
    from tooleval.store import open_store

    return open_store(args.store or os.environ.get("TOOLEVAL_STORE") or None, create=create)


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli._ci_options import add_ci_options
    from tooleval.cli._options import refuse_repeats

    parser = subparsers.add_parser(
        "run",
        help="run an evaluation plan against the agent and store every result",
        description="Run every dataset row through the agent, score it, store it row by row, "
        "and check the gate (exit 0 pass, 1 gate failed, 2 input error, 130/143 interrupted).",
    )
    parser.add_argument("plan", help="plan file (YAML; see docs/runs.md)")
    parser.add_argument("--concurrency", type=int, help="rows in flight at once (default: plan, 8)")
    add_store_option(parser)
    parser.add_argument("--resume", metavar="RUN_ID", help="finish a stopped run of this plan")
    parser.add_argument(
        "--min-pass-rate",
        type=float,
        metavar="X",
        help="gate: every metric's pass rate >= X (0-1); error rows count as not passed",
    )
    parser.add_argument(
        "--max-error-rate",
        type=float,
        metavar="X",
        help="gate: at most this fraction of rows may be errors (0-1; default 0: any error fails)",
    )
    parser.add_argument(
        "--confidence",
        type=float,
        metavar="C",
        help="gate: check pass-rate floors on the C interval (e.g. 0.95; docs/statistics.md)",
    )
    parser.add_argument(
        "--on-uncertain",
        choices=("fail", "pass", "point"),
        help="gate: what a rate whose interval straddles its floor does (default fail)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="run the preflight only (bindings, prompts, ${VAR}s, templates, tool-call source, "
        "ids); call nothing, store nothing",
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML (row × metric testcases)")
    parser.add_argument("--json", metavar="FILE", help="write the full results as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    add_ci_options(parser)
    refuse_repeats(parser)  # an option given twice is refused, never the last one kept
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


class _StopSignals:
    """SIGINT and SIGTERM both stop the run cleanly, whatever the inherited disposition.

    A shell starts background jobs with SIGINT ignored, so re-raising SIGINT
    from a SIGTERM handler did nothing there. For the run SIGINT gets
    Python's own handler back (``asyncio.run`` then replaces it with a clean
    cancel of the rows in flight) and SIGTERM calls whatever SIGINT handler
    is in force; SIGTERM is remembered so the exit code is 143 (SIGINT 130).
    """

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self
        self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
        self._previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._terminate)
        return self

    def _terminate(self, signum: int, frame: Any) -> None:
        if self.received is None:
            self.received = signum
        current = signal.getsignal(signal.SIGINT)
        if callable(current) and current is not self._terminate:
            current(signal.SIGINT, frame)
            return
        raise KeyboardInterrupt

    @property
    def exit_code(self) -> int:
        return 143 if self.received == signal.SIGTERM else 130

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)


def _gate_from_args(plan: Any, args: argparse.Namespace) -> Any:
    import dataclasses

    from tooleval.errors import ConfigError

    gate = plan.gate
    for option, key in (
        ("--min-pass-rate", "min_pass_rate"),
        ("--max-error-rate", "max_error_rate"),
    ):
        value = getattr(args, key)
        if value is None:
            continue
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"expected a number between 0 and 1, got {value}", field=option)
        gate = dataclasses.replace(gate, **{key: value})
    if args.confidence is not None:
        if not 0.0 < args.confidence < 1.0:
            raise ConfigError(
                f"expected a number between 0 and 1 (e.g. 0.95), got {args.confidence}",
                field="--confidence",
            )
        gate = dataclasses.replace(gate, confidence=args.confidence)
    if args.on_uncertain is not None:
        gate = dataclasses.replace(gate, on_uncertain=args.on_uncertain)
    if getattr(args, "gate_on", "attempts") != "attempts":
        gate = dataclasses.replace(gate, gate_on=args.gate_on)
    return gate


def _check_option_needs(args: argparse.Namespace, plan: Any) -> None:
    """An option that does nothing without another one is refused, naming the one it needs."""
    from tooleval.analysis.summary_md import step_summary_path
    from tooleval.errors import ConfigError

    if args.baseline and not args.summary_md and step_summary_path() is None:
        raise ConfigError(
            "--baseline needs --summary-md (or $GITHUB_STEP_SUMMARY): the summary is where "
            "the regressions against the baseline are listed",
            field="--baseline",
        )
    if args.on_uncertain is not None and args.confidence is None and plan.gate.confidence is None:
        raise ConfigError(
            "--on-uncertain needs --confidence (or gate: confidence in the plan): without an "
            "interval no check is uncertain",
            field="--on-uncertain",
        )


def _check_outputs(args: argparse.Namespace, plan: Any) -> None:
    """Refuse an output path that cannot be written before any agent call."""
    from tooleval.errors import ConfigError
    from tooleval.io_atomic import check_output_path

    store = args.store or os.environ.get("TOOLEVAL_STORE") or ""
    inputs = [args.plan, plan.dataset.path, store if "://" not in store else None]
    for option in ("junit", "json"):
        value = getattr(args, option)
        if value is None:
            continue
        check_output_path(
            value,
            option=f"--{option}",
            inputs=inputs,
            stores=[store or None],
            kind="xml" if option == "junit" else "json",
        )
    if args.junit and args.json and os.path.abspath(args.junit) == os.path.abspath(args.json):
        raise ConfigError("--junit and --json name the same file", field="--json")
    from tooleval.cli._ci_options import check_ci_options

    check_ci_options(args, [*inputs, args.junit, args.json])


def _dry_run(plan: Any, args: argparse.Namespace) -> int:
    from tooleval.runs.runner import check_plan
    from tooleval.textsafe import visible

    report = check_plan(plan)
    for line in report.lines():
        print(visible(line), file=sys.stderr if line.startswith("problem") else sys.stdout)
    if not report.ok:
        n = len(report.problems)
        print(
            f"tooleval run: preflight failed: {n} problem{'s' if n != 1 else ''}; "
            "nothing was called",
            file=sys.stderr,
        )
        return 2
    ready = report.rows - report.unreadable
    unreadable = f", {report.unreadable} unreadable (error rows)" if report.unreadable else ""
    print(f"preflight OK: {ready} rows ready{unreadable}; nothing was called (--dry-run)")
    return 0


def run(args: argparse.Namespace) -> int:
    from tooleval.cli._ci_options import apply_plan_defaults
    from tooleval.errors import ConfigError
    from tooleval.runs.plan import default_floor, load_plan

    plan = load_plan(args.plan)
    apply_plan_defaults(args, plan)
    _check_option_needs(args, plan)
    given = _gate_from_args(plan, args)
    gate = default_floor(given)
    args.default_floor = gate is not given
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigError(
            f"expected a whole number >= 1, got {args.concurrency}", field="--concurrency"
        )
    if args.dry_run:
        return _dry_run(plan, args)
    _check_outputs(args, plan)
    tracked = _Tracked(None)
    fresh = _missing_store_files(args)
    with _StopSignals() as signals:
        try:
            store = open_cli_store(args, create=True)
            try:
                return _run(plan, gate, args, store, tracked)
            except KeyboardInterrupt:
                _interrupted(args, signals, tracked, store)
                return signals.exit_code
            finally:
                unused = bool(fresh) and tracked.run_id is None and _holds_no_run(store)
                store.close()
                if unused:
                    _remove_unused(fresh)
        except KeyboardInterrupt:
            _interrupted(args, signals, tracked, None)
            return signals.exit_code


def _missing_store_files(args: argparse.Namespace) -> list[Path]:
    """The SQLite store file and folders this run would create, if they do not exist yet.

    A run that stops before it records anything (a failed preflight, a bad
    option) removes them again, so a typo never leaves an empty store behind.
    """
    from tooleval.store import resolve_store_url

    url = resolve_store_url(args.store or os.environ.get("TOOLEVAL_STORE") or None)
    if not url.startswith("sqlite:///") or ":memory:" in url or "?" in url:
        return []
    path = Path(url[len("sqlite:///") :]).absolute()
    if path.exists():
        return []
    missing = [path]
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    return missing


def _holds_no_run(store: Any) -> bool:
    try:
        return not store.list_runs()
    except Exception:  # an unreadable store is left as it is
        return False


def _remove_unused(created: list[Path]) -> None:
    """Remove a store file (with its -wal/-shm/-journal companions) and folders made for it."""
    if not created:
        return
    store_file, folders = created[0], created[1:]
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            Path(f"{store_file}{suffix}").unlink()
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty: anything else in it stays


def _interrupted(
    args: argparse.Namespace, signals: Any, tracked: _Tracked, store: StoreReader | None
) -> None:
    how = "stopped by SIGTERM" if signals.exit_code == 143 else "interrupted"
    if tracked.run_id and store is not None:
        stored = store.count_rows(tracked.run_id)
        print(
            f"tooleval run: {how}; {stored} rows stored. Finish it with:\n"
            f"  tooleval run {args.plan} --resume {tracked.run_id}"
            + (f" --store {args.store}" if args.store else ""),
            file=sys.stderr,
        )
    else:
        print(f"tooleval run: {how}", file=sys.stderr)


FIRST_ERRORS = 3


def print_first_errors(store: StoreReader, run_id: str) -> None:
    """The causes of the run's first error rows on stderr (an agent that is down, ...).

    Each distinct cause once, with how many rows had it and the first row's id; at most
    :data:`FIRST_ERRORS` causes (``tooleval runs show`` has every row).
    """
    from tooleval.cli.main import one_line
    from tooleval.textsafe import visible

    causes: dict[str, list[str]] = {}
    for row in store.iter_rows(run_id, error=True):
        cause = one_line(row.error or "", limit=300)
        if cause in causes or len(causes) < FIRST_ERRORS:
            causes.setdefault(cause, []).append(row.row_id)
    for cause, rows in causes.items():
        others = f" and {len(rows) - 1} more" if len(rows) > 1 else ""
        print(
            f"tooleval run: error in row {visible(rows[0])}{others}: {visible(cause)}",
            file=sys.stderr,
        )


def _run(plan: Any, gate: Any, args: argparse.Namespace, store: Store, tracked: _Tracked) -> int:
    from tooleval.analysis.export import write_json, write_junit
    from tooleval.cli._ci_options import after_run, make_cache, run_kwargs, write_ci_outputs
    from tooleval.cli._render import make_console, print_gate, print_summary
    from tooleval.runs.progress import make_progress
    from tooleval.runs.runner import run_plan

    tracked.inner = None if args.quiet else make_progress(sys.stderr)
    cache = make_cache(args)
    outcome = run_plan(
        plan,
        store=store,
        concurrency=args.concurrency,
        resume=args.resume,
        progress=tracked,
        gate=gate,
        **run_kwargs(args, cache),
    )
    console = make_console(sys.stdout)
    print_summary(console, store, outcome.run)
    print_first_errors(store, outcome.run_id)
    outcome = after_run(args, store, outcome, console)
    resumed = f", {outcome.rows_skipped} were already stored" if outcome.rows_skipped else ""
    console.print(f"run {outcome.run_id}: {outcome.rows_run} rows run{resumed}")
    if args.default_floor:
        from tooleval.runs.plan import DEFAULT_FLOOR_LINE

        console.print(DEFAULT_FLOOR_LINE)
    print_gate(console, outcome.gate)
    failing = store.count_rows(outcome.run_id, passed=False) + outcome.run.error_count
    if failing:
        console.print(f"failures by cause: tooleval runs show {outcome.run_id}")
    if args.junit:
        write_junit(args.junit, store, outcome.run, gate=outcome.gate)
    if args.json:
        write_json(args.json, store, outcome.run, gate=outcome.gate)
    write_ci_outputs(args, store, outcome, cache, console)
    return 0 if outcome.gate.passed else 1
