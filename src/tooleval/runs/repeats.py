"""Repeats on the runner side: every dataset row run N times, one stored row per attempt.

Agents are not deterministic. ``tooleval run PLAN --repeat N`` stores each
attempt as its own row of the run: attempt ``a`` (1-based) of dataset row
``i`` has index ``(a - 1) * stride + i`` and row id ``ID`` for the first
attempt, ``ID#a`` for the others, and ``attempt`` / ``dataset_row_id`` in
its sample's metadata. A stopped run resumes attempt by attempt like any
run. The run's config records ``repeat: {n, stride}``; pass^k / pass@k and
flaky rows are read back from the stored rows by :mod:`tooleval.analysis.repeats`.

>>> check_repeat(3)
3
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tooleval.errors import ConfigError

__all__ = ["MAX_REPEAT", "attempt_rows", "check_repeat", "repeat_config"]

MAX_REPEAT = 100


def check_repeat(value: Any, option: str = "--repeat") -> int:
    """A valid repeat count (1 to 100), else a ConfigError naming ``option``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPEAT:
        raise ConfigError(
            f"expected a whole number from 1 to {MAX_REPEAT}, got {value!r}", field=option
        )
    return value


def attempt_rows(rows: Sequence[Any], n: int) -> list[Any]:
    """The dataset rows, once per attempt, with the stored indexes and ids of the attempts.

    >>> from tooleval.datasets.load import DatasetRow
    >>> from tooleval.model import Sample
    >>> rows = [DatasetRow(0, "a", Sample(input="x")), DatasetRow(1, "b", Sample(input="y"))]
    >>> [(r.index, r.row_id, r.sample.metadata["attempt"]) for r in attempt_rows(rows, 2)]
    [(0, 'a', 1), (1, 'b', 1), (2, 'a#2', 2), (3, 'b#2', 2)]
    """
    n = check_repeat(n)
    if n == 1:
        return list(rows)
    stride = _stride(rows)
    expanded = []
    for attempt in range(1, n + 1):
        for row in rows:
            sample = row.sample
            if sample is not None:
                extra = {"attempt": attempt, "dataset_row_id": str(row.row_id)}
                sample = dataclasses.replace(sample, metadata={**sample.metadata, **extra})
            expanded.append(
                dataclasses.replace(
                    row,
                    index=(attempt - 1) * stride + row.index,
                    row_id=str(row.row_id) if attempt == 1 else f"{row.row_id}#{attempt}",
                    sample=sample,
                )
            )
    return expanded


def _stride(rows: Sequence[Any]) -> int:
    return max((row.index for row in rows), default=-1) + 1


def repeat_config(rows: Sequence[Any], n: int) -> dict[str, int]:
    """What the run's config records: ``{"n": N, "stride": S}``."""
    return {"n": n, "stride": _stride(rows)}
