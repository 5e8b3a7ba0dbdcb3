"""The plan's threshold on a metric's result (runs and rescores apply it the same way)."""

from __future__ import annotations

import dataclasses

from tooleval.model import Result

__all__ = ["apply_threshold"]


def apply_threshold(result: Result, threshold: float | None) -> Result:
    """The plan's threshold decides ``passed`` (whatever default the metric used).

    >>> apply_threshold(Result.scored("m", 0.6, reason=""), 0.5).passed
    True
    """
    if threshold is None:
        return result
    # A result that already says this (the common case) is kept as it is: a copy
    # would cost a kernel result the decoding of its diagnosis.
    same = type(result.threshold) is type(threshold) and result.threshold == threshold
    if result.score is None:
        return result if same else dataclasses.replace(result, threshold=threshold)
    passed = result.score >= threshold
    if same and type(result.passed) is bool and result.passed == passed:
        return result
    return dataclasses.replace(result, threshold=threshold, passed=passed)
