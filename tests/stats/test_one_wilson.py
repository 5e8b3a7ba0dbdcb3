"""One Wilson-from-counts computation for pass rates: ``stats.summary.verdict_interval``.

Every pass-rate interval drawn from counts goes through the one tally
(:class:`tooleval.stats.tally.Tally`, which reads ``verdict_interval``): the
floors' ``counts_figure``, the gate's ``count_interval`` and pass^k / pass@k at
k = K. The source is searched so that a new surface calling ``wilson_interval``
for its own pass rate fails here; the few other uses (a paired test's margins,
a judge's agreement with labels) are listed with why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tooleval.analysis.floors import counts_figure
from tooleval.analysis.noise import count_interval
from tooleval.stats import summarize
from tooleval.stats.tally import Tally
from tooleval.store.records import RunInfo

SRC = Path(__file__).resolve().parents[2] / "src" / "tooleval"

# file -> why it may call wilson_interval itself (not a pass rate of a run)
ALLOWED = {
    "stats/intervals.py": "the definition",
    "stats/summary.py": "verdict_interval: the one pass-rate interval from counts",
    "stats/significance.py": "a paired comparison's per-run margins (McNemar), not a shown rate",
    "stats/calibration.py": "a judge's agreement with human labels, not a pass rate",
}


def test_one_place_computes_a_wilson_interval_from_counts():
    found = {}
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        calls = [
            line
            for line in text.splitlines()
            if re.search(r"\bwilson_interval\(", line) and not line.lstrip().startswith(">>>")
        ]
        if calls:
            found[str(path.relative_to(SRC))] = calls
    stray = {name: calls for name, calls in found.items() if name not in ALLOWED}
    assert not stray, f"compute a pass rate's interval with Tally, not wilson_interval: {stray}"
    summary = found["stats/summary.py"]
    assert len(summary) == 1 and "verdict_interval" not in summary[0]  # inside verdict_interval


@pytest.mark.parametrize(("passed", "failed"), [(17, 3), (0, 12), (40, 0), (1, 1), (93, 7)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_counts_figure_and_count_interval_are_the_tallys(passed, failed, confidence):
    tally = Tally(passed, failed).rate_estimate(confidence)
    assert tally is not None
    figure = counts_figure(passed, failed, confidence)
    assert figure is not None
    assert (figure.value, figure.interval, figure.n) == (tally.value, tally.interval, tally.n)
    run = RunInfo(id="r", name="n", created_at="t", status="finished")
    assert count_interval(run, passed, passed + failed, confidence) == tally.interval
    rows = [[1.0]] * passed + [[0.0]] * failed  # one attempt a row: the rows' own summary
    assert summarize(rows, confidence=confidence).interval == tally.interval


def test_a_repeated_runs_counts_are_dataset_rows():
    run = RunInfo(
        id="r",
        name="n",
        created_at="t",
        status="finished",
        config={"repeat": {"n": 3, "stride": 20}},
    )
    assert count_interval(run, 51, 60, 0.95) == Tally(17, 3).rate_estimate(0.95).interval


def test_pass_hat_k_at_k_equal_to_attempts_is_the_tallys_wilson():
    rows = [[1.0, 1.0, 1.0]] * 14 + [[1.0, 0.0, 1.0]] * 4 + [[0.0, 0.0, 0.0]] * 2
    hat = summarize(rows, confidence=0.95).pass_hat_k[3]
    assert hat.interval == Tally(14, 6).rate_estimate(0.95).interval
    assert hat.interval.method == "wilson"
    assert counts_figure(0, 0, 0.95) is None
