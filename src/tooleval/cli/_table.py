"""Readable per-row tables for the terminal (rich), shared by CLI commands.

``tooleval score --table`` prints ONE table, a column per metric, failing rows
first (the rows :class:`tooleval.evaluation.file_tally.ScoreTableRows` kept),
and a line per metric of its :class:`~tooleval.stats.tally.Tally`: this module
renders, it counts nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tooleval.evaluation.file_tally import Cell, ScoreTableRows
from tooleval.model import Result

if TYPE_CHECKING:
    from tooleval.stats.tally import Tally


def wide_console(*, stderr: bool = False):
    """A rich Console at least 140 columns wide.

    Piped output (make, CI logs) would otherwise fold tables at 80 columns.
    """
    import shutil

    from rich.console import Console

    width = max(shutil.get_terminal_size((160, 24)).columns, 140)
    return Console(stderr=stderr, highlight=False, width=width)


def _calls_text(names: Sequence[str]) -> Any:
    return _plain(", ".join(names) if names else "(none)")


def _plain(value: Any) -> Any:
    """Text from a dataset as a rich Text: never read as markup, control characters shown.

    A row id like ``[/b]`` would otherwise be a rich markup error, and an ANSI
    escape in a reason would repaint the terminal.
    """
    from rich.text import Text

    from tooleval.textsafe import visible

    return Text(visible(str(value)))


def _cell_text(cell: Cell) -> str:
    score, passed, _ = cell
    if score is None:
        return "[yellow]unscored[/]"
    return f"{score:.2f} " + ("[green]pass[/]" if passed else "[red]FAIL[/]")


def _reason(metrics: Sequence[str], cells: Sequence[Cell]) -> str:
    """The reasons of the cells that did not pass (every cell's when all passed)."""
    picked = [
        (m, c) for m, c in zip(metrics, cells, strict=False) if c[0] is None or not c[1]
    ] or list(zip(metrics, cells, strict=False))
    if len(metrics) == 1:
        return picked[0][1][2]
    return "; ".join(f"{m}: {c[2]}" for m, c in picked)


def _left_out_note(left: dict[str, int], output: str | None) -> str | None:
    parts = [f"{n:,} {s} row{'s' if n != 1 else ''}" for s, n in left.items() if n]
    if not parts:
        return None
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    where = f"every row is in --output {output}" if output else "--output FILE keeps every row"
    return f"… {listed} not shown (--table-rows N shows more); {where}"


def print_rows_table(
    console: Any, rows: ScoreTableRows, metrics: Sequence[str], *, output: str | None
) -> None:
    """One table: a column per metric (score and pass/FAIL), failing rows first."""
    from rich.table import Table

    table = Table(title="per-row results (failing rows first)", show_lines=False)
    for column in ("id", "category", "tools called", "expected tools", *metrics, "reason"):
        table.add_column(_plain(column), overflow="fold")
    for row in rows.shown():
        sample = row.sample
        if sample is None:
            category, called, expected = _plain(""), _plain("-"), _plain("-")
        else:
            names = sample.expected_tools.names if sample.expected_tools is not None else None
            category = _plain(sample.category or "")
            called = _calls_text([c.name for c in sample.actual_calls()])
            expected = _plain("(not bound)") if names is None else _calls_text(names)
        cells = [_cell_text(cell) for cell in row.cells]
        cells += ["-"] * (len(metrics) - len(cells))
        reason = _plain(_reason(metrics, row.cells))
        table.add_row(_plain(row.row_id), category, called, expected, *cells, reason)
    console.print(table)
    note = _left_out_note(rows.left_out(), output)
    if note:
        console.print(_plain(note))


def print_metric_summary(console: Any, tallies: Mapping[str, Tally]) -> None:
    """A line per metric of its :class:`~tooleval.stats.tally.Tally`: rows, passed, failed,
    unscored, the pass rate with its interval, n, the mean score."""
    from rich.table import Table

    summary = Table(title="summary per metric (pass rate over scored rows; unscored rows apart)")
    columns = ("metric", "rows", "passed", "failed", "unscored", "pass rate", "95% interval")
    for column in (*columns, "n", "mean score"):
        summary.add_column(column)
    for name, tally in tallies.items():
        rate, mean, figure = tally.rate, tally.mean, tally.rate_estimate()
        summary.add_row(
            _plain(name),
            f"{tally.rows:,}",
            f"{tally.passed:,}",
            f"{tally.failed:,}",
            f"{tally.unscored:,}",
            "-" if rate is None else f"{rate:.1%}",
            "-" if figure is None else figure.bounds,
            f"{tally.counted:,}",
            "-" if mean is None else f"{mean:.3f}",
        )
    console.print(summary)


def print_corpus(console: Any, metric: str, results: list[Result]) -> None:
    """The benchmark's corpus-level numbers, for profiles whose score is not a row mean."""
    from rich.table import Table

    from tooleval.benchmarks.corpus import corpus_summary

    numbers = corpus_summary(metric, results)
    if not numbers:
        return
    table = Table(title=f"{metric}: the benchmark's corpus-level numbers")
    table.add_column("measure")
    table.add_column("value")
    for key, value in numbers.items():
        shown = "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)
        table.add_row(key, shown)
    console.print(table)
