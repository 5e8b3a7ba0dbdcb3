"""The CI gate: does a stored run reach the floors the plan (or the CLI) set?

Errors count. A row the agent could not be called for (or whose cells could
not be read) is an error row: the gate's pass rate counts it as not passed
(``passed / (scored + error rows)``), and the error budget
``max_error_rate`` (default 0: any error row fails the gate, with a line
saying so) is always checked. Rows that are unscored for another reason
(no reference in that row) are left out of the rate and shown apart.

Nothing passed, nothing passes: a metric that no floor names still has one
default check, "at least one row passed" (``require_any_pass``, default on),
so a plan without a ``gate:`` never exits 0 on a run where every row failed.
Any pass-rate or mean-score floor on a metric replaces that default for it;
``require_any_pass: false`` (or ``--min-pass-rate 0``) turns it off.
``require_all_pass`` (what ``tooleval run`` sets when the plan has no floor)
makes the default stricter: every scored row of the metric passes (error
rows are the error budget's to judge).

Every floor is noise-aware (docs/statistics.md). With ``confidence`` (e.g.
0.95) each floor T is checked on its interval, the dataset row as the unit
(:func:`tooleval.analysis.floors.decide_floor`, the pure core): it passes
when the lower bound is >= T, fails when the upper bound is < T, and is
*uncertain* in between; ``on_uncertain`` says what uncertain does (``fail``,
the default: a gate that asks for confidence passes only what was shown to
reach its floor; ``pass``; or ``point``: decide on the point estimate). The
floors: a pass rate (Wilson for one verdict per row, a t interval over row
means for repeats), pass^k / pass@k of a repeated run (``gate_on``: each
row's unbiased estimate, its SE over rows), a mean score (a t interval,
clustered by ``cluster_key``); the error ceiling passes when the upper bound
is <= its budget (a budget of 0 is decided on the count). Without a
``confidence`` the point estimate decides, and the check still shows the 95%
interval. Each :class:`GateCheck` says the figure, interval, n, K, threshold
and the rule that decided. Without the stored rows the intervals come from
the counts and are conservative (a repeated run's rows counted once, a mean
score's spread the widest [0, 1] allows).

>>> from tooleval.store.records import MetricSummary, RunInfo
>>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
...               summaries={"m": MetricSummary("m", scored=10, passed=8, failed=2)})
>>> evaluate_gate(run, GateSpec(min_pass_rate=0.9)).passed
False
>>> errored = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
...                   error_count=4, summaries={"m": MetricSummary("m", scored=6, passed=6)})
>>> [c.message for c in evaluate_gate(errored, GateSpec(min_pass_rate=0.5)).checks]
['m: pass rate 60.0% (6 of 10 rows; 4 errors count as not passed) >= 50.0% (point estimate; 95% wilson [31.3, 83.2], n=10, K=1)', 'errors: 4/10 rows (40.0%) > 0.0% allowed (--max-error-rate, default 0)']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from math import sqrt
from typing import TYPE_CHECKING, Any

from tooleval.analysis.floors import (
    DISPLAY_CONFIDENCE,
    Figure,
    GateCheck,
    GateResult,
    check_fraction,
    decide,
    decide_floor,
    rows_figure,
)
from tooleval.analysis.gate_checks import (
    any_pass,
    calibration_checks,
    error_budget,
    every_pass,
    run_tally,
)
from tooleval.analysis.noise import count_interval
from tooleval.analysis.repeats import GATE_ON, repeat_of
from tooleval.errors import ConfigError
from tooleval.stats import ON_UNCERTAIN, t_interval
from tooleval.store.records import RowRecord, RunInfo

if TYPE_CHECKING:
    from tooleval.analysis.noise import AttemptTable
    from tooleval.analysis.repeats import RepeatSummary
    from tooleval.store import StoreReader

__all__ = [
    "GateCheck",
    "GateResult",
    "GateSpec",
    "MetricGate",
    "check_gate_spec",
    "decide_floor",
    "evaluate_gate",
    "gate_of_run",
    "stored_gate",
    "stored_gate_spec",
]


@dataclass(frozen=True, slots=True)
class MetricGate:
    """What one metric must reach for the run to pass."""

    min_pass_rate: float | None = None
    min_mean_score: float | None = None
    # A judged metric: fail unless its judge is calibrated against labels (judge calibrate).
    require_calibration: bool = False


@dataclass(frozen=True, slots=True)
class GateSpec:
    """The CI gate: a global pass rate, an error budget, per-metric floors, the noise policy."""

    min_pass_rate: float | None = None
    max_error_rate: float | None = None
    metrics: dict[str, MetricGate] = field(default_factory=dict)
    confidence: float | None = None
    on_uncertain: str = "fail"
    require_any_pass: bool = True
    # the default check of a metric without a floor: every scored row passed (not just one)
    require_all_pass: bool = False
    cluster_key: str | None = None
    # what the pass-rate floors of a repeated run read: attempts, pass^k or pass@k (--gate-on)
    gate_on: str = "attempts"

    @property
    def is_empty(self) -> bool:
        return (
            self.min_pass_rate is None
            and self.max_error_rate is None
            and not self.metrics
            and not self.require_all_pass
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_pass_rate": self.min_pass_rate,
            "max_error_rate": self.max_error_rate,
            "confidence": self.confidence,
            "on_uncertain": self.on_uncertain,
            "require_any_pass": self.require_any_pass,
            "require_all_pass": self.require_all_pass,
            "cluster_key": self.cluster_key,
            "gate_on": self.gate_on,
            "metrics": {
                name: {
                    "min_pass_rate": g.min_pass_rate,
                    "min_mean_score": g.min_mean_score,
                    **({"require_calibration": True} if g.require_calibration else {}),
                }
                for name, g in self.metrics.items()
            },
        }


def check_gate_spec(gate: GateSpec, gate_on: str = "attempts") -> None:
    """Refuse a gate no run could be checked against, naming the plan key (a ConfigError).

    >>> check_gate_spec(GateSpec(confidence=1.0))
    Traceback (most recent call last):
    ...
    tooleval.errors.ConfigError: field gate.confidence: expected a number between 0 and 1 (e.g. 0.95), got 1.0
    """
    for key in ("min_pass_rate", "max_error_rate"):
        value = getattr(gate, key)
        if value is not None:
            check_fraction(value, f"gate.{key}")
    for name, floor in gate.metrics.items():
        for key in ("min_pass_rate", "min_mean_score"):
            value = getattr(floor, key)
            if value is not None:
                check_fraction(value, f"gate.metrics.{name}.{key}")
    if gate.confidence is not None:
        check_fraction(gate.confidence, "gate.confidence", open_ends=True)
    if gate.on_uncertain not in ON_UNCERTAIN:
        raise ConfigError(
            f"expected one of {', '.join(ON_UNCERTAIN)}, got {gate.on_uncertain!r}",
            field="gate.on_uncertain",
        )
    if gate.cluster_key is not None and (
        not isinstance(gate.cluster_key, str) or not gate.cluster_key
    ):
        raise ConfigError(
            f"expected a metadata field name, got {gate.cluster_key!r}", field="gate.cluster_key"
        )
    if gate_on not in GATE_ON:
        raise ConfigError(
            f"expected one of {', '.join(GATE_ON)}, got {gate_on!r}", field="--gate-on"
        )


def _counts_note(run: RunInfo, gate: GateSpec) -> tuple[str, ...]:
    notes = []
    if repeat_of(run) is not None:
        notes.append("counts only: each dataset row counted once, as if its attempts agreed")
    if gate.cluster_key is not None:
        notes.append(f"counts only: not clustered by {gate.cluster_key} (give the rows)")
    return tuple(notes)


def _figure(e: Any) -> Figure | None:
    """A read-model estimate (:class:`tooleval.stats.tally.Estimate`) as a floor's figure."""
    if e is None:
        return None
    return Figure(e.value, e.interval, e.n, e.attempts, e.clusters, e.notes)


class _Figures:
    """The figures of one run's floors: the run's read model when given, else from its
    stored rows when given, else its counts."""

    def __init__(
        self,
        run: RunInfo,
        gate: GateSpec,
        table: AttemptTable | None,
        repeats: RepeatSummary | None,
        model: Any = None,
    ) -> None:
        self.run, self.gate, self.table, self.repeats = run, gate, table, repeats
        self.model = model
        self.level = DISPLAY_CONFIDENCE if gate.confidence is None else gate.confidence
        spec = repeat_of(run)
        self.k = spec[0] if spec else 1

    def _clusters(self, rows: list[Any]) -> list[Any] | None:
        return [r.cluster for r in rows] if rows and rows[0].cluster is not None else None

    def pass_rate(self, metric: str) -> Figure | None:
        if self.model is not None:
            found = self.model.get(metric)
            return None if found is None else _figure(found.pass_rate)
        if self.table is not None:
            rows = self.table.select(metric)
            values = [r.values[metric] for r in rows]
            return rows_figure(values, confidence=self.level, clusters=self._clusters(rows))
        tally = run_tally(self.run, metric)
        value, counted = tally.rate, tally.counted
        interval = count_interval(self.run, tally.passed, counted, self.level)
        if value is None or interval is None:
            return None
        n = max(1, round(counted / self.k))
        notes = _counts_note(self.run, self.gate)
        return Figure(value, interval, n, (self.k, self.k), None, notes)

    def mean_score(self, metric: str) -> Figure | None:
        if self.model is not None:
            found = self.model.get(metric)
            return None if found is None else _figure(found.mean_score)
        if self.table is not None:
            rows = self.table.select(metric, kind="score")
            values = [r.scores[metric] for r in rows]
            return rows_figure(values, confidence=self.level, clusters=self._clusters(rows))
        summary = self.run.summaries.get(metric)
        if summary is None or summary.mean_score is None or not summary.scored:
            return None
        # Counts only: the widest spread scores in [0, 1] with this mean can have.
        mean, n = summary.mean_score, max(1, round(summary.scored / self.k))
        se = sqrt(max(0.0, mean * (1.0 - mean)) / (n - 1)) if n > 1 else 0.0
        interval = t_interval(mean, se, n - 1, self.level)
        notes = (
            "counts only: the interval assumes the widest spread scores in [0, 1] can have",
            *_counts_note(self.run, self.gate),
        )
        return Figure(mean, interval, n, (self.k, self.k), None, notes)

    def pass_k(self, metric: str, estimator: str) -> Figure | None:
        found = self.model.get(metric) if self.model is not None else None
        if found is not None and found.k == self.k and self.model.cluster_key is None:
            return _figure(found.pass_hat_k if estimator == "pass^k" else found.pass_at_k)
        if self.table is not None:
            rows = self.table.select(metric)
            values: list[list[float]] = [r.values[metric] for r in rows]
            clusters = self._clusters(rows)
        elif self.repeats is not None:
            values = [
                [1.0] * r.metric_passed.get(metric, 0)
                + [0.0] * (r.metric_counted[metric] - r.metric_passed.get(metric, 0))
                for r in self.repeats.rows
                if r.metric_counted.get(metric)
            ]
            clusters = None
        else:
            raise ConfigError(
                f"{estimator} needs the run's stored rows: "
                "evaluate_gate(run, gate, rows=store.iter_rows(run.id), gate_on=...)",
                field="--gate-on",
            )
        return rows_figure(
            values, confidence=self.level, clusters=clusters, estimator=estimator, k=self.k
        )


def _read_table(run: RunInfo, rows: Iterable[RowRecord], gate: GateSpec) -> AttemptTable:
    from tooleval.analysis.noise import read_attempts

    try:
        return read_attempts(run, rows, cluster_key=gate.cluster_key)
    except ConfigError as error:
        raise ConfigError(
            str(error.args[0]) if error.args else str(error), field="gate.cluster_key"
        ) from error


def evaluate_gate(
    run: RunInfo,
    gate: GateSpec,
    *,
    rows: Iterable[RowRecord] | None = None,
    gate_on: str | None = None,
    repeats: RepeatSummary | None = None,
    figures: Any = None,
    calibrations: Mapping[str, str | None] | None = None,
) -> GateResult:
    """Check every floor of ``gate`` against the run.

    ``calibrations`` maps each judged metric of the run to a description of its
    judge's stored calibration, or None when that judge is uncalibrated
    (``tooleval.calibration.run_calibrations`` looks them up): a floor on an
    uncalibrated judge carries a warning note, and ``require_calibration``
    fails unless the judge is calibrated.

    ``rows`` (the run's stored rows) make every interval exact: the dataset
    row as the unit for repeated runs, clustered by ``gate.cluster_key``, the
    mean score's t interval from the scores' spread. Without them the counts
    suffice, with conservative intervals (each check's notes say so).
    ``gate_on`` ``"pass^k"`` / ``"pass@k"`` reads the pass-rate floors of a
    repeated run on pass^K / pass@K (K its attempts per row; default: the
    spec's own ``gate_on``); it needs ``rows`` or ``repeats`` (the run's
    :class:`RepeatSummary`). ``figures`` (the run's read model,
    :func:`tooleval.analysis.figures.run_figures` at the gate's confidence and
    cluster key) gives every floor the figure and interval every surface shows;
    :func:`stored_gate` passes it.
    """
    gate_on = gate.gate_on if gate_on is None else gate_on
    check_gate_spec(gate, gate_on)
    if gate_on != "attempts" and repeat_of(run) is None:
        raise ConfigError(
            "pass^k and pass@k need a repeated run (--repeat N with N >= 2)", field="--gate-on"
        )
    table = _read_table(run, rows, gate) if rows is not None and figures is None else None
    figures = _Figures(run, gate, table, repeats, figures)
    level, policy = gate.confidence, gate.on_uncertain
    checks: list[GateCheck] = []

    def errors_said(metric: str) -> str:
        tally = run_tally(run, metric)
        if not tally.errors or tally.rate is None:
            return ""
        noun = "error counts" if tally.errors == 1 else "errors count"
        unit = "attempts" if repeat_of(run) is not None else "rows"  # what the counts count
        return f" ({tally.passed} of {tally.counted} {unit}; {tally.errors} {noun} as not passed)"

    def rate_floor(metric: str, required: float) -> None:
        if gate_on == "attempts":
            figure = figures.pass_rate(metric)
            how, what = errors_said(metric), "pass rate"
        else:
            figure = figures.pass_k(metric, gate_on)
            what = gate_on.replace("k", str(figures.k))
            how = f" over {figure.n} rows" if figure is not None else ""
        checks.append(
            decide(
                figure,
                required,
                confidence=level,
                on_uncertain=policy,
                name=metric,
                what=what,
                how=how,
            )
        )

    floored: set[str] = set()
    if gate.min_pass_rate is not None:
        for metric in run.summaries:
            rate_floor(metric, gate.min_pass_rate)
            floored.add(metric)
    for metric, metric_gate in gate.metrics.items():
        if metric_gate.min_pass_rate is not None:
            rate_floor(metric, metric_gate.min_pass_rate)
            floored.add(metric)
        if metric_gate.min_mean_score is not None:
            figure = figures.mean_score(metric)
            checks.append(
                decide(
                    figure,
                    metric_gate.min_mean_score,
                    confidence=level,
                    on_uncertain=policy,
                    name=metric,
                    what="mean score",
                )
            )
            floored.add(metric)
    if gate.require_any_pass:
        default = every_pass if gate.require_all_pass else any_pass
        checks.extend(
            default(metric, run_tally(run, metric), figures.k)
            for metric in run.summaries
            if metric not in floored
        )
    checks = calibration_checks(checks, gate, calibrations)
    checks.append(error_budget(run, gate, figures.level))
    return GateResult(tuple(checks), configured=not gate.is_empty)


def gate_of_run(
    store: StoreReader,
    run: RunInfo,
    spec: GateSpec,
    *,
    calibrations: Mapping[str, str | None] | None = None,
) -> GateResult:
    """``spec`` checked on a stored run through its read model: the figures every surface shows.

    What ``tooleval run`` prints and returns for the run it made, so that its
    gate line gives the figure and interval ``runs show`` gives
    (:func:`tooleval.analysis.figures.run_figures` at the gate's confidence
    and cluster key). pass^k / pass@k clustered by a key are read from the
    rows themselves (the read model's are not clustered).
    """
    from tooleval.analysis.figures import run_figures

    if spec.cluster_key and spec.gate_on != "attempts":
        rows = store.iter_rows(run.id)
        return evaluate_gate(run, spec, rows=rows, calibrations=calibrations)
    level = DISPLAY_CONFIDENCE if spec.confidence is None else spec.confidence
    figures = run_figures(store, run, confidence=level, cluster_key=spec.cluster_key)
    return evaluate_gate(run, spec, figures=figures, calibrations=calibrations)


def stored_gate_spec(run: RunInfo) -> GateSpec:
    """The gate the run's plan set (``config["gate"]``), read back leniently: what an older
    tooleval did not store takes its default; no stored gate is the empty ``GateSpec()``.

    >>> from tooleval.store.records import RunInfo
    >>> run = RunInfo(id="r", name="n", created_at="t", status="finished",
    ...               config={"gate": {"min_pass_rate": 0.9}})
    >>> spec = stored_gate_spec(run)
    >>> spec.min_pass_rate, spec.confidence, spec.on_uncertain
    (0.9, None, 'fail')
    """
    data = run.config.get("gate") if isinstance(run.config, Mapping) else None
    if not isinstance(data, Mapping):
        return GateSpec()
    metrics = {
        str(name): MetricGate(
            g.get("min_pass_rate"),
            g.get("min_mean_score"),
            require_calibration=g.get("require_calibration") is True,
        )
        for name, g in (data.get("metrics") or {}).items()
        if isinstance(g, Mapping)
    }
    confidence = data.get("confidence")
    policy = data.get("on_uncertain")
    cluster_key = data.get("cluster_key")
    gate_on = data.get("gate_on")
    return GateSpec(
        min_pass_rate=data.get("min_pass_rate"),
        max_error_rate=data.get("max_error_rate"),
        metrics=metrics,
        confidence=confidence if isinstance(confidence, float) else None,
        on_uncertain=policy if policy in ON_UNCERTAIN else "fail",
        require_any_pass=data.get("require_any_pass") is not False,
        require_all_pass=data.get("require_all_pass") is True,
        cluster_key=cluster_key if isinstance(cluster_key, str) and cluster_key else None,
        gate_on=gate_on if gate_on in GATE_ON else "attempts",
    )


def stored_gate(
    run: RunInfo,
    *,
    rows: Iterable[RowRecord] | None = None,
    store: StoreReader | None = None,
    calibrations: Mapping[str, str | None] | None = None,
) -> GateResult | None:
    """The gate the run's plan set, checked against the run; None when it set none.

    The runner keeps the plan's gate in the run's config (``config["gate"]``),
    with its ``confidence``, ``on_uncertain`` and ``cluster_key``; the run
    list, ``runs show``, the run page, the report and the Markdown summary
    show this verdict. With ``store`` (and no ``rows``) every floor is read
    from the run's read model, the figures the other surfaces show; ``rows``
    (the run's stored rows) give the same intervals computed afresh; with
    neither, the conservative ones from the counts. An error
    budget alone (the default 0) is not a configured gate here: a run
    without one shows no verdict. A stored gate that no longer checks (a
    value out of range) shows one failing check that says why.

    >>> from tooleval.store.records import MetricSummary, RunInfo
    >>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
    ...               summaries={"f1": MetricSummary("f1", scored=10, passed=6, failed=4)},
    ...               config={"gate": {"min_pass_rate": 0.9}})
    >>> [c.message for c in stored_gate(run).checks if not c.passed]
    ['f1: pass rate 60.0% < 90.0% (point estimate; 95% wilson [31.3, 83.2], n=10, K=1)']
    """
    spec = stored_gate_spec(run)
    if spec.is_empty:
        return None
    figures = None
    try:
        if rows is None and store is not None:
            from tooleval.analysis.figures import run_figures

            level = DISPLAY_CONFIDENCE if spec.confidence is None else spec.confidence
            figures = run_figures(store, run, confidence=level, cluster_key=spec.cluster_key)
        return evaluate_gate(run, spec, rows=rows, figures=figures, calibrations=calibrations)
    except ConfigError as error:
        message = f"the stored gate cannot be checked: {error}"
        return GateResult((GateCheck("gate", None, 0.0, False, message, rule="invalid"),), True)
