"""The corrected rate's interval against scipy and statsmodels, on simulated judges of known error.

Judges with known TPR/TNR judge simulated rows (scipy's binomial draws); the
corrected pass rate's interval must

- be as wide as the estimator really varies: its half-width over scipy's normal
  quantile matches the spread of the corrected rates across the simulations;
- cover the true rate 93-97% of the time at n >= 200 labelled rows, a coverage
  statsmodels' Wilson interval of the simulation count places inside that band;
- carry the calibration's uncertainty: the sampling-only interval (statsmodels'
  Wilson interval of the judged rate, corrected with the measured TPR/TNR)
  covers less often than it claims when the labels are few.

(Coverage over more settings: tests/stats/test_calibration.py.)
"""

from __future__ import annotations

import pytest

from tooleval.stats.calibration import Confusion, corrected_rate

stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle of these tests")
proportion = pytest.importorskip("statsmodels.stats.proportion")

# (true rate, judge TPR, judge TNR, labelled rows, judged rows): away from 0 and 1, where
# clipping to [0, 1] would bend the spread
SETTINGS = [(0.5, 0.9, 0.8, 200, 500), (0.35, 0.8, 0.85, 250, 1000), (0.6, 0.95, 0.75, 300, 800)]
REPS = 1000


def _simulate(rate, tpr, tnr, labelled, judged, seed):
    """``REPS`` corrected rates of judges of known error: [(corrected, interval)]."""
    positives = stats.binom.rvs(labelled, rate, size=REPS, random_state=seed)
    tp = stats.binom.rvs(positives, tpr, random_state=seed + 1)
    tn = stats.binom.rvs(labelled - positives, tnr, random_state=seed + 2)
    observed = rate * tpr + (1 - rate) * (1 - tnr)
    passed = stats.binom.rvs(judged, observed, size=REPS, random_state=seed + 3)
    out = []
    for i in range(REPS):
        negatives = labelled - int(positives[i])
        c = Confusion(int(tp[i]), int(positives[i] - tp[i]), negatives - int(tn[i]), int(tn[i]))
        out.append((corrected_rate(int(passed[i]), judged, c), c))
    return out


@pytest.mark.parametrize(("setting", "seed"), [(s, 11 * i + 3) for i, s in enumerate(SETTINGS)])
def test_the_interval_is_as_wide_as_the_estimator_varies_and_covers(setting, seed):
    rate = setting[0]
    runs = _simulate(*setting, seed)
    z = stats.norm.ppf(0.975)
    corrected = [r.corrected for r, _ in runs]
    assert all(v is not None for v in corrected)
    mean = sum(corrected) / REPS
    spread = (sum((v - mean) ** 2 for v in corrected) / (REPS - 1)) ** 0.5
    half = [(r.interval.high - r.interval.low) / 2 for r, _ in runs]
    implied = sum(half) / REPS / z
    # 1000 simulations estimate a spread to about 2.2%: 12% apart is a wrong width.
    assert implied == pytest.approx(spread, rel=0.12), (implied, spread)
    assert mean == pytest.approx(rate, abs=0.01)  # Rogan-Gladen is unbiased to first order
    hits = sum(r.interval.low <= rate <= r.interval.high for r, _ in runs)
    low, high = proportion.proportion_confint(hits, REPS, alpha=0.01, method="wilson")
    # the coverage is inside 93-97%, up to the simulation's own error (99% Wilson)
    assert low <= 0.97 and high >= 0.93, hits / REPS
    assert 0.92 <= hits / REPS <= 0.98, hits / REPS


def test_an_interval_without_the_calibration_term_covers_too_rarely():
    # Few labels (n=200) against many judged rows: the labels' error dominates.
    rate, tpr, tnr, labelled, judged = 0.5, 0.85, 0.8, 200, 5000
    runs = _simulate(rate, tpr, tnr, labelled, judged, seed=101)
    carried = sum(r.interval.low <= rate <= r.interval.high for r, _ in runs) / REPS
    sampling_only = 0
    for r, c in runs:
        passed = round(r.observed * r.n)
        low, high = proportion.proportion_confint(passed, r.n, alpha=0.05, method="wilson")
        youden = c.tpr + c.tnr - 1
        lo, hi = ((p + c.tnr - 1) / youden for p in (low, high))
        sampling_only += lo <= rate <= hi
    assert 0.93 <= carried <= 0.97, carried
    assert sampling_only / REPS < 0.6, sampling_only / REPS
