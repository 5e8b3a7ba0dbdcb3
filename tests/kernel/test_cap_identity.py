"""Huge values are cut in diagnoses the same way, byte for byte, by the kernel and Python.

A value whose compact JSON passes ``reasons.CAP_BYTES`` is kept in a diagnosis
as the first bytes of that JSON and a marker saying how much was cut; the
reason quotes the cut value. Values are drawn around the cap (one byte under,
at, over), in every width of UTF-8 and with characters JSON escapes, as long
strings, long lists and deep dicts, and scored by every kernel configuration of
``test_identity`` and by ``output_contains``: the lines must be byte-identical.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip(
    "tooleval._kernel", reason="compiled kernel not built (`make kernel` needs cargo)"
)

from tests.kernel.test_identity import BOUND, python_line  # noqa: E402

from tooleval.metrics import bind  # noqa: E402
from tooleval.metrics.engine import fastest_engine, kernel_status  # noqa: E402
from tooleval.metrics.reasons import CAP_BYTES, NAME_CHARS, capped  # noqa: E402

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)

# one character of each UTF-8 width, and characters JSON writes escaped (2 and 6 bytes)
CHARS = ["x", "é", "東", "😀", '"', "\n", "\x01"]


def text(char: str, size: int) -> str:
    """A string of ``char`` whose JSON is about ``size`` bytes."""
    return char * max(1, size // len(orjson.dumps(char)[1:-1]))


huge_strings = st.builds(
    lambda c, size, tail: text(c, size) + tail,
    st.sampled_from(CHARS),
    st.integers(CAP_BYTES - 8, CAP_BYTES + 8) | st.integers(CAP_BYTES, 8_000),
    st.sampled_from(["", "a", "é", "😀"]),
)
huge_lists = st.builds(
    lambda n, v: [v] * n, st.integers(150, 1500), st.sampled_from([1, "é", None])
)


def deep(levels: int, leaf: Any) -> Any:
    value = leaf
    for n in range(levels):
        value = {"k": value} if n % 2 else [value, n]
    return value


deep_dicts = st.builds(deep, st.integers(40, 90), st.sampled_from(["x", "東" * 300]))
huge = st.one_of(huge_strings, huge_lists, deep_dicts)
small = st.one_of(st.integers(0, 3), st.sampled_from(["x", "é", "say 'hi'"]))


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    def args() -> dict[str, Any]:
        keys = draw(st.lists(st.sampled_from(["q", "n", "d"]), min_size=1, max_size=3))
        return {k: draw(st.one_of(huge, small)) for k in keys}

    expected = [{"name": draw(st.sampled_from(["f", "g"])), "args": args()} for _ in range(2)]
    actual = [{"name": draw(st.sampled_from(["f", "g", "h"])), "args": args()} for _ in range(2)]
    if draw(st.booleans()):
        actual[0] = expected[0]  # the usual match: both sides show the same huge value
    return {"id": "r", "expected_tools": expected, "tools_called": actual}


def same_line(metric: Any, row: dict[str, Any], *, taken: bool = True) -> bytes:
    """The kernel's line, checked against Python's; ``taken``: the kernel must score it."""
    line = orjson.dumps(row) + b"\n"
    got = fastest_engine(metric).kernel.score_line(line, 1)
    reference = python_line(metric, 1, line)
    assert isinstance(reference, bytes), reference
    if got is None:  # values nested deeper than the kernel walks are Python's
        assert not taken, "the kernel hands plain rows of huge values to Python"
        return reference
    assert got == reference
    return got


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=rows(), which=st.integers(0, len(BOUND) - 1))
def test_huge_values_are_cut_alike(row: dict[str, Any], which: int) -> None:
    name, options, metric = BOUND[which]
    got = same_line(metric, row, taken=False)
    for check in orjson.loads(got)["diagnosis"]["arguments"]:
        for side in ("expected", "actual"):
            assert len(orjson.dumps(check[side])) <= 2 * CAP_BYTES + 100, (name, options)


@pytest.mark.parametrize("char", CHARS)
@pytest.mark.parametrize("size", [CAP_BYTES - 1, CAP_BYTES, CAP_BYTES + 1, CAP_BYTES + 3])
def test_values_at_the_cap(char: str, size: int) -> None:
    """Every length at the cap, in each width: the cut never splits a character."""
    width = len(orjson.dumps(char)) - 2
    value = "a" * ((size - 2) % width) + char * ((size - 2) // width)
    assert len(orjson.dumps(value)) == size
    row = {
        "expected_tools": [{"name": "f", "args": {"q": value, "n": 1}}],
        "tools_called": [{"name": "f", "args": {"q": value + char, "n": 2}}, "extra"],
        "id": 1,
    }
    for _, _, metric in BOUND:
        # the reason's repr of an emoji needs Unicode tables the kernel leaves to Python
        same_line(metric, row, taken=char != "😀")


def test_a_cut_value_says_what_was_cut() -> None:
    value = {"rows": ["x" * 100] * 30_000}  # 3 MB of JSON
    row = {
        "expected_tools": [{"name": "f", "args": {"q": value}}, {"name": "g", "args": value}],
        "tools_called": [{"name": "f", "args": {"q": 1}}],
    }
    result = orjson.loads(same_line(BOUND[4][2], row))  # tool_correctness
    size = len(orjson.dumps(value))
    shown = result["diagnosis"]["arguments"][0]["expected"]
    assert shown == capped(value)
    assert shown.startswith('{"rows":["xxx')
    assert shown.endswith(f"... [cut: {size} bytes of JSON, first {CAP_BYTES} shown]")
    assert result["diagnosis"]["missing"][0]["args"] == shown
    assert 'f.q expected \'{"rows":[' in result["reason"]
    assert len(orjson.dumps(result)) < 5 * CAP_BYTES


def test_small_values_stay_whole() -> None:
    """Under the cap nothing changes: the value itself, not a copy."""
    for value in ["x" * 150, "é" * 400, [1] * 400, {"k": "x" * (CAP_BYTES - 8)}, None, 2**64 - 1]:
        assert capped(value) is value
    assert capped({"k": "x" * (CAP_BYTES - 7)}) != {"k": "x" * (CAP_BYTES - 7)}


@pytest.mark.parametrize("require", ["all", "any"])
def test_output_contains_cuts_its_values_alike(require: str) -> None:
    metric = bind("output_contains", require=require)
    wanted = [text("é", 5000), "short", text('"', CAP_BYTES + 1), "東" * 332]
    for output in ["nothing", "short " + wanted[0]]:
        row = {"id": "r", "output": output, "metadata": {"output_contains": wanted}}
        result = orjson.loads(same_line(metric, row))
        assert all(
            len(orjson.dumps(v)) < 2 * CAP_BYTES + 80
            for v in result["diagnosis"]["details"]["values"]
        )


@pytest.mark.parametrize("char", ["n", "é", "東"])
def test_long_names_are_cut_in_reasons_alike(char: str) -> None:
    """A tool name or argument path past ``NAME_CHARS`` is cut in the reason, by both paths."""
    name, key, other = char * 300, "k" * 150, "m" * (NAME_CHARS + 1)
    row = {
        "expected_tools": [{"name": name, "args": {key: 1}}, {"name": other, "args": {}}],
        "tools_called": [{"name": name, "args": {key: 2}}, {"name": other + "x", "args": {}}],
        "id": "r",
    }
    for _, _, metric in BOUND:
        result = orjson.loads(same_line(metric, row))
        assert len(result["reason"]) < 900, result["reason"]
    shown = char * (NAME_CHARS - 3) + "..."
    reason = orjson.loads(same_line(BOUND[4][2], row))["reason"]  # tool_correctness
    assert f"{shown}.{'k' * (NAME_CHARS - 3)}... expected 1, got 2" in reason
    exact = "m" * NAME_CHARS
    row["tools_called"][1]["name"] = exact  # exactly NAME_CHARS: whole
    assert f"extra {exact}" in orjson.loads(same_line(BOUND[4][2], row))["reason"]
