"""The CI gate: does a stored run reach the floors the plan (or the CLI) set?

Pass rates count scored rows only (unscored rows and connector errors are
not failures of the agent's choices); the error budget ``max_error_rate``
is how a gate catches a run where the agent could not be reached.

>>> from tooleval.store.records import MetricSummary, RunInfo
>>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=10,
...               summaries={"m": MetricSummary("m", scored=10, passed=8, failed=2)})
>>> evaluate_gate(run, GateSpec(min_pass_rate=0.9)).passed
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tooleval.runs.plan import GateSpec
from tooleval.store.records import RunInfo

__all__ = ["GateCheck", "GateResult", "evaluate_gate"]


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One floor checked: what was measured, what was required, the verdict."""

    name: str
    value: float | None
    required: float
    passed: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "required": self.required,
            "passed": self.passed,
            "message": self.message,
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


def evaluate_gate(run: RunInfo, gate: GateSpec) -> GateResult:
    """Check every floor of ``gate`` against the run's per-metric summaries."""
    checks: list[GateCheck] = []

    def floor(name: str, value: float | None, required: float, what: str) -> None:
        ok = value is not None and value >= required
        if value is None:
            message = f"{name}: no scored rows, so {what} cannot reach {_pct(required)}"
        else:
            verdict = ">=" if ok else "<"
            message = f"{name}: {what} {_pct(value)} {verdict} {_pct(required)}"
        checks.append(GateCheck(name, value, required, ok, message))

    if gate.min_pass_rate is not None:
        for metric, summary in run.summaries.items():
            floor(metric, summary.pass_rate, gate.min_pass_rate, "pass rate")
    for metric, metric_gate in gate.metrics.items():
        summary = run.summaries.get(metric)
        if metric_gate.min_pass_rate is not None:
            value = summary.pass_rate if summary else None
            floor(metric, value, metric_gate.min_pass_rate, "pass rate")
        if metric_gate.min_mean_score is not None:
            value = summary.mean_score if summary else None
            floor(metric, value, metric_gate.min_mean_score, "mean score")
    if gate.max_error_rate is not None:
        rate = run.error_count / run.row_count if run.row_count else 0.0
        ok = rate <= gate.max_error_rate
        checks.append(
            GateCheck(
                "errors",
                rate,
                gate.max_error_rate,
                ok,
                f"errors: {run.error_count}/{run.row_count} rows ({_pct(rate)}) "
                f"{'<=' if ok else '>'} {_pct(gate.max_error_rate)}",
            )
        )
    return GateResult(tuple(checks), configured=not gate.is_empty)
