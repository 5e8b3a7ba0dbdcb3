"""``bind(...).score(sample)`` through the compiled kernel equals the Python reference.

The kernel reads a :class:`~tooleval.model.Sample`'s objects directly and
returns a ``Result`` whose diagnosis is decoded only when read. Random samples
(nested arguments, unicode, numbers at float edges, duplicate and names-only
calls, partial orders, calls taken from messages, unscored rows) must give a
Result equal to the Python reference's (computed with the kernel disabled),
byte for byte once written. The lazy Result's behaviours are tested without
the kernel too, so they hold when CI reruns this directory with
``TOOLEVAL_NO_KERNEL=1``.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import math
import os
import pickle
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval.metrics import bind
from tooleval.metrics.engine import ENV_DISABLE, in_process_scorer, kernel_status
from tooleval.model import (
    ArgumentCheck,
    AssistantMessage,
    Diagnosis,
    ExpectedTools,
    Result,
    Sample,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from tooleval.model.results import encoded_result

needs_kernel = pytest.mark.skipif(
    kernel_status() != "compiled",
    reason=f"compiled kernel {kernel_status()} (not built, or TOOLEVAL_NO_KERNEL set)",
)

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("tool_call_accuracy", {}),
    ("tool_call_accuracy", {"order": "flexible", "threshold": 0.5}),
    ("tool_call_accuracy", {"empty": "unscored"}),
    ("tool_call_f1", {}),
    ("tool_call_f1", {"empty": "unscored", "extra_keys": "mismatch", "threshold": 0.25}),
    ("tool_call_f1", {"empty": "zero", "args": {"numeric": {"int_float_equal": False}}}),
    ("tool_correctness", {}),
    ("tool_correctness", {"order": "strict", "exact_match": True}),
    ("tool_correctness", {"order": "strict", "extra_keys": "ignore", "empty": "zero"}),
    ("tool_correctness", {"argument_keys": ["q", "a.b"], "extra_calls": "ignore"}),
    ("tool_correctness", {"argument_keys": {"f": ["q"]}, "extra_keys": "ignore"}),
    ("trajectory_match", {}),
    ("trajectory_match", {"order": "flexible"}),
    ("trajectory_match", {"order": "flexible", "coverage": "subset", "empty": "unscored"}),
    ("trajectory_match", {"coverage": "superset", "args": "normalized", "empty": "zero"}),
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
    ("tool_call_f1", {"args": {"similarity": {"method": "jaro_winkler", "min_score": 0.8}}}),
    ("tool_correctness", {"args": {"default": "levenshtein", "keys": {"n": "numeric_text"}}}),
    ("tool_call_accuracy", {"args": {"unordered": {"matcher": "normalized", "recursive": True}}}),
    ("trajectory_match", {"args": {"default": "exact", "keys": {"q": {"any_of": ["x", 1]}}}}),
]
BOUND = [bind(name, **options) for name, options in CONFIGS]


def reference(metric: Any, sample: Sample) -> Result | type:
    """The Python reference's result: a fresh bound metric with the kernel disabled."""
    with mock.patch.dict(os.environ, {ENV_DISABLE: "1"}):
        try:
            return copy.copy(metric).score(sample)
        except Exception as exc:
            return type(exc)


def written(result: Result) -> bytes:
    return orjson.dumps(result.to_dict())


FLOATS = [0.0, -0.0, 0.1, 1.5, 1e-5, 1e-7, 1e16, 1e22, 1.7976931348623157e308, 5e-324, 1 / 3]
INTS = [0, 1, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]
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
        ["x", "X ", "  x\t y", "it's", 'say "hi"', "naïve", "東京", "\x00\x1f\\", "한국어 " * 9]
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
names = st.sampled_from(NAMES + ["é"])
made_calls = st.builds(ToolCall, names, arguments)
reference_calls = st.one_of(made_calls, st.builds(lambda n: ToolCall(n, args=None), names), names)


@st.composite
def samples(draw: st.DrawFn) -> Sample:
    expected = draw(st.lists(reference_calls, max_size=4))
    plain = [ToolCall(c, {}) if isinstance(c, str) else c for c in expected]
    if draw(st.booleans()):
        # the agent repeats, drops or reorders the reference calls
        agent = [ToolCall(c.name, c.args or {}) for c in plain]
        actual = draw(st.permutations(agent + draw(st.lists(made_calls, max_size=2))))
    else:
        actual = draw(st.lists(made_calls, max_size=4))
    shape = draw(st.integers(0, 7))
    bound: ExpectedTools | None = ExpectedTools.of(expected)
    if shape == 0:
        bound = None  # unscored: no reference bound
    elif shape == 1 and len(expected) > 1:
        # a partial order, in any order, with repeats and cycles
        index = st.integers(0, len(expected) - 1)
        pairs = draw(st.lists(st.tuples(index, index).filter(lambda p: p[0] != p[1]), max_size=4))
        bound = ExpectedTools.of(expected, pairs)
    if shape == 2:
        # calls taken from the conversation, tool results attached
        messages: list[Any] = [UserMessage("hi")]
        for k, call in enumerate(actual):
            messages.append(AssistantMessage("", (dataclasses.replace(call, id=f"c{k}"),)))
            messages.append(ToolMessage({"ok": k}, tool_call_id=f"c{k}", is_error=k == 1))
        return Sample(messages=messages, expected_tools=bound)
    return Sample(tools_called=actual, expected_tools=bound)


@needs_kernel
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=samples(), which=st.integers(0, len(CONFIGS) - 1))
def test_kernel_result_equals_the_python_reference(sample: Sample, which: int) -> None:
    metric = BOUND[which]
    want = reference(metric, sample)
    got = metric.score(sample)
    assert type(want) is not type and isinstance(want, Result)
    assert got == want and want == got
    assert got.params == want.params and got.threshold == want.threshold
    assert (got.score, got.passed, got.reason) == (want.score, want.passed, want.reason)
    assert written(got) == written(want)  # ints stay ints, floats floats, key order kept


@needs_kernel
@pytest.mark.parametrize("metric", BOUND, ids=[name for name, _ in CONFIGS])
def test_plain_samples_are_taken_by_the_kernel(metric: Any) -> None:
    """The common sample shape never falls back (else the kernel would only look fast)."""
    sample = Sample(
        tools_called=[ToolCall("f", {"q": "Paris", "n": 2.5, "a": {"b": [1, None, True]}})],
        expected_tools=[ToolCall("f", {"q": "paris", "n": 2, "a": {"b": [1]}}), "g"],
    )
    scorer = in_process_scorer(metric)
    assert scorer is not None
    got = scorer(sample)
    assert got is not None and type(got) is not Result  # the kernel's, decoded lazily
    want = reference(metric, sample)
    assert got == want and written(got) == written(want)
    from_messages = Sample(messages=[AssistantMessage("", tuple(sample.tools_called or ()))])
    from_messages.expected_tools = sample.expected_tools
    assert scorer(from_messages) == reference(metric, from_messages)


class _Str(str):
    pass


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


HANDED_BACK = {
    "tuple value": {"q": (1, 2)},
    "nan": {"q": math.nan},
    "infinity": {"q": -math.inf},
    "int beyond 64 bits": {"q": 2**64},
    "str subclass": {"q": _Str("x")},
    "non-str key": {1: "x"},
    "set": {"q": {1}},
    "lone surrogate": {"q": "\ud800"},
    "too deep": {"q": _nested(60)},
}


@needs_kernel
@pytest.mark.parametrize("args", HANDED_BACK.values(), ids=HANDED_BACK.keys())
def test_values_the_kernel_does_not_take_go_to_python(args: dict[Any, Any]) -> None:
    metric = bind("tool_correctness")
    sample = Sample(tools_called=[ToolCall("f", args)], expected_tools=[ToolCall("f", {"q": 1})])
    scorer = in_process_scorer(metric)
    assert scorer is not None and scorer(sample) is None
    want = reference(metric, sample)
    got = metric.score(sample)
    assert type(got) is Result  # scored by Python
    assert got.reason == want.reason and got.score == want.score  # type: ignore[union-attr]


@needs_kernel
def test_samples_the_kernel_does_not_take_go_to_python() -> None:
    class MySample(Sample):
        pass

    metric = bind("tool_call_accuracy")
    scorer = in_process_scorer(metric)
    assert scorer is not None
    broken = ToolCall.parse("f", "{not json")
    others = [
        Sample(tools_called=[broken], expected_tools=["f"]),  # arguments that did not parse
        Sample(tools_called=[ToolCall("f", None)], expected_tools=["f"]),  # agent's args None
        Sample(tools_called=[ToolCall("", {})], expected_tools=["f"]),  # empty name
        MySample(tools_called=[ToolCall("f", {})], expected_tools=["f"]),  # not a Sample
        Sample(  # contradictory ordering pairs (the JSON row path refuses them too)
            tools_called=[ToolCall("g", {}), ToolCall("f", {})],
            expected_tools=ExpectedTools.of(["f", "g"], [(0, 1), (1, 0)]),
        ),
    ]
    odd = Sample(tools_called=[ToolCall("f", {})], expected_tools=["f"])
    odd.expected_tools = ["f"]  # type: ignore[assignment]  # assigned after construction
    others.append(odd)
    for sample in others:
        assert scorer(sample) is None
        got = metric.score(sample)
        assert got == reference(metric, sample)


@needs_kernel
def test_async_score_and_pickled_bound_metric_use_the_kernel() -> None:
    metric = bind("tool_call_f1")
    sample = Sample(tools_called=[ToolCall("f", {"q": 1})], expected_tools=["f", "g"])
    got = asyncio.run(metric.ascore(sample))
    assert type(got) is not Result and got == reference(metric, sample)
    again = pickle.loads(pickle.dumps(metric))
    assert again.score(sample) == got


def test_environment_variable_disables_the_in_process_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_DISABLE, "1")
    metric = bind("tool_call_accuracy")
    assert in_process_scorer(metric) is None
    result = metric.score(Sample(tools_called=["f"], expected_tools=["f"]))
    assert type(result) is Result and result.score == 1.0


# ------------------------------------------------- the lazily decoded Result

SAMPLE = Sample(
    tools_called=[ToolCall("f", {"q": "x", "n": [1, 2.5]}), ToolCall("h", {})],
    expected_tools=[ToolCall("f", {"q": "y", "n": [1, 2.5]}), "g"],
)


def _plain() -> Result:
    result = reference(bind("tool_call_f1", threshold=0.3), SAMPLE)
    assert isinstance(result, Result)
    return result


def _lazy(plain: Result, source: str) -> Result:
    encoded = orjson.dumps(plain.diagnosis.to_dict())
    pieces = (plain.metric, plain.score, plain.passed, plain.reason, dict(plain.params))
    if source == "kernel":
        if kernel_status() != "compiled":
            pytest.skip(f"compiled kernel {kernel_status()}")
        lazy = bind("tool_call_f1", threshold=0.3).score(SAMPLE)
        assert type(lazy) is not Result
        return lazy
    given: Any = encoded if source == "bytes" else (lambda: encoded)
    return encoded_result(*pieces, plain.threshold, given)


SOURCES = ["bytes", "callable", "kernel"]


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_result_is_equal_both_ways_and_writes_the_same(source: str) -> None:
    plain = _plain()
    lazy = _lazy(plain, source)
    assert lazy == plain and plain == lazy
    assert (lazy != plain) is False and (plain != lazy) is False
    assert lazy.to_dict() == plain.to_dict() and written(lazy) == written(plain)
    assert repr(lazy) == repr(plain) and str(lazy) == str(plain)
    assert isinstance(lazy, Result) and lazy.__class__ is Result
    assert dataclasses.is_dataclass(lazy) and dataclasses.asdict(lazy) == dataclasses.asdict(plain)
    assert lazy.is_scored and lazy.diagnosis.argument_mismatches
    assert all(type(a) is ArgumentCheck for a in lazy.diagnosis.arguments)
    other = dataclasses.replace(plain, reason="another reason")
    assert lazy != other and other != lazy
    with pytest.raises(TypeError):
        hash(lazy)  # as a plain Result: its diagnosis is a mutable dataclass


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_result_pickles_and_copies_as_a_plain_result(source: str) -> None:
    plain = _plain()
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        lazy = _lazy(plain, source)
        back = pickle.loads(pickle.dumps(lazy, protocol=protocol))
        assert type(back) is Result and back == plain
    lazy = _lazy(plain, source)
    shallow = copy.copy(lazy)
    assert type(shallow) is Result and shallow == plain
    assert shallow.diagnosis is lazy.diagnosis  # shallow: shares it, as a plain copy does
    deep = copy.deepcopy(lazy)
    assert type(deep) is Result and deep == plain and deep.diagnosis is not lazy.diagnosis


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_result_replace_gives_a_plain_result(source: str) -> None:
    plain = _plain()
    lazy = _lazy(plain, source)
    changed = dataclasses.replace(lazy, reason="other")
    assert type(changed) is Result
    assert changed == dataclasses.replace(plain, reason="other")
    assert changed.diagnosis is lazy.diagnosis
    kept = dataclasses.replace(lazy, diagnosis=Diagnosis(details={"k": 1}))
    assert kept.diagnosis.details == {"k": 1} and lazy.diagnosis == plain.diagnosis


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_result_keeps_changes_made_to_its_diagnosis(source: str) -> None:
    plain = _plain()
    lazy = _lazy(plain, source)
    lazy.diagnosis.details["values_source"] = "option"  # what builtin `_contains` does
    lazy.diagnosis.missing.append({"name": "z", "args": None, "index": 9})
    assert lazy.diagnosis.details["values_source"] == "option"
    assert lazy.to_dict()["diagnosis"]["missing"][-1]["name"] == "z"
    assert lazy != plain
    assert pickle.loads(pickle.dumps(lazy)).diagnosis.details["values_source"] == "option"


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_result_stays_frozen(source: str) -> None:
    lazy = _lazy(_plain(), source)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.score = 0.5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.diagnosis = Diagnosis()  # type: ignore[misc]


def test_lazy_result_of_an_unscored_row() -> None:
    plain = Result.unscored("tool_call_accuracy", "no expected_tools bound for this row")
    lazy = encoded_result(
        plain.metric, None, None, plain.reason, {}, None, orjson.dumps(Diagnosis().to_dict())
    )
    assert lazy == plain and plain == lazy and not lazy.is_scored
    assert lazy.diagnosis == Diagnosis()


def test_lazy_result_read_from_many_threads_decodes_one_object() -> None:
    import threading
    import time

    plain = _plain()
    encoded = orjson.dumps(plain.diagnosis.to_dict())

    def slow() -> bytes:
        time.sleep(0.01)  # every thread gets here before any has decoded it
        return encoded

    pieces = (plain.metric, plain.score, plain.passed, plain.reason, {}, plain.threshold)
    lazy = encoded_result(*pieces, slow)
    seen: list[Diagnosis] = []
    start = threading.Barrier(4, timeout=30)

    def read() -> None:
        start.wait()
        seen.append(lazy.diagnosis)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(seen) == 4 and all(d is lazy.diagnosis for d in seen)
    assert lazy.diagnosis == plain.diagnosis


@pytest.mark.parametrize("protocol", [None, 1], ids=["no-protocol", "older-protocol"])
def test_a_kernel_of_another_protocol_leaves_scoring_to_python_with_one_notice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], protocol: int | None
) -> None:
    """A stale build (sources updated, kernel not rebuilt) never breaks scoring."""
    import sys
    import types

    import tooleval
    from tooleval.metrics import engine

    class OldKernel:  # the line entry points only
        def __init__(self, config: bytes, params: bytes, threshold: bytes) -> None:
            raise AssertionError("a stale kernel must not be used")

    stale = types.SimpleNamespace(Kernel=OldKernel)
    if protocol is not None:
        stale.PROTOCOL = protocol
    monkeypatch.delenv(ENV_DISABLE, raising=False)
    monkeypatch.setitem(sys.modules, "tooleval._kernel", stale)
    monkeypatch.setattr(tooleval, "_kernel", stale, raising=False)
    monkeypatch.setattr(engine, "_loaded", [])
    monkeypatch.setattr(engine, "_stale", [])
    metric = bind("tool_call_accuracy")
    assert in_process_scorer(metric) is None
    assert not engine.fastest_engine(metric).compiled
    assert engine.kernel_status() == "stale"
    result = metric.score(Sample(tools_called=["f"], expected_tools=["f"]))
    assert type(result) is Result and result.score == 1.0
    notices = capsys.readouterr().err.splitlines()
    assert len(notices) == 1, notices
    assert f"protocol {protocol}" in notices[0] and "make kernel" in notices[0]
