"""The viewer's pages, built from the shared rendering layer (:mod:`tooleval.report`).

Pure functions from store records to HTML; :mod:`tooleval.web.app` does the
routing and the store reads. Links use :func:`tooleval.report.html.href`, so
run ids, categories and search text only ever appear percent-encoded in a
same-origin path or query string.

Every view of a run's rows is a deep link: the filters, sort, page size and
page are in the query string, and each row link carries them too (with the
row's position in the filtered list), so "next row" walks the filtered rows
and the breadcrumb leads back to the same page of the same view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.figures import RunFigures
from tooleval.report.components import rows_table
from tooleval.report.html import Href, Safe, el, frag, href, void
from tooleval.report.page import chip_legend, document
from tooleval.report.run_tables import metric_summary_table, run_header
from tooleval.report.static import category_section, charts_caption
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "DEFAULT_SORT",
    "PAGE_SIZES",
    "RunFilters",
    "breadcrumb",
    "error_page",
    "count_text",
    "filter_chips",
    "page",
    "run_page",
]

PAGE_SIZES = (25, 50, 100, 200)
DEFAULT_SORT = "failures"
SORTS = {
    "failures": "failures first",
    "index": "row order",
    "-index": "row order, last first",
    "row_id": "row id",
    "category": "category",
    "-latency": "slowest first",
    "latency": "fastest first",
    "score": "lowest score first",
    "-score": "highest score first",
}
KEYS_HELP = "keys: j / k next / previous row, Enter open, / search, Esc leave the field"


@dataclass(frozen=True, slots=True)
class RunFilters:
    """What the run page shows: filters, sort and page (all from the query string)."""

    category: str | None = None
    metric: str | None = None
    result: str | None = None  # "pass" | "fail"
    failure_class: str | None = None
    q: str | None = None
    sort: str = DEFAULT_SORT
    page: int = 1
    per_page: int = 50
    #: A failure cluster's key (``wrong cancel_order.order_id``): exactly that cluster's rows.
    detail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: The page's key (what the pager's links carry): the rows after row ``after`` in this
    #: view, the rows before row ``before``, or (``end``) the view's last rows; none of
    #: them: the page is found by its number (``page=``, an old link).
    after: int | None = None
    before: int | None = None
    end: bool = False

    @property
    def keys(self) -> dict[str, Any]:
        """The store's page key of this view (``iter_rows(after= / before= / from_end=)``)."""
        return dict(after=self.after, before=self.before, from_end=self.end)

    @property
    def keyed(self) -> bool:
        return self.after is not None or self.before is not None or self.end

    @property
    def passed(self) -> bool | None:
        return {"pass": True, "fail": False}.get(self.result or "")

    @property
    def where(self) -> dict[str, Any]:
        """The store's row filters of this view."""
        return dict(
            category=self.category,
            metric=self.metric,
            passed=self.passed,
            failure_class=self.failure_class,
            search=self.q,
            failure_detail=self.detail,
        )

    @property
    def active(self) -> bool:
        """True when a filter or an order other than row order narrows or reorders the rows."""
        return any(v is not None for v in self.where.values()) or self.sort != "index"

    def query(self, **changes: Any) -> dict[str, Any]:
        """The query string of this view with ``changes`` applied (defaults left out)."""
        values = {
            "category": self.category,
            "metric": self.metric,
            "result": self.result,
            "failure_class": self.failure_class,
            "q": self.q,
            "detail": self.detail,
            "sort": None if self.sort == DEFAULT_SORT else self.sort,
            "page": None if self.page == 1 else self.page,
            "per_page": None if self.per_page == 50 else self.per_page,
            "after": self.after,
            "before": self.before,
            "end": 1 if self.end else None,
        }
        if "page" in changes:  # another page (or view): this page's key no longer applies
            values.update(after=None, before=None, end=None)
        values.update(changes)
        return values

    def view_query(self) -> dict[str, Any]:
        """The filters and order only (no page): what a row link carries."""
        return self.query(page=None)

    def link(self, run_id: str, *, fragment: str | None = None, **changes: Any) -> Href:
        return href("/runs", run_id, fragment=fragment, **self.query(**changes))

    def row_link(self, run_id: str, index: int, position: int) -> Href:
        """A row in this view: the filters and the row's 0-based position in the filtered list."""
        if not self.active:
            return href("/runs", run_id, "rows", index)
        return href("/runs", run_id, "rows", index, pos=position, **self.view_query())


def _topbar() -> Safe:
    return el(
        "nav",
        el("a", "tooleval", href=href("/"), class_="brand"),
        el("a", "runs", href=href("/")),
        el("a", "compare", href=href("/compare")),
        class_="topbar",
        aria_label="main",
    )


def breadcrumb(*steps: tuple[str, Href | None]) -> Safe:
    """The trail above a page: each step a link, the last (no address) the page itself.

    >>> str(breadcrumb(("Runs", href("/")), ("nightly", None))).count("<a ")
    1
    """
    parts: list[Safe | str] = []
    for number, (label, target) in enumerate(steps):
        if number:
            parts.append(" › ")
        if target is None:
            parts.append(el("span", label, class_="crumb-name"))
        else:
            parts.append(el("a", label, href=target))
    return el("nav", *parts, class_="crumbs", aria_label="breadcrumb")


def page(title: str, *body: Safe | None) -> str:
    """A viewer page: top bar, skip link, the shared stylesheet and the one script."""
    return str(
        document(
            title,
            *body,
            stylesheet=href("/static/style.css"),
            scripts=(href("/static/viewer.js"),),
            topbar=_topbar(),
        )
    )


def select(name: str, label: str, options: Sequence[tuple[str, str]], current: str | None) -> Safe:
    """A labelled select that submits its form when changed (viewer.js)."""
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


# ---------------------------------------------------------------- run page


def count_text(total: int, more: bool) -> str:
    """A view's row count as a page states it: exact, or a floor.

    >>> count_text(50, False), count_text(1000, True)
    ('50', '1,000+')
    """
    return f"{total:,}+" if more else str(total)


def _pager(
    run_id: str,
    filters: RunFilters,
    total: int,
    shown: Sequence[int],
    more: bool = False,
) -> Safe:
    """Pages of a view of ``total`` rows (``more``: at least that many).

    ``shown``: the indexes of this page's rows. The links carry the page's key
    (``after=`` its last row for the next page, ``before=`` its first for the
    previous one, ``end=1`` for the last), so no page is found by skipping rows.
    """
    count = len(shown)
    first = (filters.page - 1) * filters.per_page + 1 if count or total else 0
    if more and count < filters.per_page:
        more, total = False, first + count - 1  # the view's last page: now it is counted
    if more:
        # Counted up to ``total`` only: no last page to offer, a next one while pages are full.
        pages = filters.page + (1 if count == filters.per_page else 0)
        last = first + count - 1
    else:
        pages = max(1, -(-total // filters.per_page))
        last = min(filters.page * filters.per_page, total)

    def nav(label: str, number: int, enabled: bool, rel: str | None = None, **key: Any) -> Safe:
        if not enabled:
            return el("span", label, class_="disabled")
        if number == 1:
            key = {}  # the first page needs no key
        target = filters.link(run_id, page=None if number == 1 else number, fragment="rows", **key)
        return el("a", label, href=target, rel=rel)

    return el(
        "nav",
        nav("« first", 1, filters.page > 1),
        nav(
            "‹ prev",
            filters.page - 1,
            filters.page > 1 and bool(shown),
            "prev",
            before=shown[0] if shown else None,
        ),
        el(
            "span",
            f"page {filters.page}" if more else f"page {filters.page} of {pages}",
            class_="current",
        ),
        nav(
            "next ›",
            filters.page + 1,
            filters.page < pages and bool(shown),
            "next",
            after=shown[-1] if shown else None,
        ),
        None if more else nav("last »", pages, filters.page < pages, end=1),
        el("span", f"rows {first}–{last} of {count_text(max(total, last), more)}", class_="muted"),
        class_="pager",
        aria_label="pages of rows",
    )


def _filter_form(
    run: RunInfo,
    filters: RunFilters,
    categories: Sequence[str],
    failure_classes: dict[str, str],
) -> Safe:
    metrics = list(run.summaries)
    return el(
        "form",
        select(
            "category", "category", [("", "all")] + [(c, c) for c in categories], filters.category
        ),
        select("metric", "metric", [("", "any")] + [(m, m) for m in metrics], filters.metric),
        select(
            "result",
            "result",
            [("", "all"), ("fail", "failed"), ("pass", "passed")],
            filters.result,
        ),
        select(
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
                placeholder="id, input, output, tool, argument",
                id="search",
            ),
        ),
        select("sort", "sort", list(SORTS.items()), filters.sort),
        select(
            "per_page", "per page", [(str(n), str(n)) for n in PAGE_SIZES], str(filters.per_page)
        ),
        # The cluster filter has no field: it is kept until its chip removes it.
        void("input", type="hidden", name="detail", value=filters.detail)
        if filters.detail
        else None,
        el("button", "apply", type="submit"),
        el("a", "reset", href=href("/runs", run.id, fragment="rows")),
        method="get",
        # The fragment survives a GET submit: the page opens at the rows, not at the top.
        action=href("/runs", run.id, fragment="rows"),
        class_="filters",
        id="filters",
    )


_CHIP_LABELS = (
    ("detail", "cluster"),
    ("failure_class", "failure class"),
    ("category", "category"),
    ("metric", "metric"),
    ("result", "result"),
    ("q", "search"),
)


def filter_chips(run_id: str, filters: RunFilters) -> Safe | None:
    """The active filters as chips, each with a link to the same view without it.

    >>> chips = str(filter_chips("r", RunFilters(failure_class="wrong_argument", detail="wrong f.x")))
    >>> chips.count('class="filter-chip"'), "wrong f.x" in chips
    (2, True)
    """
    values = filters.query()
    shown = []
    for key, label in _CHIP_LABELS:
        value = values.get(key)
        if not value:
            continue
        text = {"pass": "passed", "fail": "failed"}.get(value, value) if key == "result" else value
        if key == "failure_class":
            text = value.replace("_", " ")
        shown.append(
            el(
                "li",
                el("span", f"{label}: ", class_="muted"),
                el("span", text, class_="filter-value"),
                el(
                    "a",
                    "✕",
                    href=filters.link(run_id, fragment="rows", page=None, **{key: None}),
                    aria_label=f"remove {label} filter",
                    title=f"remove the {label} filter",
                    class_="chip-remove",
                ),
                class_="filter-chip",
            )
        )
    if not shown:
        return None
    return el("ul", shown, class_="filter-chips", aria_label="active filters")


def _view_links(run_id: str, filters: RunFilters) -> Safe:
    # Exports default to row order; one of this view carries its order.
    query = dict(filters.view_query(), sort=None if filters.sort == "index" else filters.sort)
    return el(
        "p",
        el("a", "link to this view", href=filters.link(run_id, fragment="rows"), id="permalink"),
        " · export these rows: ",
        el("a", "CSV", href=href("/runs", run_id, "export.csv", **query), download=True),
        " ",
        el("a", "JSONL", href=href("/runs", run_id, "export.jsonl", **query), download=True),
        class_="view-links small",
    )


def _charts(run: RunInfo, bins: Sequence[Any]) -> Safe:
    """One score histogram per metric, as images of the chart route."""
    return el(
        "div",
        [
            el(
                "figure",
                void(
                    "img",
                    src=href("/runs", run.id, "charts", "scores.svg", metric=b.metric),
                    alt=f"score distribution of {b.metric}: {charts_caption(b)}",
                    width=360,
                    height=170,
                ),
                el("figcaption", charts_caption(b), class_="caption"),
                class_="chart-box",
            )
            for b in bins
        ],
        class_="charts",
    )


def run_page(
    run: RunInfo,
    *,
    status: tuple[str, str] | None = None,
    rows: Sequence[RowRecord],
    total: int,
    filters: RunFilters,
    counts: Any,
    more: bool = False,
    figures: RunFigures,
    categories: Sequence[str],
    failure_classes: dict[str, str],
    note: str | None = None,
    repeats: Safe | None = None,
    clusters: tuple[Sequence[Any], int] | None = None,
    what: str | None = None,
    gate: Any = None,
    latency: dict[str, float] | None = None,
    exact_clusters: bool = True,
    usage: Safe | None = None,
    judged: Safe | None = None,
) -> str:
    """One run: header, gate, metrics, charts, repeats, categories, clusters, filtered rows.

    ``more``: the view keeps more than ``total`` rows (a search counts to a
    thousand, then says "1,000+"). ``exact_clusters``: every failed row carries its stored cluster key, so a
    cluster's count links exactly its rows (else, for rows stored by an older
    tooleval, a search by class and tool that may match more or fewer).
    """
    from tooleval.report.overview import gate_block

    metrics = list(run.summaries)
    start = (filters.page - 1) * filters.per_page
    positions = {row.index: start + i for i, row in enumerate(rows)}
    shown = [row.index for row in rows]

    def row_link(row: RowRecord) -> Href:
        return filters.row_link(run.id, row.index, positions[row.index])

    charts = _charts(run, counts.bins)
    return page(
        f"{run.name} · tooleval",
        breadcrumb(("Runs", href("/")), (run.name, None)),
        run_header(run, status, latency=latency, gate=gate),
        usage,
        gate_block(gate),
        el("h2", "Metrics"),
        metric_summary_table(run, figures),
        judged,  # judged rates beside their correction (tooleval.report.judged_rates)
        charts,
        repeats,
        el("h2", "Per category"),
        category_section(
            figures,
            link=lambda c: href("/runs", run.id, category=c, result="fail", fragment="rows"),
        ),
        el("h2", "Failure clusters", id="clusters"),
        _clusters(run, clusters, what, exact=exact_clusters) if clusters is not None else None,
        el("h2", "Rows", id="rows"),
        _filter_form(run, filters, categories, failure_classes),
        filter_chips(run.id, filters),
        el("p", note, class_="note", role="status") if note else None,
        _view_links(run.id, filters),
        chip_legend(),
        el("p", KEYS_HELP, class_="muted small keys-help"),
        _pager(run.id, filters, total, shown, more),
        rows_table(rows, metrics, row_link, highlight=filters.q)
        if rows
        else el("p", "No rows match these filters.", class_="muted"),
        _pager(run.id, filters, total, shown, more) if len(rows) > 10 else None,
    )


def _clusters(
    run: RunInfo, found: tuple[Sequence[Any], int], what: str | None, *, exact: bool = True
) -> Safe:
    """The failure clusters (the report's table), filterable by tool, argument or category."""
    from tooleval.analysis.clusters import cluster_subjects, filter_clusters
    from tooleval.report.run_tables import clusters_table

    clusters, failures = found
    shown = filter_clusters(clusters, what)

    def rows_link(cluster: Any) -> Href:
        if exact:
            return href(
                "/runs",
                run.id,
                failure_class=cluster.failure_class,
                detail=cluster.detail,
                fragment="rows",
            )
        subjects = cluster_subjects(cluster)
        tool = subjects[0].split(".")[0] if subjects else None
        return href("/runs", run.id, failure_class=cluster.failure_class, q=tool, fragment="rows")

    form = el(
        "form",
        el(
            "label",
            "tool, argument or category",
            void("input", type="search", name="what", value=what or "", placeholder="amount"),
        ),
        el("button", "filter clusters", type="submit"),
        el("a", "all clusters", href=href("/runs", run.id, fragment="clusters")) if what else None,
        method="get",
        action=href("/runs", run.id, fragment="clusters"),
        class_="filters",
    )
    note = (
        el("p", f"{len(shown)} of {len(clusters)} clusters mention {what!r}.", class_="muted")
        if what
        else None
    )
    if not exact and clusters:
        note = frag(
            note,
            el(
                "p",
                "Some failed rows were stored without their cluster key (an older tooleval): "
                "a count's link searches by class and tool, and may show more or fewer rows.",
                class_="muted small",
            ),
        )
    return frag(
        form,
        note,
        clusters_table(
            shown,
            failures=failures,
            row_link=lambda _row_id, index: (
                href("/runs", run.id, "rows", index) if index is not None else None
            ),
            class_link=lambda cls: href("/runs", run.id, failure_class=cls, fragment="rows"),
            rows_link=rows_link,
        ),
    )


def error_page(status: int, title: str, message: str, *, hint: Safe | None = None) -> str:
    """A helpful error page (unknown run or row, bad filter value, refused host)."""
    return page(
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
