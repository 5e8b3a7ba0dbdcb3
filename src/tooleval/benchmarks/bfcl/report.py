"""BFCL's own report: per-id verdicts and accuracy per category, from bound ``bfcl_ast`` results.

What ``tooleval bfcl`` prints and writes; the samples come from the BFCL
reader as for ``tooleval score --format bfcl``.

>>> from tooleval.metrics.registry import bind
>>> from tooleval.model import Sample
>>> rows, summary = verdict_rows(bind("bfcl_ast"),
...     [Sample(id="irrelevance_0", category="irrelevance", tools_called=[], expected_tools=[])])
>>> rows[0]["passed"], summary
(True, [('irrelevance', 1, 1)])
>>> from tooleval.benchmarks import unreadable
>>> verdict_rows(bind("bfcl_ast"), [unreadable("simple_0", "bad", category="simple")])[0][0]["error"]
'unreadable'

"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tooleval.benchmarks.base import unreadable_reason
from tooleval.metrics.registry import BoundMetric
from tooleval.model import Sample

__all__ = ["verdict_rows"]


def verdict_rows(
    metric: BoundMetric, samples: Iterable[Sample]
) -> tuple[list[dict[str, Any]], list[tuple[str, int, int]]]:
    """One verdict row per sample (``id``, ``category``, ``passed``, ``error``,
    ``bfcl_error_type``, ``reason``) and ``(category, passed, total)`` in the
    order categories first appear. A record the reader could not read counts
    as not passed, with ``error`` ``"unreadable"`` and the reader's reason."""
    rows: list[dict[str, Any]] = []
    counts: dict[str, list[int]] = {}
    for sample in samples:
        category = str(sample.category)
        problem = unreadable_reason(sample)
        error: str | None
        if problem is not None:  # a result record the reader could not read: not passed
            ok, error, label, reason = False, "unreadable", None, problem
        else:
            result = metric.score(sample)
            details = result.diagnosis.details
            ok, reason = bool(result.passed), result.reason
            error, label = details.get("error"), details.get("bfcl_error_type")
        rows.append(
            {
                "id": sample.id,
                "category": category,
                "passed": ok,
                "error": error,
                "bfcl_error_type": label,
                "reason": reason,
            }
        )
        tally = counts.setdefault(category, [0, 0])
        tally[0] += ok
        tally[1] += 1
    return rows, [(c, passed, total) for c, (passed, total) in counts.items()]
