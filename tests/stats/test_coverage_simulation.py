"""Seeded simulations: each interval tooleval shows covers the truth 93-97% of the time at
n >= 100.

Each scenario draws fresh datasets from a known truth (rows of varied difficulty, K
attempts each), asks :func:`tooleval.stats.summarize` (the figures every surface renders
through :mod:`tooleval.analysis.figures`) for the interval, and counts how often it holds
the truth. The Wilson interval is checked against statsmodels' on every trial and the
truths of pass^k / pass@k come from SciPy's beta moments. The figures are recorded in
docs/statistics.md ("Coverage of every interval shown").
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
scipy_stats = pytest.importorskip("scipy.stats")
beta, binom = scipy_stats.beta, scipy_stats.binom
proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint

from tooleval.stats import summarize  # noqa: E402

TRIALS = 1000
N = 100
#: Row difficulty: each row passes an attempt with p ~ Beta(A, B) (mean 0.667).
A, B = 4.0, 2.0


def _rows(rng, n: int, k: int) -> list[list[float]]:
    p = rng.beta(A, B, size=(n, 1))
    return (rng.random((n, k)) < p).astype(float).tolist()


def _coverage(draw, truth: float, pick, seed: int) -> tuple[float, str]:
    rng = np.random.default_rng(seed)
    hits, method = 0, ""
    for _ in range(TRIALS):
        interval = pick(summarize(draw(rng)))
        hits += interval.low <= truth <= interval.high
        method = interval.method
    return hits / TRIALS, method


@pytest.mark.parametrize("p", [0.5, 0.667, 0.8, 0.9, 0.95])
def test_wilson_pass_rate_k1_covers_and_equals_statsmodels(p: float) -> None:
    """K = 1 needs no draws: the coverage is the binomial probability of the counts whose
    interval holds p (SciPy's pmf), every interval equal to statsmodels' Wilson."""
    covered = 0.0
    for passed in range(N + 1):
        interval = summarize([[1.0]] * passed + [[0.0]] * (N - passed)).interval
        low, high = proportion_confint(passed, N, alpha=0.05, method="wilson")
        assert interval.method == "wilson"
        assert interval.low == pytest.approx(low, abs=1e-9)
        assert interval.high == pytest.approx(high, abs=1e-9)
        if interval.low <= p <= interval.high:
            covered += float(binom.pmf(passed, N, p))
    assert 0.93 <= covered <= 0.97


def test_pass_rate_with_repeats_t_over_row_rates_covers() -> None:
    covered, method = _coverage(lambda rng: _rows(rng, N, 3), A / (A + B), lambda s: s.interval, 1)
    assert method == "t"
    assert 0.93 <= covered <= 0.97


@pytest.mark.parametrize(
    ("figure", "k", "truth", "method"),
    [
        ("pass_hat_k", 3, beta(A, B).moment(3), "wilson"),  # E[p^3]
        ("pass_at_k", 3, 1.0 - beta(B, A).moment(3), "wilson"),  # 1 - E[(1-p)^3]
        ("pass_hat_k", 2, beta(A, B).moment(2), "t"),  # k < K: fractional row figures
        ("pass_at_k", 2, 1.0 - beta(B, A).moment(2), "t"),
    ],
)
def test_pass_k_intervals_cover(figure: str, k: int, truth: float, method: str) -> None:
    covered, shown = _coverage(
        lambda rng: _rows(rng, N, 3), truth, lambda s: getattr(s, figure)[k].interval, 2 + k
    )
    assert shown == method
    assert 0.93 <= covered <= 0.97


def test_mean_score_t_interval_covers() -> None:
    covered, method = _coverage(
        lambda rng: rng.beta(2.0, 5.0, size=(N, 1)).tolist(), 2.0 / 7.0, lambda s: s.interval, 6
    )
    assert method == "t"
    assert 0.93 <= covered <= 0.97


def test_clustered_t_interval_covers() -> None:
    """50 clusters of 2 rows sharing a random effect: the cluster-robust t interval."""
    truth_rng = np.random.default_rng(0)
    effect = truth_rng.normal(0.0, 0.8, 400_000)
    truth = float(np.mean(1.0 / (1.0 + np.exp(-(1.0 + effect)))))
    rng = np.random.default_rng(8)
    hits = 0
    keys = [i // 2 for i in range(N)]
    for _ in range(TRIALS):
        p = 1.0 / (1.0 + np.exp(-(1.0 + rng.normal(0.0, 0.8, size=N // 2))))
        rows = (rng.random((N // 2, 2)) < p[:, None]).astype(float).reshape(-1, 1).tolist()
        s = summarize(rows, clusters=keys)
        assert s.interval.method == "t" and s.clusters == N // 2
        hits += s.interval.low <= truth <= s.interval.high
    assert 0.93 <= hits / TRIALS <= 0.97


@pytest.mark.parametrize("k", [1, 3])
def test_compare_a_a_false_alarms_at_most_alpha(k: int) -> None:
    """The same agent twice on 50 rows: a regression or improvement called is a false alarm.

    The verdict (:func:`tooleval.analysis.noise.paired_verdict`) needs the interval to
    exclude 0 and the exact test (McNemar's exact p, the sign-flip p) to agree."""
    from tooleval.analysis.noise import paired_verdict
    from tooleval.stats import compare_paired

    rng = np.random.default_rng(30 + k)
    alarms = 0
    for trial in range(TRIALS):
        p = rng.beta(A, B, size=(50, 1))
        a = (rng.random((50, k)) < p).astype(float).tolist()
        b = (rng.random((50, k)) < p).astype(float).tolist()
        stats = compare_paired(a, b, resamples=400 if k > 1 else 0, seed=trial)
        alarms += paired_verdict(stats).kind != "inconclusive"
    assert alarms / TRIALS <= 0.05
