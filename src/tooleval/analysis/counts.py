"""The numbers a report and the viewer show above the rows, as plain records.

They are computed in the database and stored with the run by
:mod:`tooleval.analysis.aggregates`; these are their shapes.

>>> CategoryStats("refund", rows=10, passed=6, failed=3, errors=1).pass_rate
0.6666666666666666
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CategoryStats", "ScoreBins"]


@dataclass(frozen=True, slots=True)
class CategoryStats:
    """One category of a run: row counts and per-metric pass rates."""

    category: str
    rows: int
    passed: int
    failed: int
    errors: int
    pass_rates: dict[str, float | None] = field(default_factory=dict)
    #: Per metric: [passed, failed] results (empty in counts stored by older tooleval).
    metric_counts: dict[str, list[int]] = field(default_factory=dict)

    @property
    def pass_rate(self) -> float | None:
        """Rows whose every scored result passed, over rows with a verdict."""
        decided = self.passed + self.failed
        return self.passed / decided if decided else None


@dataclass(frozen=True, slots=True)
class ScoreBins:
    """A metric's score histogram over a run: ``counts`` per bar, the last for exactly 1.0.

    Unscored results are counted apart (``unscored``), never drawn as 0.
    """

    metric: str
    counts: list[int]
    unscored: int
    threshold: float | None
