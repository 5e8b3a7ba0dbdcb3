"""The read model of a run: every figure a surface shows, computed once from the stored rows.

Per metric (and the row verdict, :data:`VERDICT`), per slice (``"(all)"`` and each
category): the counts passed / failed / errors / unscored and their unit, the pass
rate with its interval and the method's name, the mean score with its interval,
and for a repeated run pass^K and pass@K with their intervals and the flaky rows.
``runs show``, ``runs list``, ``compare``, JUnit, ``--summary-md``, the exports, the
HTML report and every viewer page render a :class:`RunFigures`; none counts again.

One rule counts the rows (docs/runs.md, "Errors count"): an **error row counts as
not passed** in every pass rate, ``passed / (passed + failed + errors)``; a row
unscored for another reason (no reference, a judge reply that could not be read)
is left out of the rate and counted apart. The mean score is over scored rows (an
error row has no score).

One interval per figure (docs/statistics.md): the dataset row is the unit; Wilson
for one 0/1 verdict per row (pass rates of a run made once, pass^K and pass@K); a
t interval over the row rates otherwise (repeats, scores), clustered with a
cluster key. A run made once is counted in the database (no row is decoded); a
repeated run, or one clustered, reads its rows once. A stopped run's figures are
kept with its aggregates and read back on every later view.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
>>> store.finish_run(run_id)
>>> run_figures(store, store.get_run(run_id)).metrics
()
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.aggregates import FINISHED, stamp
from tooleval.analysis.noise import VERDICT, read_attempts, run_intervals
from tooleval.analysis.repeats import repeat_of
from tooleval.stats.tally import Estimate, Tally, estimate_text
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "ALL",
    "VERDICT",
    "Estimate",
    "RunFigures",
    "SliceFigures",
    "estimate_text",
    "run_figures",
]

ALL = "(all)"
_DOCUMENT = "figures/1"


@dataclass(frozen=True, slots=True)
class SliceFigures:
    """One metric (or the row verdict) in one slice of a run.

    The counts are in ``unit``: ``"rows"`` for a run made once, ``"attempts"`` for a
    repeated run (each attempt stored as a row); the estimates are over dataset rows.
    """

    metric: str
    slice: str
    passed: int
    failed: int
    errors: int
    unscored: int
    unit: str
    pass_rate: Estimate | None = None
    mean_score: Estimate | None = None
    k: int = 1
    pass_hat_k: Estimate | None = None
    pass_at_k: Estimate | None = None
    flaky: int | None = None
    within_variance: float | None = None  # mean over rows of each row's attempt variance

    @property
    def counted(self) -> int:
        """What the pass rate counts: passed, failed and error rows (errors as not passed)."""
        return self.passed + self.failed + self.errors

    @property
    def rate(self) -> float | None:
        """The pass rate (the mean of the row rates; None when nothing was counted)."""
        return None if self.pass_rate is None else self.pass_rate.value

    def to_dict(self) -> dict[str, Any]:
        def opt(e: Estimate | None) -> dict[str, Any] | None:
            return None if e is None else e.to_dict()

        return {
            "metric": self.metric,
            "slice": self.slice,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "unscored": self.unscored,
            "unit": self.unit,
            "pass_rate": opt(self.pass_rate),
            "mean_score": opt(self.mean_score),
            "k": self.k,
            "pass_hat_k": opt(self.pass_hat_k),
            "pass_at_k": opt(self.pass_at_k),
            "flaky": self.flaky,
            "within_variance": self.within_variance,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SliceFigures:
        def opt(value: Any) -> Estimate | None:
            return None if value is None else Estimate.from_dict(value)

        return cls(
            metric=str(d["metric"]),
            slice=str(d["slice"]),
            passed=int(d["passed"]),
            failed=int(d["failed"]),
            errors=int(d["errors"]),
            unscored=int(d["unscored"]),
            unit=str(d["unit"]),
            pass_rate=opt(d["pass_rate"]),
            mean_score=opt(d["mean_score"]),
            k=int(d["k"]),
            pass_hat_k=opt(d["pass_hat_k"]),
            pass_at_k=opt(d["pass_at_k"]),
            flaky=None if d["flaky"] is None else int(d["flaky"]),
            within_variance=d["within_variance"],
        )


@dataclass(frozen=True, slots=True)
class RunFigures:
    """Every figure of one run (see the module docstring); ``get`` finds one slice."""

    run_id: str
    rows: int  # stored rows (attempts for a repeated run)
    errors: int  # stored error rows
    k: int  # attempts per dataset row
    confidence: float
    cluster_key: str | None
    metrics: tuple[str, ...]
    categories: tuple[str, ...]
    slices: dict[tuple[str, str], SliceFigures] = field(default_factory=dict)
    #: The rows' latency percentiles in ms (``p50``, ``p95``; empty when no row has one).
    latency: dict[str, float] = field(default_factory=dict)

    @property
    def unit(self) -> str:
        """What the estimates count: ``"rows"``, or ``"dataset rows"`` for a repeated run."""
        return "rows" if self.k == 1 else "dataset rows"

    def get(self, metric: str, slice: str = ALL) -> SliceFigures | None:
        return self.slices.get((metric, slice))

    def to_payload(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "rows": self.rows,
            "errors": self.errors,
            "k": self.k,
            "confidence": self.confidence,
            "cluster_key": self.cluster_key,
            "metrics": list(self.metrics),
            "categories": list(self.categories),
            "slices": [s.to_dict() for s in self.slices.values()],
            "latency": self.latency,
        }

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> RunFigures:
        slices = [SliceFigures.from_dict(d) for d in p["slices"]]
        return cls(
            run_id=str(p["run_id"]),
            rows=int(p["rows"]),
            errors=int(p["errors"]),
            k=int(p["k"]),
            confidence=float(p["confidence"]),
            cluster_key=p["cluster_key"],
            metrics=tuple(p["metrics"]),
            categories=tuple(p["categories"]),
            slices={(s.metric, s.slice): s for s in slices},
            latency={str(k): float(v) for k, v in p["latency"].items()},
        )


def _counted(store: StoreReader, run: RunInfo, confidence: float) -> RunFigures:
    """A run made once, unclustered: every figure from the database's counts."""
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * 8)
    categories: set[str] = set()
    for category, metric, *counts in store.aggregates.figure_counts(run.id):
        name = VERDICT if metric is None else metric
        where = category if category is not None else "(none)"
        categories.add(where)
        for key in ((name, ALL), (name, where)):
            totals[key] = [a + b for a, b in zip(totals[key], counts, strict=True)]
    metrics = tuple(m.name for m in run.metrics) or tuple(run.summaries)
    metrics += tuple(m for m, s in totals if s == ALL and m not in metrics and m != VERDICT)
    slices: dict[tuple[str, str], SliceFigures] = {}
    for metric in (*metrics, VERDICT):
        for where in (ALL, *sorted(categories)):
            found = totals.get((metric, where))
            if found is None:
                continue
            # An error row counts for every metric, whether or not it stored a result.
            errors = int(totals[(VERDICT, where)][2])
            passed, failed, _, unscored, scores = (int(v) for v in found[:5])
            total, squares, nonbinary = found[5], found[6], int(found[7])
            tally = Tally(passed, failed, errors, unscored, scores, total, squares, nonbinary)
            slices[(metric, where)] = SliceFigures(
                metric,
                where,
                passed,
                failed,
                errors,
                unscored,
                "rows",
                pass_rate=tally.rate_estimate(confidence),
                mean_score=None if metric == VERDICT else tally.mean_estimate(confidence),
            )
    errors = sum(int(c[2]) for (m, s), c in totals.items() if m == VERDICT and s == ALL)
    return RunFigures(
        run.id,
        run.row_count,
        errors,
        1,
        confidence,
        None,
        metrics,
        tuple(sorted(categories)),
        slices,
        store.aggregates.latency_percentiles(run.id),
    )


def _read(
    store: StoreReader, run: RunInfo, confidence: float, cluster_key: str | None
) -> RunFigures:
    """A repeated or clustered run: the estimates over dataset rows from the stored rows."""
    base = _counted(store, run, confidence)
    table = read_attempts(run, store.iter_rows(run.id), cluster_key=cluster_key, verdict=True)
    rates = run_intervals(table, confidence=confidence)
    scores = run_intervals(table, kind="score", confidence=confidence)
    spec = repeat_of(run)
    k = spec[0] if spec else 1
    slices: dict[tuple[str, str], SliceFigures] = {}
    for key, counted in base.slices.items():
        metric, where = key
        rate = rates.get(metric, {}).get(where)
        score = scores.get(metric, {}).get(where) if metric != VERDICT else None
        top = max(rate.pass_hat_k) if rate is not None and rate.pass_hat_k else None
        slices[key] = SliceFigures(
            metric,
            where,
            counted.passed,
            counted.failed,
            counted.errors,
            counted.unscored,
            "attempts" if k > 1 else "rows",
            pass_rate=None if rate is None else Estimate.of(rate),
            mean_score=None if score is None else Estimate.of(score),
            k=k,
            pass_hat_k=None if top is None else _k(rate, top, "hat"),
            pass_at_k=None if top is None else _k(rate, top, "at"),
            flaky=None if rate is None else rate.flaky,
            within_variance=None if rate is None else rate.within_variance,
        )
    return RunFigures(
        run.id,
        base.rows,
        base.errors,
        k,
        confidence,
        cluster_key,
        base.metrics,
        base.categories,
        slices,
        base.latency,
    )


def _k(summary: Any, k: int, which: str) -> Estimate:
    e = (summary.pass_hat_k if which == "hat" else summary.pass_at_k)[k]
    return Estimate(e.mean, e.interval, e.rows, summary.attempts, None, ())


def run_figures(
    store: StoreReader,
    run: RunInfo,
    *,
    confidence: float = 0.95,
    cluster_key: str | None = None,
    refresh: bool = False,
) -> RunFigures:
    """The run's :class:`RunFigures`: stored ones when fresh, else computed (and stored).

    Only the default reading (95%, no cluster key) of a stopped run is stored.
    """
    default = confidence == 0.95 and cluster_key is None
    current = stamp(run.status, run.finished_at)
    if default and not refresh and run.status in FINISHED:
        payload = store.aggregates.load_aggregate(run.id, _DOCUMENT, row_count=run.row_count)
        if isinstance(payload, dict) and payload.get("stamp") == current:
            try:
                return RunFigures.from_payload(payload)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: compute again
    if repeat_of(run) is None and cluster_key is None:
        figures = _counted(store, run, confidence)
    else:
        figures = _read(store, run, confidence, cluster_key)
    if default and run.status in FINISHED:
        store.aggregates.save_aggregate(
            run.id,
            _DOCUMENT,
            figures.to_payload() | {"stamp": current},
            row_count=run.row_count,
        )
    return figures
