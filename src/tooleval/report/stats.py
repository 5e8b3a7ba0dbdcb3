"""Numbers for reports and the viewer, read through the store's public read API.

Per-category counts are ``count_rows`` queries (indexed, cheap on 100k rows);
score distributions need every score, so :func:`score_bins` streams
``iter_rows`` in the store's chunks and keeps only the numbers.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
>>> category_stats(store, store.get_run(run_id))
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooleval.report.charts import bin_counts
from tooleval.store.records import RunInfo

__all__ = [
    "CategoryStats",
    "ScoreBins",
    "ScoreTally",
    "category_stats",
    "class_counts",
    "score_bins",
]


@dataclass(frozen=True, slots=True)
class CategoryStats:
    """One category of a run: row counts and per-metric pass rates."""

    category: str
    rows: int
    passed: int
    failed: int
    errors: int
    pass_rates: dict[str, float | None] = field(default_factory=dict)

    @property
    def pass_rate(self) -> float | None:
        """Rows whose every scored result passed, over rows with a verdict."""
        decided = self.passed + self.failed
        return self.passed / decided if decided else None


@dataclass(frozen=True, slots=True)
class ScoreBins:
    """A metric's score histogram over a run (unscored rows counted apart)."""

    metric: str
    counts: list[int]
    unscored: int
    threshold: float | None


def category_stats(store: Any, run: RunInfo, *, per_metric: bool = True) -> list[CategoryStats]:
    """Per category (sorted): rows, passed, failed, errors and each metric's pass rate.

    ``per_metric=False`` skips the per-metric rates (two correlated counts per
    category and metric, the slow part on big runs); the row verdicts stay.
    """
    stats = []
    metrics = list(run.summaries) if per_metric else []
    for category in store.categories(run.id):
        rates: dict[str, float | None] = {}
        for metric in metrics:
            ok = store.count_rows(run.id, category=category, metric=metric, passed=True)
            bad = store.count_rows(run.id, category=category, metric=metric, passed=False)
            rates[metric] = ok / (ok + bad) if ok + bad else None
        stats.append(
            CategoryStats(
                category=category,
                rows=store.count_rows(run.id, category=category),
                passed=store.count_rows(run.id, category=category, passed=True),
                failed=store.count_rows(run.id, category=category, passed=False),
                errors=store.count_rows(run.id, category=category, error=True),
                pass_rates=rates,
            )
        )
    return stats


def class_counts(store: Any, run_id: str, classes: list[str]) -> dict[str, int]:
    """How many rows carry each stored failure class (classes with no row left out)."""
    counts = {c: store.count_rows(run_id, failure_class=c) for c in classes}
    return {c: n for c, n in counts.items() if n}


class ScoreTally:
    """Collects every metric's scores from rows fed one at a time (one pass, numbers only)."""

    def __init__(self, run: RunInfo) -> None:
        self._thresholds = {m.name: m.threshold for m in run.metrics}
        self._scores: dict[str, list[float]] = {m: [] for m in run.summaries}
        self._unscored: dict[str, int] = dict.fromkeys(run.summaries, 0)

    def add(self, row: Any) -> None:
        for result in row.results:
            scores = self._scores.setdefault(result.metric, [])
            self._unscored.setdefault(result.metric, 0)
            if result.score is None:
                self._unscored[result.metric] += 1
            else:
                scores.append(result.score)

    def bins(self, *, bins: int = 10) -> list[ScoreBins]:
        return [
            ScoreBins(m, bin_counts(v, bins=bins), self._unscored[m], self._thresholds.get(m))
            for m, v in self._scores.items()
        ]


def score_bins(store: Any, run: RunInfo, *, bins: int = 10) -> list[ScoreBins]:
    """Every metric's score histogram in one streaming pass over the run's rows."""
    tally = ScoreTally(run)
    for row in store.iter_rows(run.id):
        tally.add(row)
    return tally.bins(bins=bins)
