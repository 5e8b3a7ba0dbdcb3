"""One tally of results: the counts of a metric's rows and the figures drawn from them.

Every surface that counts results counts them here: the read model of a stored
run (:func:`tooleval.analysis.figures.run_figures`, from the database's
counts), ``tooleval score``'s table and gate (from the result lines as they are
written, or from the compiled kernel's own counters), :func:`tooleval.evaluate`'s
summaries and the gate's fallback when only a run's counts are at hand.

One rule counts (docs/runs.md, "Errors count"): a result with a score is passed
or failed by its verdict; a row that could not be run (an error row) counts as
not passed; a result without a score for another reason is *unscored*, left
out of the pass rate and counted apart. The pass rate is
``passed / (passed + failed + errors)``, with one interval method per figure
(docs/statistics.md): Wilson for one 0/1 verdict per row; the mean score a
Wilson interval when every score is 0 or 1, a t interval otherwise.

>>> t = Tally()
>>> for score, passed in [(1.0, True), (0.5, False), (None, None), (1.0, True)]:
...     t.add(score, passed)
>>> (t.rows, t.passed, t.failed, t.unscored, t.rate, t.mean)
(4, 2, 1, 1, 0.6666666666666666, 0.8333333333333334)
>>> estimate_text(t.rate_estimate())
'66.7% [20.8, 93.9] (95% wilson, n=3, K=1)'
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt
from typing import Any

from tooleval.stats.intervals import Interval, t_interval
from tooleval.stats.summary import (
    RateSummary,
    counted_mean_var,
    few_rows_note,
    verdict_interval,
)

__all__ = ["Estimate", "Tally", "estimate_text"]


@dataclass(frozen=True, slots=True)
class Estimate:
    """One figure with its interval: the value, the interval (with its method), n and K."""

    value: float
    interval: Interval
    n: int  # the units the interval rests on: dataset rows
    attempts: tuple[int, int] = (1, 1)  # (fewest, most) attempts per row
    clusters: int | None = None
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, summary: RateSummary) -> Estimate:
        return cls(
            summary.mean,
            summary.interval,
            summary.n,
            summary.attempts,
            summary.clusters,
            summary.notes,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "interval": self.interval.to_dict(),
            "n": self.n,
            "attempts": list(self.attempts),
            "clusters": self.clusters,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Estimate:
        i = d["interval"]
        return cls(
            float(d["value"]),
            Interval(float(i["low"]), float(i["high"]), float(i["confidence"]), str(i["method"])),
            int(d["n"]),
            (int(d["attempts"][0]), int(d["attempts"][1])),
            None if d["clusters"] is None else int(d["clusters"]),
            tuple(d["notes"]),
        )

    @property
    def bounds(self) -> str:
        """``[76.1, 87.0]``: the interval in percent."""
        return f"[{100 * self.interval.low:.1f}, {100 * self.interval.high:.1f}]"


def estimate_text(e: Estimate) -> str:
    """``82.0% [76.1, 87.0] (95% wilson, n=200, K=1)``, with the clusters when there are.

    >>> from tooleval.stats import wilson_interval
    >>> estimate_text(Estimate(0.85, wilson_interval(17, 20), 20))
    '85.0% [64.0, 94.8] (95% wilson, n=20, K=1)'
    """
    k = e.attempts
    attempts = f"K={k[0]}" if k[0] == k[1] else f"K={k[0]}-{k[1]}"
    clusters = f", {e.clusters} clusters" if e.clusters is not None else ""
    return (
        f"{e.value:.1%} {e.bounds} "
        f"({e.interval.confidence:.0%} {e.interval.method}, n={e.n}, {attempts}{clusters})"
    )


def binary_estimate(passed: int, counted: int, confidence: float = 0.95) -> Estimate | None:
    """A rate of one 0/1 verdict per row from its counts: what :func:`summarize` gives the
    rows themselves (the same mean, interval and notes), without making them."""
    if counted <= 0:
        return None
    mean = counted_mean_var({1.0: passed, 0.0: counted - passed})[0]
    interval, _, notes = verdict_interval(passed, counted, confidence)
    return Estimate(mean, interval, counted, (1, 1), None, (*notes, *few_rows_note(counted)))


@dataclass(slots=True)
class Tally:
    """One metric's results counted (see the module docstring for the rule).

    ``scores`` counts the results with a score, ``score_sum`` / ``square_sum``
    their sum and sum of squares (in the order added), ``nonbinary`` those
    neither 0 nor 1: enough for the mean score and its interval. A counter that
    keeps no squares (the compiled kernel's stream) leaves ``square_sum`` None.
    """

    passed: int = 0
    failed: int = 0
    errors: int = 0
    unscored: int = 0
    scores: int = 0
    score_sum: float = 0.0
    square_sum: float | None = 0.0  # None: the counter kept no squares (no mean interval)
    nonbinary: int = 0

    def add(self, score: float | None, passed: bool | None) -> None:
        """Count one result (``score`` None: unscored, whatever ``passed`` says)."""
        if score is None:
            self.unscored += 1
            return
        self.scores += 1
        self.score_sum += score
        if self.square_sum is not None:
            self.square_sum += score * score
        if score not in (0.0, 1.0):
            self.nonbinary += 1
        if passed:
            self.passed += 1
        else:
            self.failed += 1

    @property
    def rows(self) -> int:
        """Every result counted, errors and unscored ones included."""
        return self.passed + self.failed + self.errors + self.unscored

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    @property
    def counted(self) -> int:
        """What the pass rate counts: passed, failed and error rows."""
        return self.passed + self.failed + self.errors

    @property
    def rate(self) -> float | None:
        """The pass rate (None when nothing was counted)."""
        return self.passed / self.counted if self.counted else None

    @property
    def mean(self) -> float | None:
        """The mean score over the scored results (None when none was)."""
        return self.score_sum / self.scores if self.scores else None

    def rate_estimate(self, confidence: float = 0.95) -> Estimate | None:
        """The pass rate with its Wilson interval over the counted rows."""
        return binary_estimate(self.passed, self.counted, confidence)

    def mean_estimate(self, confidence: float = 0.95) -> Estimate | None:
        """The mean score with its interval: Wilson when every score is 0 or 1, else t."""
        n = self.scores
        if n <= 0:
            return None
        if self.square_sum is None:
            raise ValueError("this tally kept no sum of squares: the mean's interval is unknown")
        if not self.nonbinary:
            return binary_estimate(round(self.score_sum), n, confidence)
        mean = self.score_sum / n
        var = max(0.0, (self.square_sum - n * mean * mean) / (n - 1)) if n > 1 else 0.0
        interval = t_interval(mean, sqrt(var / n), n - 1, confidence)
        return Estimate(mean, interval, n, (1, 1), None, few_rows_note(n))
