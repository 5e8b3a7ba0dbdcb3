"""The viewer's pages, built from the shared rendering layer (:mod:`tooleval.report`).

Pure functions from store records to HTML; :mod:`tooleval.web.app` does the
routing and the store reads. Links use :func:`tooleval.report.html.href`, so
run ids, categories and search text only ever appear percent-encoded in a
same-origin path or query string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tooleval.report.compare import comparison_overview, delta_rows_table
from tooleval.report.components import (
    metric_summary_table,
    pct,
    row_card,
    rows_table,
    run_header,
)
from tooleval.report.html import Href, Safe, el, frag, href, void
from tooleval.report.page import chip_legend, document
from tooleval.report.static import category_section
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "PAGE_SIZES",
    "RunFilters",
    "compare_page",
    "error_page",
    "row_page",
    "run_page",
    "runs_page",
]

PAGE_SIZES = (25, 50, 100, 200)
SORTS = {
    "index": "row order",
    "-index": "row order, last first",
    "row_id": "row id",
    "category": "category",
    "-latency": "slowest first",
    "latency": "fastest first",
    "score": "lowest score first (needs metric)",
    "-score": "highest score first (needs metric)",
}


@dataclass(frozen=True, slots=True)
class RunFilters:
    """What the run page shows: filters, sort and page (all from the query string)."""

    category: str | None = None
    metric: str | None = None
    result: str | None = None  # "pass" | "fail"
    failure_class: str | None = None
    q: str | None = None
    sort: str = "index"
    page: int = 1
    per_page: int = 50
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool | None:
        return {"pass": True, "fail": False}.get(self.result or "")

    def query(self, **changes: Any) -> dict[str, Any]:
        """The query string of this view with ``changes`` applied (defaults left out)."""
        values = {
            "category": self.category,
            "metric": self.metric,
            "result": self.result,
            "failure_class": self.failure_class,
            "q": self.q,
            "sort": None if self.sort == "index" else self.sort,
            "page": None if self.page == 1 else self.page,
            "per_page": None if self.per_page == 50 else self.per_page,
        }
        values.update(changes)
        return values

    def link(self, run_id: str, **changes: Any) -> Href:
        return href("/runs", run_id, **self.query(**changes))


def _topbar() -> Safe:
    return el(
        "nav",
        el("a", "tooleval", href=href("/"), class_="brand"),
        el("a", "runs", href=href("/")),
        el("a", "compare", href=href("/compare")),
        class_="topbar",
    )


def _page(title: str, *body: Safe) -> str:
    return str(
        document(
            title,
            *body,
            stylesheet=href("/static/style.css"),
            scripts=(href("/static/viewer.js"),),
            topbar=_topbar(),
        )
    )


def _select(name: str, label: str, options: Sequence[tuple[str, str]], current: str | None) -> Safe:
    return el(
        "label",
        label,
        el(
            "select",
            [
                el("option", text, value=value, selected=(value == (current or "")))
                for value, text in options
            ],
            name=name,
            class_="autosubmit",
        ),
    )


# ---------------------------------------------------------------- runs list


def runs_page(
    runs: Sequence[RunInfo], *, q: str | None, tag: str | None, tags: Sequence[str]
) -> str:
    """Every stored run, newest first, searchable by name and filterable by tag."""
    form = el(
        "form",
        el(
            "label",
            "search",
            void("input", type="search", name="q", value=q or "", placeholder="name or id"),
        ),
        _select("tag", "tag", [("", "any tag")] + [(t, t) for t in tags], tag),
        el("button", "filter", type="submit"),
        method="get",
        action=href("/"),
        class_="filters",
    )
    head = el(
        "tr",
        *(
            el("th", h, class_=c)
            for h, c in (
                ("run", None),
                ("id", None),
                ("status", None),
                ("created", None),
                ("rows", "num"),
                ("errors", "num"),
                ("pass rate per metric", None),
                ("tags", None),
            )
        ),
    )
    body = [
        el(
            "tr",
            el("td", el("a", run.name, href=href("/runs", run.id)), class_="rowid"),
            el("td", el("code", run.id)),
            el("td", run.status, class_=f"status-{run.status}"),
            el("td", run.created_at[:19].replace("T", " ")),
            el("td", run.row_count, class_="num"),
            el("td", run.error_count, class_="num"),
            el(
                "td",
                frag(
                    el(
                        "div",
                        el("span", f"{name} ", class_="muted"),
                        el("strong", pct(s.pass_rate)),
                    )
                    for name, s in run.summaries.items()
                ),
            ),
            el("td", frag(el("span", t, class_="tag") for t in run.tags)),
        )
        for run in runs
    ]
    table = (
        el("table", el("thead", head), el("tbody", body), class_="runs")
        if runs
        else el(
            "p",
            "No runs match."
            if (q or tag)
            else "No runs stored yet: start one with `tooleval run PLAN`.",
            class_="muted",
        )
    )
    compare_hint = (
        el(
            "p",
            "Compare two runs: ",
            el("a", "open the compare page", href=href("/compare")),
            class_="muted",
        )
        if len(runs) >= 2
        else None
    )
    return _page("tooleval runs", el("h1", "Runs"), form, table, compare_hint)


# ---------------------------------------------------------------- run page


def _pager(run_id: str, filters: RunFilters, total: int) -> Safe:
    pages = max(1, -(-total // filters.per_page))
    first = (filters.page - 1) * filters.per_page + 1 if total else 0
    last = min(filters.page * filters.per_page, total)

    def nav(label: str, page: int, enabled: bool) -> Safe:
        if not enabled:
            return el("span", label, class_="disabled")
        return el(
            "a", label, href=filters.link(run_id, page=None if page == 1 else page), rel="nofollow"
        )

    return el(
        "div",
        nav("« first", 1, filters.page > 1),
        nav("‹ prev", filters.page - 1, filters.page > 1),
        el("span", f"page {filters.page} of {pages}", class_="current"),
        nav("next ›", filters.page + 1, filters.page < pages),
        nav("last »", pages, filters.page < pages),
        el("span", f"rows {first}–{last} of {total}", class_="muted"),
        class_="pager",
    )


def run_page(
    run: RunInfo,
    *,
    rows: Sequence[RowRecord],
    total: int,
    filters: RunFilters,
    categories: Sequence[str],
    category_stats: Sequence[Any],
    class_counts: dict[str, int],
    class_examples: dict[str, list[RowRecord]],
    failure_classes: dict[str, str],
) -> str:
    """One run: header, metrics, charts, categories, failure classes, filtered paged rows."""
    metrics = list(run.summaries)

    def row_link(row: RowRecord) -> Href:
        return href("/runs", run.id, "rows", row.index)

    charts = el(
        "div",
        [
            el(
                "div",
                void(
                    "img",
                    src=href("/runs", run.id, "charts", "scores.svg", metric=m),
                    alt=f"score distribution of {m}",
                    width=360,
                    height=170,
                ),
                class_="chart-box",
            )
            for m in metrics
        ],
        class_="charts",
    )
    clusters = _class_table(run, class_counts, class_examples, failure_classes, filters)
    form = el(
        "form",
        _select(
            "category", "category", [("", "all")] + [(c, c) for c in categories], filters.category
        ),
        _select("metric", "metric", [("", "any")] + [(m, m) for m in metrics], filters.metric),
        _select(
            "result",
            "result",
            [("", "all"), ("fail", "failed"), ("pass", "passed")],
            filters.result,
        ),
        _select(
            "failure_class",
            "failure class",
            [("", "any")] + [(c, c.replace("_", " ")) for c in failure_classes],
            filters.failure_class,
        ),
        el(
            "label",
            "search",
            void(
                "input",
                type="search",
                name="q",
                value=filters.q or "",
                placeholder="id, input, output, error",
            ),
        ),
        _select("sort", "sort", list(SORTS.items()), filters.sort),
        _select(
            "per_page", "per page", [(str(n), str(n)) for n in PAGE_SIZES], str(filters.per_page)
        ),
        el("button", "apply", type="submit"),
        el("a", "reset", href=href("/runs", run.id)),
        method="get",
        action=href("/runs", run.id),
        class_="filters",
        id="filters",
    )
    return _page(
        f"{run.name} · tooleval",
        el("div", el("a", "Runs", href=href("/")), " › ", run.name, class_="crumbs"),
        run_header(run),
        el("h2", "Metrics"),
        metric_summary_table(run),
        charts,
        el("h2", "Per category"),
        category_section(
            list(category_stats),
            [],
            link=lambda c: href("/runs", run.id, category=c, result="fail"),
        ),
        el("h2", "Failures by class"),
        clusters,
        el("h2", "Rows", id="rows"),
        form,
        chip_legend(),
        _pager(run.id, filters, total),
        rows_table(rows, metrics, row_link)
        if rows
        else el("p", "No rows match these filters.", class_="muted"),
        _pager(run.id, filters, total) if len(rows) > 10 else None,
    )


def _class_table(
    run: RunInfo,
    counts: dict[str, int],
    examples: dict[str, list[RowRecord]],
    classes: dict[str, str],
    filters: RunFilters,
) -> Safe:
    if not counts:
        return el("p", "No failing rows.", class_="ok")
    body = []
    for cls, count in sorted(counts.items(), key=lambda kv: -kv[1]):
        links = [
            el("a", r.row_id, href=href("/runs", run.id, "rows", r.index))
            for r in examples.get(cls, [])
        ]
        body.append(
            el(
                "tr",
                el(
                    "td",
                    el(
                        "a",
                        cls.replace("_", " "),
                        href=href("/runs", run.id, failure_class=cls, fragment="rows"),
                    ),
                    el("div", classes.get(cls, ""), class_="muted small"),
                ),
                el("td", count, class_="num"),
                el("td", frag(frag(link, " ") for link in links)),
            )
        )
    head = el("tr", el("th", "class"), el("th", "rows", class_="num"), el("th", "example rows"))
    return el("table", el("thead", head), el("tbody", body), class_="clusters")


# ---------------------------------------------------------------- row page


def row_page(run: RunInfo, row: RowRecord, *, previous: int | None, following: int | None) -> str:
    """One row in full: the shared row card, with neighbours."""
    nav = el(
        "div",
        el("a", "‹ previous row", href=href("/runs", run.id, "rows", previous))
        if previous is not None
        else None,
        el("a", "next row ›", href=href("/runs", run.id, "rows", following))
        if following is not None
        else None,
        class_="pager",
    )
    return _page(
        f"{row.row_id} · {run.name} · tooleval",
        el(
            "div",
            el("a", "Runs", href=href("/")),
            " › ",
            el("a", run.name, href=href("/runs", run.id)),
            " › ",
            row.row_id,
            class_="crumbs",
        ),
        nav,
        chip_legend(),
        row_card(row),
    )


# ---------------------------------------------------------------- compare


def compare_page(
    runs: Sequence[RunInfo],
    *,
    a: str | None,
    b: str | None,
    comparison: Any = None,
    change: str | None = None,
    metric: str | None = None,
    page: int = 1,
    per_page: int = 100,
) -> str:
    """Pick two runs; with both picked, their comparison and per-row deltas."""
    options = [("", "choose a run")] + [(r.id, f"{r.name} ({r.id})") for r in runs]
    form = el(
        "form",
        _select("a", "A (baseline)", options, a),
        _select("b", "B (new)", options, b),
        el("button", "compare", type="submit"),
        method="get",
        action=href("/compare"),
        class_="filters",
    )
    body: list[Safe] = [el("h1", "Compare runs"), form]
    if comparison is not None:
        metrics = list(comparison.metrics)
        deltas = [
            d
            for d in comparison.rows
            if (change is None or d.change == change) and (metric is None or d.metric == metric)
        ]
        if change is None:
            # Changed rows first: they are why anyone compares.
            rank = {"regressed": 0, "fixed": 1}
            deltas.sort(key=lambda d: rank.get(d.change, 2))
        total = len(deltas)
        start = (page - 1) * per_page
        shown = deltas[start : start + per_page]
        pages = max(1, -(-total // per_page))
        filters = el(
            "form",
            void("input", type="hidden", name="a", value=a),
            void("input", type="hidden", name="b", value=b),
            _select(
                "change",
                "change",
                [("", "all")]
                + [
                    (c, c)
                    for c in ("regressed", "fixed", "unchanged", "new", "missing", "unscored")
                ],
                change,
            ),
            _select("metric", "metric", [("", "any")] + [(m, m) for m in metrics], metric),
            el("button", "filter", type="submit"),
            method="get",
            action=href("/compare"),
            class_="filters",
        )

        def link(d: Any) -> Href | None:
            if d.index_b is not None:
                return href("/runs", comparison.run_b.id, "rows", d.index_b)
            if d.index_a is not None:
                return href("/runs", comparison.run_a.id, "rows", d.index_a)
            return None

        def page_link(n: int) -> Href:
            return href(
                "/compare", a=a, b=b, change=change, metric=metric, page=None if n == 1 else n
            )

        pager = el(
            "div",
            el("a", "‹ prev", href=page_link(page - 1))
            if page > 1
            else el("span", "‹ prev", class_="disabled"),
            el("span", f"page {page} of {pages}", class_="current"),
            el("a", "next ›", href=page_link(page + 1))
            if page < pages
            else el("span", "next ›", class_="disabled"),
            el("span", f"{total} row × metric pairs", class_="muted"),
            class_="pager",
        )
        body += [
            comparison_overview(comparison, run_link=lambda run_id: href("/runs", run_id)),
            el("h2", "Per-row deltas", id="deltas"),
            filters,
            pager,
            delta_rows_table(shown, row_link=link),
        ]
    return _page("compare · tooleval", *body)


# ---------------------------------------------------------------- errors


def error_page(status: int, title: str, message: str, *, hint: Safe | None = None) -> str:
    """A helpful error page (unknown run or row, bad filter value)."""
    return _page(
        f"{status} {title} · tooleval",
        el(
            "section",
            el("h1", f"{title}"),
            el("p", message),
            hint,
            el("p", el("a", "← all runs", href=href("/"))),
            class_="error-page",
        ),
    )


def with_page(filters: RunFilters, page: int) -> RunFilters:
    return replace(filters, page=page)
