"""Schema-constrained decoding: whatever the weights, the local judge's reply fits the schema.

A tiny llama GGUF with random weights (``tests/llm/tiny_gguf.py``) is the adversary:
it has no idea what JSON is, so any reply that parses and validates was made so by
the decoder. Every judged metric's schema is tried, at several reply caps.
"""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from tests.llm.tiny_gguf import write_tiny_llama

from tooleval.cli.judge import PROBE_SCHEMA
from tooleval.errors import JudgeError
from tooleval.judged import prompts
from tooleval.judged.tools_error import check_call_reviews, review_schema
from tooleval.llm.constrained import SchemaDecoder, TokenClasses, minimal_json
from tooleval.llm.local import LocalJudge, load_local_model

SCHEMAS = {
    "probe": PROBE_SCHEMA,
    "topic_extract": prompts.TOPIC_EXTRACT_SCHEMA,
    "topic_verdict": prompts.TOPIC_VERDICT_SCHEMA,
    "goal_with_reference": prompts.GOAL_WITH_REFERENCE_SCHEMA,
    "goal_extract": prompts.GOAL_EXTRACT_SCHEMA,
    "goal_compare": prompts.GOAL_COMPARE_SCHEMA,
    "tools_error": prompts.TOOLS_ERROR_SCHEMA,
    "tools_error_3_calls": review_schema(3),  # one review per call, numbered by the decoder
    "task_success": prompts.TASK_SUCCESS_SCHEMA,
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("cap", [64, 80])
def test_every_reply_parses_and_validates_whatever_the_model(tiny, name, cap):
    schema = SCHEMAS[name]
    judge = LocalJudge(tiny, cache=False, max_new_tokens=cap)
    for content in ("x", 'say "hi" \\ then {', "é" * 5):
        reply = judge.complete([{"role": "user", "content": content}], schema=schema)
        assert reply.parse_error is None, reply.text
        jsonschema.validate(json.loads(reply.text), schema)
        # a cap below the shortest reply is raised to it (three reviews take more than 64)
        shortest = SchemaDecoder.shortest(schema, load_local_model(tiny).tokenizer.encode)
        assert reply.tokens_out <= max(cap, shortest)
        if name == "tools_error_3_calls":  # the flow's check cannot refuse it
            assert check_call_reviews(json.loads(reply.text), 3) is None


def test_a_cap_below_the_shortest_reply_is_raised_to_it(tiny):
    messages = [{"role": "user", "content": "x"}]
    schema = prompts.TASK_SUCCESS_SCHEMA
    shortest = SchemaDecoder.shortest(schema, load_local_model(tiny).tokenizer.encode)
    reply = LocalJudge(tiny, cache=False, max_new_tokens=3).complete(messages, schema=schema)
    assert reply.parsed is not None and reply.tokens_out == shortest
    jsonschema.validate(reply.parsed, schema)


def test_a_decoder_given_too_small_a_budget_refuses_up_front():
    encode = list  # one token per character
    decoder = SchemaDecoder(
        lambda ids: np.zeros(4), np.zeros(4), encode=encode, classes=_classes(), budget=5
    )
    with pytest.raises(JudgeError, match="too small for the shortest reply"):
        decoder.reply(prompts.TASK_SUCCESS_SCHEMA)


def _classes():
    return TokenClasses(["a", '"', "1", "<|im_end|>"], frozenset({3}), 4)


def test_the_shortest_replies_validate():
    for schema in SCHEMAS.values():
        jsonschema.validate(json.loads(minimal_json(schema)), schema)


def test_a_shared_prompt_prefix_is_reused_and_gives_the_same_reply(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=12)
    first = [{"role": "system", "content": "judge well"}, {"role": "user", "content": "a b c"}]
    second = [{"role": "system", "content": "judge well"}, {"role": "user", "content": "a b d"}]
    judge.generate(first)
    model = load_local_model(tiny).model
    warm = judge.generate(second).text
    shared = model._last.tokens[: len(model._last.tokens) - 12]
    model._last = None  # cold: nothing to reuse
    assert judge.generate(second).text == warm
    assert shared  # the second prompt shares a prefix with the first
