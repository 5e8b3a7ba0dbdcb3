"""`score_rows` binds its metric once, with the errors and results of `score_sample`."""

from __future__ import annotations

import json

import pytest

from tooleval.errors import ConfigError
from tooleval.formats import sample_from_row
from tooleval.metrics.registry import score_sample
from tooleval.scale.rows import score_rows

ROWS = [
    {"id": "a", "tools_called": [{"name": "f", "args": {"x": 1}}], "expected_tools": ["f"]},
    {"id": "b", "tools_called": ["g"], "expected_tools": [{"name": "f", "args": {"x": 1}}]},
]


def test_results_equal_score_sample():
    out = score_rows(ROWS, metric="tool_correctness", order="strict")
    for row, got in zip(ROWS, out, strict=True):
        want = score_sample("tool_correctness", sample_from_row(row), order="strict")
        assert json.loads(got["result"]) == json.loads(json.dumps(want.to_dict(), default=str))


def test_bad_parameter_raises_before_any_row():
    # The scoring pipeline's policy: a bad option is a ConfigError before any
    # row is scored, even when no row of the batch could be read.
    unreadable = [{"id": "x", "expected_tools": 5}]
    out = score_rows(unreadable, metric="tool_correctness")
    assert out[0]["score"] is None and "could not be read" in out[0]["reason"]
    with pytest.raises(ConfigError):
        score_rows(unreadable, metric="tool_correctness", no_such_option=1)
