"""How many rows or repeats a wanted change needs, from a stored run's variances.

From one run (A) with K attempts per row: σ² is the mean within-row variance
(attempt to attempt); with K = 1 it cannot be told apart from the row-to-row
spread, so the whole variance of the rows stands in for it (a conservative
figure). ω², the row-to-row disagreement of the two agents, is unknown from
one run and taken as 0 (a change that moves every row alike; the optimistic
end); with a second run (``against``) on the same rows it is measured:
ω² = Var(d) − σ_A²/K_A − σ_B²/K_B.

>>> advice = PowerAdvice(metric="m", n=200, k_a=1, k_b=1, sigma2_a=0.2, sigma2_b=0.2,
...                      omega2=0.0, measured=False, alpha=0.05, power=0.8)
>>> round(advice.mde, 3), advice.rows_for(0.05)
(0.125, 1256)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tooleval.analysis.noise import ALL, AttemptTable
from tooleval.stats import compare_paired, mde, repeats_needed, rows_needed, summarize

__all__ = ["PowerAdvice", "TooSmall", "power_advice", "too_small"]


@dataclass(frozen=True, slots=True)
class PowerAdvice:
    """The variances of one metric and what they allow at a given α and power."""

    metric: str
    n: int
    k_a: int
    k_b: int
    sigma2_a: float
    sigma2_b: float
    omega2: float
    measured: bool  # ω² measured from a second run (else assumed 0)
    alpha: float
    power: float

    def _kw(self) -> dict[str, Any]:
        return {
            "omega2": self.omega2,
            "sigma2_a": self.sigma2_a,
            "k_a": self.k_a,
            "sigma2_b": self.sigma2_b,
            "k_b": self.k_b,
            "alpha": self.alpha,
            "power": self.power,
        }

    @property
    def mde(self) -> float:
        """The smallest change this many rows and repeats detect."""
        return mde(self.n, **self._kw())

    def rows_for(self, delta: float, k: int | None = None) -> int:
        """Rows needed for ``delta`` at ``k`` attempts a side (default: as stored)."""
        kw = self._kw()
        if k is not None:
            kw.update(k_a=k, k_b=k)
        return rows_needed(delta, **kw)

    def repeats_for(self, delta: float) -> int | None:
        """Attempts per row (both sides) for ``delta`` on the stored rows; None: impossible."""
        sigma2 = (self.sigma2_a + self.sigma2_b) / 2.0
        return repeats_needed(
            delta, self.n, omega2=self.omega2, sigma2=sigma2, alpha=self.alpha, power=self.power
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n": self.n,
            "k_a": self.k_a,
            "k_b": self.k_b,
            "sigma2_a": self.sigma2_a,
            "sigma2_b": self.sigma2_b,
            "omega2": self.omega2,
            "omega2_measured": self.measured,
            "alpha": self.alpha,
            "power": self.power,
            "mde": self.mde,
        }


def _sigma2(values: list[list[float]]) -> tuple[float, int]:
    s = summarize(values)
    k = s.attempts[0]
    if s.within_variance is not None and k > 1:
        return s.within_variance, k
    return s.row_variance, 1


def power_advice(
    a: AttemptTable,
    metric: str,
    *,
    against: AttemptTable | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PowerAdvice:
    """The variances of ``metric`` in run A (and against run B on the same rows)."""
    rows_a = {r.key: r.values[metric] for r in a.select(metric, ALL)}
    if len(rows_a) < 2:
        raise ValueError(f"{metric}: power needs at least 2 scored rows, got {len(rows_a)}")
    sigma_a, k_a = _sigma2(list(rows_a.values()))
    if against is None:
        return PowerAdvice(
            metric, len(rows_a), k_a, k_a, sigma_a, sigma_a, 0.0, False, alpha, power
        )
    rows_b = {r.key: r.values[metric] for r in against.select(metric, ALL)}
    keys = [k for k in rows_a if k in rows_b]
    if len(keys) < 2:
        raise ValueError(f"{metric}: the two runs share {len(keys)} scored rows; need 2 or more")
    xs, ys = [rows_a[k] for k in keys], [rows_b[k] for k in keys]
    paired = compare_paired(xs, ys, resamples=0)
    var_d = paired.se_paired**2 * paired.n
    sigma_a, k_a = _sigma2(xs)
    sigma_b, k_b = _sigma2(ys)
    if k_a > 1 and k_b > 1:
        omega2 = max(0.0, var_d - sigma_a / k_a - sigma_b / k_b)
        return PowerAdvice(
            metric, len(keys), k_a, k_b, sigma_a, sigma_b, omega2, True, alpha, power
        )
    # One attempt a side: Var(d) is all there is; it stands for ω² + σ_A² + σ_B² together.
    return PowerAdvice(metric, len(keys), 1, 1, var_d / 2, var_d / 2, 0.0, True, alpha, power)


@dataclass(frozen=True, slots=True)
class TooSmall:
    """An inconclusive comparison of one metric, sized: what these rows can tell, and how many
    rows would tell the change that was seen (``rows_needed`` None: no change was seen, or
    too few rows to measure the variances)."""

    metric: str
    n: int
    mde: float
    delta: float
    rows_needed: int | None
    power: float

    @property
    def text(self) -> str:
        """``tool_correctness: too small to tell: n=7 rows detect −45.1 pts or more ...``.

        >>> TooSmall("m", 7, 0.451, -0.286, 19, 0.8).text
        'm: too small to tell: 7 rows detect a change of 45.1 pts or more (MDE at 80% power); the change seen, −28.6 pts, needs about 19 rows'
        """
        said = (
            f"{self.metric}: too small to tell: {self.n} rows detect a change of "
            f"{100 * self.mde:.1f} pts or more (MDE at {self.power:.0%} power)"
        )
        seen = f"{100 * self.delta:.1f}".replace("-", "−")
        if self.rows_needed is None:
            return f"{said}; the change seen, {seen} pts, is too small to size"
        return f"{said}; the change seen, {seen} pts, needs about {self.rows_needed} rows"

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n": self.n,
            "mde": self.mde,
            "delta": self.delta,
            "rows_needed": self.rows_needed,
            "power": self.power,
            "text": self.text,
        }


def too_small(a: AttemptTable, b: AttemptTable, comparisons: Any) -> list[TooSmall]:
    """Each metric whose overall verdict is inconclusive, sized by :func:`power_advice` from
    the two runs' own variances (a slice where no row differs has nothing to size: left out).
    """
    out = []
    for c in comparisons:
        s = c.stats
        if c.slice != ALL or c.verdict.kind != "inconclusive" or s.mde == 0.0:
            continue
        needed: int | None = None
        if abs(s.delta) > 1e-12:
            try:
                advice = power_advice(
                    a, c.metric, against=b, alpha=1.0 - s.confidence, power=s.power
                )
                needed = max(s.n, advice.rows_for(abs(s.delta)))
            except ValueError:
                needed = None  # fewer than 2 shared rows: no variance to size on
        out.append(TooSmall(c.metric, s.n, s.mde, s.delta, needed, s.power))
    return out
