"""`tooleval score` writes each result without per-check dicts: same bytes as ``to_dict``."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.cli.score import _record
from tooleval.metrics.registry import bind
from tooleval.model import ArgumentCheck, Diagnosis, ExpectedTools, Result, Sample, ToolCall

NAN = float("nan")
leaf = st.sampled_from([0, 1, 1.0, -0.0, True, None, "x", "é", NAN, 2**70, (1, 2)])
values = st.recursive(
    leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(st.just("p"), inner)),
    max_leaves=4,
)
arguments = st.dictionaries(st.sampled_from(["k1", "k2"]), values, max_size=2)
calls = st.lists(st.builds(ToolCall, st.sampled_from(["a", "b"]), arguments), max_size=3)
METRICS = [bind(name) for name in ("tool_call_accuracy", "tool_correctness", "tool_call_f1")]


def reference(row_id, result) -> bytes | type:
    try:
        return orjson.dumps(
            {"id": row_id, **result.to_dict()}, option=orjson.OPT_APPEND_NEWLINE, default=str
        )
    except orjson.JSONEncodeError:
        return orjson.JSONEncodeError


def written(row_id, result) -> bytes | type:
    try:
        return orjson.dumps(_record(row_id, result), option=orjson.OPT_APPEND_NEWLINE, default=str)
    except orjson.JSONEncodeError:
        return orjson.JSONEncodeError


@settings(max_examples=200, deadline=None)
@given(calls, calls)
def test_record_bytes_equal_to_dict_bytes(expected, actual):
    sample = Sample(tools_called=actual, expected_tools=ExpectedTools(tuple(expected)))
    for metric in METRICS:
        result = metric.score(sample)
        assert written("r1", result) == reference("r1", result)


def test_other_check_types_go_through_to_dict():
    class Check(ArgumentCheck):
        def to_dict(self):
            return {"key": self.key}

    diagnosis = Diagnosis(arguments=[Check("t", "k", 1, 2, 0.0)])
    result = Result.scored("m", 0.0, reason="r", diagnosis=diagnosis)
    assert written("x", result) == reference("x", result)
    assert b'"arguments":[{"key":"k"}]' in written("x", result)
