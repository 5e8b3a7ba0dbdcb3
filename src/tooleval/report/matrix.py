"""Many runs side by side: every dataset row with each run's verdict, for the viewer's matrix.

Rows are read through :func:`tooleval.report.compare.lean_rows` (no sample or diagnosis
decoded) and grouped into dataset rows as ``compare`` groups them
(:func:`tooleval.analysis.noise.read_attempts`).

When every run has stopped, :func:`matrix_rows` stores the matrix on the newest
run, as a comparison is stored (:mod:`tooleval.report.compare`): one head with
the runs' stamps, the row total and the count of each change, and the rows in
their order in chunks of ``CHUNK``; a page then reads the head and one or two
chunks, however many rows the runs have.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> runs = [store.get_run(store.create_run(n, dataset={}, connector={}, metrics=[])) for n in "abc"]
>>> matrix_rows(store, runs, offset=0, limit=50).total
0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tooleval.report.compare import lean_rows
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = ["MATRIX_ORDER", "MatrixPage", "MatrixRow", "matrix_rows", "run_matrix"]

#: Matrix rows per stored chunk.
CHUNK = 1000
_NAME = "matrix/1/"


@dataclasses.dataclass(frozen=True)
class MatrixRow:
    """One dataset row across runs: per run its cell, or None (absent from that run)."""

    row_id: str
    category: str | None
    #: per run ``(verdict, mean score by metric, every attempt an error, (passed, attempts))``
    #: or None (absent); the verdict is True when every attempt passed (errors count as not
    #: passed), None when nothing was scored
    cells: tuple[tuple[bool | None, dict[str, float | None], bool, tuple[int, int]] | None, ...]
    change: str  # regressed | fixed | flaky | failing | passing | partial
    indexes: tuple[int | None, ...] = ()


#: The order rows come in: what got worse first, what always passed last.
MATRIX_ORDER = ("regressed", "flaky", "fixed", "partial", "failing", "passing")


def _row_change(verdicts: Sequence[bool | None]) -> str:
    known = [v for v in verdicts if v is not None]
    if len(known) < len(verdicts):
        return "partial" if known else "failing"
    if all(known):
        return "passing"
    if not any(known):
        return "failing"
    if known[-1] is False:
        return "regressed"
    if known[0] is False and all(known[known.index(True) :]):
        return "fixed"
    return "flaky"


def _cell(entry: Any, metrics: Sequence[str]) -> tuple[Any, ...]:
    from tooleval.analysis.noise import VERDICT

    verdicts = entry.values.get(VERDICT) or []
    passed = int(sum(verdicts))
    verdict = None if not verdicts else passed == len(verdicts)
    scores = {
        m: sum(entry.scores[m]) / len(entry.scores[m]) for m in metrics if entry.scores.get(m)
    }
    return (verdict, scores, entry.errors == entry.attempts, (passed, len(verdicts)))


def run_matrix(store: StoreReader, runs: Sequence[RunInfo]) -> list[MatrixRow]:
    """Every dataset row of ``runs`` (oldest to newest as given) with each run's verdict and
    scores.

    Read through :func:`lean_rows` (no sample or diagnosis decoded) and grouped into
    dataset rows as ``compare`` groups them (:func:`tooleval.analysis.noise.read_attempts`):
    a repeated run's attempts are one cell, passed when every attempt passed, with its
    passed attempts. Rows are ordered regressed (passed before, fails in the last run),
    flaky, fixed, partial (absent from some run), failing everywhere, passing everywhere;
    then by row id.

    >>> _row_change([True, False]), _row_change([False, True]), _row_change([True, False, True])
    ('regressed', 'fixed', 'flaky')
    """
    from tooleval.analysis.noise import read_attempts

    table: dict[str, list[Any]] = {}
    categories: dict[str, str | None] = {}
    indexes: dict[str, list[int | None]] = {}
    for place, run in enumerate(runs):
        metrics = [m.name for m in run.metrics] or list(run.summaries)
        for entry in read_attempts(run, lean_rows(store, run), verdict=True).rows:
            cells = table.setdefault(entry.key, [None] * len(runs))
            at = indexes.setdefault(entry.key, [None] * len(runs))
            categories.setdefault(entry.key, entry.category)
            cells[place] = _cell(entry, metrics)
            at[place] = entry.first_index
    out = [
        MatrixRow(
            row_id,
            categories.get(row_id),
            tuple(cells),
            # Unscored or error counts as not passed; an absent row is None.
            _row_change([c[0] is True if c is not None else None for c in cells]),
            tuple(indexes[row_id]),
        )
        for row_id, cells in table.items()
    ]
    out.sort(key=lambda r: (MATRIX_ORDER.index(r.change), r.row_id))
    return out


@dataclasses.dataclass(frozen=True)
class MatrixPage:
    """Rows ``offset..offset+limit`` of a matrix, its row total and its rows per change."""

    rows: list[MatrixRow]
    total: int
    counts: dict[str, int]


def matrix_rows(
    store: StoreReader, runs: Sequence[RunInfo], *, offset: int, limit: int
) -> MatrixPage:
    """One page of :func:`run_matrix` of ``runs``: read from the stored matrix when it is there.

    Computed (and, when every run has stopped, stored on the newest run, under
    the ids of the others) on the first view; a resumed run finishes with a new
    stamp, which computes it again.
    """
    from tooleval.analysis.aggregates import FINISHED, stamp

    newest = runs[-1]
    name = _NAME + ",".join(r.id for r in runs[:-1])
    stamps = [stamp(r.status, r.finished_at) for r in runs]
    stopped = all(r.status in FINISHED for r in runs)
    if stopped:
        head = store.aggregates.load_aggregate(newest.id, name, row_count=newest.row_count)
        if head is not None and head.get("stamps") == stamps:
            try:
                return _stored_page(store, newest, name, head, offset, limit)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: compute again
    rows = run_matrix(store, runs)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.change] = counts.get(row.change, 0) + 1
    if stopped:
        documents: dict[str, Any] = {name: {"stamps": stamps, "total": len(rows), "counts": counts}}
        for k in range(0, len(rows), CHUNK):
            documents[f"{name}/{k // CHUNK}"] = [_plain(r) for r in rows[k : k + CHUNK]]
        store.aggregates.delete_aggregates(newest.id, prefix=name)
        store.aggregates.save_aggregates(newest.id, documents, row_count=newest.row_count)
    return MatrixPage(rows[offset : offset + limit], len(rows), counts)


def _plain(row: MatrixRow) -> list[Any]:
    return [
        row.row_id,
        row.category,
        [list(c) if c else None for c in row.cells],
        row.change,
        list(row.indexes),
    ]


def _row(stored: list[Any]) -> MatrixRow:
    row_id, category, cells, change, indexes = stored
    return MatrixRow(
        row_id,
        category,
        tuple(
            (c[0], dict(c[1]), bool(c[2]), (int(c[3][0]), int(c[3][1]))) if c else None
            for c in cells
        ),
        change,
        tuple(indexes),
    )


def _stored_page(
    store: StoreReader, newest: RunInfo, name: str, head: dict[str, Any], offset: int, limit: int
) -> MatrixPage:
    total = int(head["total"])
    rows: list[MatrixRow] = []
    start = offset
    while start < min(total, offset + limit):
        k = start // CHUNK
        chunk = store.aggregates.load_aggregate(newest.id, f"{name}/{k}", row_count=None)
        if not chunk:
            raise ValueError(f"stored matrix chunk {k} is missing")
        taken = chunk[start - k * CHUNK : start - k * CHUNK + offset + limit - start]
        rows.extend(_row(r) for r in taken)
        start += len(taken)
    return MatrixPage(rows, total, {str(c): int(n) for c, n in head["counts"].items()})
