"""Verdicts read off an interval: regression, improvement, inconclusive; a threshold gate.

- **regression**: the whole interval of Δ lies below −margin (0 by default);
  **improvement**: the whole interval lies above +margin; otherwise
  **inconclusive**, with the MDE said so the reader knows what could be seen.
- **non-inferiority** (``margin`` = δ): B passes when the lower bound of Δ > −δ.
- **threshold gate**: a rate passes when its lower bound ≥ T, fails when its
  upper bound < T, and is **uncertain** in between; what an uncertain rate
  does is a policy (:data:`ON_UNCERTAIN`, default ``"fail"``: a gate that asks
  for confidence passes only what was shown to reach the floor).

>>> from tooleval.stats.intervals import Interval
>>> compare_verdict(Interval(-0.073, -0.011, 0.95, "t"), mde=0.045).kind
'regression'
>>> compare_verdict(Interval(-0.05, 0.02, 0.95, "t"), mde=0.045).label
'inconclusive (MDE 4.5 pts)'
>>> threshold_verdict(Interval(0.76, 0.9, 0.95, "wilson"), 0.8).outcome
'uncertain'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tooleval.stats.intervals import Interval

__all__ = [
    "ON_UNCERTAIN",
    "CompareVerdict",
    "ThresholdVerdict",
    "compare_verdict",
    "non_inferiority",
    "threshold_verdict",
]

#: What an uncertain threshold check does: fail it, pass it, or decide on the point estimate.
ON_UNCERTAIN = ("fail", "pass", "point")


@dataclass(frozen=True, slots=True)
class CompareVerdict:
    """What a paired comparison concluded."""

    kind: str  # "regression" | "improvement" | "inconclusive"
    mde: float
    margin: float = 0.0
    #: Why an interval that excludes 0 is still inconclusive (Holm, the exact test), or "".
    why: str = ""

    @property
    def label(self) -> str:
        if self.kind == "inconclusive":
            if self.mde == 0.0:
                # No spread at all (every row the same in both runs): nothing to size an MDE on.
                return "inconclusive (no variance: no row differs between the runs)"
            said = f"; {self.why}" if self.why else ""
            return f"inconclusive (MDE {100 * self.mde:.1f} pts{said})"
        return self.kind

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "mde": self.mde,
            "margin": self.margin,
            "why": self.why,
        }


def compare_verdict(interval: Interval, *, mde: float, margin: float = 0.0) -> CompareVerdict:
    """Regression when the interval lies below −margin, improvement above +margin."""
    if margin < 0:
        raise ValueError(f"the margin is a size, at least 0, got {margin}")
    if interval.high < -margin:
        kind = "regression"
    elif interval.low > margin:
        kind = "improvement"
    else:
        kind = "inconclusive"
    return CompareVerdict(kind, mde, margin)


def non_inferiority(interval: Interval, margin: float) -> bool:
    """B is not worse than A by more than ``margin``: the lower bound of Δ is above −margin.

    >>> non_inferiority(Interval(-0.02, 0.03, 0.95, "t"), 0.05)
    True
    """
    if margin <= 0:
        raise ValueError(f"a non-inferiority margin must be above 0, got {margin}")
    return interval.low > -margin


@dataclass(frozen=True, slots=True)
class ThresholdVerdict:
    """A rate against a floor: ``outcome`` is pass / fail / uncertain; ``passed`` applies
    the policy for uncertain."""

    outcome: str
    passed: bool
    policy: str

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "passed": self.passed, "on_uncertain": self.policy}


def threshold_verdict(
    interval: Interval,
    threshold: float,
    *,
    estimate: float | None = None,
    on_uncertain: str = "fail",
) -> ThresholdVerdict:
    """Pass when the lower bound ≥ ``threshold``, fail when the upper bound < it, else uncertain."""
    if on_uncertain not in ON_UNCERTAIN:
        raise ValueError(
            f"on_uncertain: expected one of {', '.join(ON_UNCERTAIN)}, got {on_uncertain!r}"
        )
    if interval.low >= threshold:
        return ThresholdVerdict("pass", True, on_uncertain)
    if interval.high < threshold:
        return ThresholdVerdict("fail", False, on_uncertain)
    if on_uncertain == "point":
        if estimate is None:
            raise ValueError("on_uncertain='point' needs the point estimate")
        return ThresholdVerdict("uncertain", estimate >= threshold, on_uncertain)
    return ThresholdVerdict("uncertain", on_uncertain == "pass", on_uncertain)
