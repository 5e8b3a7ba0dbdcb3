"""Properties of tooleval.stats over random data (hypothesis), and its refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.stats import (
    ON_UNCERTAIN,
    Interval,
    compare_paired,
    compare_verdict,
    holm,
    mcnemar,
    newcombe_paired_interval,
    non_inferiority,
    summarize,
    threshold_verdict,
    wilson_interval,
)

binary_rows = st.lists(
    st.lists(st.sampled_from([0.0, 1.0]), min_size=3, max_size=3), min_size=2, max_size=60
)


@given(st.integers(0, 400), st.integers(1, 400), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_contains_the_estimate_and_stays_in_0_1(x, n, confidence):
    x = min(x, n)
    w = wilson_interval(x, n, confidence)
    assert 0.0 <= w.low <= x / n <= w.high <= 1.0


@given(binary_rows, st.sampled_from([0.9, 0.95]))
@settings(max_examples=60, deadline=None)
def test_summary_interval_contains_the_mean_and_is_wider_at_higher_confidence(rows, confidence):
    s = summarize(rows, confidence=confidence)
    wider = summarize(rows, confidence=0.99)
    assert s.interval.low <= s.mean + 1e-12 and s.mean <= s.interval.high + 1e-12
    assert wider.interval.low <= s.interval.low + 1e-12
    assert wider.interval.high >= s.interval.high - 1e-12
    assert s.flaky == sum(1 for r in rows if 0 < sum(r) < 3)
    assert 0.0 <= s.pass_hat_k[3].mean <= s.mean <= s.pass_at_k[3].mean <= 1.0


@given(binary_rows)
@settings(max_examples=60, deadline=None)
def test_a_run_compared_with_itself_moves_nothing(rows):
    c = compare_paired(rows, rows, resamples=200)
    assert c.delta == 0.0 and c.se_paired == 0.0
    assert compare_verdict(c.interval, mde=c.mde).kind == "inconclusive"


@given(binary_rows, binary_rows)
@settings(max_examples=60, deadline=None)
def test_swapping_the_runs_negates_the_difference(a, b):
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    ab = compare_paired(a, b, resamples=0)
    ba = compare_paired(b, a, resamples=0)
    assert ab.delta == pytest.approx(-ba.delta)
    assert ab.interval.low == pytest.approx(-ba.interval.high)
    assert ab.se_paired == pytest.approx(ba.se_paired)


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_newcombe_contains_the_difference_and_mirrors(a, b, c, d):
    if a + b + c + d == 0:
        return
    i = newcombe_paired_interval(a, b, c, d)
    delta = (c - b) / (a + b + c + d)
    assert -1.0 <= i.low <= delta + 1e-12 and delta - 1e-12 <= i.high <= 1.0
    j = newcombe_paired_interval(a, c, b, d)
    assert i.low == pytest.approx(-j.high) and i.high == pytest.approx(-j.low)
    m = mcnemar(b, c)
    assert 0 <= m.p_mid <= m.p_exact <= 1


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_is_monotone_and_never_below_the_raw_p(p):
    adjusted = holm(p)
    assert all(q >= r - 1e-15 for q, r in zip(adjusted, p, strict=True))
    order = sorted(range(len(p)), key=lambda i: p[i])
    assert [adjusted[i] for i in order] == sorted(adjusted)


def test_verdicts_and_the_threshold_gate():
    below = Interval(-0.07, -0.01, 0.95, "t")
    assert compare_verdict(below, mde=0.04).kind == "regression"
    assert compare_verdict(below, mde=0.04, margin=0.02).kind == "inconclusive"
    assert compare_verdict(Interval(0.01, 0.05, 0.95, "t"), mde=0.04).kind == "improvement"
    assert non_inferiority(below, 0.08) and not non_inferiority(below, 0.05)
    assert threshold_verdict(Interval(0.81, 0.9, 0.95, "wilson"), 0.8).outcome == "pass"
    assert threshold_verdict(Interval(0.6, 0.79, 0.95, "wilson"), 0.8).outcome == "fail"
    straddle = Interval(0.7, 0.9, 0.95, "wilson")
    assert not threshold_verdict(straddle, 0.8).passed  # default: uncertain fails
    assert threshold_verdict(straddle, 0.8, on_uncertain="pass").passed
    assert threshold_verdict(straddle, 0.8, estimate=0.85, on_uncertain="point").passed
    assert set(ON_UNCERTAIN) == {"fail", "pass", "point"}
    with pytest.raises(ValueError, match="on_uncertain"):
        threshold_verdict(straddle, 0.8, on_uncertain="maybe")


def test_refusals_name_what_is_wrong():
    with pytest.raises(ValueError, match="no rows"):
        summarize([])
    with pytest.raises(ValueError, match="row 1 has no attempt"):
        summarize([[1.0], []])
    with pytest.raises(ValueError, match="3 rows in A, 2 in B"):
        compare_paired([[1.0]] * 3, [[1.0]] * 2)
    with pytest.raises(ValueError, match="cluster keys"):
        summarize([[1.0]] * 3, clusters=["a"])


def test_few_rows_are_noted_and_k_over_one_gets_the_cross_checks():
    rows_a = [[1, 0, 1], [1, 1, 1], [0, 0, 1]] * 4
    rows_b = [[0, 0, 1], [1, 1, 0], [0, 0, 0]] * 4
    c = compare_paired(rows_a, rows_b, seed=7)
    assert any("only 12 rows" in note for note in c.notes)
    assert c.sign_flip is not None and c.sign_flip.seed == 7
    assert c.bootstrap is not None and c.bootstrap.seed == 7
    assert c.test == "paired-t" and c.mcnemar is None
    assert c.sigma2_a is not None and c.omega2 is not None
