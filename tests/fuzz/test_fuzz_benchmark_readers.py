"""Fuzz the readers added for BFCL's chat templates, Seal-Tools and NESTFUL.

A BFCL decoder returns what it decoded or raises ``BfclDecodeError`` (BFCL's
"could not decode" verdict); a Seal-Tools / NESTFUL reader returns a Sample or
raises a ToolEvalError naming the record. Nothing else may escape: no
IndexError, KeyError, RecursionError or TypeError on any input.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.support import JSON, fuzz_settings, mutated

from tooleval.benchmarks.bfcl.decode_handlers import DECODERS, decode_with
from tooleval.benchmarks.bfcl.decode_python import BfclDecodeError
from tooleval.benchmarks.nestful.reader import sample_from_nestful
from tooleval.benchmarks.seal_tools.reader import sample_from_seal_tools
from tooleval.errors import ToolEvalError
from tooleval.model import Sample

# What each template looks like, so mutations start near real outputs.
TEMPLATE_TEXTS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>',
    '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',
    '[{"name": "math.factorial", "arguments": {"n": 5}}]',
    "<|python_tag|>get_weather(city='Paris')",
    '{"name": "f", "parameters": {"x": [1, 2]}}',
    '<functioncall> {"name": "f", "arguments": "{\\"a\\": 1}"}',
    "<think>plan</think>[f(a=1), g(b='x')]",
    "<start_function_call>call:f{a:<escape>1<escape>}<end_function_call>",
    "<TOOLCALL>[f(a=1)]</TOOLCALL>",
]
TEXTS = st.one_of(
    st.sampled_from(TEMPLATE_TEXTS),
    st.text(max_size=200),
    st.sampled_from(TEMPLATE_TEXTS).flatmap(
        lambda t: st.integers(0, len(t)).map(lambda cut: t[:cut])  # truncated outputs
    ),
    st.tuples(st.sampled_from(TEMPLATE_TEXTS), st.text(max_size=20)).map("".join),
)


def _decode(decoder: str, value: Any, language: str) -> None:
    try:
        decode_with(decoder, value, language)
    except (BfclDecodeError, ToolEvalError) as exc:
        assert str(exc) or isinstance(exc, BfclDecodeError)


@pytest.mark.parametrize("decoder", DECODERS)
@fuzz_settings(40)
@given(value=TEXTS, language=st.sampled_from(["python", "java", "javascript"]))
def test_every_bfcl_decoder_on_template_like_text(decoder, value, language):
    _decode(decoder, value, language)


@pytest.mark.parametrize("decoder", DECODERS)
@fuzz_settings(30)
@given(value=JSON)
def test_every_bfcl_decoder_on_random_json(decoder, value):
    _decode(decoder, value, "python")


SEAL_RECORD = {
    "id": "test_in_domain-difficult-1",
    "query": "quote, then admin",
    "calling": [
        {"api": "getQuote", "parameters": {"state": "CA", "n": 63}, "responses": ["API_call_0"]},
        {"api": "createAdmin", "parameters": {"quote": "API_call_0"}, "responses": ["API_call_1"]},
    ],
}
NESTFUL_RECORD = {
    "input": "find a car and reserve it",
    "output": [
        {"name": "Cars.Find", "arguments": {"city": "San Diego"}, "label": "var1"},
        {"name": "Cars.Reserve", "arguments": {"car": "$var1.id$"}, "label": "var2"},
        {"name": "var_result", "arguments": {"reservation": "$var2$"}},
    ],
}
SEAL_PREDICTION = {"id": SEAL_RECORD["id"], "predict": [SEAL_RECORD["calling"][:1]]}
SEAL_TEXT = {
    "id": SEAL_RECORD["id"],
    "predict": ["Sure: [{'api': 'getQuote', 'parameters': {}, 'responses': ['API_call_0']}]"],
}
NESTFUL_PREDICTION = {
    "sample_id": 0,
    "generated_text": '<tool_call> {"name": "Cars.Find", "arguments": {"city": "SD"}} </tool_call>',
}
NESTFUL_CALLS = {"predicted_calls": NESTFUL_RECORD["output"][:2]}


def test_the_seeds_are_read():
    assert sample_from_seal_tools(SEAL_RECORD, SEAL_PREDICTION).actual_calls()
    assert sample_from_seal_tools(SEAL_RECORD, SEAL_TEXT).actual_calls()
    assert sample_from_nestful(NESTFUL_RECORD, NESTFUL_PREDICTION).actual_calls()
    assert sample_from_nestful(NESTFUL_RECORD, NESTFUL_CALLS).actual_calls()


def _read(reader: Any, reference: Any, prediction: Any) -> None:
    try:
        sample = reader(reference, prediction)
    except ToolEvalError as exc:
        assert str(exc)
        return
    assert isinstance(sample, Sample)
    for call in sample.actual_calls():
        assert isinstance(call.name, str)


@pytest.mark.parametrize(
    ("reader", "seed", "predictions"),
    [
        (sample_from_seal_tools, SEAL_RECORD, [SEAL_PREDICTION, SEAL_TEXT]),
        (sample_from_nestful, NESTFUL_RECORD, [NESTFUL_PREDICTION, NESTFUL_CALLS]),
    ],
    ids=["seal_tools", "nestful"],
)
@fuzz_settings(80)
@given(data=st.data())
def test_benchmark_readers_on_mutated_records(reader, seed, predictions, data):
    reference = data.draw(st.one_of(st.just(seed), mutated([seed]), JSON))
    prediction = data.draw(
        st.one_of(st.none(), st.sampled_from(predictions), mutated(predictions), JSON)
    )
    _read(reader, reference, prediction)
