"""What the viewer's routes do between the request and the page: checks and store reads.

Each page reads the run's stored aggregates (:mod:`tooleval.analysis.aggregates`)
and one page of rows; nothing here reads every row of a run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from tooleval.analysis.aggregates import cached_runs
from tooleval.errors import InputError
from tooleval.report.run_tables import run_status
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo
from tooleval.web.pages import DEFAULT_SORT, PAGE_SIZES, RunFilters

__all__ = [
    "previous_runs",
    "render_runs",
    "run_view",
    "scores_svg",
    "render_row",
    "render_run",
    "resolve_ref",
    "run_filters",
    "view_total",
]


def previous_runs(runs: list[RunInfo]) -> dict[str, str]:
    """Per run id, the run before it of the same plan (name) or, failing that, dataset.

    ``runs`` newest first, as the store lists them.

    >>> a = RunInfo("a", "nightly", "1", "finished", dataset={"path": "d.jsonl"})
    >>> b = RunInfo("b", "nightly", "2", "finished", dataset={"path": "d.jsonl"})
    >>> previous_runs([b, a])
    {'b': 'a'}
    """
    found: dict[str, str] = {}
    for place, run in enumerate(runs):
        older = runs[place + 1 :]
        same = next((r for r in older if r.name == run.name), None)
        if same is None and run.dataset.get("path"):
            same = next(
                (r for r in older if r.dataset.get("path") == run.dataset.get("path")), None
            )
        if same is not None:
            found[run.id] = same.id
    return found


def render_runs(
    store: StoreReader, q: str | None, tag: str | None, *, calibrations: Any = None
) -> str:
    """The runs list: gate verdicts, "compare with previous", checkboxes to compare many.

    ``calibrations(store, run)``: each judged metric's calibration, for the gates.
    """
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.gate import stored_gate
    from tooleval.web.runs_list import runs_page
    from tooleval.web.usage import run_usage, short_usage

    every = cached_runs(store)
    tags = sorted({t for r in every for t in r.tags})
    shown = cached_runs(store, search=q or None, tag=tag or None) if (q or tag) else every
    statuses = {r.id: run_status(store, r) for r in shown if r.status == "running"}
    gates = {
        r.id: stored_gate(r, store=store, calibrations=calibrations and calibrations(store, r))
        for r in shown
    }
    return runs_page(
        shown,
        q=q,
        tag=tag,
        tags=tags,
        statuses=statuses,
        gates=gates,
        previous=previous_runs(every),
        usage={r.id: short_usage(run_usage(store, r, stored_only=True)) for r in shown},
        figures={r.id: run_figures(store, r) for r in shown},
    )


def scores_svg(store: StoreReader, info: RunInfo, metric: str) -> str:
    """The histogram of one metric's scores, in the theme's colours."""
    from tooleval.analysis.aggregates import run_counts
    from tooleval.report.charts import histogram_svg, standalone_svg

    bins = {b.metric: b for b in run_counts(store, info).bins}
    if metric not in bins:
        raise InputError(f"run {info.id} has no metric {metric!r}", field="metric")
    b = bins[metric]
    return standalone_svg(
        histogram_svg(
            counts=b.counts, threshold=b.threshold, title=f"{metric} ({sum(b.counts)} scored)"
        )
    )


def run_view(
    store: StoreReader,
    info: RunInfo,
    filters: RunFilters,
    note: str | None,
    *,
    what: str | None = None,
    calibrations: Mapping[str, str | None] | None = None,
) -> str | int:
    """The run page, or the number of matching rows when the page asked for is past the end."""
    total, more = view_total(store, info, filters.where)
    if not more:
        note = narrowing_note(store, info, filters, total, note)
    last = max(1, -(-total // filters.per_page))
    if filters.page > last and not more:
        return total
    if filters.end:
        # The last page holds what the pages before it leave (or a whole page).
        size = total - (last - 1) * filters.per_page if total else filters.per_page
        filters = dataclasses.replace(filters, page=last)
        rows = list(
            store.iter_rows(
                info.id, **filters.where, **filters.keys, limit=size, order_by=filters.sort
            )
        )
    elif filters.keyed:
        rows = list(
            store.iter_rows(
                info.id,
                **filters.where,
                **filters.keys,
                limit=filters.per_page,
                order_by=filters.sort,
            )
        )
    else:
        # A page by number (an old link, or one typed): its keys found by an index walk.
        rows = list(
            store.iter_rows(
                info.id,
                **filters.where,
                offset=(filters.page - 1) * filters.per_page,
                limit=filters.per_page,
                order_by=filters.sort,
            )
        )
    if more and not rows and filters.page > 1:
        return count_view(store, info, filters.where)  # past the end: say exactly where it is
    return render_run(
        store, info, filters, rows, total, note, what=what, calibrations=calibrations, more=more
    )


#: A search counts its matches up to this many; the page then says "1,000+".
SEARCH_COUNT = 1000


def view_total(store: StoreReader, info: RunInfo, where: dict[str, Any]) -> tuple[int, bool]:
    """How many rows the view ``where`` keeps, and True when there are more than that.

    A search counts its matches only up to :data:`SEARCH_COUNT` (each match
    is checked against the row's text: half a million of them would take
    seconds); its pages are read in order from an index walk that stops at
    the page (:func:`tooleval.store.search_index.dense_search`), so nothing
    needs the exact count but the last page's number, which a search view
    does not offer. Every other view counts exactly (:func:`count_view`).
    """
    if not where.get("search"):
        return count_view(store, info, where), False
    found = store.count_rows(info.id, **where, at_most=SEARCH_COUNT + 1)
    return (SEARCH_COUNT, True) if found > SEARCH_COUNT else (found, False)


def resolve_ref(store: StoreReader, ref: str) -> str:
    """The run id a URL's reference names (``latest``, ``-N``, an id or a unique prefix)."""
    if store.aggregates.run_stamps(run_id=ref):
        return ref
    return store.resolve_run_id(ref)


def run_filters(
    info: RunInfo,
    category: str | None,
    metric: str | None,
    result: str | None,
    failure_class: str | None,
    q: str | None,
    sort: str,
    page: int,
    per_page: int,
    detail: str | None = None,
) -> tuple[RunFilters, str | None]:
    """The checked filters of a run view, and a note when one was completed for the user.

    A score order without a metric uses the run's first metric (and says so)
    instead of refusing the request.
    """
    from tooleval.analysis.clusters import FAILURE_CLASSES
    from tooleval.store.records import ROW_ORDERS

    metrics = list(info.summaries)
    checks = [
        (metric, metrics, "metric"),
        (result, ["pass", "fail"], "result"),
        (failure_class, list(FAILURE_CLASSES), "failure_class"),
        (sort, list(ROW_ORDERS), "sort"),
    ]
    for value, allowed, name in checks:
        if value and value not in allowed:
            raise InputError(
                f"unknown {name} {value!r}; expected one of {', '.join(allowed) or '(none)'}",
                field=name,
            )
    if per_page not in PAGE_SIZES:
        raise InputError(
            f"per_page must be one of {', '.join(map(str, PAGE_SIZES))}", field="per_page"
        )
    if page < 1:
        raise InputError("page numbers start at 1", field="page")
    note = None
    sort = sort or DEFAULT_SORT
    if sort.lstrip("-") == "score" and not metric:
        if not metrics:
            raise InputError("this run has no metric to sort scores by", field="sort")
        metric = metrics[0]
        note = f"Scores are ordered by {metric}, the run's first metric; pick another under metric."
    return (
        RunFilters(
            category=category or None,
            metric=metric or None,
            result=result or None,
            failure_class=failure_class or None,
            q=q or None,
            sort=sort,
            page=page,
            per_page=per_page,
            detail=detail or None,
        ),
        note,
    )


def narrowing_note(
    store: StoreReader, info: RunInfo, filters: RunFilters, total: int, note: str | None
) -> str | None:
    """The sort's note, saying exactly what the sort's metric narrows when it narrows.

    Ordering by score needs one metric, and the store then reads ``result``
    as that metric's verdict: ``result=fail`` keeps the rows that failed *that*
    metric, not every failing row. The note gives both counts.
    """
    if note is None or filters.metric is None or filters.result is None:
        return note
    wide = count_view(store, info, dict(filters.where, metric=None))
    if wide == total:
        return note
    verdict = "failed" if filters.result == "fail" else "passed"
    return (
        f"{note} Because scores are ordered by {filters.metric}, result={verdict} keeps the "
        f"rows that {verdict} {filters.metric}: {total} of the {wide} rows that {verdict} "
        "any metric. Sort by row order to see all of them."
    )


def count_view(store: StoreReader, info: RunInfo, where: dict[str, Any]) -> int:
    """How many rows the view ``where`` keeps: from the run's header when it knows.

    A stopped run's header (read from its stored copy) already counts the
    results of each metric, passed and failed, and its stored counts do the
    same per category; a view that filters on a metric (and its result),
    optionally in one category, takes its count from there instead of
    counting a million rows again; so does the whole run (its row count), one
    failure class (rows per class) and one category with or without the row
    verdict (the stored per-category counts). Any other view counts in the store.
    """
    from tooleval.analysis.aggregates import run_counts

    keys = {k for k, v in where.items() if v is not None}
    metric: Any
    category: Any
    metric, passed, category = where.get("metric"), where.get("passed"), where.get("category")
    summary = info.summaries.get(metric or "")
    if info.status != "running" and not keys:
        return info.row_count
    if info.status != "running" and keys <= {"category", "passed", "failure_class"}:
        counts = run_counts(store, info)
        if keys == {"failure_class"}:
            return counts.classes.get(where["failure_class"], 0)
        if "failure_class" not in keys and "category" in keys:
            found = {c.category: c for c in counts.categories}.get(category)
            if found is None:
                return 0
            return found.rows if passed is None else found.passed if passed else found.failed
    if info.status == "running" or summary is None:
        return store.count_rows(info.id, **where)
    if keys <= {"metric", "passed"}:
        if passed is None:
            return summary.scored + summary.unscored
        return summary.passed if passed else summary.failed
    if keys == {"category", "metric", "passed"}:
        stats = {c.category: c for c in run_counts(store, info).categories}.get(category)
        counted = stats.metric_counts.get(metric) if stats is not None else None
        if counted is not None:
            return counted[0] if passed else counted[1]
    return store.count_rows(info.id, **where)


def render_run(
    store: StoreReader,
    info: RunInfo,
    filters: RunFilters,
    rows: list[RowRecord],
    total: int,
    note: str | None,
    *,
    what: str | None = None,
    calibrations: Mapping[str, str | None] | None = None,
    more: bool = False,
) -> str:
    """The run page: stored aggregates above one page of rows (``more``: ``total`` is a floor)."""
    from tooleval.analysis.aggregates import clusters_exact, run_clusters, run_counts, run_repeats
    from tooleval.analysis.clusters import FAILURE_CLASSES
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.gate import stored_gate
    from tooleval.report.html import href
    from tooleval.report.judged_rates import judged_rates_block
    from tooleval.report.overview import latency_percentiles
    from tooleval.report.repeats import repeat_section
    from tooleval.web import pages
    from tooleval.web.usage import run_usage, usage_block

    counts = run_counts(store, info)
    clusters, failures = run_clusters(store, info)
    exact = not clusters or clusters_exact(store, info)
    digest = run_repeats(store, info)
    repeats = (
        None
        if digest is None
        else repeat_section(
            digest,
            link=lambda row_id: href("/runs", info.id, q=row_id, fragment="rows"),
            attempt_link=attempt_link(info),
        )
    )
    return pages.run_page(
        info,
        status=run_status(store, info),
        rows=rows,
        total=total,
        more=more,
        filters=filters,
        counts=counts,
        figures=run_figures(store, info),
        categories=[c.category for c in counts.categories],
        failure_classes=FAILURE_CLASSES,
        note=note,
        repeats=repeats,
        clusters=(clusters, failures),
        what=what,
        gate=stored_gate(info, store=store, calibrations=calibrations),
        judged=judged_rates_block(calibrations),
        latency=latency_percentiles(store, info),
        exact_clusters=exact,
        usage=usage_block(run_usage(store, info), running=info.status == "running"),
    )


def attempt_link(info: RunInfo) -> Any:
    """``(first index, attempt) -> address`` of one attempt's row page (None: not repeated)."""
    from tooleval.analysis.repeats import repeat_of
    from tooleval.report.html import href

    found = repeat_of(info)
    if found is None:
        return None
    _, stride = found
    return lambda first, attempt: href("/runs", info.id, "rows", first + (attempt - 1) * stride)


def attempts_of(info: RunInfo, index: int) -> tuple[int, list[int]] | None:
    """For a repeated run: this row's attempt number and every attempt's index (in order).

    >>> run = RunInfo("r", "n", "t", "finished", row_count=9, config={"repeat": {"n": 3, "stride": 3}})
    >>> attempts_of(run, 4)
    (2, [1, 4, 7])
    """
    from tooleval.analysis.repeats import repeat_of

    found = repeat_of(info)
    if found is None:
        return None
    n, stride = found
    base = index % stride
    indexes = [
        base + k * stride for k in range(n) if base + k * stride < max(info.row_count, index + 1)
    ]
    return index // stride + 1, indexes


def render_row(
    store: StoreReader,
    info: RunInfo,
    record: RowRecord,
    filters: RunFilters,
    pos: int | None,
    *,
    labels: Any = None,
) -> str:
    """A row page whose previous / next rows are those of the view it was opened from."""
    from tooleval.web import row_pages

    if pos is not None and not 0 <= pos < 2**62:
        raise InputError("pos (the row's place in the view) is a whole number from 0", field="pos")
    if not filters.active or pos is None:
        previous = (record.index - 1, record.index - 1) if record.index > 0 else None
        following = (
            (record.index + 1, record.index + 1) if record.index + 1 < info.row_count else None
        )
        return row_pages.row_page(
            info,
            record,
            filters=RunFilters(sort="index"),
            position=None,
            previous=previous,
            following=following,
            attempts=attempts_of(info, record.index),
            labels=labels,
        )
    start = max(pos - 1, 0)
    window = list(
        store.iter_rows(info.id, **filters.where, offset=start, limit=3, order_by=filters.sort)
    )
    at = pos - start
    if at >= len(window) or window[at].index != record.index:
        # The view changed since the link was made: fall back to the row's own neighbours.
        return render_row(store, info, record, RunFilters(sort="index"), None, labels=labels)
    previous = (window[at - 1].index, pos - 1) if at > 0 else None
    following = (window[at + 1].index, pos + 1) if at + 1 < len(window) else None
    total, more = view_total(store, info, filters.where)
    return row_pages.row_page(
        info,
        record,
        filters=filters,
        position=pos,
        previous=previous,
        following=following,
        total=total,
        more=more,
        attempts=attempts_of(info, record.index),
        labels=labels,
    )
