"""The viewer's compare pages: two runs' deltas, and one row of both side by side.

The deltas page lists row × metric changes (changed rows first), each with
the calls made on both sides and what differs between them marked; "regressed
only" is one click. A row opens side by side: scores with reasons, calls with
differing arguments highlighted, outputs, errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.analysis.compare import CHANGES
from tooleval.report.compare import CHANGE_LABELS, comparison_overview, delta_rows_table
from tooleval.report.html import Href, Safe, el, frag, href, void
from tooleval.report.page import chip_legend
from tooleval.report.side_by_side import delta_calls, side_by_side
from tooleval.store.records import RowRecord, RunInfo
from tooleval.web.pages import page, select

__all__ = ["CHANGE_CHOICES", "compare_page", "compare_row_page", "matrix_page", "run_label"]

CHANGE_CHOICES = ("regressed", "fixed") + tuple(
    c for c in CHANGES if c not in ("regressed", "fixed")
)


def run_label(run: RunInfo) -> str:
    """A run as a person tells it apart: name, start time, short id, tags.

    >>> run_label(RunInfo("20261201-195718-4bee25", "nightly", "2026-12-01T19:57:18", "finished",
    ...                   tags=("v2",)))
    'nightly · 2026-12-01 19:57:18 · 4bee25 · v2'
    """
    parts = [run.name, run.created_at[:19].replace("T", " "), run.id.rsplit("-", 1)[-1][:8]]
    if run.tags:
        parts.append(", ".join(run.tags))
    return " · ".join(p for p in parts if p)


def _pick_form(runs: Sequence[RunInfo], a: str | None, b: str | None) -> Safe:
    options = [("", "choose a run")] + [(r.id, run_label(r)) for r in runs]
    return el(
        "form",
        select("a", "A (baseline)", options, a),
        select("b", "B (new)", options, b),
        el("button", "compare", type="submit"),
        method="get",
        action=href("/compare"),
        class_="filters pick-runs",
    )


def row_compare_link(
    a: str,
    b: str,
    delta: Any,
    *,
    change: str | None = None,
    metric: str | None = None,
    position: int | None = None,
) -> Href:
    """The side-by-side page of one delta's row, carrying the deltas' filter and its place."""
    return href(
        "/compare/row",
        a=a,
        b=b,
        ia=delta.index_a,
        ib=delta.index_b,
        change=change,
        metric=metric,
        pos=position,
    )


def _pager(page_number: int, pages: int, link: Any, counted: str, label: str) -> Safe:
    """‹ prev · page N of M · next › and what is counted (deltas, matrix rows)."""
    return el(
        "nav",
        el("a", "‹ prev", href=link(page_number - 1), rel="prev")
        if page_number > 1
        else el("span", "‹ prev", class_="disabled"),
        el("span", f"page {page_number} of {pages}", class_="current"),
        el("a", "next ›", href=link(page_number + 1), rel="next")
        if page_number < pages
        else el("span", "next ›", class_="disabled"),
        el("span", counted, class_="muted"),
        class_="pager",
        aria_label=label,
    )


def _delta_filters(a: str, b: str, metrics: Sequence[str], change: Any, metric: Any) -> Safe:
    return el(
        "form",
        void("input", type="hidden", name="a", value=a),
        void("input", type="hidden", name="b", value=b),
        select(
            "change",
            "change",
            [("", "all (changed first)")] + [(c, CHANGE_LABELS[c]) for c in CHANGE_CHOICES],
            change,
        ),
        select("metric", "metric", [("", "any")] + [(m, m) for m in metrics], metric),
        el("button", "filter", type="submit"),
        el(
            "a",
            "regressed only",
            href=href("/compare", a=a, b=b, change="regressed", metric=metric, fragment="deltas"),
            class_="button-link",
        ),
        method="get",
        action=href("/compare", fragment="deltas"),
        class_="filters",
    )


def compare_page(
    runs: Sequence[RunInfo],
    *,
    a: str | None,
    b: str | None,
    comparison: Any = None,
    deltas: Sequence[Any] = (),
    total: int = 0,
    rows: dict[tuple[str, int | None], RowRecord | None] | None = None,
    change: str | None = None,
    metric: str | None = None,
    page_number: int = 1,
    per_page: int = 50,
    intervals: Safe | None = None,
) -> str:
    """Pick two runs; with both picked, their comparison and one page of row deltas.

    ``intervals``: the pass rates with their intervals and the paired Δ
    (:func:`tooleval.web.intervals.noise_section`).
    """
    body: list[Safe | None] = [el("h1", "Compare runs"), _pick_form(runs, a, b)]
    if comparison is None or a is None or b is None:
        return page("compare · tooleval", *body)
    metrics = list(comparison.metrics)
    pages = max(1, -(-total // per_page))
    filters = _delta_filters(a, b, metrics, change, metric)

    def page_link(n: int) -> Href:
        return href(
            "/compare",
            a=a,
            b=b,
            change=change,
            metric=metric,
            page=None if n == 1 else n,
            fragment="deltas",
        )

    pager = _pager(page_number, pages, page_link, f"{total} row × metric pairs", "pages of deltas")
    note = None
    if change == "unchanged":
        counted = sum(c.unchanged for c in comparison.metrics.values())
        if counted and not total:
            note = el(
                "p",
                f"{counted} unchanged pairs are counted but not listed for stored comparisons.",
                class_="note",
            )
    first = (page_number - 1) * per_page
    positions = {id(d): first + i for i, d in enumerate(deltas)}
    body += [
        el("h2", "Overview"),
        comparison_overview(comparison, run_link=lambda run_id: href("/runs", run_id), level=3),
        intervals,
        el("h2", "Per-row deltas", id="deltas"),
        filters,
        note,
        chip_legend(),
        pager,
        delta_rows_table(
            deltas,
            row_link=lambda d: row_compare_link(
                a, b, d, change=change, metric=metric, position=positions[id(d)]
            ),
            calls=lambda d: delta_calls(
                (rows or {}).get(("a", d.index_a)), (rows or {}).get(("b", d.index_b))
            ),
            empty="No row × metric pairs match.",
        ),
    ]
    return page("compare · tooleval", *body)


def _row_navigation(
    run_a: RunInfo,
    run_b: RunInfo,
    row_id: str,
    back: Href,
    change: str | None,
    metric: str | None,
    position: int | None,
    previous: Any,
    following: Any,
    total: int | None,
) -> tuple[Safe, Safe]:
    """The breadcrumb (naming the list's filter) and previous / next in that list."""

    def neighbour(label: str, delta: Any, step: int, rel: str) -> Safe:
        if delta is None or position is None:
            return el("span", label, class_="disabled")
        target = row_compare_link(
            run_a.id, run_b.id, delta, change=change, metric=metric, position=position + step
        )
        return el("a", label, href=target, rel=rel, id=f"row-{rel}")

    where = (
        el("span", f"{position + 1} of {total} row × metric pairs in this list", class_="muted")
        if position is not None and total is not None
        else None
    )
    shown = " · ".join(
        p for p in (CHANGE_LABELS.get(change, change) if change else None, metric) if p
    )
    crumbs = el(
        "nav",
        el("a", "Compare", href=back),
        f" ({shown})" if shown else None,
        " › ",
        el("span", row_id, class_="crumb-name"),
        class_="crumbs",
        aria_label="breadcrumb",
    )
    nav = el(
        "nav",
        neighbour("‹ previous", previous, -1, "prev"),
        neighbour("next ›", following, 1, "next"),
        el("a", "back to the list", href=back, id="row-up"),
        where,
        class_="pager",
        aria_label="rows",
    )
    return crumbs, nav


def compare_row_page(
    run_a: RunInfo,
    run_b: RunInfo,
    row_a: RowRecord | None,
    row_b: RowRecord | None,
    *,
    change: str | None = None,
    metric: str | None = None,
    position: int | None = None,
    previous: Any = None,
    following: Any = None,
    total: int | None = None,
) -> str:
    """One row of both runs side by side, with the neighbouring deltas of the list it came from.

    ``previous`` / ``following`` are the neighbouring deltas in the filtered
    list (``change`` / ``metric``); ``position`` is this one's place in it.
    """
    either = row_b or row_a
    row_id = either.row_id if either else "?"
    metrics = list(dict.fromkeys([*run_a.summaries, *run_b.summaries]))
    per_page = 50
    back = href(
        "/compare",
        a=run_a.id,
        b=run_b.id,
        change=change,
        metric=metric,
        page=None if position is None or position < per_page else position // per_page + 1,
        fragment="deltas",
    )

    crumbs, nav = _row_navigation(
        run_a, run_b, row_id, back, change, metric, position, previous, following, total
    )
    return page(
        f"{row_id} · compare · tooleval",
        crumbs,
        el("h1", f"Row {row_id}: A vs B"),
        nav,
        el(
            "p",
            el("strong", "A "),
            el("a", run_a.name, href=href("/runs", run_a.id)),
            " · ",
            el("strong", "B "),
            el("a", run_b.name, href=href("/runs", run_b.id)),
            class_="muted",
        ),
        el(
            "p",
            "Differences between A and B are highlighted; each expected call says where "
            "each side made it.",
            class_="muted small",
        ),
        el(
            "div",
            side_by_side(
                row_a,
                row_b,
                metrics=metrics,
                link_a=href("/runs", run_a.id, "rows", row_a.index) if row_a else None,
                link_b=href("/runs", run_b.id, "rows", row_b.index) if row_b else None,
            ),
            class_="table-scroll",
            tabindex="0",
        ),
        _state_diffs(row_a, row_b),
    )


def _state_diffs(row_a: RowRecord | None, row_b: RowRecord | None) -> Safe | None:
    """Each side's state diff (``state_match`` and replay metrics), A then B, where one exists."""
    from tooleval.report.state_diff import state_diff_section, state_diffs

    parts = [
        el(
            "section",
            el("h2", f"State diff in {label} ({'baseline' if label == 'A' else 'new'})"),
            *(state_diff_section(r, level=3) for r in state_diffs(row.results)),
            class_="state-diff-side",
        )
        for label, row in (("A", row_a), ("B", row_b))
        if row is not None and state_diffs(row.results)
    ]
    return frag(*parts) if parts else None


_MATRIX_LABELS = {
    "regressed": "regressed (passed, then failed through the last run)",
    "flaky": "changes between runs",
    "fixed": "fixed (failed, then passed through the last run)",
    "partial": "not in every run",
    "failing": "fails in every run",
    "passing": "passes in every run",
}


def trend_label(row: Any) -> str:
    """What happened to one row across every run shown (oldest first), run numbers 1-based.

    PASS → FAIL → FAIL regressed in run 2 and still fails; it did not regress "in the
    last run".

    >>> from tooleval.report.matrix import MatrixRow
    >>> cells = [(True, {}, False, (1, 1)), (False, {}, False, (0, 1)), (False, {}, False, (0, 1))]
    >>> trend_label(MatrixRow("q1", None, tuple(cells), "regressed"))
    'regressed in run 2 of 3, fails in every run since'
    >>> trend_label(MatrixRow("q1", None, tuple(cells[:2]), "regressed"))
    'regressed in the last run'
    """
    passed = [c is not None and c[0] is True for c in row.cells]
    n = len(passed)
    if row.change == "regressed":
        j = max(i for i in range(1, n) if passed[i - 1] and not passed[i])
        if j == n - 1:
            return "regressed in the last run"
        return f"regressed in run {j + 1} of {n}, fails in every run since"
    if row.change == "fixed":
        j = passed.index(True)
        return f"fixed in run {j + 1} of {n}, passes in every run since"
    return _MATRIX_LABELS[row.change]


def _matrix_cell(cell: Any, index: int | None, run: RunInfo, metrics: Sequence[str]) -> Safe:
    from tooleval.report.components import score_text, verdict_badge

    if cell is None:
        return el("td", "not in this run", class_="muted small")
    verdict, scores, error, (passed, attempts) = cell
    shown = " · ".join(score_text(scores.get(m)) for m in metrics if m in scores)
    if attempts > 1:
        shown = f"{passed}/{attempts} attempts passed" + (f" · {shown}" if shown else "")
    badge = verdict_badge(verdict, error=error)
    link = href("/runs", run.id, "rows", index) if index is not None else None
    return el(
        "td",
        el("a", badge, href=link) if link else badge,
        el("div", shown, class_="small muted") if shown else None,
        class_="cell-error"
        if error
        else f"cell-{'pass' if verdict else 'fail' if verdict is False else 'unscored'}",
    )


def matrix_page(
    runs: Sequence[RunInfo],
    rows: Sequence[Any],
    *,
    page_number: int,
    per_page: int,
    total: int,
    counts: dict[str, int],
    refs: Sequence[str],
    intervals: Safe | None = None,
) -> str:
    """Rows × runs: each cell the row's verdict and its scores; regressions first."""
    from tooleval.report.matrix import MATRIX_ORDER

    metrics = list(dict.fromkeys(m for r in runs for m in r.summaries))
    head = el(
        "tr",
        el("th", "row"),
        el("th", "change"),
        *(
            el("th", el("a", run_label(r), href=href("/runs", r.id)), class_="run-col")
            for r in runs
        ),
    )
    body = [
        el(
            "tr",
            el(
                "td",
                row.row_id,
                el("div", row.category or "", class_="muted small"),
                class_="rowid",
            ),
            el("td", trend_label(row), class_=f"change change-{row.change}"),
            *(
                _matrix_cell(cell, index, run, metrics)
                for cell, index, run in zip(row.cells, row.indexes, runs, strict=True)
            ),
        )
        for row in rows
    ]
    pages = max(1, -(-total // per_page))

    def page_link(n: int) -> Href:
        return href("/compare", run=list(refs), page=None if n == 1 else n, fragment="matrix")

    pager = _pager(page_number, pages, page_link, f"{total} rows", "pages of rows")
    summary = el(
        "ul",
        [
            el("li", el("strong", counts.get(kind, 0)), f" {_MATRIX_LABELS[kind]}")
            for kind in MATRIX_ORDER
            if counts.get(kind)
        ],
        class_="matrix-counts",
    )
    legend = el(
        "p",
        "Runs oldest to newest, left to right; one line per dataset row; each cell is the row's "
        f"verdict (every metric) and its scores ({', '.join(metrics)}); a repeated run's cell "
        "passes when every attempt passed and says how many did; rows that passed and then "
        "failed come first.",
        class_="muted small",
    )
    return page(
        "compare runs · tooleval",
        el("h1", f"Compare {len(runs)} runs"),
        summary,
        legend,
        intervals,
        el("h2", "Rows × runs", id="matrix"),
        pager,
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="matrix"),
            class_="table-scroll",
            tabindex="0",
        ),
    )
