"""``tooleval metrics``: list every registered metric with its parameters."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="list metrics, their parameters and defaults, and what they need",
        description="List every registered metric: parameters with defaults, the Sample fields "
        "it requires, and whether it needs an LLM judge.",
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.set_defaults(handler=run)


def metric_table() -> list[dict]:
    """The registry as plain rows (name, judge, requires, params with defaults)."""
    from tooleval.metrics.registry import list_metrics

    rows = []
    for info in list_metrics():
        rows.append(
            {
                "name": info.name,
                "needs_judge": info.needs_judge,
                "requires": list(info.requires),
                "description": info.description,
                "params": {
                    name: {"default": param.default, "help": param.help}
                    for name, param in info.params.items()
                },
            }
        )
    return rows


def run(args: argparse.Namespace) -> int:
    rows = metric_table()
    if args.json:
        print(json.dumps(rows, indent=2, default=repr))
        return 0
    from rich.table import Table

    from tooleval.cli._table import wide_console

    table = Table(title="tooleval metrics")
    for column in ("metric", "judge", "requires", "parameters (default)", "what it scores"):
        table.add_column(column, overflow="fold")
    for row in rows:
        params = "\n".join(f"{k}={v['default']!r}" for k, v in row["params"].items())
        table.add_row(
            row["name"],
            "LLM" if row["needs_judge"] else "-",
            ", ".join(row["requires"]) or "-",
            params or "-",
            row["description"],
        )
    wide_console().print(table)
    return 0
