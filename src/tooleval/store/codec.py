"""Turn samples, rows and results into JSON and table values for the store, and back.

Everything here is pure: the store's SQL modules do the I/O.

>>> s = Sample(input="hi", expected_tools=ExpectedTools.of(["a", "b"], before=[(0, 1)]),
...            tools_called=[ToolCall("a", {"x": 1})], category="greet", id="r1")
>>> sample_from_dict(sample_to_dict(s)) == s
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import StoreError
from tooleval.model import Diagnosis, ExpectedTools, Result, Sample, ToolCall, message_from_dict
from tooleval.store.records import RowRecord

__all__ = [
    "calls_from_list",
    "expected_from_value",
    "result_from_row",
    "result_values",
    "row_record",
    "row_values",
    "sample_from_dict",
    "sample_to_dict",
    "without_nul",
]


def sample_to_dict(sample: Sample) -> dict[str, Any]:
    """The sample as plain JSON data (:meth:`Sample.to_dict`)."""
    return sample.to_dict()


def expected_from_value(value: Any) -> ExpectedTools | None:
    """Rebuild :class:`ExpectedTools` from :meth:`ExpectedTools.to_dict` output."""
    if value is None:
        return None
    before = None
    calls_value = value
    if isinstance(value, Mapping):
        calls_value = value.get("calls") or []
        raw_before = value.get("before")
        before = None if raw_before is None else tuple(tuple(p) for p in raw_before)
    calls = []
    for item in calls_value:
        if isinstance(item, str):
            calls.append(ToolCall(item, args=None))
        else:
            args = item.get("args")
            calls.append(ToolCall(item["name"], args=None if args is None else dict(args)))
    return ExpectedTools(tuple(calls), before)


def calls_from_list(value: Any) -> list[ToolCall] | None:
    """Rebuild a list of calls from ``[call.to_dict(), ...]`` (None stays None)."""
    if value is None:
        return None
    return [ToolCall.from_dict(c) if isinstance(c, Mapping) else ToolCall(str(c)) for c in value]


def sample_from_dict(data: Mapping[str, Any]) -> Sample:
    """Rebuild a :class:`Sample` from :func:`sample_to_dict` output."""
    return Sample(
        input=data.get("input") or "",
        messages=[message_from_dict(m) for m in data.get("messages") or ()],
        tools_called=calls_from_list(data.get("tools_called")),
        expected_tools=expected_from_value(data.get("expected_tools")),
        reference=data.get("reference"),
        reference_topics=data.get("reference_topics"),
        output=data.get("output"),
        category=data.get("category"),
        test_type=data.get("test_type"),
        id=data.get("id"),
        metadata=dict(data.get("metadata") or {}),
    )


def row_values(run_id: str, record: RowRecord, created: str) -> dict[str, Any]:
    """The ``rows`` table values of one :class:`RowRecord`."""
    sample = record.sample
    data = sample.to_dict()
    # The agent's side is kept in its own columns (shown and searched apart).
    tools_called = data.pop("tools_called", None)
    output = data.pop("output", None)
    return {
        "run_id": run_id,
        "row_index": int(record.index),
        "row_id": str(record.row_id),
        "category": sample.category,
        "input": sample.user_input(),
        "sample": data,
        "output": output,
        "tools_called": tools_called,
        "error": record.error,
        "latency_ms": record.latency_ms,
        "raw_response": record.raw_response,
        "failure_class": record.failure_class,
        "failure_detail": record.failure_detail,
        "passed": record.passed,
        "created_at": created,
    }


def result_values(run_id: str, record: RowRecord) -> list[dict[str, Any]]:
    """The ``results`` table values of one row; StoreError on two results for one metric."""
    seen: set[str] = set()
    values = []
    for position, result in enumerate(record.results):
        if result.metric in seen:
            raise StoreError(
                f"row {record.index} has two results for metric {result.metric!r}",
                row=record.index,
            )
        seen.add(result.metric)
        values.append(
            {
                "run_id": run_id,
                "row_index": int(record.index),
                "metric": result.metric,
                "position": position,
                "score": result.score,
                "passed": result.passed,
                "threshold": result.threshold,
                "reason": result.reason,
                "params": dict(result.params),
                "diagnosis": _diagnosis_value(result),
            }
        )
    return values


def _diagnosis_value(result: Result) -> Any:
    """What the ``diagnosis`` column gets: the kernel's JSON as it is, when still undecoded.

    The store's JSON serializer is orjson, which writes a ``Fragment`` as given;
    text with an escaped NUL (which PostgreSQL refuses) is decoded instead, so
    :func:`without_nul` can replace it.
    """
    encoded = result.encoded_diagnosis()
    if encoded is not None and b"\\u0000" not in encoded:
        import orjson

        return orjson.Fragment(encoded)
    return result.diagnosis.to_dict()


def row_record(row: Mapping[str, Any], results: Sequence[Result]) -> RowRecord:
    """Rebuild a :class:`RowRecord` from a ``rows`` table row and its Results."""
    data = dict(row["sample"] or {})
    data["tools_called"] = row["tools_called"]
    data["output"] = row["output"]
    sample = sample_from_dict(data)
    if sample.tools_called is None and row["tools_called"] is not None:
        sample.tools_called = calls_from_list(row["tools_called"])
    return RowRecord(
        run_id=row["run_id"],
        index=row["row_index"],
        row_id=row["row_id"],
        sample=sample,
        results=tuple(results),
        error=row["error"],
        latency_ms=row["latency_ms"],
        raw_response=row["raw_response"],
        failure_class=row["failure_class"],
        failure_detail=row.get("failure_detail"),
    )


def result_from_row(row: Mapping[Any, Any]) -> Result:
    """Rebuild a :class:`Result` from a ``results`` table row."""
    return Result(
        metric=row["metric"],
        score=row["score"],
        passed=row["passed"],
        reason=row["reason"],
        params=dict(row["params"] or {}),
        threshold=row["threshold"],
        diagnosis=Diagnosis.from_dict(row["diagnosis"]),
    )


def without_nul(value: Any) -> Any:
    """``value`` with every NUL character in its strings replaced by U+FFFD.

    >>> without_nul({"out": ["a\\x00b"]}) == {"out": ["a\\ufffdb"]}
    True
    """
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_nul(v) for v in value]
    return value
