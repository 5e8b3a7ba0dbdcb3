"""Fuzzing replay: any name, any arguments, any row field gives an error result or an unscored row.

Never a crash, never code run from what an agent sent: the canary file below
is what an ``eval`` of the hostile strings would create.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.support import JSON, fuzz_settings

from tooleval.benchmarks.bfcl.multi_turn import check_entry
from tooleval.environments import FunctionEnvironment, Limits, ToolCall, state_match
from tooleval.environments.registration import state_match_info
from tooleval.model import ExpectedTools, Sample

CANARY = Path("/tmp/tooleval_environment_canary")
HOSTILE = [
    "__import__('pathlib').Path('/tmp/tooleval_environment_canary').touch()",
    "__import__",
    "__class__",
    "cancel.__globals__",
    "exec",
    "eval",
    "os.system",
    "cancel(order_id=__import__('os'))",
    "",
    "\x00",
    "cancel" * 1000,
]
NAMES = st.one_of(st.sampled_from(HOSTILE + ["cancel", "note"]), st.text(max_size=40))
VALUES = st.one_of(JSON, st.sampled_from(HOSTILE))
ARGUMENTS = st.one_of(
    st.dictionaries(
        st.one_of(st.sampled_from(HOSTILE + ["order_id", "text"]), st.text(max_size=8)),
        VALUES,
        max_size=4,
    ),
    JSON,
)


def _make() -> FunctionEnvironment:
    def cancel(state: dict[str, Any], order_id: str) -> str:
        state["orders"][order_id] = "cancelled"
        return "ok"

    def note(state: dict[str, Any], text: str = "") -> int:
        state.setdefault("notes", []).append(text)
        return len(state["notes"])

    return FunctionEnvironment(
        {"cancel": cancel, "note": note},
        initial_state={"orders": {"W1": "pending"}},
        limits=Limits(call_seconds=2.0),
    )


@fuzz_settings(150)
@given(name=NAMES, arguments=ARGUMENTS)
def test_any_call_is_an_outcome(name, arguments):
    outcome = _make().call(name, arguments)
    assert isinstance(outcome.is_error, bool)
    assert not CANARY.exists()


@fuzz_settings(80)
@given(calls=st.lists(st.tuples(NAMES, ARGUMENTS), max_size=5))
def test_state_match_scores_or_says_why(calls):
    actual = [ToolCall(n, a) if isinstance(a, dict) else ToolCall(n, {}) for n, a in calls]
    result = state_match([ToolCall("cancel", {"order_id": "W1"})], actual, environment=_make)
    assert result.score in (0.0, 1.0)
    assert not CANARY.exists()


@fuzz_settings(80)
@given(
    field=st.one_of(
        JSON,
        st.sampled_from(HOSTILE),
        st.fixed_dictionaries({"name": st.sampled_from(HOSTILE + ["os:system", "json:loads"])}),
    )
)
def test_a_row_environment_field_never_imports_or_crashes(field):
    sample = Sample(
        tools_called=[ToolCall("cancel", {"order_id": "W1"})],
        expected_tools=ExpectedTools((ToolCall("cancel", {"order_id": "W1"}),)),
        metadata={"environment": field},
    )
    result = state_match_info().score_sample(sample)
    assert result.score is None and "cannot replay" in result.reason
    assert not CANARY.exists()


@fuzz_settings(60)
@given(
    step=st.one_of(
        JSON,
        st.lists(
            st.dictionaries(NAMES, st.one_of(st.text(max_size=30), JSON), max_size=2), max_size=3
        ),
    ),
    mode=st.sampled_from(["fc", "prompt"]),
)
def test_bfcl_multi_turn_takes_any_step(step, mode):
    entry = {"id": "multi_turn_base_0", "involved_classes": ["MathAPI"], "initial_config": {}}
    verdict = check_entry(entry, [["add(a=1, b=2)"]], [[step]], mode=mode)
    assert isinstance(verdict.valid, bool)
    assert not CANARY.exists()
