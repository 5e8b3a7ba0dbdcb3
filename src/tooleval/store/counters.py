"""A run's counts, kept current as its rows are written (``run_counters``).

Each row write adds, in the same transaction, what the row and its results
count per category and metric (metric NULL: the row verdict): the counts the
read model (:func:`tooleval.analysis.figures.run_figures`) takes from
:meth:`RunAggregates.figure_counts`, and the per-metric summary of
:class:`~tooleval.store.records.RunInfo`. A live run's overview reads these few
rows instead of counting a million rows on every view; a stopped run's
figures are computed once from its rows and stored with its aggregates.

>>> deltas([{"category": "a", "error": None, "passed": True, "row_index": 0}],
...        [{"row_index": 0, "metric": "m", "passed": True, "score": 1.0}])[("a", "m")]["passed"]
1
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa

from tooleval.store import schema as t

__all__ = [
    "COUNTS",
    "add_counts",
    "deltas",
    "grouped_counts",
    "live_counts",
    "recount",
]

#: What each (category, metric) slot counts. ``passed`` .. ``nonbinary`` are the
#: read model's (rows without an error); ``err_*`` the same of error rows and
#: ``nulls`` the results with no score, which the run's metric summaries add in.
COUNTS = (
    "passed",
    "failed",
    "errors",
    "unscored",
    "scores",
    "score_sum",
    "score_sumsq",
    "nonbinary",
    "err_passed",
    "err_failed",
    "err_scores",
    "err_score_sum",
    "nulls",
)
_FLOATS = {"score_sum", "score_sumsq", "err_score_sum"}

Slot = tuple[str | None, str | None]


def _slot(category: str | None, metric: str | None) -> str:
    return json.dumps([category, metric])


def _empty() -> dict[str, Any]:
    return {name: 0.0 if name in _FLOATS else 0 for name in COUNTS}


def _count(into: dict[str, Any], ok: bool, passed: bool | None, score: float | None) -> None:
    if ok:
        key = {True: "passed", False: "failed", None: "unscored"}[passed]
        into[key] += 1
        if score is not None:
            into["scores"] += 1
            into["score_sum"] += score
            into["score_sumsq"] += score * score
            into["nonbinary"] += score not in (0.0, 1.0)
    else:
        into["errors"] += 1
        if passed is not None:
            into["err_passed" if passed else "err_failed"] += 1
        if score is not None:
            into["err_scores"] += 1
            into["err_score_sum"] += score
    into["nulls"] += score is None


def deltas(
    rows: Iterable[Mapping[str, Any]], results: Iterable[Mapping[str, Any]]
) -> dict[Slot, dict[str, Any]]:
    """What these ``rows`` / ``results`` table values add to each slot (as they are stored)."""
    found: dict[Slot, dict[str, Any]] = {}
    by_index: dict[int, Mapping[str, Any]] = {}
    for row in rows:
        by_index[row["row_index"]] = row
        into = found.setdefault((row["category"], None), _empty())
        _count(into, row["error"] is None, row["passed"], None)
        into["nulls"] -= 1  # a verdict has no score: nothing to count there
    for result in results:
        row = by_index[result["row_index"]]
        into = found.setdefault((row["category"], result["metric"]), _empty())
        _count(into, row["error"] is None, result["passed"], result["score"])
    return found


def add_counts(conn: sa.Connection, run_id: str, found: Mapping[Slot, Mapping[str, Any]]) -> None:
    """Add ``found`` to the run's counters (inside the row write's transaction)."""
    if not found:
        return
    table = t.run_counters
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    values = [
        {"run_id": run_id, "slot": _slot(*slot), "category": slot[0], "metric": slot[1], **counts}
        for slot, counts in found.items()
    ]
    statement = insert(table)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=["run_id", "slot"],
            set_={name: table.c[name] + statement.excluded[name] for name in COUNTS},
        ),
        values,
    )


def live_counts(conn: sa.Connection, run_id: str) -> dict[Slot, dict[str, Any]] | None:
    """The counters of ``run_id`` while it runs (None once it has stopped, or if unknown).

    A stopped run is counted from its rows once, when it finishes, and its figures
    stored; a running one is read from here on every view.
    """
    status = conn.execute(sa.select(t.runs.c.status).where(t.runs.c.id == run_id)).scalar()
    if status != "running":
        return None
    table = t.run_counters
    query = sa.select(table).where(table.c.run_id == run_id)
    return {
        (row["category"], row["metric"]): {name: row[name] for name in COUNTS}
        for row in conn.execute(query).mappings()
    }


def grouped_counts(conn: sa.Connection, run_id: str) -> dict[Slot, dict[str, Any]]:
    """The same counts, counted from the stored rows (GROUP BYs over narrow columns)."""
    rows, res = t.rows.c, t.results.c
    ok, error = rows.error.is_(None), rows.error.is_not(None)

    def count(condition: Any) -> Any:
        return sa.func.sum(sa.case((condition, 1), else_=0))

    def total(condition: Any, value: Any) -> Any:
        return sa.func.sum(sa.case((condition, value), else_=0.0))

    scored, err_scored = sa.and_(ok, res.score.is_not(None)), sa.and_(error, res.score.is_not(None))
    columns = {
        "passed": count(sa.and_(ok, res.passed.is_(True))),
        "failed": count(sa.and_(ok, res.passed.is_(False))),
        "errors": count(error),
        "unscored": count(sa.and_(ok, res.passed.is_(None))),
        "scores": count(scored),
        "score_sum": total(scored, res.score),
        "score_sumsq": total(scored, res.score * res.score),
        "nonbinary": count(sa.and_(scored, res.score != 0.0, res.score != 1.0)),
        "err_passed": count(sa.and_(error, res.passed.is_(True))),
        "err_failed": count(sa.and_(error, res.passed.is_(False))),
        "err_scores": count(err_scored),
        "err_score_sum": total(err_scored, res.score),
        "nulls": count(res.score.is_(None)),
    }
    query = (
        sa.select(rows.category, res.metric, *columns.values())
        .select_from(
            t.results.join(
                t.rows, sa.and_(rows.run_id == res.run_id, rows.row_index == res.row_index)
            )
        )
        .where(res.run_id == run_id)
        .group_by(rows.category, res.metric)
    )
    verdicts = (
        sa.select(
            rows.category,
            count(sa.and_(ok, rows.passed.is_(True))),
            count(sa.and_(ok, rows.passed.is_(False))),
            count(error),
            count(sa.and_(ok, rows.passed.is_(None))),
            count(sa.and_(error, rows.passed.is_(True))),
            count(sa.and_(error, rows.passed.is_(False))),
        )
        .where(rows.run_id == run_id)
        .group_by(rows.category)
    )
    found: dict[Slot, dict[str, Any]] = {}
    for category, metric, *values in conn.execute(query):
        found[(category, metric)] = {
            name: float(v or 0.0) if name in _FLOATS else int(v or 0)
            for name, v in zip(COUNTS, values, strict=True)
        }
    for category, passed, failed, errors, unscored, err_passed, err_failed in conn.execute(
        verdicts
    ):
        counts = _empty()
        counts.update(
            passed=int(passed or 0),
            failed=int(failed or 0),
            errors=int(errors or 0),
            unscored=int(unscored or 0),
            err_passed=int(err_passed or 0),
            err_failed=int(err_failed or 0),
        )
        found[(category, None)] = counts
    return found


def recount(conn: sa.Connection, run_id: str) -> None:
    """Count the run's counters again from its rows (a store migrated, rows copied in SQL)."""
    table = t.run_counters
    conn.execute(table.delete().where(table.c.run_id == run_id))
    add_counts(conn, run_id, grouped_counts(conn, run_id))
