"""Confidence intervals for a rate: Wilson, Clopper–Pearson, Student's t, clustered SE.

>>> w = wilson_interval(17, 20)
>>> round(w.low, 4), round(w.high, 4)
(0.6396, 0.9476)
>>> round(clopper_pearson_interval(20, 20).low, 4)
0.8316
>>> round(clustered_se([1.0, 0.0, 1.0, 1.0], ["a", "a", "b", "b"]), 4)
0.25
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from math import sqrt
from typing import Any

from tooleval.stats.dist import beta_ppf, t_ppf, z_ppf

__all__ = [
    "Interval",
    "clopper_pearson_interval",
    "clustered_se",
    "mean_se",
    "t_interval",
    "wilson_interval",
]


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided interval at ``confidence`` and how it was made (``method``)."""

    low: float
    high: float
    confidence: float
    method: str  # "wilson", "clopper-pearson", "t", "newcombe", "bca"

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "method": self.method,
        }


def _check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence}")
    return confidence


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """The Wilson score interval of ``successes`` out of ``n`` independent trials."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"wilson needs 0 <= successes <= n and n > 0, got {successes}/{n}")
    z = z_ppf(1.0 - (1.0 - _check_confidence(confidence)) / 2.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At 0 or n successes the bound is exactly 0 or 1 (float rounding would leave 1 - 1e-16).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high, confidence, "wilson")


def clopper_pearson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """The exact (Clopper–Pearson) interval; closed forms when nothing passed or failed."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"clopper-pearson needs 0 <= successes <= n, got {successes}/{n}")
    alpha = (1.0 - _check_confidence(confidence)) / 2.0
    if successes == 0:
        low = 0.0
    elif successes == n:
        low = alpha ** (1.0 / n)
    else:
        low = beta_ppf(alpha, successes, n - successes + 1)
    if successes == n:
        high = 1.0
    elif successes == 0:
        high = 1.0 - alpha ** (1.0 / n)
    else:
        high = beta_ppf(1.0 - alpha, successes + 1, n - successes)
    return Interval(low, high, confidence, "clopper-pearson")


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """``(mean, sd / sqrt(n))`` with the n − 1 divisor; SE 0 for one value."""
    n = len(values)
    if n == 0:
        raise ValueError("a mean needs at least one value")
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, sqrt(var / n)


def clustered_se(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """The cluster-robust SE of a mean: sqrt(Σ_c (Σ_i (s_ic − s̄))² · C/(C−1)) / N.

    Equals statsmodels ``OLS(y, ones).fit(cov_type="cluster")`` and Inspect's
    ``stderr(cluster=...)``. One cluster has no spread to measure: SE 0.
    """
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} values but {len(clusters)} cluster keys")
    n = len(values)
    if n == 0:
        raise ValueError("a mean needs at least one value")
    mean = sum(values) / n
    sums: dict[Hashable, float] = {}
    for value, key in zip(values, clusters, strict=True):
        sums[key] = sums.get(key, 0.0) + (value - mean)
    c = len(sums)
    if c < 2:
        return 0.0
    return sqrt(sum(s * s for s in sums.values()) * c / (c - 1)) / n


def t_interval(
    mean: float,
    se: float,
    df: float,
    confidence: float = 0.95,
    *,
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> Interval:
    """mean ± t_{df} · se, clipped to ``bounds`` (a rate cannot leave [0, 1]).

    With no degrees of freedom (one row, one cluster) nothing bounds the mean:
    the interval is all of ``bounds``.
    """
    _check_confidence(confidence)
    half = t_ppf(1.0 - (1.0 - confidence) / 2.0, df) * se if df > 0 else float("inf")
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return Interval(low, high, confidence, "t")
