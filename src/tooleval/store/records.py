"""What the run store hands out: plain records, no database objects.

Everything that reads runs (CLI, report, web viewer, comparison) uses these
records through :class:`tooleval.store.Store`'s read API and nothing else.

>>> run = RunInfo(id="r1", name="nightly", created_at="2026-11-29T10:00:00Z", status="finished")
>>> run.pass_rate("tool_correctness") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooleval.model import Result, Sample

# The row orders ``iter_rows(order_by=...)`` takes: name -> (column, descending);
# every order ends with row_index, so pages are stable.
ROW_ORDERS: dict[str, tuple[str, bool]] = {
    "index": ("row_index", False),
    "-index": ("row_index", True),
    "row_id": ("row_id", False),
    "-row_id": ("row_id", True),
    "category": ("category", False),
    "-category": ("category", True),
    "latency": ("latency_ms", False),
    "-latency": ("latency_ms", True),
    "score": ("score", False),
    "-score": ("score", True),
    # Rows that did not pass first (errors and unscored, then failed), then passes.
    "failures": ("passed", False),
}

__all__ = [
    "ROW_ORDERS",
    "CalibrationRecord",
    "Label",
    "MetricSpec",
    "MetricSummary",
    "RowRecord",
    "RunInfo",
]


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """A metric as a run configured it: registry name, parameters, threshold."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": self.params, "threshold": self.threshold}


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """Per-metric counts over a run's rows (unscored rows are counted apart)."""

    metric: str
    scored: int = 0
    passed: int = 0
    failed: int = 0
    unscored: int = 0
    mean_score: float | None = None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None


@dataclass(frozen=True, slots=True)
class RunInfo:
    """One evaluation run's header.

    ``dataset`` and ``connector`` are descriptions safe to show (paths, URLs,
    header *names*; never secret values). ``summaries`` maps metric name to
    its :class:`MetricSummary`.
    """

    id: str
    name: str
    created_at: str
    status: str  # "running" | "finished" | "interrupted" | "failed"
    finished_at: str | None = None
    dataset: dict[str, Any] = field(default_factory=dict)
    connector: dict[str, Any] = field(default_factory=dict)
    metrics: tuple[MetricSpec, ...] = ()
    tags: tuple[str, ...] = ()
    row_count: int = 0
    error_count: int = 0
    summaries: dict[str, MetricSummary] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    def pass_rate(self, metric: str) -> float | None:
        """``passed / (passed + failed + errors)``: the rate every surface shows.

        An error row (the agent could not be called, the row not read) counts
        as not passed; a row unscored for another reason is left out (the rule
        in docs/runs.md). ``None`` when the metric was not run or nothing counts.
        """
        summary = self.summaries.get(metric)
        if summary is None:
            return None
        counted = summary.scored + self.error_count
        return summary.passed / counted if counted else None


@dataclass(frozen=True, slots=True)
class RowRecord:
    """One dataset row of a run, with what the agent did and every Result.

    ``index`` is the row's 0-based position in the dataset; ``row_id`` its
    ``id`` column (or the index as text). ``error`` is set when the row could
    not be run or read (connector failure, unparsable cell); its results are
    then unscored, never 0.
    """

    run_id: str
    index: int
    row_id: str
    sample: Sample
    results: tuple[Result, ...] = ()
    error: str | None = None
    latency_ms: float | None = None
    raw_response: Any = None
    failure_class: str | None = None
    #: What failed, within the class (``wrong cancel_order.order_id``): the cluster key.
    failure_detail: str | None = None

    @property
    def category(self) -> str | None:
        return self.sample.category

    @property
    def passed(self) -> bool | None:
        """True when every scored result passed; None when nothing was scored."""
        scored = [r for r in self.results if r.passed is not None]
        if not scored:
            return None
        return all(r.passed for r in scored)

    def result(self, metric: str) -> Result | None:
        return next((r for r in self.results if r.metric == metric), None)


@dataclass(frozen=True, slots=True)
class Label:
    """A person's verdict on one row's metric: ``passed`` True (pass) or False (fail).

    Kept beside the row's results, never in them: a label never changes a stored
    Result. ``row_id`` is filled when read from the store.
    """

    row_index: int
    metric: str
    passed: bool
    note: str | None = None
    labeller: str | None = None
    labelled_at: str | None = None
    row_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "row_index": self.row_index,
            "row_id": self.row_id,
            "metric": self.metric,
            "label": "pass" if self.passed else "fail",
            "note": self.note,
            "labeller": self.labeller,
            "labelled_at": self.labelled_at,
        }


@dataclass(frozen=True, slots=True)
class CalibrationRecord:
    """A judge measured against labels: its identity, where the labels came from, the report.

    ``identity`` holds ``model``, ``metric``, ``prompt_version`` and ``options``;
    ``judge_key`` is their hash (the same judge always has the same key).
    """

    id: str
    judge_key: str
    metric: str
    model: str
    created_at: str
    source: str
    identity: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
