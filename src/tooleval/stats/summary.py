"""One rate with its uncertainty: a run's metric (or one slice of it) over rows and attempts.

The unit is the row. A row with K attempts contributes its own rate (the mean
over its attempts); the headline is the mean of the row rates, and its
standard error comes from the spread of the row rates, never from the
attempts pooled as if they were independent (attempts of one row share its
difficulty). With a cluster key (rows built from one template, one task),
the cluster-robust SE and C − 1 degrees of freedom.

>>> s = summarize([[1.0]] * 17 + [[0.0]] * 3)
>>> s.interval.method, round(s.interval.low, 4), round(s.interval.high, 4), s.n
('wilson', 0.6396, 0.9476, 20)
>>> r = summarize([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1]])
>>> r.attempts, r.flaky, round(r.within_variance, 4), r.pass_hat_k[3].mean
((3, 3), 3, 0.25, 0.25)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from math import sqrt
from typing import Any

from tooleval.stats.intervals import (
    Interval,
    clopper_pearson_interval,
    clustered_se,
    t_interval,
    wilson_interval,
)
from tooleval.stats.resample import BootstrapInterval, bca_interval

__all__ = [
    "FEW_ROWS",
    "KEstimate",
    "RateSummary",
    "pass_at_k",
    "pass_hat_k",
    "counted_mean_var",
    "few_rows_note",
    "row_rates",
    "summarize",
    "within_variance",
]

#: Below this many rows (or clusters) the CLT interval is a rough guide; the summary says so.
FEW_ROWS = 30


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one row: 1 − C(n−c, k) / C(n, k), as a stable product.

    >>> round(pass_at_k(10, 3, 2), 4), round(pass_at_k(200, 1, 100), 4)
    (0.5333, 0.5)
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased pass^k of one row: C(c, k) / C(n, k), as a stable product.

    >>> pass_hat_k(4, 3, 2)
    0.5
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    product = 1.0
    for i in range(k):
        product *= (c - i) / (n - i)
    return max(0.0, product)


@dataclass(frozen=True, slots=True)
class KEstimate:
    """pass@k or pass^k over rows: the mean of per-row unbiased estimates, its SE and interval."""

    k: int
    mean: float
    se: float
    interval: Interval
    rows: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "mean": self.mean,
            "se": self.se,
            "interval": self.interval.to_dict(),
            "rows": self.rows,
        }


@dataclass(frozen=True, slots=True)
class RateSummary:
    """A rate (or mean score) over rows, with n, K, clusters, SE, interval and notes."""

    mean: float
    se: float
    interval: Interval
    n: int
    attempts: tuple[int, int]  # (fewest, most) attempts per row
    clusters: int | None
    binary: bool
    df: float
    row_variance: float  # of the row rates, n − 1 divisor (0 for one row)
    within_variance: float | None = None
    flaky: int | None = None
    exact: Interval | None = None
    bootstrap: BootstrapInterval | None = None
    pass_at_k: dict[int, KEstimate] = field(default_factory=dict)
    pass_hat_k: dict[int, KEstimate] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "se": self.se,
            "interval": self.interval.to_dict(),
            "n": self.n,
            "attempts": list(self.attempts),
            "clusters": self.clusters,
            "binary": self.binary,
            "df": self.df,
            "row_variance": self.row_variance,
            "within_variance": self.within_variance,
            "flaky": self.flaky,
            "exact": self.exact.to_dict() if self.exact else None,
            "bootstrap": self.bootstrap.to_dict() if self.bootstrap else None,
            "pass_at_k": {str(k): e.to_dict() for k, e in self.pass_at_k.items()},
            "pass_hat_k": {str(k): e.to_dict() for k, e in self.pass_hat_k.items()},
            "notes": list(self.notes),
        }


def few_rows_note(units: int, unit: str = "rows") -> tuple[str, ...]:
    """The note an interval over fewer than :data:`FEW_ROWS` units carries (else none)."""
    if units < FEW_ROWS:
        return (f"only {units} {unit}: the interval is a rough guide (fewer than {FEW_ROWS})",)
    return ()


def row_profile(attempts: Sequence[Sequence[float]]) -> tuple[list[int], list[float], bool]:
    """Each row's attempt count and sum, and whether every value is 0 or 1 (one C-speed pass)."""
    sizes = list(map(len, attempts))
    if 0 in sizes:
        raise ValueError(f"row {sizes.index(0)} has no attempt to average")
    sums = list(map(sum, attempts))
    binary = set(chain.from_iterable(attempts)) <= {0, 1}
    return sizes, [float(x) for x in sums], binary


def row_rates(attempts: Sequence[Sequence[float]]) -> list[float]:
    """Each row's rate: the mean over its attempts (a row with no attempt is refused)."""
    sizes, sums, _ = row_profile(attempts)
    return [x / k for x, k in zip(sums, sizes, strict=True)]


def counted_mean_var(counts: Mapping[float, int]) -> tuple[float, float]:
    """``(mean, variance with the n − 1 divisor)`` of values given as ``{value: count}``."""
    n = sum(counts.values())
    mean = sum(v * c for v, c in counts.items()) / n
    if n < 2:
        return mean, 0.0
    return mean, sum(c * (v - mean) ** 2 for v, c in counts.items()) / (n - 1)


def within_variance(
    attempts: Sequence[Sequence[float]], sizes: Sequence[int], sums: Sequence[float], binary: bool
) -> float | None:
    """The mean over rows with K >= 2 of each row's attempt variance (K − 1 divisor)."""
    if binary:
        # c ones and k − c zeros have variance c(k − c) / (k(k − 1)); rows share (k, c) a lot.
        groups = Counter(zip(sizes, sums, strict=True))
        parts = [((k - x) * x / (k * (k - 1)), c) for (k, x), c in groups.items() if k > 1]
    else:
        parts = []
        for row, k, x in zip(attempts, sizes, sums, strict=True):
            if k > 1:
                m = x / k
                parts.append((sum((v - m) ** 2 for v in row) / (k - 1), 1))
    rows = sum(c for _, c in parts)
    return sum(v * c for v, c in parts) / rows if rows else None


def _k_estimates(
    groups: Mapping[tuple[int, float], int], confidence: float, fn: Any
) -> dict[int, KEstimate]:
    kmin = min(k for k, _ in groups)
    out: dict[int, KEstimate] = {}
    for k in range(1, kmin + 1):
        per_row: Counter[float] = Counter()
        for (n, c), count in groups.items():
            per_row[fn(n, int(c), k)] += count
        rows = sum(per_row.values())
        mean, var = counted_mean_var(per_row)
        se = sqrt(var / rows)
        if set(per_row) <= {0.0, 1.0}:
            # k = K: each row's estimate is its own 0/1 verdict, so Wilson (the t interval
            # over 0/1 figures is a Wald interval: 86% coverage at n = 100, p = 0.95).
            interval = verdict_interval(per_row[1.0], rows, confidence)[0]
        else:
            interval = t_interval(mean, se, rows - 1, confidence)
        out[k] = KEstimate(k, mean, se, interval, rows)
    return out


def verdict_interval(
    passed: int, n: int, confidence: float = 0.95
) -> tuple[Interval, Interval | None, tuple[str, ...]]:
    """One 0/1 verdict per row: Wilson, and the exact (Clopper-Pearson) bound with its note
    when every row passed or every row failed. What :func:`summarize` gives such rows, from
    their counts alone (:class:`tooleval.stats.tally.Tally` reads it so).
    """
    interval = wilson_interval(passed, n, confidence)
    if passed not in (0, n):
        return interval, None, ()
    exact = clopper_pearson_interval(passed, n, confidence)
    word = "failed" if passed == 0 else "passed"
    note = f"every row {word}: the exact (Clopper-Pearson) bound is [{exact.low:.1%}, {exact.high:.1%}]"
    return interval, exact, (note,)


def summarize(
    attempts: Sequence[Sequence[float]],
    *,
    clusters: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
    bootstrap: int = 0,
    seed: int = 0,
) -> RateSummary:
    """Summarize one rate: ``attempts[i]`` holds row i's values (1/0 verdicts or scores).

    ``clusters[i]`` is row i's cluster key; ``bootstrap`` > 0 adds a seeded BCa
    interval over rows (or clusters) with that many resamples as a cross-check.
    Binary K = 1 rows get the Wilson interval (and Clopper–Pearson when every row
    passed or every row failed); everything else a t interval. pass^k and pass@k
    get Wilson where every row's estimate is 0 or 1 (k = K), a t interval otherwise.
    """
    if not attempts:
        raise ValueError("nothing to summarize: no rows")
    if clusters is not None and len(clusters) != len(attempts):
        raise ValueError(f"{len(attempts)} rows but {len(clusters)} cluster keys")
    sizes, sums, binary = row_profile(attempts)
    rates = [x / k for x, k in zip(sums, sizes, strict=True)]
    n = len(rates)
    kmin, kmax = min(sizes), max(sizes)
    notes: list[str] = []
    mean, row_variance = counted_mean_var(Counter(rates))
    if clusters is None:
        se = sqrt(row_variance / n)
        df: float = n - 1
        n_clusters = None
    else:
        se = clustered_se(rates, clusters)
        n_clusters = len(set(clusters))
        df = n_clusters - 1
    exact = None
    if binary and kmax == 1 and clusters is None:
        interval, exact, said = verdict_interval(int(sum(rates)), n, confidence)
        notes.extend(said)
    elif binary and clusters is None and mean in (0.0, 1.0):
        # Every attempt of every row passed (or failed): the t interval would be [1, 1];
        # the exact bound counts each row once, as if its attempts always agree.
        interval = exact = clopper_pearson_interval(int(mean) * n, n, confidence)
        word = "failed" if mean == 0.0 else "passed"
        notes.append(
            f"every attempt {word}: the exact (Clopper-Pearson) bound over {n} rows is "
            f"[{exact.low:.1%}, {exact.high:.1%}]"
        )
    else:
        interval = t_interval(mean, se, df, confidence)
    units = n if n_clusters is None else n_clusters
    unit = "rows" if n_clusters is None else "clusters"
    notes.extend(few_rows_note(units, unit))
    boot = None
    if bootstrap and units >= 2:
        if clusters is None:
            boot = bca_interval(rates, confidence=confidence, resamples=bootstrap, seed=seed)
        else:
            totals: dict[Hashable, list[float]] = {}
            for rate, key in zip(rates, clusters, strict=True):
                totals.setdefault(key, [0.0, 0.0])
                totals[key][0] += rate
                totals[key][1] += 1.0
            boot = bca_interval(
                [t[0] for t in totals.values()],
                sizes=[t[1] for t in totals.values()],
                confidence=confidence,
                resamples=bootstrap,
                seed=seed,
            )
    within = within_variance(attempts, sizes, sums, binary) if kmax >= 2 else None
    flaky = None
    at_k: dict[int, KEstimate] = {}
    hat_k: dict[int, KEstimate] = {}
    if binary and kmin >= 2:
        groups = Counter(zip(sizes, sums, strict=True))
        flaky = sum(c for (k, x), c in groups.items() if 0 < x < k)
        at_k = _k_estimates(groups, confidence, pass_at_k)
        hat_k = _k_estimates(groups, confidence, pass_hat_k)
    return RateSummary(
        mean=mean,
        se=se,
        interval=interval,
        n=n,
        attempts=(kmin, kmax),
        clusters=n_clusters,
        binary=binary,
        df=df,
        row_variance=row_variance,
        within_variance=within,
        flaky=flaky,
        exact=exact,
        bootstrap=boot,
        pass_at_k=at_k,
        pass_hat_k=hat_k,
        notes=tuple(notes),
    )
