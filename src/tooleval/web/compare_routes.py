"""The viewer's compare pages between the request and the page: two runs side by side,
the matrix of several, one row of a comparison (checks and store reads).

Like :mod:`tooleval.web.routes`, each page reads stored aggregates and one page
of rows, never every row of a run.
"""

from __future__ import annotations

from tooleval.analysis.aggregates import cached_run, cached_runs
from tooleval.errors import InputError
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo
from tooleval.web.routes import resolve_ref

__all__ = ["render_compare", "render_compare_row", "render_matrix"]

_COMPARE_PAGE = 50


def render_compare(
    store: StoreReader,
    a: str | None,
    b: str | None,
    change: str | None,
    metric: str | None,
    page: int,
) -> str:
    """The compare page: the stored comparison and one page of deltas with both rows' calls."""
    from tooleval.analysis.compare import CHANGES
    from tooleval.report.compare import comparison_page
    from tooleval.web.compare_pages import compare_page

    every = cached_runs(store)
    if change and change not in CHANGES:
        raise InputError(
            f"unknown change {change!r}; expected one of {', '.join(CHANGES)}", field="change"
        )
    if page < 1:
        raise InputError("page numbers start at 1", field="page")
    if not (a and b):
        return compare_page(every, a=a, b=b)
    info_a, info_b = cached_run(store, a), cached_run(store, b)
    # One comparison read (its statistics included); an unknown metric matches no delta.
    found = comparison_page(
        store,
        info_a.id,
        info_b.id,
        change=change or None,
        metric=metric or None,
        offset=(page - 1) * _COMPARE_PAGE,
        limit=_COMPARE_PAGE,
    )
    if metric and metric not in found.comparison.metrics:
        raise InputError(f"unknown metric {metric!r}", field="metric")
    # Both sides' rows of the page, one read per run.
    rows: dict[tuple[str, int | None], RowRecord | None] = {}
    for side, run_id in (("a", info_a.id), ("b", info_b.id)):
        wanted = [getattr(d, f"index_{side}") for d in found.deltas]
        got = store.get_rows(run_id, [i for i in wanted if i is not None])
        rows.update(((side, i), got[i]) for i in wanted if i is not None and i in got)
    from tooleval.report.paired import paired_section

    intervals = paired_section(store, found)
    return compare_page(
        every,
        a=info_a.id,
        b=info_b.id,
        intervals=intervals,
        comparison=found.comparison,
        deltas=found.deltas,
        total=found.total,
        rows=rows,
        change=change or None,
        metric=metric or None,
        page_number=page,
        per_page=_COMPARE_PAGE,
    )


def render_matrix(store: StoreReader, refs: list[str], page: int) -> str:
    """Two runs: the compare page; three or more: the rows × runs matrix (oldest run first)."""
    from tooleval.report.matrix import matrix_rows
    from tooleval.web.compare_pages import matrix_page

    if page < 1:
        raise InputError("page numbers start at 1", field="page")
    ids = list(dict.fromkeys(resolve_ref(store, ref) for ref in refs if ref))
    if len(ids) < 2:
        raise InputError("choose two runs or more to compare", field="run")
    runs = sorted((cached_run(store, i) for i in ids), key=lambda r: (r.created_at, r.id))
    if len(runs) == 2:
        return render_compare(store, runs[0].id, runs[1].id, None, None, page)
    start = (page - 1) * _COMPARE_PAGE
    found = matrix_rows(store, runs, offset=start, limit=_COMPARE_PAGE)
    if found.total and start >= found.total:
        raise InputError(f"page {page} is past the end ({found.total} rows)", field="page")
    from tooleval.web.compare_pages import run_label
    from tooleval.web.intervals import matrix_rates_section, run_rates

    return matrix_page(
        runs,
        found.rows,
        intervals=matrix_rates_section(
            [run_rates(store, r) for r in runs], [run_label(r) for r in runs]
        ),
        page_number=page,
        per_page=_COMPARE_PAGE,
        total=found.total,
        counts=found.counts,
        refs=[r.id for r in runs],
    )


def render_compare_row(
    store: StoreReader,
    a: str,
    b: str,
    index_a: int | None,
    index_b: int | None,
    *,
    change: str | None = None,
    metric: str | None = None,
    pos: int | None = None,
) -> str:
    """One row of both runs side by side (either side may be absent).

    With ``pos`` (its place in the list of deltas filtered by ``change`` and
    ``metric``) the page links the deltas before and after it in that list.
    """
    from tooleval.analysis.compare import CHANGES
    from tooleval.errors import StoreError
    from tooleval.report.compare import comparison_page
    from tooleval.web.compare_pages import compare_row_page

    info_a, info_b = cached_run(store, a), cached_run(store, b)
    if index_a is None and index_b is None:
        raise InputError("give the row of run A (ia) or of run B (ib)", field="ia")
    if change and change not in CHANGES:
        raise InputError(
            f"unknown change {change!r}; expected one of {', '.join(CHANGES)}", field="change"
        )
    if pos is not None and not 0 <= pos < 2**62:
        raise InputError("pos (the row's place in the list) is a whole number from 0", field="pos")

    def fetch(info: RunInfo, index: int | None) -> RowRecord | None:
        if index is None:
            return None
        if not 0 <= index < 2**63:
            raise StoreError(f"run {info.id} has no row {index}", row=None)
        return store.get_row(info.id, index)

    previous = following = total = None
    if pos is not None:
        start = max(pos - 1, 0)
        found = comparison_page(
            store,
            info_a.id,
            info_b.id,
            change=change or None,
            metric=metric or None,
            offset=start,
            limit=3,
        )
        window, at = found.deltas, pos - start
        if at < len(window) and (window[at].index_a, window[at].index_b) == (index_a, index_b):
            previous = window[at - 1] if at > 0 else None
            following = window[at + 1] if at + 1 < len(window) else None
            total = found.total
        else:
            pos = None  # the list changed since the link was made
    return compare_row_page(
        info_a,
        info_b,
        fetch(info_a, index_a),
        fetch(info_b, index_b),
        change=change or None,
        metric=metric or None,
        position=pos,
        previous=previous,
        following=following,
        total=total,
    )
