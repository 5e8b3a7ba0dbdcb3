"""Compare two runs row by row: what a change fixed, what it broke, what else moved.

Rows are matched by ``row_id`` (the dataset's ``id`` column). Each (row,
metric) pair is ``fixed`` (failed in A, passes in B), ``regressed``,
``score_down`` / ``score_up`` (same verdict, but the score moved: a row that
drops from 1.0 to 0.5 and still passes is not "unchanged"), ``unchanged``
(same verdict and same score), ``new`` (only in B), ``missing`` (only in A)
or ``unscored`` (not scored on one side). Configuration differences
(dataset, connector, metric parameters, judge) come first: a comparison is
only meaningful when one thing changed.

>>> flatten({"connector": {"url": "u", "headers": ["X-Key"], "params": {}}})
{'connector.url': 'u', 'connector.headers': ['X-Key']}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.figures import RunFigures, SliceFigures, run_figures
from tooleval.store import RunRowsReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "CHANGES",
    "Comparison",
    "ConfigDifference",
    "DeltaCounts",
    "RowDelta",
    "change_of",
    "compare_runs",
    "config_differences",
    "flatten",
]

CHANGES = (
    "fixed",
    "regressed",
    "score_down",
    "score_up",
    "unchanged",
    "new",
    "missing",
    "unscored",
)

#: Scores closer than this are the same score (float noise is not a change).
SCORE_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class ConfigDifference:
    """One setting that differs between the runs (``None`` = not set on that side)."""

    path: str
    a: Any
    b: Any


@dataclass(frozen=True, slots=True)
class RowDelta:
    """One row × metric across the two runs."""

    row_id: str
    metric: str
    change: str
    category: str | None = None
    index_a: int | None = None
    index_b: int | None = None
    score_a: float | None = None
    score_b: float | None = None
    passed_a: bool | None = None
    passed_b: bool | None = None

    @property
    def score_delta(self) -> float | None:
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a


@dataclass(frozen=True, slots=True)
class DeltaCounts:
    """How many row × metric pairs changed which way, and the pass rates on each side."""

    fixed: int = 0
    regressed: int = 0
    score_down: int = 0
    score_up: int = 0
    unchanged: int = 0
    new: int = 0
    missing: int = 0
    unscored: int = 0
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    mean_score_a: float | None = None
    mean_score_b: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything ``tooleval compare`` prints, as data."""

    run_a: RunInfo
    run_b: RunInfo
    differences: tuple[ConfigDifference, ...]
    metrics: dict[str, DeltaCounts]
    categories: dict[str, dict[str, DeltaCounts]]
    rows: tuple[RowDelta, ...] = field(default=())

    def changed(self, change: str, metric: str | None = None) -> list[RowDelta]:
        """The row deltas of one kind (``fixed``, ``regressed``, ...), optionally one metric."""
        return [
            d for d in self.rows if d.change == change and (metric is None or d.metric == metric)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a.id,
            "run_b": self.run_b.id,
            "differences": [{"path": d.path, "a": d.a, "b": d.b} for d in self.differences],
            "metrics": {m: c.to_dict() for m, c in self.metrics.items()},
            "categories": {
                cat: {m: c.to_dict() for m, c in per.items()}
                for cat, per in self.categories.items()
            },
            "rows": [
                {
                    "row_id": d.row_id,
                    "metric": d.metric,
                    "change": d.change,
                    "category": d.category,
                    "score_a": d.score_a,
                    "score_b": d.score_b,
                }
                for d in self.rows
            ],
        }


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested mappings as ``{"a.b.c": leaf}`` (lists are leaves; empty mappings vanish)."""
    out: dict[str, Any] = {}
    if isinstance(value, Mapping):
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    elif prefix:
        out[prefix] = value
    return out


def config_differences(run_a: RunInfo, run_b: RunInfo) -> list[ConfigDifference]:
    """Dataset, connector, metric and judge settings that differ between two runs."""

    def settings(run: RunInfo) -> dict[str, Any]:
        metrics = {m.name: {"params": m.params, "threshold": m.threshold} for m in run.metrics}
        flat = flatten(
            {
                "dataset": run.dataset,
                "connector": run.connector,
                "judge": run.config.get("judge") or {},
            }
        )
        for name, spec in metrics.items():
            flat[f"metrics.{name}"] = "configured"
            flat.update(flatten(spec, f"metrics.{name}"))
        return flat

    a, b = settings(run_a), settings(run_b)
    return [
        ConfigDifference(path, a.get(path), b.get(path))
        for path in sorted(set(a) | set(b))
        if a.get(path) != b.get(path)
    ]


def _keyed(rows: list[RowRecord]) -> dict[str, RowRecord]:
    # A row id repeated in a dataset is told apart by its occurrence number.
    seen: Counter[str] = Counter()
    keyed: dict[str, RowRecord] = {}
    for row in rows:
        key = row.row_id if not seen[row.row_id] else f"{row.row_id}#{seen[row.row_id]}"
        seen[row.row_id] += 1
        keyed[key] = row
    return keyed


def change_of(
    passed_a: bool | None,
    passed_b: bool | None,
    in_a: bool = True,
    in_b: bool = True,
    score_a: float | None = None,
    score_b: float | None = None,
) -> str:
    """How one row × metric moved from A to B (one of :data:`CHANGES`).

    >>> change_of(True, True, score_a=1.0, score_b=0.5)
    'score_down'
    >>> change_of(True, False), change_of(True, True, score_a=1.0, score_b=1.0)
    ('regressed', 'unchanged')
    """
    if not in_a:
        return "new"
    if not in_b:
        return "missing"
    if passed_a is None or passed_b is None:
        return "unscored"
    if passed_a != passed_b:
        return "fixed" if passed_b else "regressed"
    if score_a is not None and score_b is not None:
        if score_b < score_a - SCORE_TOLERANCE:
            return "score_down"
        if score_b > score_a + SCORE_TOLERANCE:
            return "score_up"
    return "unchanged"


class _Tally:
    def __init__(self) -> None:
        self.changes: Counter[str] = Counter()

    def add(self, delta: RowDelta) -> None:
        self.changes[delta.change] += 1

    def counts(self, sides: tuple[RunFigures, RunFigures], metric: str, where: str) -> DeltaCounts:
        """The change counts, with each side's pass rate and mean score from its read model."""
        a, b = (side.get(metric, where) for side in sides)

        def mean(f: SliceFigures | None) -> float | None:
            return None if f is None or f.mean_score is None else f.mean_score.value

        return DeltaCounts(
            **{c: self.changes[c] for c in CHANGES},
            pass_rate_a=None if a is None else a.rate,
            pass_rate_b=None if b is None else b.rate,
            mean_score_a=mean(a),
            mean_score_b=mean(b),
        )


def compare_runs(
    store: RunRowsReader,
    run_a: str,
    run_b: str,
    *,
    figures: tuple[RunFigures, RunFigures] | None = None,
) -> Comparison:
    """Per-row deltas of run B against run A, per metric and per category.

    ``figures``: both runs' read models (:func:`tooleval.analysis.figures.run_figures`),
    whose pass rates and mean scores the counts carry (errors count as not passed); read
    from ``store`` when not given.
    """
    info_a, info_b = store.get_run(run_a), store.get_run(run_b)
    if figures is None:
        figures = (run_figures(store, info_a), run_figures(store, info_b))  # type: ignore[arg-type]
    rows_a = _keyed(list(store.iter_rows(info_a.id)))
    rows_b = _keyed(list(store.iter_rows(info_b.id)))
    metric_names = list(
        dict.fromkeys([m.name for m in info_a.metrics] + [m.name for m in info_b.metrics])
    )
    deltas: list[RowDelta] = []
    for key in list(rows_a) + [k for k in rows_b if k not in rows_a]:
        a, b = rows_a.get(key), rows_b.get(key)
        first, last = a or b, b or a
        assert first is not None and last is not None  # key comes from rows_a or rows_b
        for metric in metric_names:
            result_a = a.result(metric) if a else None
            result_b = b.result(metric) if b else None
            if result_a is None and result_b is None:
                continue
            deltas.append(
                RowDelta(
                    row_id=first.row_id,
                    metric=metric,
                    change=change_of(
                        result_a.passed if result_a else None,
                        result_b.passed if result_b else None,
                        result_a is not None,
                        result_b is not None,
                        result_a.score if result_a else None,
                        result_b.score if result_b else None,
                    ),
                    category=last.category,
                    index_a=a.index if a else None,
                    index_b=b.index if b else None,
                    score_a=result_a.score if result_a else None,
                    score_b=result_b.score if result_b else None,
                    passed_a=result_a.passed if result_a else None,
                    passed_b=result_b.passed if result_b else None,
                )
            )
    per_metric: dict[str, _Tally] = {m: _Tally() for m in metric_names}
    per_category: dict[str, dict[str, _Tally]] = {}
    for delta in deltas:
        per_metric[delta.metric].add(delta)
        category = delta.category or "(none)"
        per_category.setdefault(category, {}).setdefault(delta.metric, _Tally()).add(delta)
    return Comparison(
        run_a=info_a,
        run_b=info_b,
        differences=tuple(config_differences(info_a, info_b)),
        metrics={m: t.counts(figures, m, "(all)") for m, t in per_metric.items()},
        categories={
            cat: {m: t.counts(figures, m, cat) for m, t in per.items()}
            for cat, per in sorted(per_category.items())
        },
        rows=tuple(deltas),
    )
