"""Power: the smallest change a comparison can see, and the rows or repeats a wanted change needs.

For a paired comparison of two runs on n rows with K_A and K_B attempts per
row (Miller 2024, eq. for the paired difference):

    Var(Δ̂) = (ω² + σ_A²/K_A + σ_B²/K_B) / n
    MDE    = (z_{1−α/2} + z_{power}) · sqrt(Var(Δ̂))
    n      = (z_{1−α/2} + z_{power})² · (ω² + σ_A²/K_A + σ_B²/K_B) / δ²

ω² is the variance over rows of the true difference between the two agents;
σ² the within-row (attempt to attempt) variance of each.

>>> round(mde(198, omega2=1/9, sigma2_a=1/6, k_a=1), 5)
0.13273
>>> round(mde(198, omega2=1/9, sigma2_a=1/6, k_a=10), 5)
0.07567
>>> rows_needed(0.03, omega2=1/9, sigma2_a=0.0, k_a=1)
969
"""

from __future__ import annotations

from math import ceil, sqrt
from typing import TypedDict, Unpack

from tooleval.stats.dist import z_ppf

__all__ = ["PairedVariances", "mde", "mde_from_se", "repeats_needed", "rows_needed"]


def _z_sum(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1, got {power}")
    return z_ppf(1.0 - alpha / 2.0) + z_ppf(power)


class _Variances(TypedDict):
    omega2: float
    sigma2_a: float


class PairedVariances(_Variances, total=False):
    """What :func:`mde` and :func:`rows_needed` take by keyword, stated once.

    ``omega2`` (ω²) and ``sigma2_a`` (σ_A²) are required; ``k_a`` defaults
    to 1, ``sigma2_b`` and ``k_b`` to A's (B like A), ``alpha`` to 0.05 and
    ``power`` to 0.8.
    """

    k_a: int
    sigma2_b: float | None
    k_b: int | None
    alpha: float
    power: float


_KEYWORDS = tuple(PairedVariances.__annotations__)


def _z_and_variance(variances: PairedVariances) -> tuple[float, float]:
    """(z_{1−α/2} + z_{power}, ω² + σ_A²/K_A + σ_B²/K_B), each input checked.

    An unknown or missing keyword is a TypeError, as for a function that
    spells them out.

    >>> _z_and_variance({"omega2": 0.0, "sigma2_a": 0.5, "k_a": 2})[1]
    0.5
    >>> _z_and_variance({"omega2": 0.0, "sigma2_a": 0.5, "k_A": 2})
    Traceback (most recent call last):
    TypeError: unexpected keyword argument 'k_A' (expected omega2, sigma2_a, k_a, sigma2_b, k_b, alpha, power)
    """
    unknown = [k for k in variances if k not in _KEYWORDS]
    if unknown:
        raise TypeError(
            f"unexpected keyword argument {unknown[0]!r} (expected {', '.join(_KEYWORDS)})"
        )
    absent = [k for k in PairedVariances.__required_keys__ if k not in variances]
    if absent:
        raise TypeError(f"missing required keyword argument {sorted(absent)[0]!r}")
    omega2, sigma2_a = variances["omega2"], variances["sigma2_a"]
    k_a = variances.get("k_a", 1)
    sigma2_b, k_b = variances.get("sigma2_b"), variances.get("k_b")
    if min(omega2, sigma2_a) < 0 or (sigma2_b is not None and sigma2_b < 0):
        raise ValueError("variances cannot be negative")
    if k_a < 1 or (k_b is not None and k_b < 1):
        raise ValueError("attempts per row must be at least 1")
    sb = sigma2_a if sigma2_b is None else sigma2_b
    kb = k_a if k_b is None else k_b
    z = _z_sum(variances.get("alpha", 0.05), variances.get("power", 0.8))
    return z, omega2 + sigma2_a / k_a + sb / kb


def mde(n: int, **variances: Unpack[PairedVariances]) -> float:
    """The minimum detectable effect of a paired comparison on ``n`` rows (B defaults to A).

    The keywords are :class:`PairedVariances`'.

    >>> round(mde(400, omega2=0.0, sigma2_a=0.25), 4)
    0.0991
    """
    if n < 1:
        raise ValueError(f"n must be at least 1 row, got {n}")
    z, variance = _z_and_variance(variances)
    return z * sqrt(variance / n)


def mde_from_se(se: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The MDE when the SE of the difference was measured (SE_paired of a comparison).

    >>> round(mde_from_se(0.01), 4)
    0.028
    """
    return _z_sum(alpha, power) * se


def rows_needed(delta: float, **variances: Unpack[PairedVariances]) -> int:
    """How many rows a paired comparison needs to detect a change of ``delta``.

    The keywords are :class:`PairedVariances`'.

    >>> rows_needed(0.099, omega2=0.0, sigma2_a=0.25)
    401
    """
    if delta <= 0:
        raise ValueError(f"the wanted change must be above 0, got {delta}")
    z, variance = _z_and_variance(variances)
    # Round before the ceiling: 968.9999999 is 969 rows, not a float artefact away from it.
    return max(1, ceil(round(z**2 * variance / (delta * delta), 6)))


def repeats_needed(
    delta: float,
    n: int,
    *,
    omega2: float,
    sigma2: float,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int | None:
    """Attempts per row (on both sides) so that ``n`` rows detect ``delta``; None when no
    number of repeats can (ω² alone, the row-to-row disagreement, is already too large).

    >>> repeats_needed(0.06, 200, omega2=0.02, sigma2=0.2)
    6
    >>> repeats_needed(0.01, 200, omega2=0.05, sigma2=0.2) is None
    True
    """
    if delta <= 0 or n < 1:
        raise ValueError("the wanted change must be above 0 and n at least 1")
    budget = n * delta * delta / _z_sum(alpha, power) ** 2 - omega2
    if budget <= 0:
        return None
    return max(1, ceil(round(2.0 * sigma2 / budget, 6)))
