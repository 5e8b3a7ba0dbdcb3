"""The distributions the intervals need, in the standard library alone.

The normal quantile is :class:`statistics.NormalDist`; Student's t and the
beta quantiles come from the regularized incomplete beta function (a
continued fraction, evaluated by the modified Lentz method), so no SciPy is
needed at run time. SciPy is the oracle in ``tests/stats``.

>>> round(t_ppf(0.975, 10), 4), round(z_ppf(0.975), 4)
(2.2281, 1.96)
>>> round(binom_cdf(1, 8, 0.5), 6)
0.035156
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from math import comb, exp, isfinite, lgamma, log, log1p
from statistics import NormalDist

__all__ = [
    "beta_ppf",
    "betainc",
    "binom_cdf",
    "binom_pmf",
    "t_cdf",
    "t_ppf",
    "z_ppf",
]

_NORMAL = NormalDist()
_EPS = 1e-15
_TINY = 1e-300


def z_ppf(q: float) -> float:
    """The standard normal quantile."""
    return _NORMAL.inv_cdf(q)


def _beta_fraction(a: float, b: float, x: float) -> float:
    # Continued fraction of I_x(a, b) (modified Lentz); converges fast for x < (a+1)/(a+b+2).
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), a, b > 0.

    >>> round(betainc(2, 3, 0.4), 6)
    0.5248
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"betainc needs a, b > 0, got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"t needs df > 0, got {df}")
    if not isfinite(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def _bisect(fn: Callable[[float], float], target: float, lo: float, hi: float) -> float:
    # fn is monotone increasing on [lo, hi]
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if fn(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, abs(mid)):
            break
    return 0.5 * (lo + hi)


@lru_cache(maxsize=1024)
def t_ppf(q: float, df: float) -> float:
    """Student's t quantile (``df`` may be fractional; very large ``df`` is the normal).

    Kept per (q, df): a run's every slice and metric asks for the same few quantiles,
    and each costs about 200 evaluations of the incomplete beta function.

    >>> round(t_ppf(0.975, 1), 4)
    12.7062
    """
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile needs 0 < q < 1, got {q}")
    if df > 1e7:
        return z_ppf(q)
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    hi = max(2.0, 2.0 * z_ppf(q))
    while t_cdf(hi, df) < q:
        hi *= 2.0
    return _bisect(lambda t: t_cdf(t, df), q, 0.0, hi)


def beta_ppf(q: float, a: float, b: float) -> float:
    """The beta distribution's quantile (bisection on :func:`betainc`)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile needs 0 <= q <= 1, got {q}")
    if q in (0.0, 1.0):
        return q
    return _bisect(lambda x: betainc(a, b, x), q, 0.0, 1.0)


def binom_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p), in log space for large n."""
    if k < 0 or k > n:
        return 0.0
    if p in (0.0, 1.0):
        return float(k == (0 if p == 0.0 else n))
    if n <= 1000 and p == 0.5:
        return comb(n, k) / (1 << n)  # exact integers, one correctly rounded division
    if n <= 1000:
        return comb(n, k) * p**k * (1.0 - p) ** (n - k)
    logp = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * log(p) + (n - k) * log1p(-p)
    return exp(logp)


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p): exact sums for n <= 1000, else the beta identity."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= 1000 and p == 0.5:
        return sum(comb(n, i) for i in range(k + 1)) / (1 << n)
    if n <= 1000:
        return min(1.0, sum(binom_pmf(i, n, p) for i in range(k + 1)))
    return betainc(n - k, k + 1, 1.0 - p)
