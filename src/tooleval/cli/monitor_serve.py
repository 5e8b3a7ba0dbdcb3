"""``tooleval monitor serve`` (also ``tooleval collect``): monitor what an OTLP exporter sends.

Point an OpenTelemetry exporter at ``http://127.0.0.1:4318`` (OTLP/HTTP,
protobuf or JSON, ``/v1/traces`` and ``/v1/logs``). Sessions are monitored
once idle for ``--idle-timeout`` seconds; findings go to the run store and, as
``gen_ai.evaluation.result`` events, to ``--export`` (an OTLP/HTTP logs URL)
and/or ``--emit`` (a file). SIGTERM or SIGINT stops accepting, monitors every
buffered session, finishes the run and flushes events, then exits 0.

Also here: the options ``tooleval monitor TRACES`` shares with the server
(``--prices``, ``--judge``, ``--judge-metric``, ``--sample``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

STORE_ENV = "TOOLEVAL_STORE"


def add_shared_options(parser: argparse.ArgumentParser) -> None:
    """Price table and sampled judging options (for ``monitor`` and ``monitor serve``)."""
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="price table (JSON/YAML: model -> {input, output} per million tokens) for cost",
    )
    parser.add_argument(
        "--judge",
        metavar="FILE",
        help="judge config (JSON/YAML, as a plan's judge: section) to run judged metrics on a sample",
    )
    parser.add_argument(
        "--judge-metric",
        dest="judge_metrics",
        metavar="NAME",
        action="append",
        help="judged metric run with --judge (repeatable; task_success, goal_accuracy, tools_error; "
        "default task_success)",
    )
    parser.add_argument(
        "--sample",
        type=float,
        default=0.05,
        metavar="RATE",
        help="share of sessions judged with --judge, picked by a hash of the session id (0.05)",
    )
    parser.add_argument(
        "--state-changing",
        metavar="TOOL",
        action="append",
        default=[],
        help="error_ignored: this tool changes state, whatever its name says (repeatable)",
    )
    parser.add_argument(
        "--read-only",
        metavar="TOOL",
        action="append",
        default=[],
        help="error_ignored: this tool only reads, whatever its name says (repeatable)",
    )


def with_error_ignored_options(
    args: argparse.Namespace, options: dict[str, dict[str, Any]], detectors: Any
) -> dict[str, dict[str, Any]]:
    """``options`` plus ``--state-changing`` / ``--read-only`` for error_ignored when it runs."""
    if (args.state_changing or args.read_only) and (
        detectors is None or "error_ignored" in detectors
    ):
        options = dict(options)
        options["error_ignored"] = {
            "state_changing": list(args.state_changing),
            "read_only": list(args.read_only),
        }
    return options


def prices_from_args(args: argparse.Namespace) -> Any:
    if not getattr(args, "prices", None):
        return None
    from tooleval.monitor.usage import PriceTable

    return PriceTable.load(args.prices)


def judging_from_args(args: argparse.Namespace) -> Any:
    from tooleval.errors import ConfigError

    if not getattr(args, "judge", None):
        if getattr(args, "judge_metrics", None):
            raise ConfigError("--judge-metric needs --judge FILE", field="--judge-metric")
        return None
    from tooleval.monitor.judging import SampledJudging, load_judge_config

    return SampledJudging.from_config(
        load_judge_config(args.judge),
        metrics=args.judge_metrics or ["task_success"],
        rate=args.sample,
    )


def register(subparsers: Any) -> None:
    """``tooleval collect``: the receiver's one-word name."""
    _add(
        subparsers, "collect", "OTLP/HTTP receiver that monitors live traces (also: monitor serve)"
    )


def register_serve(subparsers: Any) -> None:
    """``tooleval monitor serve``, added under ``monitor``'s verbs."""
    _add(subparsers, "serve", "OTLP/HTTP receiver that monitors live traces")


def _add(subparsers: Any, name: str, summary: str) -> None:
    parser = subparsers.add_parser(
        name,
        help=summary,
        description=(
            "Receive OTLP/HTTP traces and logs (protobuf or JSON, gzip) on /v1/traces and "
            "/v1/logs, group spans into sessions, and run the detectors on each session once "
            "it has been idle; store findings and export them as OTel evaluation events."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=4318, help="port (4318; 0 picks a free one)")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="a session is monitored once no span arrived for it for this long (30)",
    )
    parser.add_argument(
        "--max-body",
        type=int,
        default=16 * 1024 * 1024,
        metavar="BYTES",
        help="largest request body accepted, compressed and decompressed (16 MiB)",
    )
    parser.add_argument(
        "--max-pending",
        type=int,
        default=200_000,
        metavar="N",
        help="buffered span records before the longest-idle sessions are monitored early (200000)",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help=f"store findings as a run in this run store (default: ${STORE_ENV} when set)",
    )
    parser.add_argument("--no-store", action="store_true", help=f"ignore ${STORE_ENV}")
    parser.add_argument(
        "--buffer",
        metavar="FILE",
        help="where sessions still open at a stop wait for the rest after a restart, locked "
        "while the receiver runs and restored only into the same store (default with a "
        "store: STORE.open-sessions.jsonl beside a SQLite store file, else "
        ".tooleval/open-sessions-HASH.jsonl; without a store they are monitored at the stop)",
    )
    parser.add_argument(
        "--export",
        metavar="URL",
        help="OTLP/HTTP logs endpoint for evaluation events (e.g. http://127.0.0.1:4319/v1/logs)",
    )
    parser.add_argument(
        "--export-header",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="HTTP header sent with --export (repeatable)",
    )
    parser.add_argument("--emit", metavar="FILE", help="also write evaluation events to FILE")
    parser.add_argument(
        "--emit-passes",
        action="store_true",
        help="events for clean verdicts too, not only findings",
    )
    from tooleval.cli.monitor import add_detector_options

    add_detector_options(parser)
    add_shared_options(parser)
    parser.set_defaults(handler=handle)


def _headers(values: list[str]) -> dict[str, str]:
    from tooleval.errors import ConfigError

    out = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--export-header {value!r}: expected KEY=VALUE", field="--export-header"
            )
        out[key.strip()] = text
    return out


def handle(args: argparse.Namespace) -> int:
    from tooleval.cli.monitor import detector_options
    from tooleval.errors import ConfigError
    from tooleval.monitor.emit import EvaluationEventWriter
    from tooleval.monitor.live import LiveMonitor
    from tooleval.monitor.serve import OtlpReceiver

    if args.idle_timeout <= 0 or args.max_body < 1024 or args.max_pending < 1:
        raise ConfigError("--idle-timeout must be > 0, --max-body >= 1024, --max-pending >= 1")
    if args.export and not args.export.startswith(("http://", "https://")):
        raise ConfigError(f"--export must be an http(s) URL, got {args.export!r}", field="--export")
    options = detector_options(args)
    if args.detectors is not None:
        options = {k: v for k, v in options.items() if k in args.detectors}
    options = with_error_ignored_options(args, options, args.detectors)
    judging = judging_from_args(args)
    prices = prices_from_args(args)
    store = None if args.no_store else (args.store or os.environ.get(STORE_ENV) or None)
    buffer, buffer_store = _checked_files(args, store)
    writer = None
    if args.export or args.emit:
        writer = EvaluationEventWriter(
            args.emit,
            include_passes=args.emit_passes,
            endpoint=args.export,
            headers=_headers(args.export_header),
        )
    monitor = LiveMonitor(
        detectors=args.detectors,
        options=options,
        store=store,
        writer=writer,
        judging=judging,
        prices=prices,
    )

    def report(sessions: list[Any], findings: list[Any]) -> None:
        print(f"monitored {len(sessions)} session(s): {len(findings)} finding(s)", flush=True)
        for finding in findings[:20]:
            print(
                f"  {finding.detector} session {finding.session_id}: {finding.message}", flush=True
            )

    try:
        receiver = OtlpReceiver(
            monitor,
            host=args.host,
            port=args.port,
            idle_timeout=args.idle_timeout,
            max_body=args.max_body,
            max_pending=args.max_pending,
            on_findings=report,
            on_problem=_problem_printer(),
            buffer=buffer,
            buffer_store=buffer_store,
        )
    except (OSError, ConfigError) as exc:
        if writer is not None:
            writer.close()
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from exc
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    receiver.start()
    if receiver.restored:
        print(
            f"restored {receiver.restored} span record(s) of sessions open at the last stop "
            f"from {receiver.buffer}",
            flush=True,
        )
    print(f"listening on {receiver.url} (POST /v1/traces, /v1/logs)", flush=True)
    while not stop.wait(0.5):
        pass
    print("stopping: monitoring buffered sessions", flush=True)
    receiver.stop()
    if receiver.kept_open:
        print(
            f"kept {receiver.kept_open} span record(s) of sessions still open in "
            f"{receiver.buffer}; they are stored, whole, when the receiver starts again",
            flush=True,
        )
    summary = monitor.summary()
    counts = ", ".join(f"{k} {v}" for k, v in summary["counts"].items())
    print(
        f"{summary['sessions']} sessions, {summary['tool_calls']} tool calls ({counts}); "
        f"{receiver.requests} requests, {receiver.rejected} rejected",
        flush=True,
    )
    for reason, count in summary["unreadable_tool_use"].items():
        print(f"unreadable tool use in {count} span(s): {reason}", file=sys.stderr)
    problems = receiver.problems
    skipped = len(problems.problems) + problems.problems_dropped
    if skipped:
        print(f"{skipped} ingest problem(s); the first:", file=sys.stderr)
        for problem in problems.problems[:10]:
            print(f"  {problem.message}", file=sys.stderr)
    if summary["run_id"]:
        print(f"stored as run {summary['run_id']}", flush=True)
    if writer is not None and writer.export_errors:
        print(
            f"{writer.export_errors} event export(s) failed: {writer.last_export_error}",
            file=sys.stderr,
        )
    return 0


def _checked_files(args: argparse.Namespace, store: str | None) -> tuple[Any, str]:
    """``(buffer path or None, the store's URL)``, the store, buffer and emit file checked.

    Before any work: the buffer (``--buffer``, else named from the store) and
    the ``--emit`` file are neither the store nor each other (links resolved),
    and ``--emit`` replaces no file of another kind (see
    :func:`~tooleval.io_atomic.check_output_path`).
    """
    from pathlib import Path

    from tooleval.errors import ConfigError
    from tooleval.io_atomic import check_output_path, same_file, store_file

    url = ""
    buffer = None
    if store is not None:
        from tooleval.monitor.buffer import default_buffer_path
        from tooleval.store import resolve_store_url

        url = resolve_store_url(store)
        buffer = Path(args.buffer) if args.buffer else default_buffer_path(url)
    elif args.buffer:
        buffer = Path(args.buffer)
    database = store_file(url) if url else None
    if buffer is not None and database is not None and same_file(buffer, database):
        raise ConfigError(
            f"--buffer {buffer} is the run store; the buffer is a file of its own "
            f"(default: {database}.open-sessions.jsonl)",
            field="--buffer",
        )
    if args.emit:
        from tooleval.cli.monitor import EMIT_KEYS, EMIT_MARK

        check_output_path(
            args.emit, option="--emit", stores=[url or None], kind="jsonl", keys=EMIT_KEYS,
            mark=EMIT_MARK, writes="monitor events",
        )  # fmt: skip
        if buffer is not None and same_file(args.emit, buffer):
            raise ConfigError(
                f"--emit {args.emit} is the open-session buffer; write the events elsewhere",
                field="--emit",
            )
    return buffer, url


def _problem_printer(limit: int = 5) -> Any:
    """Print the first ``limit`` problems as they happen (all are counted at the end)."""
    shown = [0]

    def show(message: str) -> None:
        if shown[0] < limit:
            shown[0] += 1
            print(f"tooleval monitor serve: {message}", file=sys.stderr, flush=True)

    return show


def print_usage(report: Any) -> bool:
    """Print token/cost totals and judged results; True when some tool use was unreadable."""
    totals = report.usage_totals()
    if totals.get("llm_calls"):
        cost = (
            f", cost {totals['cost']:.6f} {totals.get('currency', '')}".rstrip()
            if "cost" in totals
            else ""
        )
        print(
            f"\nmodel calls: {totals['llm_calls']}, tokens in {totals['input_tokens']}, "
            f"out {totals['output_tokens']}{cost}"
        )
    if report.judged:
        scored = [j for j in report.judged if j["score"] is not None]
        passed = sum(1 for j in scored if j["passed"])
        print(
            f"judged {len({j['session_id'] for j in report.judged})} sampled session(s): "
            f"{passed}/{len(scored)} passed, {len(report.judged) - len(scored)} unscored"
        )
    return bool(report.ingest.unreadable)


def unreadable_line(report: Any) -> str:
    """All unreadable-tool-use reasons on one line."""
    return "; ".join(
        f"{count} span(s): {reason}" for reason, count in report.ingest.unreadable.items()
    )


def usage_columns(session: Any, prices: Any = None) -> str:
    """Tab-separated model calls, tokens, latency and cost of a session (for trace sessions)."""
    usage = session.usage or {}
    if not usage.get("llm_calls") and not usage.get("tool_spans"):
        return ""
    columns = [
        f"{usage.get('llm_calls', 0)} llm calls",
        f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens",
        f"llm {usage.get('llm_latency_ms') or 0:g} ms",
        f"tools {usage.get('tool_latency_ms') or 0:g} ms",
    ]
    if prices is not None:
        cost = prices.cost(usage)
        unpriced = (
            f" (no price: {','.join(cost['unpriced_models'])})" if cost["unpriced_models"] else ""
        )
        columns.append(f"cost {cost['cost']:.6f} {cost['currency']}{unpriced}")
    return "\t" + "\t".join(columns)
