"""Judge calibration figures against statsmodels, and the corrected rate's coverage by simulation."""

from __future__ import annotations

import random

import pytest

from tooleval.stats.calibration import (
    Confusion,
    calibration_figures,
    confusion,
    corrected_rate,
)


def _pairs(seed: int, n: int, tpr: float, tnr: float, prevalence: float):
    rng = random.Random(seed)
    truth = [rng.random() < prevalence for _ in range(n)]
    verdicts = [(rng.random() < tpr) if t else (rng.random() >= tnr) for t in truth]
    return truth, verdicts


@pytest.mark.parametrize(
    ("seed", "n", "tpr", "tnr", "prevalence"),
    [
        (1, 50, 0.9, 0.8, 0.5),
        (2, 237, 0.7, 0.95, 0.3),
        (3, 20, 0.5, 0.5, 0.5),
        (4, 400, 1.0, 0.6, 0.8),
    ],
)
def test_kappa_tpr_tnr_and_wilson_equal_statsmodels(seed, n, tpr, tnr, prevalence):
    from statsmodels.stats.inter_rater import cohens_kappa
    from statsmodels.stats.proportion import proportion_confint

    truth, verdicts = _pairs(seed, n, tpr, tnr, prevalence)
    c = confusion(truth, verdicts)
    table = [[c.tp, c.fn], [c.fp, c.tn]]
    assert c.kappa == pytest.approx(cohens_kappa(table, return_results=False), abs=1e-12)
    figures = calibration_figures(c)
    positives = sum(truth)
    assert figures["tpr"]["value"] == pytest.approx(
        sum(v for t, v in zip(truth, verdicts, strict=True) if t) / positives
    )
    assert figures["tnr"]["value"] == pytest.approx(
        sum(not v for t, v in zip(truth, verdicts, strict=True) if not t) / (n - positives)
    )
    for key, successes, total in (
        ("tpr", c.tp, c.tp + c.fn),
        ("tnr", c.tn, c.fp + c.tn),
        ("agreement", c.tp + c.tn, c.n),
    ):
        low, high = proportion_confint(successes, total, alpha=0.05, method="wilson")
        assert figures[key]["interval"]["low"] == pytest.approx(low, abs=1e-9)
        assert figures[key]["interval"]["high"] == pytest.approx(high, abs=1e-9)


def test_kappa_and_rates_equal_scikit_learn_when_installed():
    metrics = pytest.importorskip(
        "sklearn.metrics", reason="scikit-learn is not installed (statsmodels is the oracle)"
    )
    truth, verdicts = _pairs(7, 300, 0.8, 0.9, 0.4)
    c = confusion(truth, verdicts)
    assert c.kappa == pytest.approx(metrics.cohen_kappa_score(truth, verdicts))
    assert c.tpr == pytest.approx(metrics.recall_score(truth, verdicts))
    assert c.tnr == pytest.approx(metrics.recall_score(truth, verdicts, pos_label=False))
    (tn, fp), (fn, tp) = metrics.confusion_matrix(truth, verdicts, labels=[False, True])
    assert (c.tp, c.fn, c.fp, c.tn) == (tp, fn, fp, tn)


def test_undefined_cases_are_stated_not_guessed():
    assert Confusion(0, 0, 0, 0).kappa is None
    assert Confusion(0, 0, 0, 0).agreement is None
    assert Confusion(5, 0, 0, 0).kappa == 0.0  # one class on both sides: nothing beyond chance
    assert Confusion(5, 0, 0, 0).tnr is None
    assert calibration_figures(Confusion(5, 0, 0, 0))["tnr"] is None
    with pytest.raises(ValueError, match="2 labels but 1 verdicts"):
        confusion([True, False], [True])


def test_correction_refuses_a_judge_no_better_than_chance():
    coin = corrected_rate(50, 100, Confusion(tp=50, fn=50, fp=50, tn=50))
    assert coin.corrected is None and coin.interval is None
    assert "no better than chance" in (coin.reason or "")
    unlabelled_fails = corrected_rate(50, 100, Confusion(tp=50, fn=0, fp=0, tn=0))
    assert unlabelled_fails.corrected is None
    assert "people failed" in (unlabelled_fails.reason or "")
    with pytest.raises(ValueError, match="passed <= n"):
        corrected_rate(5, 4, Confusion(1, 1, 1, 1))


def test_correction_undoes_a_known_bias():
    # True rate 0.5 judged by TPR 0.9 / TNR 0.8: the judge reports 0.55.
    r = corrected_rate(550, 1000, Confusion(tp=900, fn=100, fp=200, tn=800))
    assert r.observed == 0.55
    assert r.corrected == pytest.approx(0.5)
    assert r.interval is not None and r.interval.low < 0.5 < r.interval.high
    # A perfect judge on its labels: the correction is the rate, and the interval is
    # wider than the sampling alone (the labels are finite).
    perfect = corrected_rate(30, 100, Confusion(tp=100, fn=0, fp=0, tn=100))
    assert perfect.corrected == pytest.approx(0.3)
    assert perfect.interval is not None and perfect.interval.high - perfect.interval.low > 0.17


# (true rate, judge TPR, judge TNR, labelled rows, judged rows)
SETTINGS = [
    (0.5, 0.9, 0.8, 200, 500),
    (0.2, 0.85, 0.9, 200, 1000),
    (0.8, 0.95, 0.7, 250, 500),
    (0.3, 0.75, 0.75, 300, 2000),
    (0.1, 0.95, 0.95, 200, 1000),
    (0.9, 0.99, 0.9, 400, 1000),
]


def test_corrected_interval_covers_the_true_rate_93_to_97_percent():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(20261203)
    reps = 1500
    covered = []
    for rate, tpr, tnr, labelled, judged in SETTINGS:
        positives = rng.binomial(labelled, rate, reps)
        tp = rng.binomial(positives, tpr)
        tn = rng.binomial(labelled - positives, tnr)
        passed = rng.binomial(judged, rate * tpr + (1 - rate) * (1 - tnr), reps)
        hits = 0
        for i in range(reps):
            c = Confusion(int(tp[i]), int(positives[i] - tp[i]), 0, 0)
            negatives = int(labelled - positives[i])
            c = Confusion(c.tp, c.fn, negatives - int(tn[i]), int(tn[i]))
            r = corrected_rate(int(passed[i]), judged, c)
            hits += r.interval is not None and r.interval.low <= rate <= r.interval.high
        covered.append(hits / reps)
    pooled = sum(covered) / len(covered)
    assert 0.93 <= pooled <= 0.97, covered
    # No single setting falls far below its nominal 95% (1500 runs: a 2.5% margin is 4 SE).
    assert min(covered) >= 0.925, covered
