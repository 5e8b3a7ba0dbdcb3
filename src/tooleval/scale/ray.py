"""Run tooleval metrics and trace detectors on Ray Data (``pip install 'tooleval[ray]'``).

Both entry points take a ``ray.data.Dataset`` and return a new, lazy one:

* :func:`score` maps a registered metric over canonical dataset rows
  (one output row per input: ``row_id, metric, score, passed, reason, result``);
* :func:`detect` maps detectors over sessions (rows from :func:`from_sessions`,
  or canonical rows holding conversations), one output row per session and
  detector (``session_id, detector, score, passed, findings, result``).

Each batch arrives as a ``pyarrow.Table`` (``map_batches(batch_format="pyarrow")``)
and is handled by the same functions as the single-process path
(:mod:`tooleval.scale.rows`), so results are identical; ``result`` is the full
:class:`~tooleval.model.Result` as JSON. Ray is imported only when these
functions run; ``import tooleval`` never imports it.

Usage (needs a Ray runtime, so not a doctest)::

    import ray
    from tooleval.scale import ray as tray
    ds = tray.from_rows(rows)                 # or ray.data.read_parquet(...)
    scored = tray.score(ds, metric="tool_call_f1", args="exact")
    scored.write_parquet("scores/")
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from tooleval._extras import install_hint
from tooleval.errors import ConfigError
from tooleval.scale.rows import (
    detect_rows,
    encode_row,
    score_rows,
    session_to_row,
    tool_count_rows,
)

__all__ = ["detect", "from_rows", "from_sessions", "score"]


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError(f"tooleval.scale.ray needs Ray Data: {install_hint('ray')}") from exc
    return ray


def _compute(concurrency: int | None) -> dict[str, Any]:
    # Ray 2.51+ takes a compute strategy; older releases only know ``concurrency``.
    if concurrency is None:
        return {}
    import ray.data

    strategy = getattr(ray.data, "TaskPoolStrategy", None)
    if strategy is None:  # pragma: no cover - old Ray
        return {"concurrency": concurrency}
    return {"compute": strategy(size=concurrency)}


def _schema(kind: str):
    import pyarrow as pa

    if kind == "score":
        return pa.schema(
            [
                ("row_id", pa.string()),
                ("metric", pa.string()),
                ("score", pa.float64()),
                ("passed", pa.bool_()),
                ("reason", pa.string()),
                ("result", pa.string()),
            ]
        )
    return pa.schema(
        [
            ("session_id", pa.string()),
            ("detector", pa.string()),
            ("score", pa.float64()),
            ("passed", pa.bool_()),
            ("findings", pa.int64()),
            ("result", pa.string()),
        ]
    )


def _table(rows: list[dict[str, Any]], kind: str):
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=_schema(kind))


def _score_batch(batch: Any, *, metric: str, judge: Any, options: Mapping[str, Any]) -> Any:
    return _table(score_rows(batch.to_pylist(), metric=metric, judge=judge, **options), "score")


def _counts_batch(batch: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(
        tool_count_rows(batch.to_pylist()),
        schema=pa.schema([("session_id", pa.string()), ("counts", pa.string())]),
    )


def _detect_batch(batch: Any, *, detectors: Mapping[str, Any], baseline: Any) -> Any:
    return _table(detect_rows(batch.to_pylist(), detectors=detectors, baseline=baseline), "detect")


def from_rows(rows: Iterable[Mapping[str, Any]], *, override_num_blocks: int | None = None) -> Any:
    """A Ray Dataset of canonical rows, nested fields stored as JSON text."""
    ray = _ray()
    items = [encode_row(r) for r in rows]
    return ray.data.from_items(items, override_num_blocks=override_num_blocks)


def from_sessions(sessions: Iterable[Any], *, override_num_blocks: int | None = None) -> Any:
    """A Ray Dataset of :class:`~tooleval.monitor.session.Session` rows, for :func:`detect`."""
    ray = _ray()
    items = [session_to_row(s) for s in sessions]
    return ray.data.from_items(items, override_num_blocks=override_num_blocks)


def _check_metric(metric: str, options: Mapping[str, Any]) -> None:
    # Fail on the driver, before any task starts, for a wrong name or parameter.
    from tooleval.metrics.registry import check_params

    check_params(metric, options)


def score(
    dataset: Any,
    *,
    metric: str,
    judge: Any = None,
    batch_size: int | None = 256,
    concurrency: int | None = None,
    **options: Any,
) -> Any:
    """Score every row of ``dataset`` with ``metric`` (``options`` are the metric's parameters).

    ``batch_size`` rows go to each task; ``concurrency`` caps parallel tasks
    (``None``: Ray decides). A ``judge`` must be picklable to reach the workers.
    """
    _ray()
    _check_metric(metric, options)
    fn = functools.partial(_score_batch, metric=metric, judge=judge, options=dict(options))
    return dataset.map_batches(
        fn, batch_format="pyarrow", batch_size=batch_size, **_compute(concurrency)
    )


def detect(
    dataset: Any,
    *,
    detectors: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    batch_size: int | None = 256,
    concurrency: int | None = None,
) -> Any:
    """Run trace detectors (all by default) over every session of ``dataset``.

    When ``excessive_calls`` runs, a first distributed pass counts calls per
    tool and session, and the driver builds the batch baseline from them,
    exactly as the single-process path does over the whole file.
    """
    _ray()
    from tooleval.monitor.detectors import DETECTORS, ToolBaseline, resolve_detector_options

    resolved = resolve_detector_options(detectors, options)
    baseline = None
    if any(DETECTORS[name].needs_baseline for name in resolved):
        import json

        counts = dataset.map_batches(
            _counts_batch, batch_format="pyarrow", batch_size=batch_size, **_compute(concurrency)
        )
        baseline = ToolBaseline.from_counts(
            json.loads(row["counts"]) for row in counts.iter_rows()
        ).to_dict()
    fn = functools.partial(_detect_batch, detectors=resolved, baseline=baseline)
    return dataset.map_batches(
        fn, batch_format="pyarrow", batch_size=batch_size, **_compute(concurrency)
    )
