"""The compiled kernel writes exactly the bytes the Python reference writes.

Random rows (nested arguments, unicode, numbers at float edges, duplicate
calls, names-only calls, partial orders, malformed rows) are scored by
``tooleval._kernel`` and by the Python metrics through the same path as
``tooleval score``; every line the kernel takes must be byte-identical, and
every line it hands back is scored by Python in the same output order.
"""

from __future__ import annotations

import copy
import io
import itertools
import math
import os
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip(
    "tooleval._kernel", reason="compiled kernel not built (`make kernel` needs cargo)"
)

from tooleval.metrics import bind  # noqa: E402
from tooleval.metrics.engine import (  # noqa: E402
    ENV_DISABLE,
    fastest_engine,
    kernel_status,  # noqa: E402
)
from tooleval.model import AnyOf  # noqa: E402
from tooleval.scoring import score_line  # noqa: E402

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("tool_call_accuracy", {}),
    ("tool_call_accuracy", {"order": "flexible", "threshold": 0.5}),
    ("tool_call_f1", {}),
    ("tool_call_f1", {"empty": "unscored", "extra_keys": "mismatch"}),
    ("tool_correctness", {}),
    ("tool_correctness", {"order": "strict", "exact_match": True}),
    ("tool_correctness", {"order": "strict", "extra_keys": "ignore", "empty": "zero"}),
    ("tool_correctness", {"argument_keys": ["q", "a.b"], "extra_calls": "ignore"}),
    ("tool_correctness", {"argument_keys": {"f": ["q"]}, "extra_keys": "ignore"}),
    ("trajectory_match", {}),
    ("trajectory_match", {"order": "flexible"}),
    ("trajectory_match", {"order": "flexible", "coverage": "subset", "empty": "unscored"}),
    ("trajectory_match", {"order": "flexible", "coverage": "superset", "args": "normalized"}),
    ("trajectory_match", {"coverage": "subset"}),
    ("trajectory_match", {"coverage": "superset", "empty": "zero"}),
    ("tool_call_accuracy", {"empty": "unscored"}),
    ("tool_call_accuracy", {"order": "flexible", "empty": "zero"}),
    ("tool_correctness", {"empty": "unscored", "exact_match": True}),
    (
        "tool_call_accuracy",
        {
            "args": {
                "default": "exact",
                "keys": {"q": "normalized", "n": {"numeric": {"abs_tol": 0.5}}},
                "tools": {"g": {"a.b": "ignore", "*": {"numeric": {"rel_tol": 0.1}}}},
            }
        },
    ),
    ("tool_call_f1", {"args": {"numeric": {"int_float_equal": False}}}),
]
BOUND = [(name, options, bind(name, **options)) for name, options in CONFIGS]

FLOATS = [0.0, -0.0, 0.1, 1.5, 1e-5, 1e-6, 2.5e-7, 1e15, 1e16, 1.7976931348623157e308, 5e-324]
INTS = [0, 1, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1]
NAMES = ["f", "g", "h", "lookup_order"]
KEYS = ["q", "n", "a", "b", "a.b", "é"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(INTS),
    st.integers(-1000, 1000),
    st.sampled_from(FLOATS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            "x",
            "X ",
            "  x\t y",
            "it's",
            'say "hi"',
            "naïve",
            "東京",
            "\x00\x1f\\",
            "\xad\xa0ÿĀ",
            "한국어 " * 9,
        ]
    ),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.sampled_from(KEYS), values, max_size=4)
calls = st.one_of(
    st.builds(lambda n, a: {"name": n, "args": a}, st.sampled_from(NAMES), arguments),
    st.builds(lambda n: {"name": n, "args": None}, st.sampled_from(NAMES)),
    st.sampled_from(NAMES + [" f ", "é"]),
)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    expected = draw(st.lists(calls, max_size=4))
    if draw(st.booleans()):
        # the agent repeats, drops or reorders the reference calls (duplicates, partial matches)
        actual = draw(st.permutations(expected + draw(st.lists(calls, max_size=2))))
    else:
        actual = draw(st.lists(calls, max_size=4))
    row: dict[str, Any] = {"tools_called": actual, "expected_tools": expected}
    shape = draw(st.integers(0, 9))
    if shape == 0:
        row["expected_tools"] = None
    elif shape == 1 and expected:
        # a partial order: index or name references, or "any" order (cycles and bad
        # references too: the kernel hands those to Python, which reports them)
        refs = st.one_of(
            st.integers(0, len(expected)),
            st.sampled_from(NAMES + [c for c in expected if isinstance(c, str)]),
        )
        order: dict[str, Any] = {"calls": expected}
        if draw(st.booleans()):
            order["before"] = draw(st.lists(st.lists(refs, min_size=2, max_size=2), max_size=4))
        else:
            order["order"] = draw(st.sampled_from(["any", "listed"]))
        row["expected_tools"] = order
    elif shape == 2:
        row["tools_called"] = None
    elif shape == 3:
        row["messages"] = []  # not a plain row: Python reads it
    row_id = draw(st.one_of(st.none(), st.text(max_size=5), st.sampled_from(INTS), st.just(True)))
    if row_id is not None:
        row["id"] = row_id
    if draw(st.booleans()):
        row["input"] = draw(st.one_of(st.text(max_size=5), st.none(), st.integers(0, 9)))
    return row


def python_line(metric: Any, number: int, line: bytes) -> bytes | type:
    """The Python reference's line: the in-process kernel of ``bind(...).score`` is off too."""
    with mock.patch.dict(os.environ, {ENV_DISABLE: "1"}):
        reference = copy.copy(metric)  # a fresh bound metric: it finds the kernel disabled
        try:
            return score_line(reference, number, line)
        except Exception as exc:
            return type(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=rows(), which=st.integers(0, len(CONFIGS) - 1), number=st.integers(1, 10**6))
def test_kernel_line_equals_python_line(row: dict[str, Any], which: int, number: int) -> None:
    name, options, metric = BOUND[which]
    engine = fastest_engine(metric)
    assert engine.compiled, (name, options)
    line = orjson.dumps(row) + b"\n"
    got = engine.kernel.score_line(line, number)
    if got is not None:
        assert got == python_line(metric, number, line)


# Every enumerated option of every kernel metric, each value drawn (the shared
# vocabulary: order, coverage, empty; and each metric's own flags).
KERNEL_METRICS = ("tool_call_accuracy", "tool_call_f1", "tool_correctness", "trajectory_match")


def _choices(name: str) -> dict[str, tuple[Any, ...]]:
    from tooleval.metrics.registry import get_metric

    return {k: p.choices for k, p in get_metric(name).params.items() if p.choices is not None}


@st.composite
def kernel_options(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(KERNEL_METRICS))
    options = {k: draw(st.sampled_from(values)) for k, values in _choices(name).items()}
    options["args"] = draw(st.sampled_from(["exact", "normalized", "ignore"]))
    return name, options


_BOUND_BY_OPTIONS: dict[str, Any] = {}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chosen=kernel_options(), row=rows(), number=st.integers(1, 10**6))
def test_every_option_value_is_byte_identical(
    chosen: tuple[str, dict[str, Any]], row: dict[str, Any], number: int
) -> None:
    name, options = chosen
    key = repr((name, sorted(options.items())))
    metric = _BOUND_BY_OPTIONS.setdefault(key, bind(name, **options))
    engine = fastest_engine(metric)
    assert engine.compiled, (name, options)
    line = orjson.dumps(row) + b"\n"
    got = engine.kernel.score_line(line, number)
    if got is not None:
        assert got == python_line(metric, number, line)


@pytest.mark.parametrize("name", KERNEL_METRICS)
def test_the_kernel_takes_every_value_of_every_option(name: str) -> None:
    """Each option value keeps the metric compiled (no silent fallback to Python)."""
    for option, values in _choices(name).items():
        for value in values:
            assert fastest_engine(bind(name, **{option: value})).compiled, (name, option, value)
    empty_row = orjson.dumps({"id": "e", "tools_called": [], "expected_tools": []})
    for empty in ("perfect", "zero", "unscored"):
        metric = bind(name, empty=empty)
        got = fastest_engine(metric).kernel.score_line(empty_row, 1)
        assert got is not None and got == python_line(metric, 1, empty_row)


@pytest.mark.parametrize(("name", "options", "metric"), BOUND, ids=[c[0] for c in CONFIGS])
def test_plain_rows_are_taken_by_the_kernel(name: str, options: dict, metric: Any) -> None:
    """The common row shape never falls back (else the kernel would only look fast)."""
    line = orjson.dumps(
        {
            "id": "r1",
            "tools_called": [{"name": "f", "args": {"q": "Paris", "n": 2.5, "a": {"b": [1]}}}],
            "expected_tools": [{"name": "f", "args": {"q": "paris", "n": 2, "a": {"b": [1]}}}],
        }
    )
    got = fastest_engine(metric).kernel.score_line(line, 1)
    assert got is not None
    assert got == python_line(metric, 1, line)


def _file(lines_of_rows: list[Any]) -> list[bytes]:
    out = []
    for row in lines_of_rows:
        out.append(row if isinstance(row, bytes) else orjson.dumps(row) + b"\n")
    return out


MIXED = [
    {"id": "a", "tools_called": ["f"], "expected_tools": ["f", "g"]},
    b"\n",  # blank: skipped but counted
    {"id": "b", "tools_called": [], "expected_tools": ["f"], "messages": []},  # Python
    {"tools_called": [{"name": "f", "args": {"q": "\u00e9t\u00e9"}}], "expected_tools": ["g"]},
    {"id": 7, "tools_called": [], "expected_tools": []},  # null would be refused
    {"id": "c", "tools_called": [{"name": "f", "args": {"q": 1}}], "expected_tools": None},
]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_stream_keeps_order_with_fallback_rows(threads: int) -> None:
    metric = bind("tool_correctness")
    lines = _file(MIXED * 50)
    want = b"".join(
        python_line(metric, n, line) for n, line in enumerate(lines, start=1) if line.strip()
    )
    engine = fastest_engine(metric)
    seen: list[int] = []

    def fallback(number: int, line: bytes) -> bytes:
        seen.append(number)
        return score_line(metric, number, line)

    got = b"".join(engine.score_lines(io.BytesIO(b"".join(lines)), fallback, threads=threads))
    assert got == want
    assert seen == [n for n in range(1, len(lines) + 1) if n % 6 == 3]  # only the messages rows


def test_a_bad_line_raises_the_python_error_at_its_row() -> None:
    from tooleval.errors import InputError

    metric = bind("tool_call_accuracy")
    lines = _file(MIXED[:1] * 3 + [b"{not json\n"] + MIXED[:1])
    engine = fastest_engine(metric)
    out: list[bytes] = []
    with pytest.raises(InputError) as info:
        for part in engine.score_lines(lines, lambda n, line: score_line(metric, n, line)):
            out.append(part)
    assert info.value.row == 4
    assert b"".join(out).count(b"\n") == 3


def test_environment_variable_disables_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    metric = bind("tool_call_accuracy")
    assert fastest_engine(metric).compiled
    monkeypatch.setenv(ENV_DISABLE, "1")
    engine = fastest_engine(metric)
    assert not engine.compiled
    lines = _file(MIXED)
    got = b"".join(engine.score_lines(lines, lambda n, line: score_line(metric, n, line)))
    assert got == b"".join(
        python_line(metric, n, line) for n, line in enumerate(lines, start=1) if line.strip()
    )


@pytest.mark.parametrize(
    "options",
    [
        # a Python normaliser inside a built-in matcher (test_matchers_identity has more)
        {"args": {"default": "exact", "keys": {"q": AnyOf(["x"], normalise=str.lower)}}},
        {"args": {"unordered": {"matcher": lambda e, a: e == a}}},
    ],
)
def test_options_the_kernel_does_not_know_stay_in_python(options: dict) -> None:
    assert not fastest_engine(bind("tool_call_accuracy", **options)).compiled


def test_callable_matcher_and_unsupported_metric_stay_in_python() -> None:
    assert not fastest_engine(bind("tool_call_accuracy", args=lambda e, a: e == a)).compiled
    assert not fastest_engine(bind("tau2_actions")).compiled


def test_float_formatting_matches_orjson_and_repr() -> None:
    """Scores and values at float edges: the kernel's text equals orjson's and repr's."""
    metric = bind("tool_call_accuracy")
    kernel = fastest_engine(metric).kernel
    edge = [5e-324, 1e-7, 1e-5, 0.0001, 1e16, 1e22, 123456789.125, -0.0, math.pi, 1 / 3]
    for number, (x, y) in enumerate(itertools.product(edge, repeat=2), start=1):
        line = orjson.dumps(
            {
                "tools_called": [{"name": "f", "args": {"v": y}}],
                "expected_tools": [{"name": "f", "args": {"v": x}}],
            }
        )
        assert kernel.score_line(line, number) == python_line(metric, number, line)
