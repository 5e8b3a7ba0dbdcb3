"""Stored runs read into per-row attempts, for the intervals and paired tests of :mod:`tooleval.stats`.

A row's value for one metric is 1 when it passed and 0 when it failed; an
error row (the agent could not be called, a cell could not be read) is 0, as
the gate counts it; a row that is unscored for another reason (no reference)
is left out and counted apart. A repeated run (``--repeat N``) stores each
attempt as its own row: the attempts of one dataset row are grouped back
(see :mod:`tooleval.analysis.repeats`), so the unit is always the dataset row.

>>> from tooleval.model import Result, Sample
>>> from tooleval.store.records import MetricSpec, RowRecord, RunInfo
>>> run = RunInfo(id="r", name="n", created_at="t", status="finished",
...               metrics=(MetricSpec("m"),))
>>> rows = [RowRecord("r", i, f"q{i}", Sample(category="c"),
...                   (Result(metric="m", score=1.0 * (i % 2), passed=bool(i % 2), reason=""),))
...         for i in range(4)]
>>> table = read_attempts(run, rows)
>>> [r.values["m"] for r in table.rows], table.unscored
([[0.0], [1.0], [0.0], [1.0]], {'m': 0})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.repeats import repeat_of
from tooleval.errors import ConfigError
from tooleval.stats import (
    Interval,
    PairedComparison,
    RateSummary,
    compare_paired,
    compare_verdict,
    holm,
    summarize,
)
from tooleval.stats.tally import Tally
from tooleval.stats.verdict import CompareVerdict
from tooleval.store import RunRowsReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "VERDICT",
    "AttemptTable",
    "count_interval",
    "MetricComparison",
    "RowAttempts",
    "compare_stats",
    "paired_statistics",
    "paired_verdict",
    "read_attempts",
    "run_intervals",
]

#: The slice of every row; categories are the other slices.
ALL = "(all)"


@dataclass(slots=True)
class RowAttempts:
    """One dataset row: its key (for pairing), category, cluster, and per-metric attempts."""

    key: str
    category: str | None
    cluster: Hashable | None
    values: dict[str, list[float]] = field(default_factory=dict)
    scores: dict[str, list[float]] = field(default_factory=dict)
    unscored: dict[str, int] = field(default_factory=dict)  # attempts left out, per metric
    first_index: int | None = None  # the store index of the row's first attempt
    attempts: int = 0  # attempts stored
    errors: int = 0  # attempts that are error rows


@dataclass(frozen=True, slots=True)
class AttemptTable:
    """A run's rows as attempts per metric; ``unscored`` counts rows left out per metric."""

    metrics: tuple[str, ...]
    rows: tuple[RowAttempts, ...]
    unscored: dict[str, int]

    def select(self, metric: str, category: str = ALL, *, kind: str = "pass") -> list[RowAttempts]:
        """The rows with a value for ``metric`` (pass/fail, or ``kind="score"``), one slice."""
        pick = (lambda r: r.values) if kind == "pass" else (lambda r: r.scores)
        return [
            r
            for r in self.rows
            if pick(r).get(metric) and (category == ALL or (r.category or "(none)") == category)
        ]

    @property
    def categories(self) -> list[str]:
        return sorted({r.category or "(none)" for r in self.rows})


def _cluster_of(row: RowRecord, cluster_key: str | None) -> Hashable | None:
    if cluster_key is None:
        return None
    if cluster_key == "category":
        return row.category or "(none)"
    value = row.sample.metadata.get(cluster_key)
    if value is None:
        raise ConfigError(
            f"row {row.row_id!r} has no metadata field {cluster_key!r} to cluster by; "
            "give every row that column or choose another --cluster-key",
            field="--cluster-key",
        )
    return value if isinstance(value, Hashable) else repr(value)


#: The pseudo-metric of the row verdict (every scored metric of the row passed).
VERDICT = "(row verdict)"


def read_attempts(
    run: RunInfo,
    rows: Iterable[RowRecord],
    *,
    cluster_key: str | None = None,
    verdict: bool = False,
) -> AttemptTable:
    """Group a run's stored rows into dataset rows with their attempts per metric.

    ``verdict`` adds the row verdict as the metric :data:`VERDICT` (an error row
    is not passed; a row with nothing scored is left out, as for a metric).
    """
    metrics = tuple(m.name for m in run.metrics) or tuple(run.summaries)
    if verdict:
        metrics = (*metrics, VERDICT)
    spec = repeat_of(run)
    grouped: dict[Any, RowAttempts] = {}
    seen: Counter[str] = Counter()
    unscored: Counter[str] = Counter()
    for row in rows:
        group: Any = row.index % spec[1] if spec is not None else None
        entry = grouped.get(group) if spec is not None else None
        if entry is None:
            # A row id repeated in a dataset is told apart by its occurrence (``id#1``, ...).
            base = (
                str(row.sample.metadata.get("dataset_row_id") or row.row_id.split("#")[0])
                if spec is not None
                else row.row_id
            )
            key = base if not seen[base] else f"{base}#{seen[base]}"
            seen[base] += 1
            entry = RowAttempts(key, row.category, _cluster_of(row, cluster_key))
            entry.first_index = row.index
            grouped[key if spec is None else group] = entry
        entry.attempts += 1
        entry.errors += row.error is not None
        for metric in metrics:
            if metric == VERDICT:
                passed = False if row.error is not None else row.passed
                if passed is None:
                    unscored[metric] += 1
                    entry.unscored[metric] = entry.unscored.get(metric, 0) + 1
                else:
                    entry.values.setdefault(metric, []).append(1.0 if passed else 0.0)
                continue
            result = row.result(metric)
            if row.error is not None:
                entry.values.setdefault(metric, []).append(0.0)
            elif result is None or result.passed is None:
                unscored[metric] += 1
                entry.unscored[metric] = entry.unscored.get(metric, 0) + 1
            else:
                entry.values.setdefault(metric, []).append(1.0 if result.passed else 0.0)
            if row.error is None and result is not None and result.score is not None:
                entry.scores.setdefault(metric, []).append(float(result.score))
    return AttemptTable(metrics, tuple(grouped.values()), {m: unscored[m] for m in metrics})


def count_interval(
    run: RunInfo, passed: int, counted: int, confidence: float = 0.95
) -> Interval | None:
    """The interval of a pass rate from its counts alone (no rows read): Wilson over rows.

    For a repeated run the counts are attempts; without the rows, each dataset row is
    counted once, as if its attempts always agreed: never narrower than the row-level
    interval, and never the pooled-attempts mistake.

    >>> from tooleval.store.records import RunInfo
    >>> run = RunInfo(id="r", name="n", created_at="t", status="finished")
    >>> i = count_interval(run, 17, 20)
    >>> round(i.low, 4), round(i.high, 4)
    (0.6396, 0.9476)
    """
    if counted <= 0:
        return None
    spec = repeat_of(run)
    if spec is not None:
        counted = max(1, round(counted / spec[0]))
        passed = min(counted, round(passed / spec[0]))
    found = Tally(passed, counted - passed).rate_estimate(confidence)  # the one tally's Wilson
    return None if found is None else found.interval


def _clusters(rows: Sequence[RowAttempts]) -> list[Hashable] | None:
    if not rows or rows[0].cluster is None:
        return None
    return [r.cluster for r in rows]


def run_intervals(
    table: AttemptTable,
    *,
    confidence: float = 0.95,
    bootstrap: int = 0,
    seed: int = 0,
    kind: str = "pass",
) -> dict[str, dict[str, RateSummary]]:
    """``{metric: {"(all)" or category: RateSummary}}`` of each metric's pass rate (or score)."""
    out: dict[str, dict[str, RateSummary]] = {}
    for metric in table.metrics:
        per: dict[str, RateSummary] = {}
        for category in [ALL, *table.categories]:
            rows = table.select(metric, category, kind=kind)
            if not rows:
                continue
            values = [r.values[metric] if kind == "pass" else r.scores[metric] for r in rows]
            per[category] = summarize(
                values,
                clusters=_clusters(rows),
                confidence=confidence,
                bootstrap=bootstrap,
                seed=seed,
            )
        if per:
            out[metric] = per
    return out


@dataclass(frozen=True, slots=True)
class MetricComparison:
    """One metric (one slice) of two runs: the paired statistics, the Holm p, the verdict."""

    metric: str
    slice: str
    stats: PairedComparison
    p_holm: float
    verdict: CompareVerdict
    unpaired_rows: int  # rows with a value on one side only (left out of the pairing)

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "slice": self.slice,
            **self.stats.to_dict(),
            "p_holm": self.p_holm,
            "verdict": self.verdict.to_dict(),
            "unpaired_rows": self.unpaired_rows,
        }


def _paired_rows(
    a: AttemptTable, b: AttemptTable, metric: str, category: str
) -> tuple[list[list[float]], list[list[float]], list[Hashable] | None, int]:
    side_a = {r.key: r for r in a.select(metric, category)}
    side_b = {r.key: r for r in b.select(metric, category)}
    keys = [k for k in side_a if k in side_b]
    unpaired = len(side_a) + len(side_b) - 2 * len(keys)
    clusters = _clusters([side_a[k] for k in keys])
    return (
        [side_a[k].values[metric] for k in keys],
        [side_b[k].values[metric] for k in keys],
        (clusters),
        unpaired,
    )


def compare_stats(
    store: RunRowsReader,
    run_a: str,
    run_b: str,
    *,
    confidence: float = 0.95,
    power: float = 0.8,
    margin: float = 0.0,
    cluster_key: str | None = None,
    resamples: int = 2000,
    seed: int = 0,
) -> list[MetricComparison]:
    """Paired statistics of B against A for every metric and category, Holm across all of them.

    A metric's verdict is a regression (or improvement) when its interval lies
    below −margin (above +margin) and, when more than one metric or slice is
    reported, its Holm-adjusted p is under 1 − confidence too.
    """
    info_a, info_b = store.get_run(run_a), store.get_run(run_b)
    a = read_attempts(info_a, store.iter_rows(info_a.id), cluster_key=cluster_key)
    b = read_attempts(info_b, store.iter_rows(info_b.id), cluster_key=cluster_key)
    return paired_statistics(
        a, b, confidence=confidence, power=power, margin=margin, resamples=resamples, seed=seed
    )


def paired_statistics(
    a: AttemptTable,
    b: AttemptTable,
    *,
    confidence: float = 0.95,
    power: float = 0.8,
    margin: float = 0.0,
    resamples: int = 2000,
    seed: int = 0,
) -> list[MetricComparison]:
    """:func:`compare_stats` over two runs already read into dataset rows."""
    metrics = [m for m in a.metrics if m in b.metrics]
    categories = sorted(set(a.categories) | set(b.categories))
    found: list[tuple[str, str, PairedComparison, int]] = []
    for metric in metrics:
        for category in [ALL, *categories] if len(categories) > 1 else [ALL]:
            xs, ys, clusters, unpaired = _paired_rows(a, b, metric, category)
            if not xs:
                continue
            stats = compare_paired(
                xs,
                ys,
                clusters=clusters,
                confidence=confidence,
                power=power,
                resamples=resamples,
                seed=seed,
            )
            found.append((metric, category, stats, unpaired))
    adjusted = holm([f[2].p_value for f in found])
    alpha = 1.0 - confidence
    out = []
    for (metric, category, stats, unpaired), p_holm in zip(found, adjusted, strict=True):
        verdict = paired_verdict(stats, margin=margin, alpha=alpha)
        if verdict.kind != "inconclusive" and len(found) > 1 and p_holm >= alpha:
            why = (
                f"the interval excludes 0, but the Holm-adjusted p{_p(p_holm)} over "
                f"{len(found)} metric × slice comparisons is not under {alpha:g}"
            )
            verdict = CompareVerdict("inconclusive", stats.mde, margin, why)
        out.append(MetricComparison(metric, category, stats, p_holm, verdict, unpaired))
    return out


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"={value:.3f}"


def paired_verdict(stats: PairedComparison, *, margin: float = 0.0, alpha: float = 0.05) -> Any:
    """The verdict of one paired comparison: its interval against ±margin, confirmed by the
    exact test when the change is read against 0 (McNemar's exact p for one verdict per row,
    the sign-flip permutation p for repeats), so that two runs of the same agent are called
    different at most alpha of the time (the interval alone: 5.5% at n = 50). When the exact
    test does not confirm, the verdict is inconclusive and says why.

    >>> from tooleval.stats import compare_paired
    >>> s = compare_paired([[1.0]] * 40 + [[0.0]] * 10, [[1.0]] * 33 + [[0.0]] * 17)
    >>> paired_verdict(s).kind
    'regression'
    """
    verdict = compare_verdict(stats.interval, mde=stats.mde, margin=margin)
    if verdict.kind == "inconclusive" or margin > 0:
        return verdict
    if stats.mcnemar is not None:
        exact, name = stats.mcnemar.p_exact, "McNemar's exact"
    elif stats.sign_flip is not None:
        exact, name = stats.sign_flip.p_value, "the sign-flip"
    else:
        return verdict
    if exact < alpha:
        return verdict
    why = f"the interval excludes 0, but {name} p{_p(exact)} is not under {alpha:g}"
    return CompareVerdict("inconclusive", stats.mde, margin, why)
