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
from tooleval.report.html import Href, Safe, el, href, void
from tooleval.report.page import chip_legend
from tooleval.report.side_by_side import delta_calls, side_by_side
from tooleval.store.records import RowRecord, RunInfo
from tooleval.web.pages import page, select

__all__ = ["CHANGE_CHOICES", "compare_page", "compare_row_page"]

CHANGE_CHOICES = ("regressed", "fixed") + tuple(
    c for c in CHANGES if c not in ("regressed", "fixed")
)


def _pick_form(runs: Sequence[RunInfo], a: str | None, b: str | None) -> Safe:
    options = [("", "choose a run")] + [(r.id, f"{r.name} ({r.id})") for r in runs]
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
) -> str:
    """Pick two runs; with both picked, their comparison and one page of row deltas."""
    body: list[Safe | None] = [el("h1", "Compare runs"), _pick_form(runs, a, b)]
    if comparison is None or a is None or b is None:
        return page("compare · tooleval", *body)
    metrics = list(comparison.metrics)
    pages = max(1, -(-total // per_page))
    filters = el(
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

    pager = el(
        "nav",
        el("a", "‹ prev", href=page_link(page_number - 1), rel="prev")
        if page_number > 1
        else el("span", "‹ prev", class_="disabled"),
        el("span", f"page {page_number} of {pages}", class_="current"),
        el("a", "next ›", href=page_link(page_number + 1), rel="next")
        if page_number < pages
        else el("span", "next ›", class_="disabled"),
        el("span", f"{total} row × metric pairs", class_="muted"),
        class_="pager",
        aria_label="pages of deltas",
    )
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
    shown_filter = " · ".join(
        part
        for part in (
            CHANGE_LABELS.get(change, change) if change else None,
            metric,
        )
        if part
    )
    return page(
        f"{row_id} · compare · tooleval",
        el(
            "nav",
            el("a", "Compare", href=back),
            f" ({shown_filter})" if shown_filter else None,
            " › ",
            el("span", row_id, class_="crumb-name"),
            class_="crumbs",
            aria_label="breadcrumb",
        ),
        el("h1", f"Row {row_id}: A vs B"),
        el(
            "nav",
            neighbour("‹ previous", previous, -1, "prev"),
            neighbour("next ›", following, 1, "next"),
            el("a", "back to the list", href=back, id="row-up"),
            where,
            class_="pager",
            aria_label="rows",
        ),
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
        ),
    )
