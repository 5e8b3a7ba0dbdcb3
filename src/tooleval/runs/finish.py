"""What a run does once its rows are stored: plumbing marked, aggregates kept.

Shared by :func:`tooleval.runs.runner.run_plan` and :func:`tooleval.runs.rescore.rescore_run`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from tooleval.analysis.aggregates import store_aggregates
from tooleval.analysis.clusters import cluster_failures

if TYPE_CHECKING:
    from tooleval.store import Store

__all__ = ["mark_plumbing", "store_run_aggregates"]


def mark_plumbing(store: Store, run_id: str) -> None:
    """Store ``plumbing`` on the rows when the whole run failed the same way."""
    if store.count_rows(run_id) < 3 or store.count_rows(run_id, passed=True) > 0:
        return
    clusters = cluster_failures(store.iter_rows(run_id))
    if len(clusters) == 1 and clusters[0].failure_class == "plumbing":
        store.set_failure_class(run_id, clusters[0].indexes, "plumbing", detail=clusters[0].detail)


def store_run_aggregates(store: Store, run_id: str) -> None:
    """The finished run's aggregates, stored with it (what the viewer and reports read)."""
    problem = store_aggregates(store, run_id)
    if problem is not None:  # the rows are stored; views count them on first use instead
        warnings.warn(f"run {run_id}: aggregates not stored ({problem})", stacklevel=2)
