"""The one scoring pipeline: row -> sample -> result -> line, with one error policy.

Every entry point scores through these functions: ``tooleval score`` (files,
streams, the compiled kernel's threads or processes), the runner and
``tooleval rescore`` (:func:`score_sample` / :func:`ascore_sample` per metric
and row), Ray batches (:func:`score_rows` with ``strict=False``), the pytest
helpers, and judged metrics in ``tooleval score`` (:func:`score_concurrently`). The compiled kernel is reached only
through :mod:`tooleval.metrics.engine`, and :func:`score_line` is the Python
reference its bytes are compared with.

The error policy (see :mod:`tooleval.scoring.policy`):

=======================================  ==============================================
failure                                  becomes
=======================================  ==============================================
ordering search past its budget          unscored, the search's own reason
(``SearchBudgetExceeded``)               (``ordering search stopped after ...``)
a metric or judge raising on one row     unscored, ``could not score: ...``
not JSON, not an object, nested deeper   an InputError naming the row (and field):
than 100 levels, a call of the wrong     files given to ``tooleval score`` stop
shape, no ``tools_called``/``messages``  with exit 2; runs, Ray and ``strict=False``
                                         store ``row could not be read: ...``
unknown metric or option                 a ConfigError before any row is scored
=======================================  ==============================================

>>> from tooleval.metrics import bind
>>> metric = bind("tool_correctness")
>>> rows = [{"id": "r1", "tools_called": ["a"], "expected_tools": ["a"]},
...         {"id": "r2", "tools_called": ["a"]}]
>>> [(i, r.score) for i, r in score_rows(metric, rows)]
[('r1', 1.0), ('r2', None)]
"""

from tooleval.scoring.concurrent import score_concurrently
from tooleval.scoring.policy import (
    UNREADABLE,
    apply_threshold,
    ascore_sample,
    explain_unbound,
    explain_unbound_line,
    reason_for,
    score_sample,
    unreadable,
    unscored,
)
from tooleval.scoring.rows import (
    check_calls_given,
    read_rows,
    result_line,
    row_id,
    row_sample,
    score_line,
    score_line_metrics,
    score_row,
    score_rows,
)
from tooleval.scoring.stream import (
    MAX_THREADS,
    StreamTally,
    cpus,
    default_threads,
    read_samples,
    score_parsed,
    score_samples,
    score_stream,
    score_stream_tallied,
)

__all__ = [
    "MAX_THREADS",
    "StreamTally",
    "UNREADABLE",
    "apply_threshold",
    "ascore_sample",
    "explain_unbound",
    "explain_unbound_line",
    "check_calls_given",
    "cpus",
    "default_threads",
    "read_rows",
    "read_samples",
    "reason_for",
    "result_line",
    "row_id",
    "row_sample",
    "score_concurrently",
    "score_line",
    "score_line_metrics",
    "score_parsed",
    "score_row",
    "score_rows",
    "score_sample",
    "score_samples",
    "score_stream",
    "score_stream_tallied",
    "unreadable",
    "unscored",
]
