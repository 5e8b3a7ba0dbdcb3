"""A run's aggregates, computed once and kept in the store for the report and the viewer.

The documents of a run (see :mod:`tooleval.store.aggregates`):

- ``counts``: score histograms per metric, per-category row verdicts and
  per-metric pass rates, rows per failure class with the first example rows.
  Database GROUP BYs only: seconds on a million rows.
- ``repeats`` (runs made with ``--repeat N``): pass^k / pass@k and the flaky rows
  (:func:`run_repeats`).
- ``clusters``: the failure clusters (:func:`tooleval.analysis.clusters.cluster_failures`
  over every row that did not pass), with at most ``CLUSTER_EXAMPLES`` row ids each.

A finished run's documents are written once (``tooleval aggregate``, or on
first use) and read back on every later view; a run still running is
counted fresh each time and nothing is saved. A document computed from
another row count (rows added on ``--resume``) is recomputed.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
>>> store.finish_run(run_id)
>>> run_counts(store, store.get_run(run_id)).categories
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.counts import CategoryStats, ScoreBins
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "CLUSTER_EXAMPLES",
    "FLAKY_EXAMPLES",
    "FINISHED",
    "RunCounts",
    "aggregate_run",
    "clusters_exact",
    "cached_run",
    "cached_runs",
    "run_clusters",
    "run_counts",
    "run_repeats",
    "stamp",
    "store_aggregates",
]

FINISHED = ("finished", "interrupted", "failed")
CLUSTER_EXAMPLES = 20
_COUNTS = "counts/1"
_CLUSTERS = "clusters/1"
_REPEATS = "repeats/1"
_EXACT = "clusters-exact/1"
#: Flaky rows kept (and shown) per repeated run; the count covers them all.
FLAKY_EXAMPLES = 50
_RUN = "run/1"


def stamp(status: str, finished_at: str | None) -> str:
    """What identifies one stopped state of a run (a resumed run finishes with a new one)."""
    return f"{status}|{finished_at}"


def _run_payload(run: RunInfo) -> dict[str, Any]:
    return {
        "stamp": stamp(run.status, run.finished_at),
        "id": run.id,
        "name": run.name,
        "created_at": run.created_at,
        "status": run.status,
        "finished_at": run.finished_at,
        "dataset": run.dataset,
        "connector": run.connector,
        "metrics": [m.to_dict() for m in run.metrics],
        "tags": list(run.tags),
        "row_count": run.row_count,
        "error_count": run.error_count,
        "summaries": {
            name: {
                f: getattr(m, f) for f in ("scored", "passed", "failed", "unscored", "mean_score")
            }
            for name, m in run.summaries.items()
        },
        "config": run.config,
    }


def _run_from_payload(p: dict[str, Any]) -> RunInfo:
    from tooleval.store.records import MetricSpec, MetricSummary

    return RunInfo(
        id=p["id"],
        name=p["name"],
        created_at=p["created_at"],
        status=p["status"],
        finished_at=p["finished_at"],
        dataset=dict(p["dataset"]),
        connector=dict(p["connector"]),
        metrics=tuple(
            MetricSpec(m["name"], dict(m["params"]), m["threshold"]) for m in p["metrics"]
        ),
        tags=tuple(p["tags"]),
        row_count=int(p["row_count"]),
        error_count=int(p["error_count"]),
        summaries={n: MetricSummary(metric=n, **m) for n, m in p["summaries"].items()},
        config=dict(p["config"]),
    )


def _cached(store: StoreReader, run_id: str, status: str, finished_at: str | None) -> RunInfo:
    if status not in FINISHED:
        return store.get_run(run_id)
    payload = store.aggregates.load_aggregate(run_id, _RUN, row_count=None)
    if payload is not None and payload.get("stamp") == stamp(status, finished_at):
        try:
            return _run_from_payload(payload)
        except (KeyError, TypeError, ValueError):
            pass  # written by another version
    run = store.get_run(run_id)
    if run.status in FINISHED:
        store.aggregates.save_aggregate(run.id, _RUN, _run_payload(run), row_count=run.row_count)
    return run


def cached_run(store: StoreReader, run_id: str) -> RunInfo:
    """``store.get_run(run_id)``, read from its stored copy once the run has stopped.

    ``get_run`` sums every result of the run (about 0.6 s on a million rows);
    a stopped run's header is stored the first time and checked against the
    run's status and finish time on every later read.
    """
    found = store.aggregates.run_stamps(run_id=run_id)
    if not found:
        return store.get_run(run_id)  # raises the store's "no run" error
    return _cached(store, *found[0])


def cached_runs(
    store: StoreReader, *, search: str | None = None, tag: str | None = None
) -> list[RunInfo]:
    """``store.list_runs(search=, tag=)`` with stopped runs read from their stored copies."""
    return [_cached(store, *row) for row in store.aggregates.run_stamps(search=search, tag=tag)]


@dataclass(frozen=True, slots=True)
class RunCounts:
    """What the run page and the report show above the rows, for one run."""

    bins: list[ScoreBins]
    categories: list[CategoryStats]
    classes: dict[str, int]
    examples: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def to_payload(self) -> dict[str, Any]:
        return {
            "bins": [
                {
                    "metric": b.metric,
                    "counts": b.counts,
                    "unscored": b.unscored,
                    "threshold": b.threshold,
                }
                for b in self.bins
            ],
            "categories": [
                {
                    "category": c.category,
                    "rows": c.rows,
                    "passed": c.passed,
                    "failed": c.failed,
                    "errors": c.errors,
                    "metric_counts": c.metric_counts,
                }
                for c in self.categories
            ],
            "classes": self.classes,
            "examples": {k: [list(p) for p in v] for k, v in self.examples.items()},
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> RunCounts:
        return cls(
            bins=[ScoreBins(**b) for b in payload["bins"]],
            categories=[CategoryStats(**c) for c in payload["categories"]],
            classes={k: int(v) for k, v in payload["classes"].items()},
            examples={k: [(int(i), str(r)) for i, r in v] for k, v in payload["examples"].items()},
        )


def _count(store: StoreReader, run: RunInfo, *, bins: int = 10) -> RunCounts:
    from tooleval.analysis.clusters import FAILURE_CLASSES

    thresholds = {m.name: m.threshold for m in run.metrics}
    histograms = store.aggregates.score_histograms(run.id, bins=bins)
    score_bins = [
        ScoreBins(
            metric,
            histograms.get(metric, {}).get("counts", [0] * (bins + 1)),
            histograms.get(metric, {}).get("unscored", 0),
            thresholds.get(metric),
        )
        for metric in run.summaries
    ]
    per_metric = store.aggregates.category_metric_counts(run.id)
    categories = []
    for category, counts in store.aggregates.category_counts(run.id).items():
        categories.append(
            CategoryStats(
                category=category,
                metric_counts={m: list(v) for m, v in per_metric.get(category, {}).items()},
                **counts,
            )
        )
    order = list(FAILURE_CLASSES)
    classes = dict(
        sorted(
            store.aggregates.class_counts(run.id).items(),
            key=lambda kv: (-kv[1], order.index(kv[0]) if kv[0] in order else len(order)),
        )
    )
    examples = {
        cls: [(i, r) for i, r in pairs]
        for cls, pairs in store.aggregates.class_examples(run.id, list(classes)).items()
    }
    return RunCounts(score_bins, categories, classes, examples)


def run_counts(store: StoreReader, run: RunInfo, *, refresh: bool = False) -> RunCounts:
    """The run's counts: stored ones when fresh, else counted (and stored if finished)."""
    if not refresh:
        payload = store.aggregates.load_aggregate(run.id, _COUNTS, row_count=run.row_count)
        if payload is not None and payload.get("stamp") == stamp(run.status, run.finished_at):
            try:
                return RunCounts.from_payload(payload)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: count again
    counts = _count(store, run)
    if run.status in FINISHED:
        payload = counts.to_payload() | {"stamp": stamp(run.status, run.finished_at)}
        store.aggregates.save_aggregate(run.id, _COUNTS, payload, row_count=run.row_count)
    return counts


def _cluster(store: StoreReader, run: RunInfo) -> tuple[list[Any], int]:
    """The clusters counted from the rows' stored keys, or (older rows) from the rows."""
    from tooleval.analysis.clusters import cluster_failures

    if store.aggregates.undetailed_failures(run.id) == 0:
        return _grouped_clusters(store, run)
    failing = list(store.aggregates.iter_unpassed_slim(run.id))
    clusters = cluster_failures(failing, total_rows=run.row_count)
    return clusters, len(failing)


def _grouped_clusters(store: StoreReader, run: RunInfo) -> tuple[list[Any], int]:
    """What :func:`cluster_failures` gives, from one GROUP BY over the stored keys.

    Each failed row was stored with its class and detail (the runner classifies a row
    as it writes it, and marks plumbing when the whole run failed alike), so the groups
    are the clusters; only their first examples are read.
    """
    from tooleval.analysis.clusters import FAILURE_CLASSES, FailureCluster

    groups: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for cls, detail, category, rows, first in store.aggregates.failure_groups(run.id):
        groups.setdefault((cls, detail), []).append((category or "(none)", rows, first))
    clusters = []
    for (cls, detail), parts in groups.items():
        # Counter.most_common order: by count, ties in order of first appearance.
        parts.sort(key=lambda part: (-part[1], part[2]))
        examples = store.aggregates.failure_group_examples(
            run.id, cls, detail, limit=CLUSTER_EXAMPLES
        )
        clusters.append(
            FailureCluster(
                failure_class=cls,
                count=sum(rows for _, rows, _ in parts),
                categories={category: rows for category, rows, _ in parts},
                row_ids=tuple(row_id for _, row_id in examples),
                detail=detail,
                indexes=tuple(index for index, _ in examples),
            )
        )
    order = list(FAILURE_CLASSES)
    clusters.sort(key=lambda c: (-c.count, order.index(c.failure_class), c.detail))
    return clusters, sum(c.count for c in clusters)


def run_clusters(
    store: StoreReader, run: RunInfo, *, refresh: bool = False
) -> tuple[list[Any], int]:
    """The run's failure clusters (examples capped) and how many rows did not pass."""
    from tooleval.analysis.clusters import FailureCluster

    if not refresh:
        payload = store.aggregates.load_aggregate(run.id, _CLUSTERS, row_count=run.row_count)
        if payload is not None and payload.get("stamp") == stamp(run.status, run.finished_at):
            try:
                clusters = [
                    FailureCluster(
                        failure_class=c["failure_class"],
                        count=int(c["count"]),
                        categories=dict(c["categories"]),
                        row_ids=tuple(c["row_ids"]),
                        detail=c["detail"],
                        indexes=tuple(c["indexes"]),
                    )
                    for c in payload["clusters"]
                ]
                return clusters, int(payload["failures"])
            except (KeyError, TypeError, ValueError):
                pass
    clusters, failures = _cluster(store, run)
    if run.status in FINISHED:
        stored = [
            {
                "failure_class": c.failure_class,
                "count": c.count,
                "categories": c.categories,
                "row_ids": list(c.row_ids[:CLUSTER_EXAMPLES]),
                "indexes": list(c.indexes[:CLUSTER_EXAMPLES]),
                "detail": c.detail,
            }
            for c in clusters
        ]
        store.aggregates.save_aggregate(
            run.id,
            _CLUSTERS,
            {
                "clusters": stored,
                "failures": failures,
                "stamp": stamp(run.status, run.finished_at),
            },
            row_count=run.row_count,
        )
    return clusters, failures


def run_repeats(
    store: StoreReader, run: RunInfo, *, refresh: bool = False
) -> dict[str, Any] | None:
    """The repeat digest of a run made with ``--repeat N`` (None for a run made once).

    :meth:`tooleval.analysis.repeats.RepeatSummary.digest`: pass^k / pass@k per
    k and per category, the flaky-row count and the first ``FLAKY_EXAMPLES``
    flaky rows; kept in the store once the run has stopped, so a view reads one
    small document instead of every attempt row.
    """
    from tooleval.analysis.repeats import repeat_of, summarise_run

    if repeat_of(run) is None:
        return None
    current = stamp(run.status, run.finished_at)
    if not refresh:
        payload = store.aggregates.load_aggregate(run.id, _REPEATS, row_count=run.row_count)
        if isinstance(payload, dict) and payload.get("stamp") == current:
            return dict(payload["digest"])
    summary = summarise_run(store, run)
    if summary is None:
        return None
    digest = summary.digest(limit=FLAKY_EXAMPLES)
    if run.status in FINISHED:
        store.aggregates.save_aggregate(
            run.id, _REPEATS, {"digest": digest, "stamp": current}, row_count=run.row_count
        )
    return digest


def clusters_exact(store: StoreReader, info: RunInfo, *, refresh: bool = False) -> bool:
    """Whether every row that did not pass carries its stored cluster key (clusters exact).

    Counted once for a stopped run and kept with its aggregates (checked
    against its status and finish time like the others); counted on every
    view while it runs.
    """
    current = stamp(info.status, info.finished_at)
    if info.status in FINISHED and not refresh:
        payload = store.aggregates.load_aggregate(info.id, _EXACT, row_count=info.row_count)
        if isinstance(payload, dict) and payload.get("stamp") == current:
            return bool(payload.get("exact"))
    exact = store.aggregates.undetailed_failures(info.id) == 0
    if info.status in FINISHED:
        store.aggregates.save_aggregate(
            info.id, _EXACT, {"exact": exact, "stamp": current}, row_count=info.row_count
        )
    return exact


def store_aggregates(store: StoreReader, run_id: str) -> str | None:
    """Write a stopped run's aggregates; the reason when they could not be (the run is kept).

    Called by the runner and by rescoring when a run finishes, so a run made from Python
    leaves the same store as ``tooleval run``; views compute what is missing on first use.
    """
    from tooleval.errors import ToolEvalError

    try:
        aggregate_run(store, run_id)
    except ToolEvalError as exc:
        return str(exc)
    return None


def aggregate_run(store: StoreReader, run_id: str) -> RunInfo:
    """Recompute and store both documents of a finished run (``tooleval aggregate``).

    Raises :class:`~tooleval.errors.InputError` for a run still running:
    its aggregates would be stale at once.
    """
    from tooleval.errors import InputError

    run = store.get_run(run_id)
    if run.status not in FINISHED:
        raise InputError(
            f"run {run.id} is still {run.status}; aggregates are written once a run has stopped",
            field="run",
        )
    store.aggregates.save_aggregate(run.id, _RUN, _run_payload(run), row_count=run.row_count)
    run_counts(store, run, refresh=True)
    run_clusters(store, run, refresh=True)
    run_repeats(store, run, refresh=True)
    clusters_exact(store, run, refresh=True)
    from tooleval.analysis.figures import run_figures

    run_figures(store, run, refresh=True)
    return run
