"""``tooleval runs export RUN_ID``: JUnit, JSON, CSV and a Markdown summary of any stored run.

``tooleval run`` writes JUnit and JSON only while it runs; ``runs export``
writes them (and CSV, one line per row × metric, and the Markdown summary)
for a run stored earlier, a resumed one or a rescored one. Exit 0, or 2
when the run is unknown or a file cannot be written (checked before any is).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def add_export_verb(verbs: Any) -> None:
    from tooleval.cli.run import add_store_option

    export = verbs.add_parser(
        "export",
        help="write JUnit XML, JSON, CSV or a Markdown summary of a stored run",
        description="Export a stored run (nothing is called or scored again).",
    )
    export.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, latest or -N")
    add_store_option(export)
    export.add_argument("--junit", metavar="FILE", help="JUnit XML (row × metric testcases)")
    export.add_argument("--json", metavar="FILE", help="the run, its gate and every row as JSON")
    export.add_argument("--csv", metavar="FILE", help="one line per row × metric")
    export.add_argument(
        "--summary-md",
        metavar="FILE",
        help="Markdown summary for a GitHub step summary or PR comment "
        "(also appended to $GITHUB_STEP_SUMMARY when set)",
    )
    export.add_argument(
        "--baseline", metavar="RUN_ID", help="list the summary's regressions against this run"
    )
    export.add_argument(
        "--min-pass-rate",
        type=float,
        metavar="X",
        help="the gate shown in the JSON and the summary: every metric's pass rate >= X",
    )
    export.add_argument(
        "--max-error-rate",
        type=float,
        metavar="X",
        help="the gate's error budget (0-1; default 0)",
    )
    export.set_defaults(handler=export_run)


def _gate(args: argparse.Namespace, run: Any, rows: Any, calibrations: Any = None) -> Any:
    """The stored gate (its noise keys too), the flags replacing its floors, checked on the rows."""
    import dataclasses

    from tooleval.analysis.gate import evaluate_gate, stored_gate_spec
    from tooleval.errors import ConfigError

    spec = stored_gate_spec(run)
    for option, key in (
        ("--min-pass-rate", "min_pass_rate"),
        ("--max-error-rate", "max_error_rate"),
    ):
        value = getattr(args, key)
        if value is not None and not 0.0 <= value <= 1.0:
            raise ConfigError(f"expected a number between 0 and 1, got {value}", field=option)
        if value is not None:
            spec = dataclasses.replace(spec, **{key: value})
    return evaluate_gate(run, spec, rows=rows, calibrations=calibrations)


def write_csv(path: str, rows: Any) -> None:
    """One line per row × metric: ids, category, verdicts, score, reason, error."""
    import csv
    import io
    from pathlib import Path

    from tooleval.io_atomic import atomic_write
    from tooleval.textsafe import csv_cell

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        for result in row.results or ():
            cells = [row.index, row.row_id, row.category, result.metric, result.score,
                     result.passed, result.threshold, result.reason, row.error,
                     row.failure_class,
                     None if row.latency_ms is None else round(row.latency_ms, 3)]  # fmt: skip
            # Every cell, ids and names too: agent and dataset text is untrusted.
            writer.writerow([csv_cell(c) for c in cells])
    with atomic_write(Path(path)) as handle:
        handle.write(buffer.getvalue().encode("utf-8"))


#: The header of ``runs export --csv`` (an existing file is replaced only when it has it).
CSV_COLUMNS = ("index", "row_id", "category", "metric", "score", "passed", "threshold", "reason",
               "error", "failure_class", "latency_ms")  # fmt: skip
_KINDS = {"junit": "xml", "json": "json", "csv": "csv", "summary_md": "md"}


def export_run(args: argparse.Namespace) -> int:
    from tooleval.analysis.export import write_json, write_junit
    from tooleval.analysis.summary_md import run_summary_markdown, step_summary_path, write_summary
    from tooleval.calibration import gate_calibrations
    from tooleval.cli._ci_options import refuse_baseline_alone
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError
    from tooleval.io_atomic import check_output_path

    outputs = {o: getattr(args, o) for o in ("junit", "json", "csv", "summary_md")}
    given = {o: v for o, v in outputs.items() if v}
    if not given and step_summary_path() is None:
        raise ConfigError(
            "give at least one of --junit, --json, --csv, --summary-md", field="--json"
        )
    refuse_baseline_alone(args.baseline, args.summary_md)
    store_path = args.store or os.environ.get("TOOLEVAL_STORE") or ""
    seen: dict[str, str] = {}
    for option, path in given.items():
        flag = "--" + option.replace("_", "-")
        check_output_path(
            path, option=flag, stores=[store_path or None], kind=_KINDS[option],
            keys=CSV_COLUMNS if option == "csv" else (), writes="run rows",
        )  # fmt: skip
        where = os.path.abspath(path)
        if where in seen:
            raise ConfigError(f"{seen[where]} and {flag} name the same file", field=flag)
        seen[where] = flag
    with open_cli_store(args) as store:
        run_id = store.resolve_run_id(args.run_id)
        run = store.get_run(run_id)
        gate = _gate(args, run, store.iter_rows(run_id), gate_calibrations(store, run))
        if args.junit:
            write_junit(args.junit, store, run, gate=gate)
        if args.json:
            write_json(args.json, store, run, gate=gate)
        if args.csv:
            write_csv(args.csv, store.iter_rows(run_id))
        if args.summary_md or step_summary_path() is not None:
            text = run_summary_markdown(store, run_id, gate=gate, baseline=args.baseline)
            write_summary(text, args.summary_md)
    for option, path in given.items():
        print(f"wrote {path} ({option.replace('_', '-')})", file=sys.stdout)
    return 0
