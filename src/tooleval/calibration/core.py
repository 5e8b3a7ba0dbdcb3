"""Calibrate a judged metric against a run's labels; find and apply stored calibrations.

>>> judge_identity("qwen2.5:7b", "task_success", {})["prompt_version"] != ""
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tooleval.errors import ConfigError, JudgeError
from tooleval.judged.registration import JUDGED_METRICS, judged_metric, prompt_version
from tooleval.llm.base import rows_at_once
from tooleval.model import Result
from tooleval.stats.calibration import (
    Confusion,
    CorrectedRate,
    calibration_figures,
    confusion,
    corrected_rate,
)
from tooleval.store import CalibrationRecord, RunInfo, judge_key

__all__ = [
    "CalibrationReport",
    "calibrate",
    "corrected_line",
    "corrected_pass_rate",
    "describe_calibration",
    "find_calibration",
    "gate_calibrations",
    "judge_identity",
    "run_calibrations",
]

# A reason kept in a report is cut to this many characters (the full one stays in the run).
_REASON_CHARS = 300


def judge_identity(model: str, metric: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a calibration holds for: the judge's model, the metric, its prompt version, options."""
    if metric not in JUDGED_METRICS:
        raise ConfigError(
            f"{metric!r} is not a judged metric; expected one of {', '.join(JUDGED_METRICS)}",
            field="--metric",
        )
    return {
        "model": model,
        "metric": metric,
        "prompt_version": prompt_version(metric),
        "options": dict(sorted(options.items())),
    }


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """A judge against labels: the figures, the rows it got wrong, the rows it could not judge."""

    identity: dict[str, Any]
    source: str
    confusion: Confusion
    figures: dict[str, Any]
    wrong: list[dict[str, Any]] = field(default_factory=list)
    unscored: list[dict[str, Any]] = field(default_factory=list)
    labels: int = 0
    record_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.record_id,
            "identity": self.identity,
            "source": self.source,
            "labels": self.labels,
            "compared": self.confusion.n,
            **self.figures,
            "wrong": self.wrong,
            "unscored": self.unscored,
        }


def _options(run: RunInfo, metric: str) -> tuple[dict[str, Any], float | None]:
    for spec in run.metrics:
        if spec.name == metric:
            return dict(spec.params), spec.threshold
    return {}, None


def _stored_model(run: RunInfo) -> str:
    described = run.config.get("judge") if isinstance(run.config, Mapping) else None
    model = described.get("model") if isinstance(described, Mapping) else None
    if not isinstance(model, str) or not model:
        raise ConfigError(
            f"run {run.id} records no judge, so its stored verdicts cannot be attributed to one; "
            "pass a judge (--local or --base-url/--model) to judge the labelled rows now",
            field="--judge",
        )
    return model


def calibrate(
    store: Any,
    run_id: str,
    metric: str,
    *,
    judge: Any = None,
    confidence: float = 0.95,
    save: bool = True,
    on_row: Callable[[int, int], None] | None = None,
    source: str | None = None,
) -> CalibrationReport:
    """Compare ``metric``'s verdicts on the labelled rows of a run with their labels.

    ``run_id`` is any run reference (an id, a unique prefix, ``latest``, ``-N``).
    Without ``judge`` the verdicts the run stored are used (the run must record
    its judge); with one, each labelled row's stored sample is judged again now.
    A row the judge could not judge (unscored, transport error) is listed in
    ``unscored`` and left out of the figures, never counted as a pass or a fail.
    A judge with ``batch_rows`` (the local judge: 8) judges that many rows at
    once, their replies decoded as one batch; the report is in label order either
    way. ``on_row(done, total)`` is called after each row. ``source`` says where the
    labels came from (default: the run, and whether its rows were judged now).
    """
    run = store.get_run(store.resolve_run_id(run_id))
    options, threshold = _options(run, metric)
    model = getattr(judge, "model", None) if judge is not None else _stored_model(run)
    identity = judge_identity(str(model or type(judge).__name__), metric, options)
    labels = store.labels.get_labels(run.id, metric=metric)
    if not labels:
        raise ConfigError(
            f"run {run.id} has no labels for {metric}; add some with "
            "`tooleval judge labels import RUN FILE`",
            field="--metric",
        )
    function = judged_metric(metric) if judge is not None else None
    truth: list[bool] = []
    verdicts: list[bool] = []
    wrong: list[dict[str, Any]] = []
    unscored: list[dict[str, Any]] = []
    results: Iterator[tuple[Any, Result | None]]
    if function is None:
        results = (
            (label, store.get_row(run.id, label.row_index).result(metric)) for label in labels
        )
    else:
        judge_one = partial(
            _judge_row, function, judge=judge, options=options, threshold=threshold, metric=metric
        )
        results = _judged_in_order(store, run.id, labels, judge_one, rows_at_once(judge, default=1))
    for done, (label, result) in enumerate(results, start=1):
        where = {"row_index": label.row_index, "row_id": label.row_id}
        if result is None or result.passed is None:
            reason = result.reason if result is not None else f"the run stored no {metric} result"
            unscored.append({**where, "reason": reason[:_REASON_CHARS]})
        else:
            truth.append(label.passed)
            verdicts.append(bool(result.passed))
            if bool(result.passed) != label.passed:
                wrong.append(
                    {
                        **where,
                        "label": "pass" if label.passed else "fail",
                        "verdict": "pass" if result.passed else "fail",
                        "note": label.note,
                        "reason": result.reason[:_REASON_CHARS],
                    }
                )
        if on_row is not None:
            on_row(done, len(labels))
    matrix = confusion(truth, verdicts)
    report = CalibrationReport(
        identity=identity,
        source=source or f"run {run.id}" + ("" if judge is None else " (judged now)"),
        confusion=matrix,
        figures=calibration_figures(matrix, confidence),
        wrong=wrong,
        unscored=unscored,
        labels=len(labels),
    )
    if not save:
        return report
    stored = report.to_dict()
    stored.pop("id")
    record = store.labels.save_calibration(identity, stored, source=report.source)
    return CalibrationReport(
        identity, report.source, matrix, report.figures, wrong, unscored, len(labels), record.id
    )


def _judged_in_order(
    store: Any,
    run_id: str,
    labels: list[Any],
    judge_one: Callable[[Any], Result],
    workers: int,
) -> Iterator[tuple[Any, Result]]:
    """``(label, result)`` in label order, up to ``workers`` rows judged at a time.

    Rows are read from the store here, in the calling thread (a SQLite connection
    stays in its thread); only the judging runs in the pool.
    """
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="calibrate") as pool:
        window: deque[tuple[Any, Future[Result]]] = deque()
        for label in labels:
            sample = store.get_row(run_id, label.row_index).sample
            window.append((label, pool.submit(judge_one, sample)))
            if len(window) >= 2 * workers:
                first, future = window.popleft()
                yield first, future.result()
        while window:
            first, future = window.popleft()
            yield first, future.result()


def _judge_row(
    function: Any,
    sample: Any,
    *,
    judge: Any,
    options: dict[str, Any],
    threshold: float | None,
    metric: str,
) -> Result:
    extra = {} if threshold is None else {"threshold": threshold}
    try:
        result: Result = function(sample, judge=judge, **options, **extra)
    except JudgeError as exc:  # transport, timeout: this row is not judged, the rest go on
        return Result.unscored(metric, f"judge error: {exc.with_context(row=sample.id)}")
    return result


def find_calibration(
    store: Any, model: str, metric: str, options: Mapping[str, Any]
) -> CalibrationRecord | None:
    """The newest stored calibration of this judge identity, or None."""
    key = judge_key(judge_identity(model, metric, options))
    found: list[CalibrationRecord] = store.labels.calibrations(judge_key=key, limit=1)
    return found[0] if found else None


def run_calibrations(store: Any, run: RunInfo) -> dict[str, CalibrationRecord | None]:
    """For each judged metric of ``run``: the calibration of the judge it used, or None."""
    judged = [spec for spec in run.metrics if spec.name in JUDGED_METRICS]
    if not judged:
        return {}
    try:
        model = _stored_model(run)
    except ConfigError:
        return {spec.name: None for spec in judged}
    if getattr(store, "labels", None) is None:  # a store without labels knows no calibration
        return {spec.name: None for spec in judged}
    return {spec.name: find_calibration(store, model, spec.name, spec.params) for spec in judged}


def describe_calibration(record: CalibrationRecord) -> str:
    """One line: kappa, TPR and TNR, how many labelled rows, the calibration's id."""
    report = record.report
    parts = []
    kappa = report.get("kappa")
    parts.append("kappa n/a" if kappa is None else f"kappa {kappa:.2f}")
    for name in ("tpr", "tnr"):
        figure = report.get(name)
        value = figure.get("value") if isinstance(figure, Mapping) else None
        parts.append(f"{name.upper()} n/a" if value is None else f"{name.upper()} {value:.0%}")
    return f"{', '.join(parts)} on {report.get('compared', 0)} labelled rows, {record.id}"


def gate_calibrations(store: Any, run: RunInfo) -> dict[str, str | None]:
    """What the gate reads: each judged metric of ``run`` and its judge's calibration, or None.

    A calibrated judge's line gives the run's pass rate corrected for its TPR/TNR,
    with the interval, beside the figures of the calibration.
    """
    out: dict[str, str | None] = {}
    for metric, record in run_calibrations(store, run).items():
        if record is None:
            out[metric] = None
            continue
        line = f"judge calibrated: {describe_calibration(record)}"
        corrected = corrected_pass_rate(run, metric, record)
        if corrected is not None:
            line += f"; {corrected_line(corrected)}"
        out[metric] = line
    return out


def corrected_line(corrected: CorrectedRate) -> str:
    """``judged pass rate 60.0%, corrected 57.1% [45.2, 69.0] (95% rogan-gladen delta)``."""
    said = f"judged pass rate {corrected.observed:.1%}"
    if corrected.corrected is None or corrected.interval is None:
        return f"{said}, not corrected: {corrected.reason}"
    interval = corrected.interval
    return (
        f"{said}, corrected {corrected.corrected:.1%} "
        f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}] "
        f"({interval.confidence:.0%} {interval.method})"
    )


def corrected_pass_rate(
    run: RunInfo, metric: str, calibration: CalibrationRecord, confidence: float = 0.95
) -> CorrectedRate | None:
    """The run's pass rate of ``metric`` corrected for the calibrated judge's TPR/TNR."""
    summary = run.summaries.get(metric)
    counts = calibration.report.get("confusion")
    if summary is None or not summary.scored or not isinstance(counts, Mapping):
        return None
    matrix = Confusion(
        int(counts.get("tp", 0)),
        int(counts.get("fn", 0)),
        int(counts.get("fp", 0)),
        int(counts.get("tn", 0)),
    )
    return corrected_rate(summary.passed, summary.scored, matrix, confidence)
