"""Seeded resampling: the BCa bootstrap of a mean over rows or clusters, the sign-flip test.

Both work in the standard library; with numpy installed (the ``local``
extra) they draw the resamples in bulk. Rows (or clusters) that share a
value are drawn together (a multinomial over the distinct values, a binomial
count of flipped signs per distinct |d|), which is the same distribution as
drawing rows one by one, so a million binary rows cost no more than ten.
Every result records its seed and the number of resamples.

>>> r = bca_interval([0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0], confidence=0.9, seed=1)
>>> r.low < 0.75 < r.high, r.seed, r.resamples
(True, 1, 2000)
>>> sign_flip_test([0.5, 0.5, 1.0, 0.25, 0.5]).p_value
0.0625
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from math import isfinite
from statistics import NormalDist
from typing import Any

__all__ = ["BootstrapInterval", "SignFlipTest", "bca_interval", "sign_flip_test"]

_NORMAL = NormalDist()
#: Below this many distinct nonzero |d| patterns, the sign-flip test enumerates all 2^n flips.
EXACT_FLIPS = 4096


def numpy_or_none() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A bias-corrected and accelerated bootstrap interval of a mean."""

    low: float
    high: float
    confidence: float
    resamples: int
    seed: int
    unit: str  # "rows" or "clusters"

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "method": "bca",
            "resamples": self.resamples,
            "seed": self.seed,
            "unit": self.unit,
        }


@dataclass(frozen=True, slots=True)
class SignFlipTest:
    """The paired randomization test: signs of the row differences flipped at random."""

    statistic: float
    p_value: float
    resamples: int  # 0 when every flip was enumerated (an exact p-value)
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "p_value": self.p_value,
            "resamples": self.resamples,
            "exact": self.resamples == 0,
            "seed": self.seed,
        }


def _replicates(
    totals: Sequence[float], sizes: Sequence[float], resamples: int, seed: int
) -> list[float]:
    """Bootstrap means Σ totals / Σ sizes over units drawn with replacement."""
    units = len(totals)
    groups = Counter(zip(totals, sizes, strict=True))
    keys = list(groups)
    np = numpy_or_none()
    if np is not None:
        rng = np.random.default_rng(seed)
        tot = np.array([k[0] for k in keys], dtype=float)
        siz = np.array([k[1] for k in keys], dtype=float)
        freq = np.array([groups[k] for k in keys], dtype=float) / units
        out: list[float] = []
        chunk = max(1, 20_000_000 // max(1, len(keys)))
        for start in range(0, resamples, chunk):
            counts = rng.multinomial(units, freq, size=min(chunk, resamples - start))
            out.extend((counts @ tot / (counts @ siz)).tolist())
        return out
    gen = random.Random(seed)
    reps = []
    for _ in range(resamples):
        picks = gen.choices(range(units), k=units)
        reps.append(sum(totals[i] for i in picks) / sum(sizes[i] for i in picks))
    return reps


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    # Linear interpolation between order statistics (numpy's default method).
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bca_interval(
    values: Sequence[float],
    *,
    sizes: Sequence[float] | None = None,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> BootstrapInterval:
    """The BCa interval of a mean: of ``values`` (one per row), or, with ``sizes``,
    of Σ values / Σ sizes over clusters (``values`` then holds each cluster's total).

    The acceleration comes from the jackknife (leave one row or cluster out).
    """
    units = len(values)
    if units < 2:
        raise ValueError("the bootstrap needs at least 2 rows (or clusters)")
    weights = list(sizes) if sizes is not None else [1.0] * units
    total, size = sum(values), sum(weights)
    estimate = total / size
    reps = sorted(_replicates(values, weights, resamples, seed))
    below = sum(1 for r in reps if r < estimate)
    alpha = (1.0 - confidence) / 2.0
    # Every replicate on one side of the estimate: no bias correction is possible.
    z0 = 0.0 if below in (0, len(reps)) else _NORMAL.inv_cdf(below / len(reps))
    # The jackknife (leave one unit out); units with the same (value, size) leave the same.
    groups = Counter(zip(values, weights, strict=True))
    jack = [((total - v) / (size - w), c) for (v, w), c in groups.items() if size - w]
    count = sum(c for _, c in jack)
    mean_jack = sum(j * c for j, c in jack) / count if count else estimate
    num = sum(c * (mean_jack - j) ** 3 for j, c in jack)
    den = 6.0 * sum(c * (mean_jack - j) ** 2 for j, c in jack) ** 1.5
    accel = num / den if den else 0.0
    bounds = []
    for z_alpha in (_NORMAL.inv_cdf(alpha), _NORMAL.inv_cdf(1.0 - alpha)):
        shifted = z0 + (z0 + z_alpha) / (1.0 - accel * (z0 + z_alpha))
        level = _NORMAL.cdf(shifted) if isfinite(shifted) else (0.0 if shifted < 0 else 1.0)
        bounds.append(_percentile(reps, level))
    unit = "rows" if sizes is None else "clusters"
    return BootstrapInterval(bounds[0], bounds[1], confidence, resamples, seed, unit)


def _two_sided(null: Sequence[float], observed: float, adjust: int) -> float:
    tol = 1e-12 * max(1.0, abs(observed))
    less = (sum(1 for s in null if s <= observed + tol) + adjust) / (len(null) + adjust)
    greater = (sum(1 for s in null if s >= observed - tol) + adjust) / (len(null) + adjust)
    return min(1.0, 2.0 * min(less, greater))


def sign_flip_test(
    differences: Sequence[float], *, resamples: int = 2000, seed: int = 0
) -> SignFlipTest:
    """Two-sided sign-flip test of mean(d) = 0 over rows (exact for small n).

    Under "no difference" each row's difference is as likely to be +d as -d.
    With 2^n <= :data:`EXACT_FLIPS` every flip is enumerated (``resamples`` = 0);
    otherwise ``resamples`` seeded flips, and p = (hits + 1) / (resamples + 1).
    """
    n = len(differences)
    if n == 0:
        raise ValueError("the sign-flip test needs at least 1 row")
    observed = sum(differences) / n
    if 2**n <= EXACT_FLIPS:
        null = [
            sum(s * d for s, d in zip(signs, differences, strict=True)) / n
            for signs in product((1.0, -1.0), repeat=n)
        ]
        return SignFlipTest(observed, _two_sided(null, observed, 0), 0, seed)
    groups = Counter(abs(d) for d in differences if d != 0.0)
    values, counts = list(groups), [groups[v] for v in groups]
    np = numpy_or_none()
    if not values:  # every difference is 0: every flip gives 0
        null = [0.0] * resamples
    elif np is not None:
        rng = np.random.default_rng(seed)
        vals, cnts = np.array(values, dtype=float), np.array(counts, dtype=np.int64)
        ups = rng.binomial(cnts, 0.5, size=(resamples, len(values)))
        null = ((2 * ups - cnts) @ vals / n).tolist()
    else:
        gen = random.Random(seed)
        # The number of + signs among m rows is the popcount of m fair random bits.
        null = [
            sum(
                v * (2 * gen.getrandbits(m).bit_count() - m)
                for v, m in zip(values, counts, strict=True)
            )
            / n
            for _ in range(resamples)
        ]
    return SignFlipTest(observed, _two_sided(null, observed, 1), resamples, seed)
