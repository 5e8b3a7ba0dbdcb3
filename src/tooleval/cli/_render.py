"""Rich tables for runs: the summary after ``tooleval run``, ``runs show``, ``compare``.

Only the store's read API is used, so these work on any stored run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tooleval.analysis.clusters import FAILURE_CLASSES, cluster_failures
from tooleval.analysis.compare import Comparison, DeltaCounts
from tooleval.analysis.figures import RunFigures
from tooleval.analysis.gate import GateResult
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "make_console",
    "print_class_by_category",
    "print_comparison",
    "print_failing_rows",
    "print_gate",
    "print_run_header",
    "print_run_list",
    "print_summary",
    "show_run",
]


def make_console(stream: Any = None) -> Any:
    """A rich console; off a terminal (CI logs, pipes) it is wide and colourless."""
    import sys

    from rich.console import Console

    stream = stream or sys.stdout
    if stream.isatty():
        return Console(file=stream)
    return Console(file=stream, width=160, no_color=True, highlight=False)


def _text(value: Any) -> str:
    """User or agent text for the console: controls shown, rich markup escaped."""
    from rich.markup import escape

    from tooleval.textsafe import visible

    return escape(visible("" if value is None else str(value)))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _calls(names: Sequence[str] | None, *, unbound: str = "(none)") -> str:
    if names is None:
        return unbound
    return ", ".join(names) if names else "(none)"


def expected_names(row: RowRecord) -> list[str] | None:
    expected = row.sample.expected_tools
    return None if expected is None else [str(c) for c in expected.calls]


def actual_names(row: RowRecord) -> list[str]:
    return [str(c) for c in row.sample.actual_calls()]


def run_status(store: StoreReader, run: RunInfo) -> str:
    """The run's status, saying whether a ``running`` run is really being worked.

    A run killed without a chance to mark itself stays ``running`` in the
    store; its lease tells the truth (see :mod:`tooleval.store.leases`).
    """
    if run.status != "running":
        return run.status
    holder = store.lease_holder(run.id)
    if holder is not None and holder["alive"]:
        return f"running (pid {holder['pid']} on {holder['host']})"
    return "stopped (no live process; --resume it)"


def print_run_list(
    console: Any,
    runs: Sequence[RunInfo],
    statuses: dict[str, str] | None = None,
    figures: dict[str, RunFigures] | None = None,
) -> None:
    """The runs table; each pass rate is the run's read model (error rows count as not passed)."""
    from rich.table import Table

    if not runs:
        console.print("no runs stored yet; start one with `tooleval run PLAN`")
        return
    table = Table(title="runs (newest first)")
    for column in ("id", "name", "status", "created", "rows", "errors", "pass rate", "tags"):
        table.add_column(column, overflow="fold")
    for run in runs:
        found = (figures or {}).get(run.id)
        rates = ""
        if found is not None:
            slices = [(name, found.get(name)) for name in found.metrics]
            rates = ", ".join(f"{n} {_pct(f.rate if f else None)}" for n, f in slices)
        table.add_row(
            run.id,
            _text(run.name),
            _text((statuses or {}).get(run.id, run.status)),
            run.created_at[:19].replace("T", " "),
            str(run.row_count),
            str(run.error_count),
            _text(rates) or "-",
            _text(", ".join(run.tags)),
        )
    console.print(table)


def print_run_header(console: Any, run: RunInfo, status: str | None = None) -> None:
    connector = run.connector
    where = connector.get("url") or connector.get("target") or connector.get("type") or "-"
    console.print(f"[bold]run {run.id}[/bold]  {_text(run.name)}  ({_text(status or run.status)})")
    console.print(
        f"dataset {_text(run.dataset.get('path', '-'))}  ·  connector {_text(where)}  ·  "
        f"{run.row_count} rows, {run.error_count} errors  ·  started {run.created_at[:19]}"
    )
    if run.tags:
        console.print("tags: " + _text(", ".join(run.tags)))


def print_summary(console: Any, store: StoreReader, run: RunInfo) -> None:
    """Per-metric table from the run's read model: errors beside passes; the pass rate counts
    error rows as not passed (docs/runs.md, "Errors count")."""
    from rich.table import Table

    from tooleval.analysis.figures import run_figures

    figures = run_figures(store, run)
    unit = "attempts" if figures.k > 1 else "rows"
    table = Table(title=f"per metric ({run.row_count} {unit}, {run.error_count} errors)")
    for column in (
        "metric",
        "threshold",
        "passed",
        "failed",
        "errors",
        "unscored",
        "pass rate",
        "mean",
    ):
        table.add_column(column, justify="left" if column == "metric" else "right")
    thresholds = {m.name: m.threshold for m in run.metrics}
    for name in figures.metrics:
        f = figures.get(name)
        if f is None:
            continue
        threshold = thresholds.get(name)
        table.add_row(
            _text(name),
            "-" if threshold is None else f"{threshold:g}",
            str(f.passed),
            str(f.failed),
            str(f.errors),
            str(f.unscored),
            _pct(f.rate),
            _num(None if f.mean_score is None else f.mean_score.value),
        )
    console.print(table)
    if run.error_count:
        console.print(
            f"{run.error_count} of {run.row_count} {unit} are errors (the agent could not be "
            "called or the row not read): they count as not passed"
        )


def print_judge_usage(console: Any, store: StoreReader, run: RunInfo) -> None:
    """One line of judge accounting when the run has LLM-judged metrics."""
    from tooleval.analysis.export import judge_usage
    from tooleval.metrics.registry import get_metric

    judged = [m.name for m in run.metrics if get_metric(m.name).needs_judge]
    if not judged:
        return
    usage = judge_usage(store.iter_rows(run.id))
    if usage is None:
        console.print("judge: no calls recorded")
        return
    console.print(
        f"judge: {usage['calls']} calls ({usage['cached_calls']} from cache), "
        f"{usage['tokens_in']} tokens in, {usage['tokens_out']} tokens out"
    )


def print_categories(console: Any, store: StoreReader, run: RunInfo) -> None:
    """Per category, from the run's read model: rows, failed, errors, each metric's pass rate."""
    from rich.table import Table

    from tooleval.analysis.figures import VERDICT, run_figures

    figures = run_figures(store, run)
    categories = [c for c in figures.categories if c != "(none)"]
    if not categories:
        return
    table = Table(title="per category")
    table.add_column("category")
    table.add_column("rows", justify="right")
    table.add_column("failed", justify="right")
    table.add_column("errors", justify="right")
    for name in figures.metrics:
        table.add_column(f"{name} pass", justify="right")
    for category in categories:
        rows = figures.get(VERDICT, category)
        if rows is None:
            continue
        cells = [
            _text(category),
            str(rows.counted + rows.unscored),
            str(rows.failed),
            str(rows.errors),
        ]
        for name in figures.metrics:
            f = figures.get(name, category)
            cells.append(_pct(f.rate) if f is not None and f.rate is not None else "-")
        table.add_row(*cells)
    console.print(table)


def print_clusters(console: Any, clusters: Sequence[Any], failures: int) -> None:
    from rich.table import Table

    if not clusters:
        console.print("[green]no failing rows[/green]")
        return
    plural = "" if len(clusters) == 1 else "s"
    table = Table(title=f"{failures} failing rows → {len(clusters)} cluster{plural}")
    for column in ("class", "rows", "what", "categories", "example rows", "usually means"):
        table.add_column(column, overflow="fold")
    for cluster in clusters:
        categories = ", ".join(f"{c} {n}" for c, n in cluster.categories.items())
        examples = ", ".join(cluster.row_ids[:3]) + (" …" if cluster.count > 3 else "")
        table.add_row(
            cluster.failure_class,
            str(cluster.count),
            _text(cluster.detail),
            _text(categories),
            _text(examples),
            FAILURE_CLASSES.get(cluster.failure_class, ""),
        )
    console.print(table)


def print_class_by_category(console: Any, clusters: Sequence[Any]) -> None:
    """Failing rows counted by failure class × category (where the bugs live)."""
    from rich.table import Table

    categories = sorted({c for cluster in clusters for c in cluster.categories})
    if len(categories) < 2:
        return
    counts: dict[str, dict[str, int]] = {}
    for cluster in clusters:
        per = counts.setdefault(cluster.failure_class, {})
        for category, n in cluster.categories.items():
            per[category] = per.get(category, 0) + n
    table = Table(title="failing rows by class and category")
    table.add_column("class")
    for category in categories:
        table.add_column(_text(category), justify="right")
    for cls, per in counts.items():
        table.add_row(cls, *(str(per.get(c, "")) for c in categories))
    console.print(table)


def print_failing_rows(console: Any, rows: Sequence[RowRecord], *, total: int) -> None:
    from rich.table import Table

    if not rows:
        return
    title = f"failing rows ({len(rows)} of {total})" if total > len(rows) else "failing rows"
    table = Table(title=title, show_lines=True)
    for column in ("row", "category", "class", "expected tools", "tools called", "why"):
        table.add_column(column, overflow="fold")
    for row in rows:
        if row.error:
            why = row.error
        else:
            why = "; ".join(
                f"{r.metric}: {r.reason}"
                for r in row.results
                if r.passed is False or r.passed is None
            )
        table.add_row(
            _text(row.row_id),
            _text(row.category or "-"),
            row.failure_class or "-",
            _text(_calls(expected_names(row), unbound="(not bound)")),
            _text(_calls(actual_names(row))),
            _text(why),
        )
    console.print(table)


def print_unscored(console: Any, store: StoreReader, run: RunInfo, *, scan: int = 5000) -> None:
    """Each metric's unscored results and their commonest reasons (rows that passed too).

    Counted by the read model's rule: an error row is an error, not unscored.
    """
    from rich.table import Table

    from tooleval.analysis.clusters import unscored_reasons
    from tooleval.analysis.figures import run_figures

    figures = run_figures(store, run)
    found = {m: figures.get(m) for m in figures.metrics}
    counts = {m: f.unscored for m, f in found.items() if f is not None and f.unscored}
    if not counts:
        return
    reasons = unscored_reasons(store.iter_rows(run.id, limit=scan))
    table = Table(title="unscored results (never counted as 0)")
    for column in ("metric", "unscored", "why (commonest first)"):
        table.add_column(column, overflow="fold")
    for metric, count in counts.items():
        top = reasons.get(metric, Counter()).most_common(3)
        why = "; ".join(f"{reason} ({n})" for reason, n in top) or "-"
        if run.row_count > scan:
            why += f" [reasons from the first {scan:,} rows]"
        table.add_row(_text(metric), str(count), _text(why))
    console.print(table)


def print_gate(console: Any, gate: GateResult) -> None:
    for check in gate.checks:
        mark = "[green]pass[/green]" if check.passed else "[red]FAIL[/red]"
        console.print(f"gate {mark}  {_text(check.message)}")
    if not gate.configured:
        console.print(
            "gate: no pass-rate floor configured (add gate: to the plan or --min-pass-rate)"
        )
    verdict = "[green]passed[/green]" if gate.passed else "[red]failed[/red]"
    console.print(f"gate {verdict}")


def show_run(
    console: Any, store: StoreReader, run_id: str, *, category: str | None = None, limit: int = 20
) -> None:
    """Everything ``tooleval runs show`` prints for one run."""
    run = store.get_run(run_id)
    print_run_header(console, run, run_status(store, run))
    print_summary(console, store, run)
    print_judge_usage(console, store, run)
    print_categories(console, store, run)
    from tooleval.analysis.repeats import repeat_lines, summarise_run

    repeats = summarise_run(store, run) if category is None else None
    for line in repeat_lines(repeats) if repeats is not None else ():
        console.print(_text(line))
    total = store.count_rows(run.id)
    passing = store.count_rows(run.id, passed=True)
    if category is None and passing == 0:
        # Nothing passed: the whole run is needed to tell plumbing from many bugs.
        rows = list(store.iter_rows(run.id))
        clusters = cluster_failures(rows)
    else:
        rows = [r for r in store.iter_rows(run.id, category=category) if r.passed is not True]
        clusters = cluster_failures(rows, total_rows=total)
    failing = [r for r in rows if r.passed is not True]
    print_clusters(console, clusters, len(failing))
    print_unscored(console, store, run)
    print_class_by_category(console, clusters)
    print_failing_rows(console, failing[:limit], total=len(failing))


def _counts_cells(counts: DeltaCounts) -> list[str]:
    return [
        f"{_pct(counts.pass_rate_a)} → {_pct(counts.pass_rate_b)}",
        str(counts.fixed),
        str(counts.regressed),
        str(counts.score_down),
        str(counts.score_up),
        str(counts.unchanged),
        str(counts.new),
        str(counts.missing),
        str(counts.unscored),
    ]


def print_comparison(console: Any, comparison: Comparison, *, limit: int = 20) -> None:
    from rich.table import Table

    a, b = comparison.run_a, comparison.run_b
    console.print(f"[bold]A[/bold] {a.id} {_text(a.name)} ({a.row_count} rows)")
    console.print(f"[bold]B[/bold] {b.id} {_text(b.name)} ({b.row_count} rows)")
    if comparison.differences:
        diff = Table(title="configuration differences (only one thing should change)")
        for column in ("setting", "A", "B"):
            diff.add_column(column, overflow="fold")
        for d in comparison.differences:
            diff.add_row(_text(d.path), _text(_value(d.a)), _text(_value(d.b)))
        console.print(diff)
        if len({d.path.split(".")[0] for d in comparison.differences}) > 1:
            console.print(
                "[yellow]more than one part changed: the row deltas mix their effects[/yellow]"
            )
    else:
        console.print("same dataset, connector and metric parameters")
    console.print(f"unit: {_text(comparison.unit)}")
    headers = (
        "pass rate A → B",
        "fixed",
        "regressed",
        "score down",
        "score up",
        "unchanged",
        "new",
        "missing",
        "unscored",
    )
    table = Table(title="per metric (dataset rows)")
    table.add_column("metric")
    for column in headers:
        table.add_column(column, justify="right")
    for metric, counts in comparison.metrics.items():
        table.add_row(_text(metric), *_counts_cells(counts))
    console.print(table)
    if comparison.categories:
        table = Table(title="per category (dataset rows)")
        table.add_column("category")
        table.add_column("metric")
        for column in headers:
            table.add_column(column, justify="right")
        for category, per_metric in comparison.categories.items():
            for metric, counts in per_metric.items():
                table.add_row(_text(category), _text(metric), *_counts_cells(counts))
        console.print(table)
    titles = {
        "regressed": "regressed",
        "fixed": "fixed",
        "score_down": "score down (same verdict)",
        "score_up": "score up (same verdict)",
    }
    for change, title in titles.items():
        deltas = comparison.changed(change)
        if not deltas:
            continue
        table = Table(title=f"{title} ({len(deltas)})")
        repeated = comparison.attempts != (1, 1)
        columns = ("row", "category", "metric", "score A → B")
        for column in columns + (("passed attempts A → B",) if repeated else ()):
            table.add_column(column)
        for delta in deltas[:limit]:
            cells = [
                _text(delta.row_id),
                _text(delta.category or "-"),
                _text(delta.metric),
                f"{_num(delta.score_a)} → {_num(delta.score_b)}",
            ]
            if repeated:
                cells.append(
                    f"{delta.passes_a}/{delta.attempts_a} → {delta.passes_b}/{delta.attempts_b}"
                )
            table.add_row(*cells)
        console.print(table)


def _value(value: Any) -> str:
    return "(not set)" if value is None else str(value)
