"""The kernel's ``output_contains`` writes exactly the bytes the Python reference writes.

Random rows (final outputs in several scripts, ``metadata.output_contains`` as
text, lists of mixed values or malformed, rows with and without calls) are
scored with every option set by ``tooleval._kernel`` and by Python through
``tooleval score``'s path (``test_identity.python_line``); every line the
kernel takes must be byte-identical.
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

from tests.kernel.test_identity import BOUND as CALL_METRICS  # noqa: E402
from tests.kernel.test_identity import calls, python_line  # noqa: E402

from tooleval.metrics import bind  # noqa: E402
from tooleval.metrics.engine import fastest_engine, kernel_status  # noqa: E402

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)

OPTIONS: list[dict[str, Any]] = [
    {},
    {"require": "any"},
    {"case_sensitive": True},
    {"require": "any", "case_sensitive": True, "threshold": 0.5},
    {"values": ["4471", "Refund", 7, 1.5, True, None, ""]},
    {"values": "straße", "require": "any"},
    {"values": []},
]
BOUND = [bind("output_contains", **options) for options in OPTIONS]

WORDS = ["Order", "4471", "refund", "REFUND", "Straße", "STRASSE", "naïve", "東京", "서울"]
WORDS += ["İstanbul", "Σ", "1,093", "1093", "7", "1.5", "true", "", " ", "\x00", "'q'"]
texts = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
    st.text(max_size=12),
)
wanted = st.one_of(
    st.sampled_from(WORDS),
    st.integers(-5, 5000),
    st.sampled_from([1.5, 1e16, 1e-7, -0.0, 2**64 - 1, True, False, None]),
    st.lists(st.integers(0, 9), max_size=2),  # str() of a list: Python writes it
)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    row: dict[str, Any] = {"id": draw(st.sampled_from(["r", 7, None]))}
    if draw(st.integers(0, 5)):
        row["output"] = draw(st.one_of(texts, st.none()))
    metadata = draw(st.integers(0, 6))
    if metadata == 1:
        row["metadata"] = None
    elif metadata == 2:
        row["metadata"] = {"other": draw(texts)}
    elif metadata == 3:
        row["metadata"] = draw(st.sampled_from(['{"output_contains": ["x"]}', [1], 3]))
    elif metadata >= 4:
        values = draw(
            st.one_of(wanted, st.lists(wanted, max_size=5), st.dictionaries(texts, wanted))
        )
        row["metadata"] = {"output_contains": values, "k": 1}
    shape = draw(st.integers(0, 4))
    if shape == 0:
        row["tools_called"] = draw(st.lists(calls, max_size=2))
    elif shape == 1:
        row["tools_called"] = None
        row["expected_tools"] = draw(st.lists(calls, max_size=2))
    elif shape == 2:
        row["tools_called"] = "not calls"  # Python names the error for every metric
    elif shape == 3:
        row["messages"] = [{"role": "assistant", "content": draw(texts)}]  # Python reads it
    return row


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=rows(), which=st.integers(0, len(OPTIONS) - 1), number=st.integers(1, 10**6))
def test_kernel_line_equals_python_line(row: dict[str, Any], which: int, number: int) -> None:
    metric = BOUND[which]
    engine = fastest_engine(metric)
    assert engine.compiled, OPTIONS[which]
    line = orjson.dumps(row) + b"\n"
    got = engine.kernel.score_line(line, number)
    if got is not None:
        assert got == python_line(metric, number, line)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=rows(), which=st.integers(0, len(CALL_METRICS) - 1))
def test_call_metrics_on_rows_with_metadata(row: dict[str, Any], which: int) -> None:
    """Rows with ``metadata`` (read by the kernel for every metric) stay byte-identical."""
    metric = CALL_METRICS[which][2]
    line = orjson.dumps(row) + b"\n"
    got = fastest_engine(metric).kernel.score_line(line, 3)
    if got is not None:
        assert got == python_line(metric, 3, line)


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o)[:30] for o in OPTIONS])
def test_plain_rows_are_taken_by_the_kernel(options: dict[str, Any]) -> None:
    metric = bind("output_contains", **options)
    for row in (
        {"id": "a", "output": "Order 4471: refund sent", "metadata": {"output_contains": ["4471"]}},
        {"id": "b", "output": "Total 1093", "metadata": {"output_contains": ["1,093", 1093]}},
        {"id": "c", "output": None, "tools_called": []},
    ):
        line = orjson.dumps(row)
        got = fastest_engine(metric).kernel.score_line(line, 1)
        assert got is not None, row
        assert got == python_line(metric, 1, line)


def test_every_agent_message_stays_in_python() -> None:
    """``messages="agent"`` reads the conversation: only Python does."""
    assert not fastest_engine(bind("output_contains", messages="agent")).compiled
