"""The gate's checks besides its floors: the defaults, the error budget, calibration, and
the floors of a file scored without a run (``tooleval score --min-pass-rate``).

Every check counts with one :class:`~tooleval.stats.tally.Tally` per metric
(errors as not passed, unscored apart) and is a
:class:`~tooleval.analysis.floors.GateCheck`; :func:`tally_gate` is the gate of a
scored file, checked on the tallies counted while its results were written.

>>> from tooleval.stats.tally import Tally
>>> result = tally_gate({"tool_correctness": Tally(8, 1, unscored=1)}, min_pass_rate={None: 0.9})
>>> result.passed
False
>>> print(result.checks[0].message)
tool_correctness: pass rate 88.9% [56.5, 98.0] (95% wilson, 8 of 9 scored rows, n=9; 1 unscored not counted) < 90.0% (--min-pass-rate)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tooleval.analysis.floors import DISPLAY_CONFIDENCE, GateCheck, GateResult
from tooleval.analysis.noise import count_interval
from tooleval.analysis.repeats import repeat_of
from tooleval.stats.tally import Tally

if TYPE_CHECKING:
    from tooleval.analysis.gate import GateSpec
    from tooleval.store.records import RunInfo

__all__ = [
    "any_pass",
    "calibration_checks",
    "error_budget",
    "every_pass",
    "run_tally",
    "tally_gate",
]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def run_tally(run: RunInfo, metric: str) -> Tally:
    """One metric of a run from its stored counts: every error row counted as not passed."""
    summary = run.summaries.get(metric)
    scored = summary.scored if summary else 0
    passed = summary.passed if summary else 0
    return Tally(passed, scored - passed, run.error_count)


def calibration_checks(
    checks: list[GateCheck], gate: GateSpec, calibrations: Mapping[str, str | None] | None
) -> list[GateCheck]:
    """Warn on floors over uncalibrated judges; add the ``require_calibration`` checks."""
    known = calibrations or {}
    warning = "judge not calibrated against labels: its errors are not in this rate "
    warning += "(tooleval judge calibrate; require_calibration to fail on it)"
    out = [
        replace(c, notes=(*c.notes, known[c.name] or warning))
        if c.name in known and c.what != "calibration"
        else c
        for c in checks
    ]
    for metric, floor in gate.metrics.items():
        if not floor.require_calibration:
            continue
        found = known.get(metric)
        if calibrations is None:
            message = (
                f"{metric}: require_calibration cannot be checked here (no calibration lookup)"
            )
        elif metric not in known:
            message = f"{metric}: require_calibration is for judged metrics the run scored"
        elif found is None:
            message = f"{metric}: judge not calibrated against labels (required)"
        else:
            message = f"{metric}: judge calibrated ({found})"
        ok = found is not None
        outcome = "pass" if ok else "fail"
        out.append(GateCheck(metric, None, 0.0, ok, message, outcome=outcome, what="calibration"))
    return out


def error_budget(run: RunInfo, gate: GateSpec, level: float) -> GateCheck:
    """The error ceiling: at most ``max_error_rate`` of the rows (default 0) may be errors.

    A ceiling of 0 is decided on the count (one error fails it). Above 0,
    with a ``confidence``, on the interval: it passes when the upper bound is
    <= the ceiling, fails when the lower bound is above it, uncertain between.
    """
    allowed = 0.0 if gate.max_error_rate is None else gate.max_error_rate
    errors, total = run.error_count, run.row_count
    error_rate = errors / total if total else 0.0
    default = " (--max-error-rate, default 0)" if gate.max_error_rate is None else ""
    spec = repeat_of(run)
    k = spec[0] if spec else 1
    unit = "attempts" if k > 1 else "rows"  # the counts are attempts in a repeated run
    said = f"errors: {errors}/{total} {unit} ({_pct(error_rate)})"
    interval = count_interval(run, errors, total, level) if total else None
    n = max(1, round(total / k)) if total else 0
    extra: dict[str, Any] = {"interval": interval, "what": "error rate", "n": n, "attempts": (k, k)}
    if allowed == 0.0 or interval is None or gate.confidence is None:
        ok = error_rate <= allowed
        rule = "count" if allowed == 0.0 or interval is None else "point"
        message = f"{said} {'<=' if ok else '>'} {_pct(allowed)} allowed{default}"
        if rule == "point" and interval is not None:
            message += f" (point estimate; {level:.0%} {interval.method} "
            message += f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}], n={n}, K={k})"
        outcome = "pass" if ok else "fail"
        return GateCheck(
            "errors", error_rate, allowed, ok, message, outcome=outcome, rule=rule, **extra
        )
    if interval.high <= allowed:
        outcome, ok = "pass", True
    elif interval.low > allowed:
        outcome, ok = "fail", False
    else:
        outcome = "uncertain"
        ok = gate.on_uncertain == "pass" or (gate.on_uncertain == "point" and error_rate <= allowed)
    bounds = f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}]"
    context = f"({level:.0%} {interval.method}, n={n}, K={k})"
    if outcome == "uncertain":
        verdict = (
            f"uncertain at {level:.0%} (on_uncertain: {gate.on_uncertain}, so "
            f"{'passed' if ok else 'failed'})"
        )
    else:
        verdict = f"{'<=' if ok else '>'} {_pct(allowed)} allowed at {level:.0%}"
    message = f"{said} {bounds} {context} vs {_pct(allowed)} allowed: {verdict}"
    return GateCheck(
        "errors",
        error_rate,
        allowed,
        ok,
        message,
        outcome=outcome,
        rule="interval",
        on_uncertain=gate.on_uncertain,
        **extra,
    )


def any_pass(
    metric: str,
    tally: Tally,
    k: int = 1,
    *,
    rows: str = "rows",
    subject: str = "a run",
    accept: str = "set a gate floor, or gate: {require_any_pass: false}",
) -> GateCheck:
    """The default check of a metric no floor names: nothing passed, the gate fails.

    ``rows`` names what was counted, ``subject`` what fails and ``accept`` how
    to accept it anyway (the run's plan key, or ``score``'s option).
    """
    counted = tally.counted
    ok = tally.passed > 0
    if ok:
        message = (
            f"{metric}: {tally.passed} of {counted} {rows} passed (default check: at least one)"
        )
    else:
        what = f"0 of {counted} {rows} passed" if counted else "no row was scored"
        message = (
            f"{metric}: {what}; {subject} where nothing passed fails by default "
            f"({accept} to accept it)"
        )
    return GateCheck(
        metric,
        tally.rate,
        0.0,
        ok,
        message,
        outcome="pass" if ok else "fail",
        what="rows passed",
        n=counted,
        attempts=(k, k),
        rule="count",
    )


def every_pass(metric: str, tally: Tally, k: int = 1) -> GateCheck:
    """The default check when no floor is set anywhere: every scored row of the metric passed."""
    if not tally.passed:  # nothing passed: the stricter default says what the lenient one says
        return any_pass(metric, tally, k)
    ok = tally.failed == 0
    verdict = "all passed" if ok else f"{tally.failed} failed"
    message = (
        f"{metric}: {tally.passed} of {tally.scored} scored rows passed, {verdict} (default "
        "check: every scored row passes; set a gate floor to allow failures)"
    )
    return GateCheck(
        metric,
        tally.rate,
        1.0,
        ok,
        message,
        outcome="pass" if ok else "fail",
        what="scored rows passed",
        n=tally.scored,
        attempts=(k, k),
        rule="count",
    )


def _rate_floor(metric: str, tally: Tally, required: float) -> GateCheck:
    """A pass-rate floor on a scored file's counts: the point estimate decides."""
    rule = f"{_pct(required)} (--min-pass-rate)"
    figure = tally.rate_estimate(DISPLAY_CONFIDENCE)
    if figure is None:
        message = (
            f"{metric}: no scored rows ({tally.unscored} unscored), so the pass rate cannot "
            f"reach {rule}"
        )
        return GateCheck(metric, None, required, False, message, outcome="fail", rule="no rows")
    ok = figure.value >= required
    unscored = f"; {tally.unscored} unscored not counted" if tally.unscored else ""
    message = (
        f"{metric}: pass rate {_pct(figure.value)} {figure.bounds} ({DISPLAY_CONFIDENCE:.0%} "
        f"{figure.interval.method}, {tally.passed} of {tally.counted} scored rows, "
        f"n={figure.n}{unscored}) {'>=' if ok else '<'} {rule}"
    )
    return GateCheck(
        metric,
        figure.value,
        required,
        ok,
        message,
        figure.interval,
        outcome="pass" if ok else "fail",
        what="pass rate",
        n=figure.n,
        attempts=(1, 1),
        rule="point",
    )


def _unscored_ceiling(metric: str, tally: Tally, allowed: float) -> GateCheck:
    rate = tally.unscored / tally.rows if tally.rows else 0.0
    ok = rate <= allowed
    message = (
        f"{metric}: unscored {tally.unscored}/{tally.rows} rows ({_pct(rate)}) "
        f"{'<=' if ok else '>'} {_pct(allowed)} allowed (--max-unscored-rate)"
    )
    return GateCheck(
        f"{metric} unscored",
        rate,
        allowed,
        ok,
        message,
        outcome="pass" if ok else "fail",
        what="unscored rate",
        n=tally.rows,
        rule="count",
    )


def tally_gate(
    tallies: Mapping[str, Tally],
    *,
    min_pass_rate: Mapping[str | None, float] | None = None,
    max_unscored_rate: Mapping[str | None, float] | None = None,
) -> GateResult:
    """The gate of a scored file, metric by metric in scoring order.

    Each mapping holds a floor (or ceiling) by metric name, the key None for
    every metric. A metric without a pass-rate floor gets the default check
    "at least one row passed", as a run does.
    """
    floors, ceilings = dict(min_pass_rate or {}), dict(max_unscored_rate or {})
    checks: list[GateCheck] = []
    for metric, tally in tallies.items():
        floor = floors.get(metric, floors.get(None))
        if floor is None:
            accept = f"give --min-pass-rate {metric}=0"
            checks.append(
                any_pass(metric, tally, rows="scored rows", subject="a gate", accept=accept)
            )
        else:
            checks.append(_rate_floor(metric, tally, floor))
        allowed = ceilings.get(metric, ceilings.get(None))
        if allowed is not None:
            checks.append(_unscored_ceiling(metric, tally, allowed))
    return GateResult(tuple(checks), configured=True)
