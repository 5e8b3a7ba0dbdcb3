"""The row filters and orders of the read API, as SQLAlchemy queries.

``iter_rows`` and ``count_rows`` share one :class:`RowFilters`, so a count
always matches the rows a page would yield.

>>> str(rows_query("r1", RowFilters(category="math"), order_by=None).whereclause)
'rows.run_id = :run_id_1 AND rows.category = :category_1'
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from tooleval.errors import InputError
from tooleval.model import Result
from tooleval.store import schema as t
from tooleval.store.codec import result_from_row
from tooleval.store.records import ROW_ORDERS
from tooleval.store.search_index import run_key, search_condition, searched_text

__all__ = ["ORDER_BY", "RowFilters", "escape_like", "non_negative", "results_for", "rows_query"]

# order_by name -> (column, descending), kept with the public records.
ORDER_BY = ROW_ORDERS


@dataclass(frozen=True)
class RowFilters:
    """The row filters of :meth:`Store.iter_rows` and :meth:`Store.count_rows`."""

    category: str | None = None
    metric: str | None = None
    passed: bool | None = None
    failure_class: str | None = None
    search: str | None = None
    error: bool | None = None
    #: The failure cluster key stored with each failed row (``wrong cancel_order.order_id``).
    failure_detail: str | None = None


def rows_query(
    run_id: str, filters: RowFilters, *, order_by: str | None, walk: bool = False
) -> sa.Select:
    """The rows of ``run_id`` kept by ``filters``, in ``order_by`` order (None: unordered).

    ``walk``: a dense search walks the run's index in ``order_by`` order, the
    search index testing each row it reaches
    (:func:`tooleval.store.search_index.dense_search`).
    """
    rows, res = t.rows.c, t.results.c
    metric, passed = filters.metric, filters.passed
    query = sa.select(t.rows).where(run_key(rows.run_id, filters.search, walk=walk) == run_id)
    if filters.category is not None:
        query = query.where(rows.category == filters.category)
    if filters.failure_class is not None:
        query = query.where(rows.failure_class == filters.failure_class)
    if filters.failure_detail is not None:
        query = query.where(rows.failure_detail == filters.failure_detail)
    if filters.error is not None:
        query = query.where(rows.error.is_not(None) if filters.error else rows.error.is_(None))
    if metric is not None:
        # A join on the metric's result (one per row: (run_id, row_index, metric) is
        # its key), read from ix_results_metric_passed, instead of an EXISTS per row.
        on = sa.and_(
            res.run_id == rows.run_id, res.row_index == rows.row_index, res.metric == metric
        )
        if passed is not None:
            # "= true/false", not "IS": PostgreSQL then keys the join on row_index
            # in the index too (a NULL verdict matches neither way).
            on = sa.and_(on, res.passed == passed)
        query = query.select_from(t.rows.join(t.results, on))
    elif passed is not None:
        query = query.where(rows.passed.is_(passed))
    if filters.search is not None and searched_text(filters.search):
        # Row id, input, output, error, tool names and argument values (the calls
        # made and the expected ones), through the full-text index: see search_index.
        query = query.where(search_condition(filters.search, walk=walk))
    if order_by is None:
        return query
    if order_by not in ORDER_BY:
        raise InputError(
            f"unknown order {order_by!r}; expected one of {', '.join(ORDER_BY)}",
            field="order_by",
        )
    column_name, descending = ORDER_BY[order_by]
    if column_name == "score":
        if metric is None:
            raise InputError("ordering by score needs metric=...", field="order_by")
        # The metric filter above already joined the metric's result. The order
        # is spelled as ix_results_score_order / _desc are built (unscored last
        # as ``score IS NULL``), so a page walks an index instead of sorting.
        score = res.score.desc() if descending else res.score.asc()
        return query.order_by(res.score.is_(None).asc(), score, res.row_index.asc())
    if column_name == "passed":
        # NULL (error, unscored), false, true: the order ix_rows_passed keeps.
        return query.order_by(rows.passed.asc().nulls_first(), rows.row_index.asc())
    column = rows[column_name]
    key = column.desc() if descending else column.asc()
    # Rows without a value (no latency, no category, unscored) always come last.
    key = key.nulls_last()
    return query.order_by(key, rows.row_index.asc())


def results_for(conn: sa.Connection, run_id: str, indexes: list[int]) -> dict[int, list[Result]]:
    """The stored Results of the given rows, by row index, in the runner's order."""
    found: dict[int, list[Result]] = {}
    if not indexes:
        return found
    res = t.results.c
    query = sa.select(t.results).where(res.run_id == run_id)
    low, high = min(indexes), max(indexes)
    # A contiguous page is a range scan; a scattered one (filtered) an IN list.
    if high - low + 1 <= 2 * len(indexes):
        query = query.where(res.row_index.between(low, high))
    else:
        query = query.where(res.row_index.in_(indexes))
    wanted = set(indexes)
    query = query.order_by(res.row_index, res.position)
    for row in conn.execute(query).mappings():
        if row["row_index"] not in wanted:
            continue
        found.setdefault(row["row_index"], []).append(result_from_row(row))
    return found


def escape_like(text: str) -> str:
    r"""``text`` with LIKE wildcards escaped (escape character ``\``).

    >>> escape_like("50%_off")
    '50\\%\\_off'
    """
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def non_negative(value: int, name: str) -> int:
    """``value`` if it is a non-negative int; InputError naming ``name`` otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{name} must be a non-negative integer, got {value!r}", field=name)
    return value
