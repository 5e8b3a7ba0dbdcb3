"""Many runs side by side: every dataset row with each run's verdict, for the viewer's matrix.

Rows are read through :func:`tooleval.report.compare.lean_rows` (no sample or diagnosis
decoded) and grouped into dataset rows as ``compare`` groups them
(:func:`tooleval.analysis.noise.read_attempts`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tooleval.report.compare import lean_rows
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = ["MATRIX_ORDER", "MatrixRow", "run_matrix"]


@dataclasses.dataclass(frozen=True)
class MatrixRow:
    """One dataset row across runs: per run its cell, or None (absent from that run)."""

    row_id: str
    category: str | None
    #: per run ``(verdict, mean score by metric, every attempt an error, (passed, attempts))``
    #: or None (absent); the verdict is True when every attempt passed (errors count as not
    #: passed), None when nothing was scored
    cells: tuple[tuple[bool | None, dict[str, float | None], bool, tuple[int, int]] | None, ...]
    change: str  # regressed | fixed | flaky | failing | passing | partial
    indexes: tuple[int | None, ...] = ()


#: The order rows come in: what got worse first, what always passed last.
MATRIX_ORDER = ("regressed", "flaky", "fixed", "partial", "failing", "passing")


def _row_change(verdicts: Sequence[bool | None]) -> str:
    known = [v for v in verdicts if v is not None]
    if len(known) < len(verdicts):
        return "partial" if known else "failing"
    if all(known):
        return "passing"
    if not any(known):
        return "failing"
    if known[-1] is False:
        return "regressed"
    if known[0] is False and all(known[known.index(True) :]):
        return "fixed"
    return "flaky"


def _cell(entry: Any, metrics: Sequence[str]) -> tuple[Any, ...]:
    from tooleval.analysis.noise import VERDICT

    verdicts = entry.values.get(VERDICT) or []
    passed = int(sum(verdicts))
    verdict = None if not verdicts else passed == len(verdicts)
    scores = {
        m: sum(entry.scores[m]) / len(entry.scores[m]) for m in metrics if entry.scores.get(m)
    }
    return (verdict, scores, entry.errors == entry.attempts, (passed, len(verdicts)))


def run_matrix(store: StoreReader, runs: Sequence[RunInfo]) -> list[MatrixRow]:
    """Every dataset row of ``runs`` (oldest to newest as given) with each run's verdict and
    scores.

    Read through :func:`lean_rows` (no sample or diagnosis decoded) and grouped into
    dataset rows as ``compare`` groups them (:func:`tooleval.analysis.noise.read_attempts`):
    a repeated run's attempts are one cell, passed when every attempt passed, with its
    passed attempts. Rows are ordered regressed (passed before, fails in the last run),
    flaky, fixed, partial (absent from some run), failing everywhere, passing everywhere;
    then by row id.

    >>> _row_change([True, False]), _row_change([False, True]), _row_change([True, False, True])
    ('regressed', 'fixed', 'flaky')
    """
    from tooleval.analysis.noise import read_attempts

    table: dict[str, list[Any]] = {}
    categories: dict[str, str | None] = {}
    indexes: dict[str, list[int | None]] = {}
    for place, run in enumerate(runs):
        metrics = [m.name for m in run.metrics] or list(run.summaries)
        for entry in read_attempts(run, lean_rows(store, run), verdict=True).rows:
            cells = table.setdefault(entry.key, [None] * len(runs))
            at = indexes.setdefault(entry.key, [None] * len(runs))
            categories.setdefault(entry.key, entry.category)
            cells[place] = _cell(entry, metrics)
            at[place] = entry.first_index
    out = [
        MatrixRow(
            row_id,
            categories.get(row_id),
            tuple(cells),
            # Unscored or error counts as not passed; an absent row is None.
            _row_change([c[0] is True if c is not None else None for c in cells]),
            tuple(indexes[row_id]),
        )
        for row_id, cells in table.items()
    ]
    out.sort(key=lambda r: (MATRIX_ORDER.index(r.change), r.row_id))
    return out
