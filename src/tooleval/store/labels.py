"""Human labels of rows and judge calibrations, kept in the store beside the results.

A label is a person's verdict (pass / fail, an optional note, who and when) on
one row's metric. It lives in its own ``labels`` table: storing, replacing or
deleting labels never touches a row's stored :class:`~tooleval.model.Result`.
A calibration is a judged metric measured against labels (agreement, kappa,
TPR/TNR, the confusion matrix, the rows it got wrong), saved under the judge's
identity so that a gate or ``judge check`` can find it later.

Everything outside the store reaches them through ``store.labels``.

>>> from tooleval.model import Sample
>>> from tooleval.store import open_store
>>> from tooleval.store.records import Label, RowRecord
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
>>> store.add_row(run_id, RowRecord(run_id, 0, "r0", Sample(input="hi")))
>>> store.labels.set_labels(run_id, [Label(0, "task_success", True, note="done")])
1
>>> [(label.row_id, label.passed) for label in store.labels.get_labels(run_id)]
[('r0', True)]
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from tooleval.errors import StoreError
from tooleval.store import schema as t
from tooleval.store.records import CalibrationRecord, Label

__all__ = ["RunLabels", "judge_key"]

_CHUNK = 500


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def judge_key(identity: Mapping[str, Any]) -> str:
    """The hash of a judge's identity (model, metric, prompt version, options): 16 hex digits.

    >>> judge_key({"model": "m", "metric": "task_success"}) == judge_key(
    ...     {"metric": "task_success", "model": "m"})
    True
    """
    text = json.dumps(dict(identity), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class RunLabels:
    """A store's labels and calibrations; get one as ``store.labels``."""

    def __init__(self, store: Any) -> None:
        self._store = store

    # ------------------------------------------------------------ labels
    def set_labels(self, run_id: str, labels: Iterable[Label]) -> int:
        """Store labels (replacing any label of the same row and metric); return how many.

        Every row must be stored in the run: an unknown row index is a
        :class:`StoreError` naming it, and nothing is written.
        """
        given = list(labels)
        seen: set[tuple[int, str]] = set()
        for label in given:
            key = (label.row_index, label.metric)
            if key in seen:
                raise StoreError(
                    f"row {label.row_index} has two labels for {label.metric}; give one",
                    row=label.row_index,
                )
            seen.add(key)
        stamp = _now()
        with self._store._write() as conn:
            self._store._require_run(conn, run_id)
            wanted = sorted({label.row_index for label in given})
            have: set[int] = set()
            for start in range(0, len(wanted), _CHUNK):
                have.update(
                    conn.execute(
                        sa.select(t.rows.c.row_index).where(
                            t.rows.c.run_id == run_id,
                            t.rows.c.row_index.in_(wanted[start : start + _CHUNK]),
                        )
                    ).scalars()
                )
            missing = [index for index in wanted if index not in have]
            if missing:
                shown = ", ".join(str(i) for i in missing[:5])
                raise StoreError(
                    f"run {run_id} has no row {shown}; labels are for stored rows",
                    row=missing[0],
                )
            for label in given:
                conn.execute(
                    t.labels.delete().where(
                        t.labels.c.run_id == run_id,
                        t.labels.c.row_index == label.row_index,
                        t.labels.c.metric == label.metric,
                    )
                )
            values = [
                {
                    "run_id": run_id,
                    "row_index": label.row_index,
                    "metric": label.metric,
                    "passed": bool(label.passed),
                    "note": label.note,
                    "labeller": label.labeller,
                    "labelled_at": label.labelled_at or stamp,
                }
                for label in given
            ]
            for start in range(0, len(values), _CHUNK):
                conn.execute(t.labels.insert(), values[start : start + _CHUNK])
        return len(given)

    def get_labels(self, run_id: str, *, metric: str | None = None) -> list[Label]:
        """The run's labels by row index, then metric (each with its ``row_id``)."""
        query = (
            sa.select(t.labels, t.rows.c.row_id)
            .join(
                t.rows,
                sa.and_(
                    t.rows.c.run_id == t.labels.c.run_id,
                    t.rows.c.row_index == t.labels.c.row_index,
                ),
            )
            .where(t.labels.c.run_id == run_id)
            .order_by(t.labels.c.row_index, t.labels.c.metric)
        )
        if metric is not None:
            query = query.where(t.labels.c.metric == metric)
        with self._store._read() as conn:
            self._store._require_run(conn, run_id)
            return [
                Label(
                    row_index=row.row_index,
                    metric=row.metric,
                    passed=bool(row.passed),
                    note=row.note,
                    labeller=row.labeller,
                    labelled_at=row.labelled_at,
                    row_id=row.row_id,
                )
                for row in conn.execute(query)
            ]

    def delete_labels(
        self, run_id: str, *, metric: str | None = None, rows: Sequence[int] | None = None
    ) -> int:
        """Forget the run's labels (of one metric, of some rows); return how many went."""
        condition = [t.labels.c.run_id == run_id]
        if metric is not None:
            condition.append(t.labels.c.metric == metric)
        if rows is not None:
            condition.append(t.labels.c.row_index.in_(list(rows)))
        with self._store._write() as conn:
            self._store._require_run(conn, run_id)
            return int(conn.execute(t.labels.delete().where(*condition)).rowcount)

    def row_indexes_by_id(self, run_id: str) -> dict[str, list[int]]:
        """Each row id of the run and the indexes stored under it (several for repeats)."""
        found: dict[str, list[int]] = {}
        with self._store._read() as conn:
            self._store._require_run(conn, run_id)
            query = (
                sa.select(t.rows.c.row_id, t.rows.c.row_index)
                .where(t.rows.c.run_id == run_id)
                .order_by(t.rows.c.row_index)
            )
            for row_id, index in conn.execute(query):
                found.setdefault(row_id, []).append(index)
        return found

    # ------------------------------------------------------------ calibrations
    def save_calibration(
        self, identity: Mapping[str, Any], report: Mapping[str, Any], *, source: str
    ) -> CalibrationRecord:
        """Keep a calibration report under the judge's identity; return it as stored.

        ``identity`` needs ``model`` and ``metric`` (text); ``prompt_version`` and
        ``options`` complete it.
        """
        for key in ("model", "metric"):
            if not isinstance(identity.get(key), str) or not identity.get(key):
                raise StoreError(f"a judge identity needs {key} (text)", field=f"identity.{key}")
        record = CalibrationRecord(
            id=f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}",
            judge_key=judge_key(identity),
            metric=str(identity["metric"]),
            model=str(identity["model"]),
            created_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
            source=source[:300],
            identity=dict(identity),
            report=dict(report),
        )
        with self._store._write() as conn:
            conn.execute(
                t.judge_calibrations.insert().values(
                    id=record.id,
                    judge_key=record.judge_key,
                    metric=record.metric,
                    model=record.model,
                    created_at=record.created_at,
                    source=record.source,
                    identity=record.identity,
                    report=record.report,
                )
            )
        return record

    def calibrations(
        self,
        *,
        judge_key: str | None = None,
        metric: str | None = None,
        model: str | None = None,
        limit: int | None = None,
    ) -> list[CalibrationRecord]:
        """Stored calibrations, newest first, of one judge identity, metric or model."""
        table = t.judge_calibrations
        query = sa.select(table).order_by(table.c.created_at.desc(), table.c.id.desc())
        if judge_key is not None:
            query = query.where(table.c.judge_key == judge_key)
        if metric is not None:
            query = query.where(table.c.metric == metric)
        if model is not None:
            query = query.where(table.c.model == model)
        if limit is not None:
            query = query.limit(max(0, int(limit)))
        with self._store._read() as conn:
            return [
                CalibrationRecord(
                    id=row.id,
                    judge_key=row.judge_key,
                    metric=row.metric,
                    model=row.model,
                    created_at=row.created_at,
                    source=row.source,
                    identity=dict(row.identity or {}),
                    report=dict(row.report or {}),
                )
                for row in conn.execute(query)
            ]
