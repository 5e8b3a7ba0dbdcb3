"""Fuzz every importer in tooleval.formats: random JSON and mutated real data.

An importer either returns tooleval's model or raises a ToolEvalError (a
FormatError naming the field); any other exception is a bug the user would
see as a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.support import (
    JSON,
    OTLP_REQUEST,
    fuzz_settings,
    mutated,
    seed_conversations,
    seed_rows,
)

from tooleval.errors import ToolEvalError
from tooleval.formats import (
    FORMATS,
    detect,
    import_conversation,
    import_messages,
    parse_expected_tools,
    parse_tool_calls,
    sample_from_row,
)
from tooleval.formats.json_limits import MAX_DEPTH, json_depth, loads
from tooleval.model import Sample


def _otlp(value: Any) -> Any:
    from tooleval.traces.genai import span_facts
    from tooleval.traces.otlp import IngestReport, spans_from_request

    report = IngestReport()
    return [span_facts(span) for span in spans_from_request(value, report=report)]


def _tau_bench(value: Any) -> Any:
    from tooleval.benchmarks.tau_bench.reader import sample_from_tau_bench_run

    return sample_from_tau_bench_run(value) if isinstance(value, dict) else None


def _tau2(value: Any) -> Any:
    from tooleval.benchmarks.tau2.reader import sample_from_tau2_simulation

    if not isinstance(value, dict):
        return None
    return sample_from_tau2_simulation(value, value.get("task", value))


def _apibank(value: Any) -> Any:
    from tooleval.benchmarks.api_bank.reader import sample_from_apibank_row

    return sample_from_apibank_row(value) if isinstance(value, dict) else None


def _otlp_logs(value: Any) -> Any:
    from tooleval.traces.logs import facts_from_logs_request, is_otlp_logs_request
    from tooleval.traces.otlp import IngestReport

    if not is_otlp_logs_request(value):  # what the readers check before calling it
        return None
    return list(facts_from_logs_request(value, report=IngestReport()))


def _bfcl_entry(value: Any) -> Any:
    from tooleval.benchmarks.bfcl.reader import sample_from_entry

    if not isinstance(value, dict):
        return None
    return sample_from_entry(value, value.get("answer"), value.get("result", value))


def _bfcl_result(value: Any) -> Any:
    from tooleval.benchmarks.bfcl.reader import decode_result

    return decode_result(value)


def _bfcl_truth(value: Any) -> Any:
    from tooleval.benchmarks.bfcl.reader import expected_from_ground_truth

    return expected_from_ground_truth(value)


IMPORTERS: dict[str, Callable[[Any], Any]] = {
    "detect": detect,
    "import_conversation": import_conversation,
    "sample_from_row": lambda v: sample_from_row(v, row_number=1),
    "parse_expected_tools": parse_expected_tools,
    "parse_tool_calls": parse_tool_calls,
    "otlp_spans": _otlp,
    "tau_bench_run": _tau_bench,
    "tau2_simulation": _tau2,
    "apibank_row": _apibank,
    "otlp_logs": _otlp_logs,
    "bfcl_entry": _bfcl_entry,
    "bfcl_result": _bfcl_result,
    "bfcl_ground_truth": _bfcl_truth,
    **{f"import_messages[{name}]": (lambda v, n=name: import_messages(v, n)) for name in FORMATS},
}

SEEDS = [*seed_rows(), *seed_conversations(), OTLP_REQUEST]


def _call(name: str, value: Any) -> None:
    try:
        result = IMPORTERS[name](value)
    except ToolEvalError as exc:
        assert str(exc)  # a named error says something
        return
    except RecursionError:  # pragma: no cover - reported as the failure below
        pytest.fail(f"{name}: RecursionError on input nested {json_depth(value)} deep")
    if isinstance(result, Sample):
        for call in result.actual_calls():
            assert isinstance(call.name, str)


@pytest.mark.parametrize("name", sorted(IMPORTERS))
@fuzz_settings(60)
@given(value=JSON)
def test_random_json_at_every_importer(name, value):
    _call(name, value)


@pytest.mark.parametrize("name", sorted(IMPORTERS))
@fuzz_settings(60)
@given(value=mutated(SEEDS))
def test_mutated_real_data_at_every_importer(name, value):
    _call(name, value)


@fuzz_settings(100)
@given(raw=st.binary(max_size=300) | JSON.map(lambda v: __import__("json").dumps(v).encode()))
def test_limited_loads_gives_json_or_a_named_error(raw):
    try:
        value = loads(raw, row=1)
    except ValueError:
        return  # invalid JSON (orjson.JSONDecodeError), reported with the row by callers
    except ToolEvalError as exc:
        assert "nested deeper" in str(exc)
        return
    assert json_depth(value) <= MAX_DEPTH


def _messages_of(conversation: Any) -> list[Any]:
    """The message objects of a seed conversation (list, or under a known key)."""
    if isinstance(conversation, list):
        return conversation
    if isinstance(conversation, dict):
        for key in ("messages", "contents", "input", "output"):
            if isinstance(conversation.get(key), list):
                return conversation[key]
    return []


_NOT_TEXT = st.one_of(
    st.lists(st.sampled_from(["user", "assistant", "model", "tool", "message"]), max_size=2),
    st.dictionaries(st.sampled_from(["role", "type"]), st.text(max_size=4), max_size=2),
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
)


@fuzz_settings(80)
@given(
    which=st.integers(0, 50),
    message=st.integers(0, 20),
    key=st.sampled_from(["role", "type"]),
    value=_NOT_TEXT,
)
def test_a_role_or_type_that_is_not_text_never_crashes_detect_or_its_importer(
    which, message, key, value
):
    import copy

    seeds = [c for c in seed_conversations() if _messages_of(c)]
    conversation = copy.deepcopy(seeds[which % len(seeds)])
    messages = _messages_of(conversation)
    target = messages[message % len(messages)]
    if not isinstance(target, dict):
        return
    target[key] = value
    try:
        fmt = detect(conversation)
    except ToolEvalError:
        return  # the documented FormatError
    # A format named for it is one whose importer reads it or names the field.
    try:
        import_messages(conversation, fmt)
    except ToolEvalError as exc:
        assert "cannot read this" not in str(exc), exc  # a crash wrapped by convert
