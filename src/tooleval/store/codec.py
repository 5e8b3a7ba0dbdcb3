"""Turn samples into JSON for the store and back, losslessly.

>>> s = Sample(input="hi", expected_tools=ExpectedTools.of(["a", "b"], before=[(0, 1)]),
...            tools_called=[ToolCall("a", {"x": 1})], category="greet", id="r1")
>>> sample_from_dict(sample_to_dict(s)) == s
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.model import ExpectedTools, Sample, ToolCall, message_from_dict

__all__ = ["calls_from_list", "expected_from_value", "sample_from_dict", "sample_to_dict"]


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
