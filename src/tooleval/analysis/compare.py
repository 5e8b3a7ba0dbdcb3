"""Compare two runs row by row: what a change fixed, what it broke, what else moved.

The unit is the dataset row, whatever the repeat counts: rows are matched by
``row_id`` (the dataset's ``id`` column), and the attempts of a repeated run
(``--repeat N``) are grouped back into their dataset row, as the paired
statistics group them (:func:`tooleval.analysis.noise.read_attempts`). A row's
figure for one metric is its **pass rate over its attempts** (passed attempts /
attempts; an error attempt counts as not passed, as in every pass rate; 1 or 0
for a run made once), and its score the mean of its scored attempts.

Each (row, metric) pair is ``fixed`` (the row's pass rate is higher in B),
``regressed`` (lower in B), ``score_down`` / ``score_up`` (same pass rate,
but the score moved: a row that drops from 1.0 to 0.5 and still passes is
not "unchanged"), ``unchanged`` (same pass rate and same score), ``new``
(only in B), ``missing`` (only in A) or ``unscored`` (not scored on one
side). With one attempt a side that is the verdict flipping; a flaky row is
never "regressed" from one attempt: 2 of 3 attempts passing in A against 2
of 3 in B is unchanged. The rows counted fixed, regressed, score down, score
up and unchanged are exactly the rows the paired statistics pair (their n).
Configuration differences (dataset, connector, metric parameters, judge)
come first: a comparison is only meaningful when one thing changed.

>>> flatten({"connector": {"url": "u", "headers": ["X-Key"], "params": {}}})
{'connector.url': 'u', 'connector.headers': ['X-Key']}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.analysis.figures import RunFigures, SliceFigures, run_figures
from tooleval.analysis.noise import RowAttempts, read_attempts
from tooleval.analysis.repeats import repeat_of
from tooleval.store import RunRowsReader
from tooleval.store.records import RunInfo

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
    "unit_text",
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
    passed_a: bool | None = None  # every attempt passed (None: not scored on that side)
    passed_b: bool | None = None
    attempts_a: int = 0  # attempts counted in the row's pass rate (errors as not passed)
    passes_a: int = 0
    attempts_b: int = 0
    passes_b: int = 0

    @property
    def rate_a(self) -> float | None:
        """The row's pass rate over its attempts in A (None: not counted there)."""
        return self.passes_a / self.attempts_a if self.attempts_a else None

    @property
    def rate_b(self) -> float | None:
        """The row's pass rate over its attempts in B (None: not counted there)."""
        return self.passes_b / self.attempts_b if self.attempts_b else None

    @property
    def score_delta(self) -> float | None:
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a


@dataclass(frozen=True, slots=True)
class DeltaCounts:
    """How many dataset rows changed which way for one metric, and the pass rates on each side.

    ``paired`` (fixed + regressed + score down + score up + unchanged) is the n of the
    paired statistics of the same metric and slice.
    """

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

    @property
    def paired(self) -> int:
        """Rows counted on both sides: the n of the paired statistics."""
        return self.fixed + self.regressed + self.score_down + self.score_up + self.unchanged

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__} | {"paired": self.paired}


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything ``tooleval compare`` prints, as data."""

    run_a: RunInfo
    run_b: RunInfo
    differences: tuple[ConfigDifference, ...]
    metrics: dict[str, DeltaCounts]
    categories: dict[str, dict[str, DeltaCounts]]
    rows: tuple[RowDelta, ...] = field(default=())
    attempts: tuple[int, int] = (1, 1)  # attempts per dataset row in A and in B
    #: The paired statistics of B against A (:func:`tooleval.analysis.noise.compare_stats`)
    #: when asked for: what every surface prints of Δ, its interval and verdict.
    statistics: tuple[Any, ...] = ()
    #: The metrics whose paired verdict is inconclusive, sized
    #: (:class:`tooleval.analysis.power_advice.TooSmall`): how many rows would tell.
    too_small: tuple[Any, ...] = ()

    @property
    def unit(self) -> str:
        """What a count and a row's figure are, said on every surface (:func:`unit_text`)."""
        return unit_text(*self.attempts)

    def changed(self, change: str, metric: str | None = None) -> list[RowDelta]:
        """The row deltas of one kind (``fixed``, ``regressed``, ...), optionally one metric."""
        return [
            d for d in self.rows if d.change == change and (metric is None or d.metric == metric)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a.id,
            "run_b": self.run_b.id,
            "unit": self.unit,
            "attempts": {"a": self.attempts[0], "b": self.attempts[1]},
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
                    "attempts_a": d.attempts_a,
                    "passes_a": d.passes_a,
                    "attempts_b": d.attempts_b,
                    "passes_b": d.passes_b,
                }
                for d in self.rows
            ],
            "statistics": [c.to_dict() for c in self.statistics],
            "too_small": [t.to_dict() for t in self.too_small],
        }


def unit_text(k_a: int, k_b: int) -> str:
    """The unit of a comparison, as every surface states it.

    >>> unit_text(1, 1)
    'dataset rows (one attempt a side)'
    >>> unit_text(1, 3)
    "dataset rows; a row's figure is its pass rate over its attempts (A 1, B 3 per row)"
    """
    if k_a == k_b == 1:
        return "dataset rows (one attempt a side)"
    return (
        "dataset rows; a row's figure is its pass rate over its attempts "
        f"(A {k_a}, B {k_b} per row)"
    )


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


def _side(entry: RowAttempts | None, metric: str) -> tuple[int, int, float | None, bool]:
    """``(attempts counted, passes, mean score, seen)`` of one row and metric on one side."""
    if entry is None:
        return 0, 0, None, False
    values = entry.values.get(metric) or []
    scores = entry.scores.get(metric) or []
    seen = bool(values) or entry.unscored.get(metric, 0) > 0
    mean = sum(scores) / len(scores) if scores else None
    return len(values), int(sum(values)), mean, seen


def _delta(a: RowAttempts | None, b: RowAttempts | None, metric: str) -> RowDelta | None:
    n_a, c_a, score_a, seen_a = _side(a, metric)
    n_b, c_b, score_b, seen_b = _side(b, metric)
    if not (seen_a or seen_b):
        return None
    if a is None or b is None:
        change = "new" if a is None else "missing"
    elif not (n_a and n_b):
        change = "unscored"
    elif c_a * n_b != c_b * n_a:  # the pass rates c/n differ (compared exactly)
        change = "fixed" if c_b * n_a > c_a * n_b else "regressed"
    else:
        change = change_of(True, True, score_a=score_a, score_b=score_b)
    either = b or a
    assert either is not None  # one side at least holds the row
    return RowDelta(
        row_id=either.key,
        metric=metric,
        change=change,
        category=either.category,
        index_a=a.first_index if a else None,
        index_b=b.first_index if b else None,
        score_a=score_a,
        score_b=score_b,
        passed_a=(c_a == n_a) if n_a else None,
        passed_b=(c_b == n_b) if n_b else None,
        attempts_a=n_a,
        passes_a=c_a,
        attempts_b=n_b,
        passes_b=c_b,
    )


def compare_runs(
    store: RunRowsReader,
    run_a: str,
    run_b: str,
    *,
    figures: tuple[RunFigures, RunFigures] | None = None,
    statistics: Mapping[str, Any] | None = None,
) -> Comparison:
    """Per-row deltas of run B against run A, per metric and per category, on dataset rows.

    ``figures``: both runs' read models (:func:`tooleval.analysis.figures.run_figures`),
    whose pass rates and mean scores the counts carry (errors count as not passed); read
    from ``store`` when not given. ``statistics``: the keyword options of
    :func:`tooleval.analysis.noise.compare_stats` (``{}`` for its defaults) to carry the
    paired statistics in the same result; None leaves them out.
    """
    info_a, info_b = store.get_run(run_a), store.get_run(run_b)
    if figures is None:
        figures = (run_figures(store, info_a), run_figures(store, info_b))  # type: ignore[arg-type]
    options = dict(statistics or {})
    cluster_key = options.pop("cluster_key", None)
    table_a = read_attempts(info_a, store.iter_rows(info_a.id), cluster_key=cluster_key)
    table_b = read_attempts(info_b, store.iter_rows(info_b.id), cluster_key=cluster_key)
    rows_a = {r.key: r for r in table_a.rows}
    rows_b = {r.key: r for r in table_b.rows}
    metric_names = list(
        dict.fromkeys([m.name for m in info_a.metrics] + [m.name for m in info_b.metrics])
    )
    deltas: list[RowDelta] = []
    for key in list(rows_a) + [k for k in rows_b if k not in rows_a]:
        for metric in metric_names:
            delta = _delta(rows_a.get(key), rows_b.get(key), metric)
            if delta is not None:
                deltas.append(delta)
    per_metric: dict[str, _Tally] = {m: _Tally() for m in metric_names}
    per_category: dict[str, dict[str, _Tally]] = {}
    for delta in deltas:
        per_metric[delta.metric].add(delta)
        category = delta.category or "(none)"
        per_category.setdefault(category, {}).setdefault(delta.metric, _Tally()).add(delta)
    stats: tuple[Any, ...] = ()
    small: tuple[Any, ...] = ()
    if statistics is not None:
        from tooleval.analysis.noise import paired_statistics
        from tooleval.analysis.power_advice import too_small

        stats = tuple(paired_statistics(table_a, table_b, **options))
        small = tuple(too_small(table_a, table_b, stats))
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
        attempts=(_attempts(info_a), _attempts(info_b)),
        statistics=stats,
        too_small=small,
    )


def _attempts(run: RunInfo) -> int:
    spec = repeat_of(run)
    return spec[0] if spec else 1
