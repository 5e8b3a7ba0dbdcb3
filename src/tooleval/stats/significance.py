"""Paired tests on binary verdicts and row differences: McNemar, Newcombe, paired t, Holm.

>>> m = mcnemar(7, 1)
>>> round(m.p_exact, 6), round(m.p_mid, 6)
(0.070312, 0.039062)
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt
from typing import Any

from tooleval.stats.dist import binom_cdf, binom_pmf, t_cdf
from tooleval.stats.intervals import Interval, wilson_interval

__all__ = ["McNemar", "holm", "mcnemar", "newcombe_paired_interval", "paired_t_p"]


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's test on the discordant rows: ``regressed`` (pass → fail) and ``fixed``."""

    regressed: int  # b
    fixed: int  # c
    p_exact: float
    p_mid: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "regressed": self.regressed,
            "fixed": self.fixed,
            "p_exact": self.p_exact,
            "p_mid": self.p_mid,
        }


def mcnemar(regressed: int, fixed: int) -> McNemar:
    """Exact McNemar p = min(1, 2·Binom.cdf(min(b, c); b + c, ½)) and its mid-p."""
    if regressed < 0 or fixed < 0:
        raise ValueError(f"counts cannot be negative, got b={regressed}, c={fixed}")
    total, low = regressed + fixed, min(regressed, fixed)
    if total == 0:
        return McNemar(regressed, fixed, 1.0, 1.0)
    cdf = binom_cdf(low, total, 0.5)
    exact = min(1.0, 2.0 * cdf)
    mid = min(1.0, 2.0 * (cdf - 0.5 * binom_pmf(low, total, 0.5)))
    return McNemar(regressed, fixed, exact, mid)


def newcombe_paired_interval(
    both: int, regressed: int, fixed: int, neither: int, confidence: float = 0.95
) -> Interval:
    """Newcombe's (1998) method 10 interval for p_B − p_A from a paired 2×2 table.

    ``both`` passed on A and B, ``regressed`` passed on A only, ``fixed`` on B
    only, ``neither`` on none. Wilson intervals of each margin, combined with
    the phi correlation of the table.

    >>> i = newcombe_paired_interval(30, 8, 2, 10)
    >>> round(i.low, 4), round(i.high, 4)
    (-0.2371, 0.0001)
    """
    n = both + regressed + fixed + neither
    if n <= 0 or min(both, regressed, fixed, neither) < 0:
        raise ValueError("a paired table needs non-negative counts and at least one row")
    pa, pb = (both + regressed) / n, (both + fixed) / n
    la, ua = _bounds(wilson_interval(both + regressed, n, confidence))
    lb, ub = _bounds(wilson_interval(both + fixed, n, confidence))
    margins = (both + regressed) * (fixed + neither) * (both + fixed) * (regressed + neither)
    phi = (both * neither - regressed * fixed) / sqrt(margins) if margins else 0.0
    delta = pb - pa
    down = sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    up = sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    return Interval(max(-1.0, delta - down), min(1.0, delta + up), confidence, "newcombe")


def _bounds(interval: Interval) -> tuple[float, float]:
    return interval.low, interval.high


def paired_t_p(mean: float, se: float, df: float) -> float:
    """The two-sided p of a t statistic mean / se (1 when there is no spread and no change)."""
    if se == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    if df <= 0:
        return 1.0
    return min(1.0, 2.0 * t_cdf(-abs(mean / se), df))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
