"""Readable per-row tables for the terminal (rich), shared by CLI commands."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from tooleval.model import Result, Sample


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


def summarize(results: Sequence[Result]) -> dict[str, Any]:
    """Counts over results: scored, passed, failed, unscored, mean score.

    >>> summarize([Result.scored("m", 1.0, reason="ok"), Result.unscored("m", "no ref")])
    {'rows': 2, 'scored': 1, 'passed': 1, 'failed': 0, 'unscored': 1, 'pass_rate': 1.0, 'mean_score': 1.0}
    """
    scored = [r for r in results if r.score is not None]
    passed = sum(1 for r in scored if r.passed)
    return {
        "rows": len(results),
        "scored": len(scored),
        "passed": passed,
        "failed": len(scored) - passed,
        "unscored": len(results) - len(scored),
        "pass_rate": passed / len(scored) if scored else None,
        "mean_score": sum(r.score for r in scored if r.score is not None) / len(scored)
        if scored
        else None,
    }


def print_score_table(
    rows: Sequence[tuple[str, Sample, Result]], *, metric: str, to_stderr: bool = False
) -> None:
    """Print one line per row (calls vs expected, score, reason) and a summary."""
    from rich.table import Table

    console = wide_console(stderr=to_stderr)
    table = Table(title=f"{metric}: per-row results", show_lines=False)
    for column in ("id", "category", "tools called", "expected tools", "score", "pass", "reason"):
        table.add_column(column, overflow="fold")
    by_category: dict[str, list[Result]] = defaultdict(list)
    for row_id, sample, result in rows:
        expected = sample.expected_tools.names if sample.expected_tools is not None else None
        verdict = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "[yellow]unscored[/]"}
        table.add_row(
            _plain(row_id),
            _plain(sample.category or ""),
            _calls_text([c.name for c in sample.actual_calls()]),
            "(not bound)" if expected is None else _calls_text(expected),
            "-" if result.score is None else f"{result.score:.2f}",
            verdict[result.passed],
            _plain(result.reason),
        )
        by_category[sample.category or "(none)"].append(result)
    console.print(table)
    overall = summarize([r for _, _, r in rows])
    summary = Table(title="summary")
    for column in ("category", "rows", "passed", "failed", "unscored", "pass rate", "mean score"):
        summary.add_column(column)
    for category, results in sorted(by_category.items()) + [("ALL", [r for _, _, r in rows])]:
        s = summarize(results) if category != "ALL" else overall
        summary.add_row(
            _plain(category),
            str(s["rows"]),
            str(s["passed"]),
            str(s["failed"]),
            str(s["unscored"]),
            "-" if s["pass_rate"] is None else f"{s['pass_rate']:.0%}",
            "-" if s["mean_score"] is None else f"{s['mean_score']:.3f}",
        )
    console.print(summary)
    _print_corpus(console, metric, [r for _, _, r in rows])


def _print_corpus(console: Any, metric: str, results: list[Result]) -> None:
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
