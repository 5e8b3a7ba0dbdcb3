"""What ``tooleval score`` reads and with which metric, decided from the benchmark records.

:func:`resolve_score_format` returns a :class:`ScoreFormat` value (the CLI
applies it); :func:`benchmark_samples` reads a benchmark file with its
record's reader; :func:`default_metric` is the metric that reproduces a
benchmark's own verdict.

>>> default_metric("api_bank")
('tool_correctness', {'args': 'numeric_text', 'exact_match': True})
>>> resolve_score_format("-", format="JSONL", metric="tool_call_f1").format
'jsonl'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.benchmarks.detect import detect_benchmark, detection_problem, json_document_problem
from tooleval.benchmarks.registry import (
    CANONICAL_FORMATS,
    canonical_format,
    get_benchmark,
    list_benchmarks,
)
from tooleval.errors import ConfigError, InputError
from tooleval.model import Sample

__all__ = ["ScoreFormat", "benchmark_samples", "default_metric", "resolve_score_format"]


@dataclass(frozen=True, slots=True)
class ScoreFormat:
    """How to read and score one input: ``format`` (canonical spelling, None: canonical
    rows by the file's shape), ``metric`` and its ``options``, and whether ``format``
    names a benchmark (read with :func:`benchmark_samples`); ``notice`` is what the
    benchmark's grader says about its choice (print it to stderr), or None."""

    format: str | None
    metric: str
    options: Mapping[str, Any] = field(default_factory=dict)
    benchmark: bool = False
    notice: str | None = None


def default_metric(fmt: str) -> tuple[str, dict[str, Any]] | None:
    """The metric and options that reproduce ``fmt``'s own verdict (None for jsonl/json)."""
    name = canonical_format(fmt)
    if name in CANONICAL_FORMATS:
        return None
    record = get_benchmark(name)
    return record.default_metric, dict(record.default_options)


def resolve_score_format(
    dataset: str,
    *,
    format: str | None = None,
    metric: str | None = None,
    options: Mapping[str, Any] | None = None,
    data: str | Path | None = None,
) -> ScoreFormat:
    """The format, metric and options ``tooleval score DATASET`` uses.

    The format is ``format`` (any spelling; "did you mean" when unknown),
    else what :func:`~tooleval.benchmarks.detect.detect_benchmark` finds,
    else None (canonical rows). A file that looks like a benchmark's but
    cannot be read as one is an InputError saying what was seen. The
    metric is ``metric``, else the benchmark's default (whose options
    ``options`` override): its record's ``grader(data)`` when it has one
    (``data`` is ``--data``; the grader's options also apply when ``metric``
    names the metric it chose), else its ``default_metric``.
    """
    options = dict(options or {})
    fmt = canonical_format(format) if format is not None else None
    if fmt is None and dataset != "-":
        fmt = detect_benchmark(dataset)
        if fmt is None:
            problem = detection_problem(dataset) or json_document_problem(dataset)
            if problem is not None:
                raise InputError(problem, file=str(dataset))
    is_benchmark = fmt is not None and fmt not in CANONICAL_FORMATS
    if is_benchmark and dataset == "-":
        raise ConfigError(
            f"--format {fmt} reads a file or folder, not standard input", field="DATASET"
        )
    notice = None
    record = get_benchmark(fmt) if is_benchmark and fmt is not None else None
    if record is not None and record.grader is not None:
        chosen, defaults, said = record.grader(data)
        if metric is None or metric == chosen:  # the grader's options for its own metric
            metric, notice = chosen, said
            options = {**defaults, **options}
    if metric is None:
        found = default_metric(fmt) if fmt is not None else None
        if found is None:
            names = "|".join(b.name for b in list_benchmarks())
            raise ConfigError(
                "--metric is required for canonical rows (or give --format "
                f"{names} to use the benchmark's own metric)",
                field="--metric",
            )
        metric, defaults = found
        options = {**defaults, **options}
    return ScoreFormat(fmt, metric, options, is_benchmark, notice)


def benchmark_samples(
    path: str | Path, fmt: str, *, data: str | Path | None = None, **options: Any
) -> Iterator[tuple[int, Sample]]:
    """``(number, Sample)`` for every record of a benchmark file, read by ``fmt``'s reader.

    ``data`` is what the benchmark's ``--data`` means (BFCL's data folder,
    API-Bank's dialogues, the reference file of Seal-Tools / NESTFUL
    predictions); a benchmark that needs it and lacks it is a ConfigError.
    ``options`` go to the reader (BFCL: ``mode``, ``names``, ``categories``).
    """
    record = get_benchmark(fmt)
    if record.data_required and data is None:
        raise ConfigError(f"--format {record.name} needs --data {record.data}", field="--data")
    yield from enumerate(record.read(Path(path), data=data, **options), start=1)
