"""Reading a run's rows: one row, rows by index, and pages of a view by key (``after=``).

A page of a view is found by its keys (``row_index``) first, with only index
columns read, then its rows by primary key. A page that follows (or precedes)
a known row is read by **keyset**: the rows after row ``i`` in the view's order
are those whose sort value comes after row ``i``'s, or equals it with a larger
index, so the database starts its index walk at row ``i`` instead of skipping
every row before it (what ``OFFSET`` does). A view's order is one or two
*segments* (rows with no value, then or after those with one, the order
``rows_query`` gives), each an index range: the keyset page reads the
anchor's segment from the anchor, then the next segment from its start.

>>> [s.nulls for s in order_segments("latency")], [s.nulls for s in order_segments("failures")]
([False, True], [True, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from tooleval.errors import InputError, StoreError
from tooleval.store import codec
from tooleval.store import schema as t
from tooleval.store.queries import ORDER_BY, results_for
from tooleval.store.records import RowRecord

__all__ = [
    "Segment",
    "anchor_value",
    "get_row",
    "get_rows",
    "keyed_page",
    "keyset_page",
    "order_segments",
]

# Rows read per statement when many are asked for by index.
_CHUNK = 1000


@dataclass(frozen=True, slots=True)
class Segment:
    """One index range of a view's order: the rows whose sort column is (not) NULL."""

    column: str  # a rows column, or "score" (the metric's result)
    descending: bool
    nulls: bool  # True: the rows with no value (ordered by row_index alone)


def order_segments(order_by: str) -> list[Segment]:
    """The segments of ``order_by`` in the order ``rows_query`` sorts them."""
    column, descending = ORDER_BY[order_by]
    if column == "row_index":
        return [Segment(column, descending, False)]
    values = Segment(column, descending, False)
    empty = Segment(column, descending, True)
    # ``failures``: NULL verdicts (errors, unscored) first; every other order puts them last.
    return [empty, values] if column == "passed" else [values, empty]


def _column(segment: Segment) -> Any:
    return t.results.c.score if segment.column == "score" else t.rows.c[segment.column]


def anchor_value(conn: sa.Connection, run_id: str, order_by: str, index: int, metric: str | None):  # noqa: ANN201 - a column's value
    """Row ``index``'s value of the sort column (InputError when the run has no such row)."""
    rows = t.rows.c
    found = conn.execute(
        sa.select(rows.row_index).where(rows.run_id == run_id, rows.row_index == index)
    ).first()
    if found is None:
        raise InputError(f"there is no row {index} to page from in run {run_id}", field="after")
    column, _ = ORDER_BY[order_by]
    if column == "row_index":
        return index
    if column == "score":
        res = t.results.c
        return conn.execute(
            sa.select(res.score).where(
                res.run_id == run_id, res.row_index == index, res.metric == metric
            )
        ).scalar()
    return conn.execute(
        sa.select(rows[column]).where(rows.run_id == run_id, rows.row_index == index)
    ).scalar()


def _empty(segment: Segment, column: Any, empty: bool) -> Any:
    """``column IS [NOT] NULL``; for scores spelled as ix_results_score_* index it.

    Those indexes hold ``(score IS NULL)`` as a column: a condition on that
    expression is what lets the database walk them instead of sorting the results.
    """
    if segment.column == "score":
        return column.is_(None) == sa.bindparam(None, empty, type_=sa.Boolean)
    return column.is_(None) if empty else column.is_not(None)


def _segment_query(
    query: sa.Select, segment: Segment, anchor: tuple[Any, int] | None, *, backward: bool
) -> sa.Select:
    """``query``'s keys in ``segment``, after (``backward``: before) the anchor, in order."""
    index = t.rows.c.row_index
    column = _column(segment)
    keys = query.with_only_columns(index).order_by(None)
    if segment.column == "row_index":
        down = segment.descending != backward
        if anchor is not None:
            keys = keys.where(index < anchor[1] if down else index > anchor[1])
        return keys.order_by(index.desc() if down else index.asc())
    if segment.nulls:
        keys = keys.where(_empty(segment, column, True))
        if anchor is not None:
            keys = keys.where(index < anchor[1] if backward else index > anchor[1])
        return keys.order_by(index.desc() if backward else index.asc())
    keys = keys.where(_empty(segment, column, False))
    down = segment.descending != backward
    if anchor is not None:
        at = anchor[1]
        # A bound value, so a verdict (True / False) compares as a value, never as ``IS``.
        value = sa.bindparam(None, anchor[0], type_=column.type)
        beyond = column < value if down else column > value
        # ``col >= v AND (col > v OR index > i)``: a range the index can start at.
        reach = column <= value if down else column >= value
        keys = keys.where(reach, sa.or_(beyond, index < at if backward else index > at))
    value_order = column.desc() if down else column.asc()
    return keys.order_by(value_order, index.desc() if backward else index.asc())


def keyset_page(
    conn: sa.Connection,
    query: sa.Select,
    run_id: str,
    order_by: str,
    anchor: tuple[Any, int] | None,
    size: int,
    *,
    backward: bool = False,
) -> Sequence[Any]:
    """Up to ``size`` rows of ``query`` (unordered) that follow ``anchor`` in ``order_by``.

    ``anchor``: ``(sort value, row_index)`` of the row the page follows (None:
    the view's start). ``backward``: the rows that precede it (None: the view's
    end), still returned in the view's order.
    """
    segments = order_segments(order_by)
    if backward:
        segments = segments[::-1]
    if anchor is not None and len(segments) > 1:
        # Start in the anchor's segment; the ones before it hold no row after it.
        anchored = next(i for i, s in enumerate(segments) if s.nulls == (anchor[0] is None))
        segments = segments[anchored:]
    keys: list[int] = []
    for position, segment in enumerate(segments):
        if len(keys) >= size:
            break
        here = anchor if position == 0 else None
        found = conn.execute(
            _segment_query(query, segment, here, backward=backward).limit(size - len(keys))
        ).scalars()
        keys.extend(int(k) for k in found)
    if backward:
        keys.reverse()
    return _rows_by_key(conn, run_id, keys)


def keyed_page(
    conn: sa.Connection, query: sa.Select, run_id: str, offset: int, size: int
) -> Sequence[Any]:
    """``size`` rows of ``query`` from ``offset``: the keys first, then those rows by key.

    The keys (``row_index``) of the page are found in the query's order with
    only the index columns read, so skipping ``offset`` rows of a deep page
    walks an index (``ix_rows_*`` end with ``row_index``) and never decodes a
    skipped row's sample; the page's rows are then read by their primary key.
    An old ``page=N`` link is answered this way; the viewer's own links page
    by key (:func:`keyset_page`).
    """
    keys = [
        int(k)
        for k in conn.execute(
            query.with_only_columns(t.rows.c.row_index).offset(offset).limit(size)
        ).scalars()
    ]
    return _rows_by_key(conn, run_id, keys)


def _rows_by_key(conn: sa.Connection, run_id: str, keys: list[int]) -> Sequence[Any]:
    """The rows of these indexes, in the order given."""
    if not keys:
        return []
    found = {
        r["row_index"]: r
        for r in conn.execute(
            sa.select(t.rows).where(t.rows.c.run_id == run_id, t.rows.c.row_index.in_(keys))
        ).mappings()
    }
    return [found[k] for k in keys if k in found]


def get_row(conn: sa.Connection, run_id: str, index: int) -> RowRecord:
    """One row by its 0-based dataset index; StoreError if absent."""
    row: Any = (
        conn.execute(
            sa.select(t.rows).where(t.rows.c.run_id == run_id, t.rows.c.row_index == index)
        )
        .mappings()
        .first()
    )
    if row is None:
        raise StoreError(f"run {run_id} has no row {index}", row=index)
    results = results_for(conn, run_id, [index])
    return codec.row_record(row, results.get(index, ()))


def get_rows(conn: sa.Connection, run_id: str, indexes: Sequence[int]) -> dict[int, RowRecord]:
    """The rows of these 0-based indexes that exist, by index (absent ones left out)."""
    wanted = sorted({int(i) for i in indexes})
    found: dict[int, RowRecord] = {}
    for start in range(0, len(wanted), _CHUNK):
        rows = _rows_by_key(conn, run_id, wanted[start : start + _CHUNK])
        results = results_for(conn, run_id, [r["row_index"] for r in rows])
        for row in rows:
            found[row["row_index"]] = codec.row_record(row, results.get(row["row_index"], ()))
    return found
