"""What :func:`tooleval.evaluate` returns: per-row results, per-metric summaries, exports.

Rows keep the pipeline's :class:`~tooleval.model.Result` as it is; the
summaries count them with the one tally (:class:`~tooleval.stats.tally.Tally`,
as ``tooleval score --table`` and a stored run's read model do: an unscored
row is neither passed nor failed, and the pass rate is over scored rows), with
a Wilson interval; :meth:`EvaluationResult.to_dicts` and
:meth:`EvaluationResult.write_jsonl` give the lines ``tooleval score`` writes.

>>> from tooleval.model import Result
>>> rows = [RowResult("a", Result.scored("m", 1.0, reason="ok")),
...         RowResult("b", Result.unscored("m", "no expected_tools"))]
>>> s = summarize("m", rows)
>>> (s.n, s.passed, s.failed, s.unscored, s.pass_rate, s.mean_score)
(2, 1, 0, 1, 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooleval.model import Diagnosis, Result

if TYPE_CHECKING:
    from tooleval.stats.tally import Tally

__all__ = ["EvaluationResult", "MetricSummary", "RowResult", "summarize"]


@dataclass(frozen=True, slots=True)
class RowResult:
    """One row's result for one metric: the row's id and the pipeline's Result."""

    row_id: str
    result: Result

    @property
    def metric(self) -> str:
        return self.result.metric

    @property
    def score(self) -> float | None:
        return self.result.score

    @property
    def passed(self) -> bool | None:
        return self.result.passed

    @property
    def reason(self) -> str:
        return self.result.reason

    @property
    def diagnosis(self) -> Diagnosis:
        return self.result.diagnosis

    @property
    def unscored_reason(self) -> str | None:
        """Why the row could not be scored (None when it was)."""
        return self.result.reason if self.result.score is None else None

    def to_dict(self) -> dict[str, Any]:
        """The line ``tooleval score`` writes for this row and metric."""
        return {"id": self.row_id, **self.result.to_dict()}


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """Counts over one metric's rows; ``pass_rate`` and its interval are over scored rows."""

    metric: str
    n: int
    passed: int
    failed: int
    unscored: int
    pass_rate: float | None
    interval: tuple[float, float] | None  # 95% Wilson interval of the pass rate
    mean_score: float | None

    @classmethod
    def of(cls, metric: str, tally: Tally) -> MetricSummary:
        """The summary of one metric's :class:`~tooleval.stats.tally.Tally` (the one count)."""
        figure = tally.rate_estimate()
        return cls(
            metric=metric,
            n=tally.rows,
            passed=tally.passed,
            failed=tally.failed,
            unscored=tally.unscored,
            pass_rate=tally.rate,
            interval=None if figure is None else (figure.interval.low, figure.interval.high),
            mean_score=tally.mean,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n": self.n,
            "passed": self.passed,
            "failed": self.failed,
            "unscored": self.unscored,
            "pass_rate": self.pass_rate,
            "interval": list(self.interval) if self.interval is not None else None,
            "mean_score": self.mean_score,
        }

    def __str__(self) -> str:
        if self.pass_rate is None or self.interval is None:
            rate = "pass rate -"
        else:
            low, high = self.interval
            rate = f"pass rate {self.pass_rate:.1%} [{low:.1%}, {high:.1%}]"
        mean = "-" if self.mean_score is None else f"{self.mean_score:.3f}"
        return (
            f"{self.metric}: {rate}, {self.passed} passed, {self.failed} failed, "
            f"{self.unscored} unscored of {self.n}; mean score {mean}"
        )


def summarize(metric: str, rows: Sequence[RowResult]) -> MetricSummary:
    """The :class:`MetricSummary` of ``metric`` over ``rows`` (its rows only)."""
    from tooleval.stats.tally import Tally

    tally = Tally()
    for row in rows:
        if row.result.metric == metric:
            tally.add(row.result.score, row.result.passed)
    return MetricSummary.of(metric, tally)


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """Every row's result for every metric, in input order (a row's metrics in the order given).

    ``result["tool_correctness"]`` is that metric's scores (None where unscored),
    ``result.summaries["tool_correctness"]`` its :class:`MetricSummary`.
    """

    rows: Sequence[RowResult]  # a tuple, or the kernel's compact rows (decoded when read)
    metrics: tuple[str, ...]
    judge_usage: Mapping[str, Any] | None = None  # calls, cached calls, tokens of this evaluation
    source: str | None = None  # the dataset file, when one was read (never overwritten)
    summaries: Mapping[str, MetricSummary] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        compact = getattr(self.rows, "summary", None)  # evaluation.streamed.StreamedRows
        if compact is not None:
            counted = {name: compact(name) for name in self.metrics}
        else:
            counted = {name: summarize(name, self.rows) for name in self.metrics}
        object.__setattr__(self, "summaries", counted)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[RowResult]:
        return iter(self.rows)

    def __getitem__(self, metric: str) -> list[float | None]:
        if metric not in self.summaries:
            from tooleval.errors import did_you_mean

            raise KeyError(
                f"no metric {metric!r} in this evaluation{did_you_mean(metric, self.metrics)}; "
                f"it has {', '.join(self.metrics)}"
            )
        compact = getattr(self.rows, "scores", None)
        if compact is not None:
            return list(compact(metric))
        return [row.score for row in self.rows if row.metric == metric]

    def to_dicts(self) -> list[dict[str, Any]]:
        """One dict per row and metric, the shape of ``tooleval score``'s JSONL lines."""
        if hasattr(self.rows, "jsonl"):
            import orjson

            return list(orjson.loads(_as_array(self.to_jsonl())))
        return [row.to_dict() for row in self.rows]

    def to_jsonl(self) -> bytes:
        """The JSONL bytes ``tooleval score`` writes for the same rows and metrics."""
        compact = getattr(self.rows, "jsonl", None)
        if compact is not None:
            found: bytes = compact()
            return found
        from tooleval.scoring import result_line

        return b"".join(result_line(row.row_id, row.result) for row in self.rows)

    def write_jsonl(self, path: str | Path) -> Path:
        """Write :meth:`to_jsonl` to ``path`` atomically (complete or not at all); return it."""
        from tooleval.io_atomic import atomic_write, check_output_path
        from tooleval.scoring.fields import FIELDS

        check_output_path(
            str(path), option="path", inputs=[self.source], kind="jsonl", keys=FIELDS,
            writes="result lines",
        )  # fmt: skip
        with atomic_write(str(path)) as handle:
            handle.write(self.to_jsonl())
        return Path(path)

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per row and metric (needs the ``pandas`` extra)."""
        from tooleval._extras import require

        require("pandas", "pandas")
        import pandas  # type: ignore[import-untyped]

        if hasattr(self.rows, "jsonl"):  # parsed in one call, no loop over rows here
            import orjson

            return pandas.DataFrame(
                orjson.loads(_as_array(self.to_jsonl())), columns=list(_COLUMNS)
            )
        return pandas.DataFrame(self.to_dicts(), columns=list(_COLUMNS))

    def __repr__(self) -> str:
        count = getattr(self.rows, "row_count", None)
        if count is None:
            count = len({row.row_id for row in self.rows})
        head = f"EvaluationResult({count} rows x {len(self.metrics)} metrics)"
        lines = [head, *(f"  {self.summaries[name]}" for name in self.metrics)]
        if self.judge_usage:
            usage = self.judge_usage
            lines.append(
                f"  judge: {usage.get('calls', 0)} calls, {usage.get('cached_calls', 0)} "
                f"from the cache, {usage.get('tokens_in', 0)} tokens in, "
                f"{usage.get('tokens_out', 0)} out"
            )
        return "\n".join(lines)


def _as_array(lines: bytes) -> bytes:
    """JSONL bytes as one JSON array (parsed in one call)."""
    return b"[" + b",".join(lines.splitlines()) + b"]"


_COLUMNS = ("id", "metric", "score", "passed", "reason", "diagnosis", "params", "threshold")
