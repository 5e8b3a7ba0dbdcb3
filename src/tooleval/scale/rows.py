"""Score and detect over plain row dicts: the work each Ray batch does, without Ray.

These functions are what :mod:`tooleval.scale.ray` maps over Arrow batches;
they are pure and run the same code as the single-process path
(:func:`tooleval.metrics.registry.bind`, which scores as ``score_sample`` does,
:func:`tooleval.monitor.detectors.run_detectors`), which is why results are
identical whatever the number of workers.

Nested columns (``messages``, ``tools_called``, ``expected_tools``,
``metadata``, ``reference_topics``, ``session``) travel as JSON text, since
Arrow would otherwise unify dicts of different shapes into structs full of
nulls; :func:`encode_row` / :func:`decode_row` convert.

>>> row = encode_row({"id": "r1", "input": "hi", "tools_called": [{"name": "f", "args": {}}],
...                   "expected_tools": ["f"]})
>>> row["tools_called"]
'[{"name": "f", "args": {}}]'
>>> [r["score"] for r in score_rows([row], metric="tool_correctness")]
[1.0]
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from tooleval.errors import ToolEvalError

__all__ = [
    "DETECT_COLUMNS",
    "NESTED_FIELDS",
    "SCORE_COLUMNS",
    "decode_row",
    "detect_rows",
    "encode_row",
    "score_rows",
    "session_from_row",
    "session_to_row",
    "tool_count_rows",
]

NESTED_FIELDS = (
    "messages",
    "tools_called",
    "expected_tools",
    "metadata",
    "reference_topics",
    "session",
)
SCORE_COLUMNS = ("row_id", "metric", "score", "passed", "reason", "result")
DETECT_COLUMNS = ("session_id", "detector", "score", "passed", "findings", "result")


def encode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical row with nested fields as JSON text (Arrow-friendly)."""
    out = {}
    for key, value in row.items():
        if key in NESTED_FIELDS and value is not None and not isinstance(value, str):
            out[key] = json.dumps(value, ensure_ascii=False, default=str)
        else:
            out[key] = value
    return out


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Undo :func:`encode_row`; text that is not JSON (``"a, b"`` expected tools) stays text.

    JSON nested deeper than 100 levels raises ``NestingTooDeep`` naming the field.
    """
    from tooleval.formats.json_limits import loads_text

    out = {}
    for key, value in row.items():
        if key in NESTED_FIELDS and isinstance(value, str) and value[:1] in ("[", "{"):
            with contextlib.suppress(ValueError):  # JSON nested too deep raises, naming the field
                value = loads_text(value, field=key)
        out[key] = value
    return out


def _row_id(row: Mapping[str, Any]) -> str | None:
    value = row.get("id")
    return None if value is None else str(value)


def score_rows(
    rows: Iterable[Mapping[str, Any]], *, metric: str, judge: Any = None, **options: Any
) -> list[dict[str, Any]]:
    """Score each canonical row with one registered metric; one output dict per row.

    Rows go through :func:`tooleval.scoring.score_rows` with ``strict=False``:
    a row that cannot be read is an unscored result whose reason starts
    ``row could not be read:``, a row the metric cannot score (the ordering
    search's budget) is unscored with its reason, so one row never fails its
    batch; a wrong metric name or parameter raises
    :class:`~tooleval.errors.ConfigError` before any row is scored.
    """
    from tooleval.metrics.registry import bind
    from tooleval.scoring import score_rows as pipeline_rows
    from tooleval.scoring import unreadable

    bound = bind(metric, judge=judge, **options)
    out = []
    for number, row in enumerate(rows, start=1):
        try:
            decoded = decode_row(row)
        except ToolEvalError as exc:  # JSON text nested too deep: this row's reason
            result = unreadable(
                bound.name,
                exc.with_context(row=number),
                params=dict(bound.recorded),
                threshold=bound.params.get("threshold"),
            )
        else:
            ((_, result),) = pipeline_rows(bound, [decoded], strict=False, start=number)
        out.append(
            {
                "row_id": _row_id(row),
                "metric": result.metric,
                "score": result.score,
                "passed": result.passed,
                "reason": result.reason,
                "result": json.dumps(result.to_dict(), sort_keys=True, default=str),
            }
        )
    return out


def session_to_row(session: Any) -> dict[str, Any]:
    """A :class:`~tooleval.monitor.session.Session` as a row (``session_id``, ``session`` JSON)."""
    return {"session_id": session.id, "session": json.dumps(session.to_dict(), default=str)}


def session_from_row(row: Mapping[str, Any]) -> Any:
    """A session from a :func:`session_to_row` row, or from a canonical dataset row."""
    from tooleval.monitor.session import Session

    data = decode_row(row)
    if data.get("session") is not None:
        return Session.from_dict(data["session"])
    from tooleval.formats import sample_from_row

    sample = sample_from_row(data)
    return Session.from_sample(sample, id=_row_id(row) or "")


def tool_count_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per session, how many times each tool was called (JSON), for the batch baseline."""
    out = []
    for row in rows:
        session = session_from_row(row)
        counts = Counter(c.name for c in session.calls)
        out.append({"session_id": session.id, "counts": json.dumps(counts, sort_keys=True)})
    return out


def detect_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    detectors: Mapping[str, Mapping[str, Any]],
    baseline: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run resolved detectors on each session row; one output dict per session and detector."""
    from tooleval.monitor.detectors import ToolBaseline, detector_result, run_detectors

    tool_baseline = ToolBaseline.from_dict(baseline) if baseline is not None else None
    out = []
    for row in rows:
        session = session_from_row(row)
        found = run_detectors(
            session, detectors=list(detectors), options=detectors, baseline=tool_baseline
        )
        for name, params in detectors.items():
            result = detector_result(name, found[name], params)
            out.append(
                {
                    "session_id": session.id,
                    "detector": name,
                    "score": result.score,
                    "passed": result.passed,
                    "findings": len(found[name]),
                    "result": json.dumps(result.to_dict(), sort_keys=True, default=str),
                }
            )
    return out
