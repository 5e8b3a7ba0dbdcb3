"""The error policy of scoring one row: what becomes an unscored row, what is an input error.

Two kinds of failure, decided here and nowhere else:

* **A scoring failure** (the row is a row, the metric cannot give it a score):
  the partial-order search past its budget (``SearchBudgetExceeded``), a judge
  whose reply cannot be used, a value a matcher cannot compare, a metric that
  raises. The row is written as ``Result.unscored(reason)``; the other rows
  go on. :func:`score_sample` never raises for them.
* **An input error** (the row is not a readable row): not JSON, not an object,
  nested deeper than 100 levels (``NestingTooDeep``), a call of the wrong shape
  (no ``name``, a number for a name), no ``tools_called``/``messages`` for a
  metric that reads the calls. It is an :class:`~tooleval.errors.InputError`
  naming the row and the field. A command that reads a user's file
  (``tooleval score``) stops at the first one with exit 2, so a broken file is never scored in part; where a row is
  the unit of work (runs, Ray batches, rows handed in by a caller with
  ``strict=False``) it becomes :func:`unreadable`, an unscored row whose reason
  starts ``row could not be read:`` and carries the same message.

>>> from tooleval.metrics import bind
>>> metric = bind("tool_correctness")
>>> from tooleval.errors import ConfigError
>>> unscored(metric, ConfigError("matcher 'x' cannot compare lists")).reason
"could not score: matcher 'x' cannot compare lists"
>>> unscored(metric, KeyError("k")).reason
"could not score: KeyError: 'k'"
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tooleval.errors import ToolEvalError
from tooleval.model import Result, Sample
from tooleval.model.sample import unreadable_reason

__all__ = [
    "UNREADABLE",
    "apply_threshold",
    "ascore_sample",
    "explain_unbound",
    "explain_unbound_line",
    "reason_for",
    "score_sample",
    "unreadable",
    "unscored",
]

#: How the reason of a row that could not be read starts (runs, Ray, ``strict=False``).
UNREADABLE = "row could not be read"

#: How a reference metric's reason starts for a row without ``expected_tools`` (Python and kernel).
_UNBOUND = "no expected_tools bound for this row"


def explain_unbound(result: Result, why: str | None) -> Result:
    """``result`` with the reason a bound column gave no reference (``why``), when that is the case.

    A row whose bound ``expected_tools`` column is empty says so, instead of
    asking for a column to be bound (the metric only sees no reference).

    >>> r = Result.unscored("tool_correctness", "no expected_tools bound for this row")
    >>> explain_unbound(r, "row 2, column gold is empty").reason
    'no expected_tools for this row: row 2, column gold is empty; the row is not scored'
    """
    if why is None or result.score is not None or not result.reason.startswith(_UNBOUND):
        return result
    return dataclasses.replace(
        result, reason=f"no expected_tools for this row: {why}; the row is not scored"
    )


def explain_unbound_line(line: bytes, why: str | None) -> bytes:
    """A result line (``tooleval score``'s bytes) with :func:`explain_unbound` applied."""
    if why is None or b'"reason":"' + _UNBOUND.encode() not in line:
        return line
    import orjson

    found = orjson.loads(line)
    found["reason"] = f"no expected_tools for this row: {why}; the row is not scored"
    return orjson.dumps(found) + (b"\n" if line.endswith(b"\n") else b"")


def reason_for(exc: BaseException) -> str:
    """The unscored reason for a scoring failure.

    An error that carries its own ``reason`` (``SearchBudgetExceeded``: "ordering
    search stopped after 50000 steps ...; not scored") records it as it is;
    any other tooleval error is ``could not score: MESSAGE``, anything else
    ``could not score: TYPE: MESSAGE`` (a bug in a metric stays visible).
    """
    own = getattr(exc, "reason", None)
    if isinstance(exc, ToolEvalError) and isinstance(own, str) and own:
        return own
    if isinstance(exc, ToolEvalError):
        return f"could not score: {exc}"
    return f"could not score: {type(exc).__name__}: {exc}"


def _recorded(metric: Any) -> tuple[str, dict[str, Any], Any]:
    recorded = getattr(metric, "recorded", None)
    params = dict(recorded) if recorded is not None else {}
    return metric.name, params, getattr(metric, "params", {}).get("threshold")


def unscored(metric: Any, exc: BaseException, *, threshold: float | None = None) -> Result:
    """The unscored result of ``metric`` (a bound metric) for a scoring failure ``exc``."""
    name, params, default = _recorded(metric)
    return Result.unscored(
        name, reason_for(exc), params=params, threshold=default if threshold is None else threshold
    )


def _unscored_because(metric: Any, reason: str, threshold: float | None) -> Result:
    name, params, default = _recorded(metric)
    return Result.unscored(
        name, reason, params=params, threshold=default if threshold is None else threshold
    )


def unreadable(
    metric: str,
    exc: BaseException,
    *,
    params: dict[str, Any] | None = None,
    threshold: float | None = None,
) -> Result:
    """The unscored result for a row that could not be read (``row could not be read: ...``)."""
    return Result.unscored(metric, f"{UNREADABLE}: {exc}", params=params, threshold=threshold)


def apply_threshold(result: Result, threshold: float | None) -> Result:
    """A threshold given by the caller (a plan, ``--threshold``) decides ``passed``.

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


def score_sample(metric: Any, sample: Sample, *, threshold: float | None = None) -> Result:
    """Score one sample with a bound metric; a scoring failure is an unscored result.

    ``threshold`` (when given) decides ``passed`` as :func:`apply_threshold` does.

    >>> from tooleval.metrics import bind
    >>> score_sample(bind("tool_call_f1"), Sample(tools_called=["a"], expected_tools=["a"])).score
    1.0
    """
    if (reason := unreadable_reason(sample)) is not None:  # a record its reader could not read
        return _unscored_because(metric, reason, threshold)
    try:
        result = metric.score(sample)
    except Exception as exc:  # the policy: one row's failure is that row's reason
        return unscored(metric, exc, threshold=threshold)
    return result if threshold is None else apply_threshold(result, threshold)


async def ascore_sample(metric: Any, sample: Sample, *, threshold: float | None = None) -> Result:
    """Async twin of :func:`score_sample` (a judged metric awaits its judge)."""
    if (reason := unreadable_reason(sample)) is not None:
        return _unscored_because(metric, reason, threshold)
    try:
        result = await metric.ascore(sample)
    except Exception as exc:
        return unscored(metric, exc, threshold=threshold)
    return result if threshold is None else apply_threshold(result, threshold)
