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
from tooleval.report.compare import CHANGE_LABELS, change_cell, comparison_overview
from tooleval.report.components import score_text
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


def row_compare_link(a: str, b: str, delta: Any) -> Href:
    """The side-by-side page of one delta's row."""
    return href(
        "/compare/row",
        a=a,
        b=b,
        ia=delta.index_a,
        ib=delta.index_b,
    )


def _deltas_table(
    deltas: Sequence[Any], rows: dict[tuple[str, int | None], RowRecord | None], a: str, b: str
) -> Safe:
    if not deltas:
        return el("p", "No row × metric pairs match.", class_="muted")
    head = el(
        "tr",
        *(
            el("th", h, class_=c)
            for h, c in (
                ("row", None),
                ("category", None),
                ("metric", None),
                ("change", None),
                ("score A → B", "num"),
                ("calls in A", None),
                ("calls in B", None),
            )
        ),
    )
    body = []
    for d in deltas:
        cell_a, cell_b = delta_calls(rows.get(("a", d.index_a)), rows.get(("b", d.index_b)))
        delta = d.score_delta
        scores = f"{score_text(d.score_a)} → {score_text(d.score_b)}"
        body.append(
            el(
                "tr",
                el("td", el("a", d.row_id, href=row_compare_link(a, b, d)), class_="rowid"),
                el("td", d.category or "", class_="cat"),
                el("td", d.metric),
                change_cell(d.change),
                el(
                    "td",
                    scores,
                    el("div", f"{delta:+.2f}", class_="muted small") if delta else None,
                    class_="num",
                ),
                el("td", cell_a),
                el("td", cell_b),
            )
        )
    return el("table", el("thead", head), el("tbody", body), class_="deltas")


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
    body += [
        el("h2", "Overview"),
        comparison_overview(comparison, run_link=lambda run_id: href("/runs", run_id), level=3),
        el("h2", "Per-row deltas", id="deltas"),
        filters,
        note,
        chip_legend(),
        pager,
        _deltas_table(deltas, rows or {}, a, b),
    ]
    return page("compare · tooleval", *body)


def compare_row_page(
    run_a: RunInfo,
    run_b: RunInfo,
    row_a: RowRecord | None,
    row_b: RowRecord | None,
) -> str:
    """One row of both runs side by side."""
    either = row_b or row_a
    row_id = either.row_id if either else "?"
    metrics = list(dict.fromkeys([*run_a.summaries, *run_b.summaries]))
    back = href("/compare", a=run_a.id, b=run_b.id, fragment="deltas")
    return page(
        f"{row_id} · compare · tooleval",
        el(
            "nav",
            el("a", "Compare", href=back),
            " › ",
            el("span", row_id, class_="crumb-name"),
            class_="crumbs",
            aria_label="breadcrumb",
        ),
        el("h1", f"Row {row_id}: A vs B"),
        el(
            "p",
            el("strong", "A "),
            el("a", run_a.name, href=href("/runs", run_a.id)),
            " · ",
            el("strong", "B "),
            el("a", run_b.name, href=href("/runs", run_b.id)),
            class_="muted",
        ),
        el("p", "Differences between A and B are highlighted.", class_="muted small"),
        side_by_side(
            row_a,
            row_b,
            metrics=metrics,
            link_a=href("/runs", run_a.id, "rows", row_a.index) if row_a else None,
            link_b=href("/runs", run_b.id, "rows", row_b.index) if row_b else None,
        ),
    )
