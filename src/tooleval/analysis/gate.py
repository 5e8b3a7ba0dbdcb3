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

With ``confidence`` (e.g. 0.95) each pass-rate floor T is checked on the
rate's interval, the dataset row as the unit (:mod:`tooleval.stats`): it
passes when the lower bound is >= T, fails when the upper bound is < T, and
is *uncertain* in between; ``on_uncertain`` says what uncertain does
(``fail``, the default: a gate that asks for confidence passes only what was
shown to reach its floor; ``pass``; or ``point``: decide on the point estimate).
Without the stored rows of a repeated run, the interval is the conservative
one that counts each dataset row once (as if its attempts always agreed).

>>> from tooleval.store.records import MetricSummary, RunInfo
>>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
...               summaries={"m": MetricSummary("m", scored=10, passed=8, failed=2)})
>>> evaluate_gate(run, GateSpec(min_pass_rate=0.9)).passed
False
>>> errored = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
...                   error_count=4, summaries={"m": MetricSummary("m", scored=6, passed=6)})
>>> [c.message for c in evaluate_gate(errored, GateSpec(min_pass_rate=0.5)).checks]
['m: pass rate 60.0% (6 of 10 rows; 4 errors count as not passed) >= 50.0%', 'errors: 4/10 rows (40.0%) > 0.0% allowed (--max-error-rate, default 0)']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tooleval.stats import Interval, RateSummary, threshold_verdict
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "GateCheck",
    "GateResult",
    "GateSpec",
    "MetricGate",
    "evaluate_gate",
    "gate_pass_rate",
    "stored_gate",
]


@dataclass(frozen=True, slots=True)
class MetricGate:
    """What one metric must reach for the run to pass."""

    min_pass_rate: float | None = None
    min_mean_score: float | None = None


@dataclass(frozen=True, slots=True)
class GateSpec:
    """The CI gate: a global pass rate, an error budget, per-metric floors."""

    min_pass_rate: float | None = None
    max_error_rate: float | None = None
    metrics: dict[str, MetricGate] = field(default_factory=dict)
    confidence: float | None = None
    on_uncertain: str = "fail"
    require_any_pass: bool = True

    @property
    def is_empty(self) -> bool:
        return self.min_pass_rate is None and self.max_error_rate is None and not self.metrics

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_pass_rate": self.min_pass_rate,
            "max_error_rate": self.max_error_rate,
            "confidence": self.confidence,
            "on_uncertain": self.on_uncertain,
            "require_any_pass": self.require_any_pass,
            "metrics": {
                name: {"min_pass_rate": g.min_pass_rate, "min_mean_score": g.min_mean_score}
                for name, g in self.metrics.items()
            },
        }


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One floor checked: what was measured, what was required, the verdict."""

    name: str
    value: float | None
    required: float
    passed: bool
    message: str
    interval: Interval | None = None
    outcome: str | None = None  # "pass" | "fail" | "uncertain" when checked on an interval

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "required": self.required,
            "passed": self.passed,
            "message": self.message,
            "interval": self.interval.to_dict() if self.interval else None,
            "outcome": self.outcome,
        }


@dataclass(frozen=True, slots=True)
class GateResult:
    """Every check of the gate; ``passed`` when all of them passed (or there were none)."""

    checks: tuple[GateCheck, ...] = ()
    configured: bool = False

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "configured": self.configured,
            "checks": [c.to_dict() for c in self.checks],
        }


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def gate_pass_rate(run: RunInfo, metric: str) -> tuple[float | None, int, int]:
    """``(rate, passed, counted)`` for one metric, error rows counted as not passed."""
    summary = run.summaries.get(metric)
    scored = summary.scored if summary else 0
    passed = summary.passed if summary else 0
    counted = scored + run.error_count
    return (passed / counted if counted else None), passed, counted


def _row_rates(run: RunInfo, rows: Iterable[RowRecord], confidence: float) -> dict[str, Any]:
    from tooleval.analysis.noise import read_attempts, run_intervals

    rates = run_intervals(read_attempts(run, rows), confidence=confidence)
    return {metric: per["(all)"] for metric, per in rates.items()}


def _interval(
    run: RunInfo, metric: str, confidence: float, rates: dict[str, RateSummary] | None
) -> Interval | None:
    from tooleval.analysis.noise import count_interval

    if rates is not None:
        summary = rates.get(metric)
        return summary.interval if summary else None
    _, passed, counted = gate_pass_rate(run, metric)
    return count_interval(run, passed, counted, confidence)


def evaluate_gate(
    run: RunInfo, gate: GateSpec, *, rows: Iterable[RowRecord] | None = None
) -> GateResult:
    """Check every floor of ``gate`` against the run's per-metric summaries.

    ``rows`` (the run's stored rows) make the intervals of a ``confidence`` gate
    exact for repeated runs and clustered data; without them the counts suffice.
    """
    checks: list[GateCheck] = []
    rates = (
        _row_rates(run, rows, gate.confidence)
        if rows is not None and gate.confidence is not None
        else None
    )

    def floor(name: str, value: float | None, required: float, what: str, how: str = "") -> None:
        ok = value is not None and value >= required
        if value is None:
            message = f"{name}: no scored rows, so {what} cannot reach {_pct(required)}"
        else:
            verdict = ">=" if ok else "<"
            message = f"{name}: {what} {_pct(value)}{how} {verdict} {_pct(required)}"
        checks.append(GateCheck(name, value, required, ok, message))

    def rate_floor(metric: str, required: float) -> None:
        value, how = rate(metric)
        interval = (
            _interval(run, metric, gate.confidence, rates) if gate.confidence is not None else None
        )
        if value is None or interval is None or gate.confidence is None:
            floor(metric, value, required, "pass rate", how)
            return
        verdict = threshold_verdict(
            interval, required, estimate=value, on_uncertain=gate.on_uncertain
        )
        bounds = f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}]"
        if verdict.outcome == "uncertain":
            said = (
                f"uncertain at {gate.confidence:.0%} (on_uncertain: {gate.on_uncertain}, so "
                f"{'passed' if verdict.passed else 'failed'})"
            )
        else:
            sign = ">=" if verdict.outcome == "pass" else "<"
            said = f"{sign} {_pct(required)} at {gate.confidence:.0%}"
        message = f"{metric}: pass rate {_pct(value)} {bounds}{how} vs {_pct(required)}: {said}"
        checks.append(
            GateCheck(metric, value, required, verdict.passed, message, interval, verdict.outcome)
        )

    def rate(metric: str) -> tuple[float | None, str]:
        value, passed, counted = gate_pass_rate(run, metric)
        if not run.error_count or value is None:
            return value, ""
        errors = run.error_count
        noun = "error counts" if errors == 1 else "errors count"
        return value, f" ({passed} of {counted} rows; {errors} {noun} as not passed)"

    floored: set[str] = set()
    if gate.min_pass_rate is not None:
        for metric in run.summaries:
            rate_floor(metric, gate.min_pass_rate)
            floored.add(metric)
    for metric, metric_gate in gate.metrics.items():
        summary = run.summaries.get(metric)
        if metric_gate.min_pass_rate is not None:
            rate_floor(metric, metric_gate.min_pass_rate)
            floored.add(metric)
        if metric_gate.min_mean_score is not None:
            value = summary.mean_score if summary else None
            floor(metric, value, metric_gate.min_mean_score, "mean score")
            floored.add(metric)
    if gate.require_any_pass:
        checks.extend(_any_pass(run, metric) for metric in run.summaries if metric not in floored)
    allowed = 0.0 if gate.max_error_rate is None else gate.max_error_rate
    error_rate = run.error_count / run.row_count if run.row_count else 0.0
    ok = error_rate <= allowed
    default = " (--max-error-rate, default 0)" if gate.max_error_rate is None else ""
    checks.append(
        GateCheck(
            "errors",
            error_rate,
            allowed,
            ok,
            f"errors: {run.error_count}/{run.row_count} rows ({_pct(error_rate)}) "
            f"{'<=' if ok else '>'} {_pct(allowed)} allowed{default}",
        )
    )
    return GateResult(tuple(checks), configured=not gate.is_empty)


def _any_pass(run: RunInfo, metric: str) -> GateCheck:
    """The default check of a metric no floor names: nothing passed, the gate fails."""
    value, passed, counted = gate_pass_rate(run, metric)
    ok = passed > 0
    if ok:
        message = f"{metric}: {passed} of {counted} rows passed (default check: at least one)"
    else:
        what = f"0 of {counted} rows passed" if counted else "no row was scored"
        message = (
            f"{metric}: {what}; a run where nothing passed fails by default "
            "(set a gate floor, or gate: {require_any_pass: false} to accept it)"
        )
    return GateCheck(metric, value, 0.0, ok, message, outcome="pass" if ok else "fail")


def stored_gate(run: RunInfo) -> GateResult | None:
    """The gate the run's plan set, checked against the run; None when it set none.

    The runner keeps the plan's gate in the run's config (``config["gate"]``);
    the run list, the run page, the report and the Markdown summary show
    this verdict. An error budget alone (the default 0) is not a configured
    gate here: a run without one shows no verdict.

    >>> from tooleval.store.records import MetricSummary, RunInfo
    >>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
    ...               summaries={"f1": MetricSummary("f1", scored=10, passed=6, failed=4)},
    ...               config={"gate": {"min_pass_rate": 0.9}})
    >>> [c.message for c in stored_gate(run).checks if not c.passed]
    ['f1: pass rate 60.0% < 90.0%']
    """
    data = run.config.get("gate") if isinstance(run.config, dict) else None
    if not isinstance(data, dict):
        return None
    metrics = {
        name: MetricGate(g.get("min_pass_rate"), g.get("min_mean_score"))
        for name, g in (data.get("metrics") or {}).items()
        if isinstance(g, dict)
    }
    spec = GateSpec(
        min_pass_rate=data.get("min_pass_rate"),
        max_error_rate=data.get("max_error_rate"),
        metrics=metrics,
    )
    if spec.is_empty:
        return None
    return evaluate_gate(run, spec)
