"""``tooleval metrics``: list every registered metric with its parameters, and the benchmarks.

The benchmarks table (what ``--format`` takes) is read from the
``tooleval.benchmarks`` records: name and aliases, what the file is, the
default metric and options, what ``--data`` is, the docs page. ``--json``
prints the metric rows, each with ``benchmark``: the benchmark that declares
it (null for a generic metric).
"""

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


def _aliases(info) -> dict:
    """Former parameter names and values, as ``{name: {help, values: {old: new params}}}``."""
    out: dict = {}
    for name, alias in info.aliases.names.items():
        out[name] = {
            "help": alias.help,
            "values": {json.dumps(old): dict(new) for old, new in alias.values.items()},
        }
    for name, renames in info.aliases.values.items():
        out[f"{name} (values)"] = {
            "help": f"former values of {name}",
            "values": {json.dumps(old): {name: new} for old, new in renames.items()},
        }
    return out


def _alias_lines(aliases: dict) -> list[str]:
    lines = []
    for name, alias in aliases.items():
        for old, new in alias["values"].items():
            meant = ", ".join(f"{k}={json.dumps(v)}" for k, v in new.items())
            label = name.removesuffix(" (values)")
            lines.append(f"alias {label}={old} -> {meant}")
    return lines


def metric_table() -> list[dict]:
    """The registry as plain rows (name, judge, requires, params with defaults, aliases)."""
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
                "aliases": _aliases(info),
            }
        )
    return rows


def benchmark_table() -> list[dict]:
    """Every installed benchmark as a plain row (name, aliases, file, metrics, data, docs)."""
    from tooleval.benchmarks import list_benchmarks

    return [
        {
            "name": record.name,
            "aliases": list(record.aliases),
            "title": record.title,
            "reads": record.description,
            "default_metric": record.default_metric,
            "default_options": dict(record.default_options),
            "metrics": [info.name for info in record.metric_infos()],
            "data": record.data,
            "docs": record.docs,
        }
        for record in list_benchmarks()
    ]


def run(args: argparse.Namespace) -> int:
    rows = metric_table()
    benchmarks = benchmark_table()
    by_metric = {m: b["name"] for b in benchmarks for m in b["metrics"]}
    for row in rows:
        row["benchmark"] = by_metric.get(row["name"])
    if args.json:
        print(json.dumps(rows, indent=2, default=repr))
        return 0
    from rich.table import Table

    from tooleval.cli._table import wide_console

    table = Table(title="tooleval metrics")
    for column in ("metric", "judge", "requires", "parameters (default)", "what it scores"):
        table.add_column(column, overflow="fold")
    for row in rows:
        params = "\n".join(
            [f"{k}={v['default']!r}" for k, v in row["params"].items()]
            + _alias_lines(row["aliases"])
        )
        table.add_row(
            row["name"],
            "LLM" if row["needs_judge"] else "-",
            ", ".join(row["requires"]) or "-",
            params or "-",
            row["description"],
        )
    console = wide_console()
    console.print(table)
    console.print(_benchmarks_rich(benchmarks))
    return 0


def _benchmarks_rich(benchmarks: list[dict]):
    from rich.table import Table

    table = Table(title="benchmarks (tooleval score FILE --format NAME)")
    for column in ("format", "reads", "default metric", "--data", "docs"):
        table.add_column(column, overflow="fold")
    for row in benchmarks:
        options = ", ".join(f"{k}={json.dumps(v)}" for k, v in row["default_options"].items())
        name = row["name"] + (f" ({', '.join(row['aliases'])})" if row["aliases"] else "")
        table.add_row(
            name,
            row["reads"],
            row["default_metric"] + (f" ({options})" if options else ""),
            row["data"] or "-",
            row["docs"] or "-",
        )
    return table
