"""Two runs on the same rows: the paired difference, its interval, the tests beside it.

Row i contributes d_i = p̂_B,i − p̂_A,i (each side's rate over its own
attempts); Δ is the mean of the d_i and SE_paired = sqrt(Var(d) / n), or the
cluster-robust SE with a cluster key. Attempts are never paired with each
other (attempt j of A has nothing to do with attempt j of B). The unpaired SE
sqrt(SE_A² + SE_B²) is reported beside it so the gain of pairing shows.

- binary verdicts, one attempt a side: b (pass → fail), c (fail → pass),
  McNemar exact and mid-p, and Newcombe's method-10 interval (the verdict's);
- otherwise: a t interval with n − 1 (or C − 1) degrees of freedom, a seeded
  sign-flip test and a paired BCa bootstrap as cross-checks when K > 1;
- always: Corr(A, B), the MDE at the chosen power.

>>> a = [[1.0]] * 40 + [[0.0]] * 10
>>> b = [[1.0]] * 30 + [[0.0]] * 10 + [[1.0]] * 2 + [[0.0]] * 8
>>> c = compare_paired(a, b)
>>> round(c.delta, 2), c.mcnemar.regressed, c.mcnemar.fixed, c.interval.method
(-0.16, 10, 2, 'newcombe')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from math import sqrt
from typing import Any

from tooleval._extras import install_hint
from tooleval.stats import resample
from tooleval.stats.intervals import Interval, clustered_se, t_interval
from tooleval.stats.power import mde_from_se
from tooleval.stats.resample import BootstrapInterval, SignFlipTest, bca_interval, sign_flip_test
from tooleval.stats.significance import McNemar, mcnemar, newcombe_paired_interval, paired_t_p
from tooleval.stats.summary import FEW_ROWS, counted_mean_var, row_profile, within_variance

__all__ = ["PairedComparison", "compare_paired"]

#: Without numpy, the row bootstrap (n × resamples draws) is skipped above this many rows.
PURE_BOOTSTRAP_ROWS = 20_000


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Run B against run A on the same rows (everything ``compare`` shows of the statistics)."""

    n: int
    mean_a: float
    mean_b: float
    delta: float
    se_paired: float
    se_unpaired: float
    interval: Interval
    df: float
    p_value: float  # of the test the interval stands on (McNemar mid-p, or the paired t)
    test: str
    correlation: float | None
    mde: float
    power: float
    attempts_a: tuple[int, int]
    attempts_b: tuple[int, int]
    clusters: int | None
    sigma2_a: float | None
    sigma2_b: float | None
    omega2: float | None
    mcnemar: McNemar | None = None
    sign_flip: SignFlipTest | None = None
    bootstrap: BootstrapInterval | None = None
    notes: tuple[str, ...] = ()

    @property
    def confidence(self) -> float:
        return self.interval.confidence

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "delta": self.delta,
            "se_paired": self.se_paired,
            "se_unpaired": self.se_unpaired,
            "interval": self.interval.to_dict(),
            "df": self.df,
            "p_value": self.p_value,
            "test": self.test,
            "correlation": self.correlation,
            "mde": self.mde,
            "power": self.power,
            "attempts_a": list(self.attempts_a),
            "attempts_b": list(self.attempts_b),
            "clusters": self.clusters,
            "sigma2_a": self.sigma2_a,
            "sigma2_b": self.sigma2_b,
            "omega2": self.omega2,
            "mcnemar": self.mcnemar.to_dict() if self.mcnemar else None,
            "sign_flip": self.sign_flip.to_dict() if self.sign_flip else None,
            "bootstrap": self.bootstrap.to_dict() if self.bootstrap else None,
            "notes": list(self.notes),
        }


def _correlation(pairs: Counter[tuple[float, float]]) -> float | None:
    n = sum(pairs.values())
    if n < 2:
        return None
    mx = sum(x * c for (x, _), c in pairs.items()) / n
    my = sum(y * c for (_, y), c in pairs.items()) / n
    sxy = sum(c * (x - mx) * (y - my) for (x, y), c in pairs.items())
    sxx = sum(c * (x - mx) ** 2 for (x, _), c in pairs.items())
    syy = sum(c * (y - my) ** 2 for (_, y), c in pairs.items())
    return sxy / sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def _se(values: Sequence[float], clusters: Sequence[Hashable] | None) -> float:
    if clusters is not None:
        return clustered_se(values, clusters)
    _, var = counted_mean_var(Counter(values))
    return sqrt(var / len(values))


def compare_paired(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    *,
    clusters: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
    power: float = 0.8,
    resamples: int = 2000,
    seed: int = 0,
) -> PairedComparison:
    """Compare run B with run A; ``a[i]`` and ``b[i]`` are the attempts of the same row i."""
    if len(a) != len(b):
        raise ValueError(f"paired runs need the same rows: {len(a)} rows in A, {len(b)} in B")
    if not a:
        raise ValueError("nothing to compare: no row is in both runs")
    if clusters is not None and len(clusters) != len(a):
        raise ValueError(f"{len(a)} rows but {len(clusters)} cluster keys")
    sizes_a, sums_a, binary_a = row_profile(a)
    sizes_b, sums_b, binary_b = row_profile(b)
    ra = [x / k for x, k in zip(sums_a, sizes_a, strict=True)]
    rb = [x / k for x, k in zip(sums_b, sizes_b, strict=True)]
    n = len(ra)
    pairs = Counter(zip(ra, rb, strict=True))
    d = [y - x for x, y in zip(ra, rb, strict=True)]
    mean_a, mean_b = sum(ra) / n, sum(rb) / n
    delta = sum(d) / n
    se_paired = _se(d, clusters)
    se_unpaired = sqrt(_se(ra, clusters) ** 2 + _se(rb, clusters) ** 2)
    n_clusters = len(set(clusters)) if clusters is not None else None
    df: float = (n_clusters if n_clusters is not None else n) - 1
    ka = (min(sizes_a), max(sizes_a))
    kb = (min(sizes_b), max(sizes_b))
    binary = binary_a and binary_b
    notes: list[str] = []
    units = n if n_clusters is None else n_clusters
    if units < FEW_ROWS:
        noun = "rows" if n_clusters is None else "clusters"
        notes.append(f"only {units} {noun}: the interval is a rough guide (fewer than {FEW_ROWS})")
    test_mcnemar = None
    if binary and ka[1] == 1 and kb[1] == 1 and clusters is None:
        regressed, fixed, both = pairs[(1.0, 0.0)], pairs[(0.0, 1.0)], pairs[(1.0, 1.0)]
        test_mcnemar = mcnemar(regressed, fixed)
        interval = newcombe_paired_interval(
            both, regressed, fixed, n - both - regressed - fixed, confidence
        )
        p_value, test = test_mcnemar.p_mid, "mcnemar-mid-p"
    else:
        interval = t_interval(delta, se_paired, df, confidence, bounds=(-1.0, 1.0))
        p_value, test = paired_t_p(delta, se_paired, df), "paired-t"
    flip = boot = None
    if max(ka[1], kb[1]) > 1 and resamples > 0 and clusters is None and n >= 2:
        flip = sign_flip_test(d, resamples=resamples, seed=seed)
        if resample.numpy_or_none() is not None or n <= PURE_BOOTSTRAP_ROWS:
            boot = bca_interval(d, confidence=confidence, resamples=resamples, seed=seed)
        else:
            notes.append(
                f"bootstrap skipped: {n} rows without numpy (the local extra has it: {install_hint('local')})"
            )
    sigma_a = within_variance(a, sizes_a, sums_a, binary_a) if ka[1] > 1 else None
    sigma_b = within_variance(b, sizes_b, sums_b, binary_b) if kb[1] > 1 else None
    omega2 = None
    if sigma_a is not None and sigma_b is not None and n > 1:
        var_d = se_paired * se_paired * n if clusters is None else _se(d, None) ** 2 * n
        omega2 = max(0.0, var_d - sigma_a / ka[0] - sigma_b / kb[0])
    return PairedComparison(
        n=n,
        mean_a=mean_a,
        mean_b=mean_b,
        delta=delta,
        se_paired=se_paired,
        se_unpaired=se_unpaired,
        interval=interval,
        df=df,
        p_value=p_value,
        test=test,
        correlation=_correlation(pairs),
        mde=mde_from_se(se_paired, alpha=1.0 - confidence, power=power),
        power=power,
        attempts_a=ka,
        attempts_b=kb,
        clusters=n_clusters,
        sigma2_a=sigma_a,
        sigma2_b=sigma_b,
        omega2=omega2,
        mcnemar=test_mcnemar,
        sign_flip=flip,
        bootstrap=boot,
        notes=tuple(notes),
    )
