"""The numbers a report and the viewer show above the rows, as plain records.

They are computed in the database and stored with the run by
:mod:`tooleval.analysis.aggregates`; these are their shapes. They are counts
only: every rate and interval is the read model's
(:func:`tooleval.analysis.figures.run_figures`, counted with
:class:`tooleval.stats.tally.Tally`).

>>> CategoryStats("refund", rows=10, passed=6, failed=3, errors=1).metric_counts
{}
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CategoryStats", "ScoreBins"]


@dataclass(frozen=True, slots=True)
class CategoryStats:
    """One category of a run: row counts and, per metric, [passed, failed] results."""

    category: str
    rows: int
    passed: int
    failed: int
    errors: int
    metric_counts: dict[str, list[int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoreBins:
    """A metric's score histogram over a run: ``counts`` per bar, the last for exactly 1.0.

    Unscored results are counted apart (``unscored``), never drawn as 0.
    """

    metric: str
    counts: list[int]
    unscored: int
    threshold: float | None
