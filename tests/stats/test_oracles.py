"""tooleval.stats against SciPy and statsmodels (the dev extra), and the issue's vectors."""

from __future__ import annotations

import math
import random

import pytest

from tooleval.stats import (
    bca_interval,
    clopper_pearson_interval,
    clustered_se,
    compare_paired,
    holm,
    mcnemar,
    mde,
    mean_se,
    newcombe_paired_interval,
    paired_t_p,
    pass_at_k,
    pass_hat_k,
    repeats_needed,
    rows_needed,
    sign_flip_test,
    summarize,
    t_interval,
    wilson_interval,
)
from tooleval.stats.dist import beta_ppf, betainc, binom_cdf, t_cdf, t_ppf

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle (dev extra)")
proportion = pytest.importorskip("statsmodels.stats.proportion")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
multitest = pytest.importorskip("statsmodels.stats.multitest")
np = pytest.importorskip("numpy")


# --- the issue's vectors -------------------------------------------------------------------
def test_issue_vectors():
    w = wilson_interval(17, 20)
    assert (round(w.low, 4), round(w.high, 4)) == (0.6396, 0.9476)
    m = mcnemar(7, 1)
    assert m.p_exact == pytest.approx(0.070312, abs=1e-6)
    assert m.p_mid == pytest.approx(0.039063, abs=1e-6)
    assert mde(198, omega2=1 / 9, sigma2_a=1 / 6, k_a=1) == pytest.approx(0.13273, abs=1e-5)
    assert mde(198, omega2=1 / 9, sigma2_a=1 / 6, k_a=10) == pytest.approx(0.07567, abs=1e-5)
    assert rows_needed(0.03, omega2=1 / 9, sigma2_a=0.0, k_a=1) == 969


# --- distributions ---------------------------------------------------------------------------
@pytest.mark.parametrize("df", [1, 2, 3.5, 9, 29, 197, 10_000])
@pytest.mark.parametrize("q", [0.6, 0.9, 0.975, 0.995, 0.9995])
def test_t_quantile_matches_scipy(q, df):
    assert t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9)
    assert t_cdf(t_ppf(q, df), df) == pytest.approx(q, rel=1e-10)


@pytest.mark.parametrize(
    ("a", "b", "x"), [(0.5, 0.5, 0.3), (3, 7, 0.2), (200, 50, 0.8), (1e5, 2, 0.99998)]
)
def test_betainc_and_beta_quantile_match_scipy(a, b, x):
    assert betainc(a, b, x) == pytest.approx(scipy_stats.beta.cdf(x, a, b), rel=1e-9, abs=1e-14)
    assert beta_ppf(0.025, a, b) == pytest.approx(scipy_stats.beta.ppf(0.025, a, b), rel=1e-8)


@pytest.mark.parametrize(
    ("k", "n", "p"), [(0, 5, 0.5), (3, 17, 0.5), (40, 2000, 0.5), (7, 30, 0.2)]
)
def test_binomial_cdf_matches_scipy(k, n, p):
    assert binom_cdf(k, n, p) == pytest.approx(scipy_stats.binom.cdf(k, n, p), rel=1e-9)


# --- one-rate intervals --------------------------------------------------------------------
@pytest.mark.parametrize(("x", "n"), [(0, 10), (1, 10), (17, 20), (20, 20), (412, 1000), (5, 7)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_and_clopper_pearson_match_statsmodels_and_scipy(x, n, confidence):
    alpha = 1 - confidence
    lo, hi = proportion.proportion_confint(x, n, alpha=alpha, method="wilson")
    w = wilson_interval(x, n, confidence)
    assert (w.low, w.high) == pytest.approx((lo, hi), abs=1e-12)
    lo, hi = proportion.proportion_confint(x, n, alpha=alpha, method="beta")
    cp = clopper_pearson_interval(x, n, confidence)
    assert (cp.low, cp.high) == pytest.approx((lo, hi), abs=1e-9)
    exact = scipy_stats.binomtest(x, n).proportion_ci(confidence_level=confidence, method="exact")
    assert (cp.low, cp.high) == pytest.approx((exact.low, exact.high), abs=1e-9)
    wil = scipy_stats.binomtest(x, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert (w.low, w.high) == pytest.approx((wil.low, wil.high), abs=1e-12)


def test_summary_of_a_run_where_every_row_passed_carries_the_exact_bound():
    s = summarize([[1.0]] * 40)
    assert s.interval.method == "wilson"
    lo, _ = proportion.proportion_confint(40, 40, alpha=0.05, method="beta")
    assert s.exact is not None and s.exact.low == pytest.approx(lo)
    assert any("Clopper-Pearson" in note for note in s.notes)


def test_t_interval_of_scores_matches_scipy():
    rng = random.Random(3)
    scores = [[rng.random()] for _ in range(45)]
    s = summarize(scores)
    values = [r[0] for r in scores]
    lo, hi = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=np.mean(values), scale=scipy_stats.sem(values)
    )
    assert s.interval.method == "t"
    assert (s.interval.low, s.interval.high) == pytest.approx((lo, hi), rel=1e-9)
    assert s.se == pytest.approx(scipy_stats.sem(values), rel=1e-12)


# --- clustered SE -----------------------------------------------------------------------------
def _ols_cluster_se(values, groups):
    import statsmodels.api as sm

    fit = sm.OLS(np.asarray(values, float), np.ones(len(values))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(groups)}
    )
    return float(fit.bse[0])


def test_clustered_se_matches_statsmodels_ols():
    rng = random.Random(5)
    groups = [rng.randrange(12) for _ in range(300)]
    values = [float(rng.random() < 0.3 + 0.04 * g) for g in groups]
    assert clustered_se(values, groups) == pytest.approx(_ols_cluster_se(values, groups), rel=1e-10)
    s = summarize([[v] for v in values], clusters=groups)
    assert s.clusters == 12 and s.df == 11
    assert s.se == pytest.approx(_ols_cluster_se(values, groups), rel=1e-10)


def test_row_clustered_se_of_attempts_equals_sd_of_row_means():
    # With equal K, clustering attempt-level data by row is the same as the SE of the row rates.
    rng = random.Random(8)
    rows = [[float(rng.random() < p) for _ in range(4)] for p in (rng.random() for _ in range(60))]
    flat = [v for row in rows for v in row]
    ids = [i for i, row in enumerate(rows) for _ in row]
    means = [sum(r) / len(r) for r in rows]
    expected = float(np.std(means, ddof=1) / math.sqrt(len(means)))
    assert _ols_cluster_se(flat, ids) == pytest.approx(expected, rel=1e-10)
    assert clustered_se(flat, ids) == pytest.approx(expected, rel=1e-10)
    assert summarize(rows).se == pytest.approx(expected, rel=1e-12)


# --- paired comparisons ---------------------------------------------------------------------
@pytest.mark.parametrize(("b", "c"), [(7, 1), (0, 0), (3, 3), (12, 3), (0, 9), (250, 190)])
def test_mcnemar_matches_statsmodels_and_mid_p_matches_scipy_binom(b, c):
    m = mcnemar(b, c)
    table = [[10, b], [c, 10]]
    assert m.p_exact == pytest.approx(contingency.mcnemar(table, exact=True).pvalue, rel=1e-10)
    if b + c:
        k = min(b, c)
        mid = 2 * (
            scipy_stats.binom.cdf(k, b + c, 0.5) - 0.5 * scipy_stats.binom.pmf(k, b + c, 0.5)
        )
        assert m.p_mid == pytest.approx(min(1.0, mid), rel=1e-10)


@pytest.mark.parametrize(("a", "d"), [(20, 5), (12, 3), (40, 10)])
def test_newcombe_paired_reduces_to_the_independent_newcombe_when_phi_is_zero(a, d):
    # With ad = bc the table's phi is 0, and method 10 is the independent-samples hybrid score
    # interval of the two margins (statsmodels' method="newcomb").
    b, c = 4, (a * d) // 4
    assert a * d == b * c
    n = a + b + c + d
    i = newcombe_paired_interval(a, b, c, d)
    lo, hi = proportion.confint_proportions_2indep(
        a + c, n, a + b, n, method="newcomb", compare="diff"
    )
    assert (i.low, i.high) == pytest.approx((lo, hi), abs=1e-10)


def test_paired_t_p_matches_ttest_rel():
    rng = random.Random(11)
    a = [rng.random() for _ in range(80)]
    b = [x + rng.gauss(-0.03, 0.1) for x in a]
    c = compare_paired([[x] for x in a], [[y] for y in b])
    ref = scipy_stats.ttest_rel(b, a)
    assert c.test == "paired-t"
    assert c.p_value == pytest.approx(ref.pvalue, rel=1e-8)
    assert c.delta / c.se_paired == pytest.approx(ref.statistic, rel=1e-10)
    lo, hi = ref.confidence_interval(0.95)
    assert (c.interval.low, c.interval.high) == pytest.approx((lo, hi), rel=1e-9)
    assert paired_t_p(0.0, 0.0, 10) == 1.0


def test_holm_matches_statsmodels(monkeypatch):
    # multipletests runs gc.collect() on every call: a second each in a test process's heap,
    # and nothing to do with the adjusted p-values compared here
    import gc

    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    rng = random.Random(2)
    for _ in range(30):
        p = [rng.random() ** 3 for _ in range(rng.randrange(1, 9))]
        ref = multitest.multipletests(p, method="holm")[1]
        assert holm(p) == pytest.approx(list(ref), abs=1e-12)


def test_sign_flip_exact_matches_scipy_permutation_test():
    rng = random.Random(4)
    for n in (5, 8, 11):
        d = [rng.choice([-1, -0.5, 0, 0.5, 1, 1]) for _ in range(n)]
        ours = sign_flip_test(d)
        ref = scipy_stats.permutation_test(
            (np.asarray(d), np.zeros(n)),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
        )
        assert ours.resamples == 0
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)


def test_sign_flip_randomized_agrees_with_scipy_within_monte_carlo_error():
    rng = random.Random(6)
    d = [rng.choice([-2 / 3, -1 / 3, 0, 1 / 3, 2 / 3]) - 0.04 for _ in range(300)]
    ours = sign_flip_test(d, resamples=20000, seed=1)
    ref = scipy_stats.permutation_test(
        (np.asarray(d), np.zeros(len(d))),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=20000,
        random_state=1,
    )
    assert ours.resamples == 20000 and ours.seed == 1
    assert ours.p_value == pytest.approx(ref.pvalue, abs=0.015)


def test_paired_bootstrap_bca_agrees_with_scipy():
    rng = random.Random(9)
    a = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(150)]
    b = [min(1.0, max(0.0, x + rng.choice([-1 / 3, 0, 0, 1 / 3]))) for x in a]
    d = [y - x for x, y in zip(a, b, strict=True)]
    ours = bca_interval(d, resamples=20000, seed=3)
    ref = scipy_stats.bootstrap(
        (np.asarray(b), np.asarray(a)),
        lambda y, x, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
        paired=True,
        method="BCa",
        n_resamples=20000,
        random_state=3,
    ).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.006)
    assert ours.high == pytest.approx(ref.high, abs=0.006)


def test_bootstrap_pure_python_and_numpy_agree(monkeypatch):
    from tooleval.stats import resample

    values = [float(i % 3 == 0) for i in range(90)]
    fast = bca_interval(values, resamples=8000, seed=2)
    monkeypatch.setattr(resample, "numpy_or_none", lambda: None)
    slow = bca_interval(values, resamples=8000, seed=2)
    assert slow.low == pytest.approx(fast.low, abs=0.02)
    assert slow.high == pytest.approx(fast.high, abs=0.02)
    flip = sign_flip_test([v - 0.3 for v in values], resamples=4000, seed=2)
    assert 0 <= flip.p_value <= 1


# --- pass@k and pass^k ------------------------------------------------------------------------
def test_pass_at_k_and_pass_hat_k_equal_the_binomial_forms():
    for n in range(1, 12):
        for c in range(n + 1):
            for k in range(1, n + 1):
                at = 1 - math.comb(n - c, k) / math.comb(n, k)
                hat = math.comb(c, k) / math.comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(at, abs=1e-12)
                assert pass_hat_k(n, c, k) == pytest.approx(hat, abs=1e-12)
    assert pass_at_k(500, 3, 250) == pytest.approx(1 - math.comb(497, 250) / math.comb(500, 250))


def test_pass_hat_k_se_is_over_rows_not_the_plug_in():
    rows = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 1, 1]]
    s = summarize(rows)
    per_row = [pass_hat_k(3, int(sum(r)), 2) for r in rows]
    assert s.pass_hat_k[2].mean == pytest.approx(float(np.mean(per_row)))
    assert s.pass_hat_k[2].se == pytest.approx(scipy_stats.sem(per_row))
    plug_in = (sum(map(sum, rows)) / 15) ** 2
    assert s.pass_hat_k[2].mean != pytest.approx(plug_in)


def test_power_inverses():
    n = rows_needed(0.05, omega2=0.02, sigma2_a=0.2, k_a=3)
    assert (
        mde(n, omega2=0.02, sigma2_a=0.2, k_a=3)
        <= 0.05
        < mde(n - 1, omega2=0.02, sigma2_a=0.2, k_a=3)
    )
    k = repeats_needed(0.06, 200, omega2=0.02, sigma2=0.2)
    assert k is not None
    assert (
        mde(200, omega2=0.02, sigma2_a=0.2, k_a=k)
        <= 0.06
        < mde(200, omega2=0.02, sigma2_a=0.2, k_a=k - 1)
    )


def test_mean_se_and_t_interval_edges():
    assert mean_se([0.5]) == (0.5, 0.0)
    one = t_interval(0.5, 0.0, 0)
    assert (one.low, one.high) == (0.0, 1.0)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, 95)


def test_within_row_variance_and_flaky_rows_match_numpy():
    rng = random.Random(12)
    rows = [
        [float(rng.random() < p) for _ in range(rng.choice([2, 3, 5]))]
        for p in (rng.random() for _ in range(120))
    ]
    s = summarize(rows)
    assert s.within_variance == pytest.approx(float(np.mean([np.var(r, ddof=1) for r in rows])))
    assert s.flaky == sum(1 for r in rows if 0 < sum(r) < len(r))
    scores = [[rng.random() for _ in range(3)] for _ in range(50)]
    assert summarize(scores).within_variance == pytest.approx(
        float(np.mean([np.var(r, ddof=1) for r in scores]))
    )


def test_a_repeated_run_where_everything_passed_gets_the_exact_bound_not_a_point():
    s = summarize([[1.0, 1.0, 1.0]] * 25)
    lo, hi = proportion.proportion_confint(25, 25, alpha=0.05, method="beta")
    assert (s.interval.low, s.interval.high) == pytest.approx((lo, hi))
    assert s.interval.method == "clopper-pearson"
