"""``tooleval.evaluate``: score a dataset of recorded conversations with several metrics.

The Python twin of ``tooleval score FILE --metric ... [--judge ...]``, shaped
like ``ragas.evaluate`` and ``deepeval.evaluate``: a dataset and metrics in,
an :class:`EvaluationResult` out. Rows go through the one scoring pipeline
(:mod:`tooleval.scoring`) with its error policy: a row that cannot be read is
an InputError naming the row and field before anything is scored (and before
any judge call); a row that cannot be scored is unscored with its reason,
never a 0; judged metrics are scored ``concurrency`` rows at a time, with the
judge's cache and token counts.

>>> import tooleval
>>> rows = [
...     {"id": "ok", "tools_called": ["lookup_order", "cancel_order"],
...      "expected_tools": ["lookup_order", "cancel_order"]},
...     {"id": "skipped", "tools_called": ["lookup_order"],
...      "expected_tools": ["lookup_order", "cancel_order"]},
...     {"id": "no reference", "tools_called": ["lookup_order"], "expected_tools": None},
... ]
>>> result = tooleval.evaluate(rows, ["tool_correctness", ("tool_call_f1", {"threshold": 0.9})])
>>> result["tool_correctness"]
[1.0, 0.5, None]
>>> summary = result.summaries["tool_call_f1"]
>>> summary.passed, summary.failed, summary.unscored
(1, 1, 1)
>>> result.to_dicts()[0]["id"], result.to_dicts()[0]["metric"]
('ok', 'tool_correctness')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError, InputError, ToolEvalError
from tooleval.evaluation.result import EvaluationResult, MetricSummary, RowResult
from tooleval.event_loop import run_off_the_loop

__all__ = ["EvaluationResult", "MetricSummary", "RowResult", "evaluate"]


def evaluate(
    dataset: Any,
    metrics: Any,
    *,
    judge: Any = None,
    bind: Mapping[str, str] | None = None,
    concurrency: int = 4,
    format: str | None = None,
    preset: str | None = None,
) -> EvaluationResult:
    """Score every row of ``dataset`` with every metric of ``metrics``.

    ``dataset``: a path to a JSONL, CSV, TSV, JSON-array or Parquet file, an
    iterable of row dicts (the canonical row of docs/datasets.md) or Samples,
    or a pandas DataFrame. ``metrics``: names, bound metrics
    (:func:`tooleval.metrics.bind`) or ``(name, options)`` pairs.
    ``judge`` (judged metrics only): ``"local"``, ``"openai"``, a judge file, a
    mapping as in a plan's ``judge:`` (``{"type": "openai", "model": ...,
    "base_url": ...}``) or a judge object; ``$TOOLEVAL_JUDGE`` when not given,
    never a default model. ``bind``: Sample field -> column, as ``--bind``.
    ``concurrency``: rows judged at once. ``format``: the file's format when
    its extension does not say. ``preset``: named option values (``"release"``:
    strict order, threshold 1; :mod:`tooleval.metrics.presets`) for the metrics
    given by name, under the options given with them.

    Raises ConfigError (unknown metric or option, no judge), InputError or
    DatasetError (an empty dataset, a row that is not an object, a field a
    metric needs that no row holds), each naming the row, column or field.

    >>> result = evaluate([{"tools_called": ["a"], "expected_tools": ["a"]}], "tool_call_f1")
    >>> print(result)
    EvaluationResult(1 rows x 1 metrics)
      tool_call_f1: pass rate 100.0% [20.7%, 100.0%], 1 passed, 0 failed, 0 unscored of 1; mean score 1.000
    """
    from tooleval.evaluation.inputs import metric_specs, read_dataset, resolve_judge
    from tooleval.metrics.registry import bind as bind_metric
    from tooleval.metrics.registry import get_metric

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"expected a whole number >= 1, got {concurrency!r}", field="concurrency")
    from tooleval.datasets.binding import bind_mapping

    bind = bind_mapping(bind) or None
    specs = metric_specs(metrics)
    if preset is not None:
        from tooleval.metrics.presets import preset_options

        specs = [
            (name, options if bound else preset_options(preset, name, options), bound)
            for name, options, bound in specs
        ]
    judged = [name for name, _, bound in specs if bound is None and get_metric(name).needs_judge]
    if judge is not None and not judged:  # never silently unused
        raise ConfigError(
            "judge= is given, but no metric to bind needs one (judged metrics: task_success, "
            "goal_accuracy, tools_error, topic_adherence; a bound metric keeps its own judge)",
            field="judge",
        )
    the_judge = resolve_judge(judge, judged) if judged else None
    bound_metrics = []
    for index, (name, options, bound) in enumerate(specs):
        if bound is None:
            extra = {"judge": the_judge} if name in judged else {}
            try:
                bound = bind_metric(name, **extra, **options)
            except ConfigError as exc:
                raise exc.with_context(metric=name, field=f"metrics[{index}]") from None
        bound_metrics.append(bound)
    if isinstance(dataset, str | os.PathLike):
        return _scored_file(Path(dataset), format, bound_metrics, dict(bind or {}), concurrency)
    empty: dict[int, str] = {}
    samples = read_dataset(dataset, bound_metrics, bind=bind, format=format, empty=empty)
    return _score(bound_metrics, samples, concurrency, empty)


def _scored_file(
    path: Path, format: str | None, metrics: list[Any], bind: dict[str, str], concurrency: int
) -> EvaluationResult:
    """A dataset file scored as ``tooleval score`` scores it (:func:`~tooleval.evaluation.files.score_file`).

    Its format from ``format`` or its extension (JSONL when it says none). A
    metric that scored no row has the file read as rows are
    (:func:`~tooleval.evaluation.inputs.read_dataset`), which names a field
    every row left empty.
    """
    from tooleval.datasets.readers import detect_format
    from tooleval.evaluation.inputs import file_kind, read_dataset
    from tooleval.evaluation.streamed import evaluate_file

    if path.is_dir():
        raise InputError(f"{path} is a directory; expected a dataset file", field="dataset")
    if not path.is_file():
        raise InputError(f"no such dataset file: {path}", field="dataset")
    kind = format.lower() if format else file_kind(path)
    kind = "jsonl" if kind == "ndjson" else kind
    if kind != "jsonl":
        try:
            detect_format(path, kind)  # an unknown format= is named
        except ToolEvalError as exc:
            raise exc.with_context(file=str(path)) from None
    names = tuple(m.name for m in metrics)
    judges = _judges(metrics)
    before = [judge.usage.to_dict() for judge in judges]
    if judges:  # judged rows run on an event loop of their own
        rows = run_off_the_loop(
            lambda: evaluate_file(path, kind, metrics, bind, concurrency), name="tooleval-evaluate"
        )
    else:  # (run_off_the_loop imports asyncio, and ssl with it: not for every call)
        rows = evaluate_file(path, kind, metrics, bind, concurrency)
    result = EvaluationResult(rows, names, source=str(path))
    if any(result.summaries[name].unscored == result.summaries[name].n for name in names):
        read_dataset(path, metrics, bind=bind, format=format)  # a field no row holds: named
    if judges:
        usage = _usage(judges, before)
        result = EvaluationResult(rows, names, judge_usage=usage, source=str(path))
    return result


def _score(
    metrics: list[Any],
    samples: list[tuple[int, Any]],
    concurrency: int,
    empty: dict[int, str],
) -> EvaluationResult:
    from tooleval.scoring import explain_unbound, score_concurrently, score_samples

    rows: list[RowResult] = []
    whys = {id(sample): empty[number] for number, sample in samples if number in empty}

    def keep(row_id: str, sample: Any, result: Any) -> None:
        rows.append(RowResult(row_id, explain_unbound(result, whys.get(id(sample)))))

    judges = _judges(metrics)
    before = [judge.usage.to_dict() for judge in judges]
    if judges:
        run_off_the_loop(
            lambda: score_concurrently(metrics, samples, concurrency=concurrency, on_result=keep),
            name="tooleval-evaluate",
        )
    else:
        score_samples(metrics, samples, on_result=keep)
    usage = _usage(judges, before) if judges else None
    names = tuple(m.name for m in metrics)
    return EvaluationResult(tuple(rows), names, judge_usage=usage)


def _usage(judges: list[Any], before: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``judges`` spent since ``before`` (their usage then), summed."""
    usage: dict[str, Any] = {}
    for judge, start in zip(judges, before, strict=True):
        for key, value in judge.usage.to_dict().items():
            usage[key] = usage.get(key, 0) + value - start.get(key, 0)
    return usage


def _judges(metrics: list[Any]) -> list[Any]:
    found: list[Any] = []
    for metric in metrics:
        judge = getattr(metric, "judge", None)
        if metric.info.needs_judge and judge is not None and all(judge is not j for j in found):
            found.append(judge)
    return found
