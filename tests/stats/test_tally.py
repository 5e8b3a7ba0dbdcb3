"""The one tally (tooleval.stats.tally): its counting rule and figures against summarize()."""

from __future__ import annotations

import random

import pytest

from tooleval.stats import summarize
from tooleval.stats.tally import Estimate, Tally, binary_estimate


@pytest.mark.parametrize("n", [1, 2, 7, 29, 30, 31, 200, 5000])
def test_a_rate_from_counts_is_what_summarize_gives_the_rows(n):
    for passed in sorted({0, 1, n // 3, n - 1, n} - {-1}):
        rows = [[1.0]] * passed + [[0.0]] * (n - passed)
        assert binary_estimate(passed, n) == Estimate.of(summarize(rows))
        assert binary_estimate(passed, n, 0.8) == Estimate.of(summarize(rows, confidence=0.8))


def test_errors_count_as_not_passed_and_unscored_apart():
    t = Tally()
    for score, verdict in [(1.0, True), (0.0, False), (None, True), (0.5, None)]:
        t.add(score, verdict)  # a score without a verdict is not a pass; no score is unscored
    t.errors += 2
    assert (t.passed, t.failed, t.errors, t.unscored, t.rows) == (1, 2, 2, 1, 6)
    assert t.counted == 5 and t.rate == pytest.approx(0.2) and t.mean == pytest.approx(0.5)
    assert t.rate_estimate() == binary_estimate(1, 5)
    assert Tally().rate is None and Tally().rate_estimate() is None
    assert Tally(unscored=3).mean_estimate() is None


def test_the_mean_score_is_wilson_for_0_1_scores_and_t_otherwise():
    rng = random.Random(3)
    scores = [rng.random() for _ in range(120)]
    t = Tally()
    for s in scores:
        t.add(s, s >= 0.5)
    found = t.mean_estimate()
    assert found is not None and found.interval.method == "t"
    assert found.value == pytest.approx(sum(scores) / len(scores))
    expected = summarize([[s] for s in scores])
    assert found.interval.low == pytest.approx(expected.interval.low)
    assert found.interval.high == pytest.approx(expected.interval.high)
    binary = Tally()
    for s in (1.0, 0.0, 1.0, 1.0):
        binary.add(s, s == 1.0)
    assert binary.mean_estimate() == binary_estimate(3, 4)


def test_a_tally_without_squares_refuses_the_mean_interval():
    counted = Tally(3, 1, 0, 0, 4, 3.2, square_sum=None)
    assert counted.mean == pytest.approx(0.8)
    with pytest.raises(ValueError, match="no sum of squares"):
        counted.mean_estimate()
