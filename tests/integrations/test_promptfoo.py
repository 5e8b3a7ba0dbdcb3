"""The promptfoo assertion file, called the way promptfoo calls it (get_assert(output, context))."""

from __future__ import annotations

import importlib.util
import json

import pytest
import yaml

from tooleval.integrations.promptfoo import get_assert

from ..conftest import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "promptfoo"
CALLS = [
    {
        "id": "c0",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": '{"order_id": "4471"}'},
    },
    {
        "id": "c1",
        "type": "function",
        "function": {"name": "cancel_order", "arguments": '{"order_id": "4417"}'},
    },
]


def _example_get_assert():
    spec = importlib.util.spec_from_file_location("tooleval_assert", EXAMPLE / "tooleval_assert.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_assert


def _context():
    config = yaml.safe_load((EXAMPLE / "promptfooconfig.yaml").read_text())
    return {"config": config["tests"][0]["assert"][0]["config"], "vars": {}}


@pytest.mark.parametrize(
    "output",
    [
        {"role": "assistant", "content": None, "tool_calls": CALLS},  # an OpenAI message
        json.dumps({"role": "assistant", "content": None, "tool_calls": CALLS}),  # as text
        {"choices": [{"message": {"role": "assistant", "tool_calls": CALLS}}]},  # a completion
        [
            {"name": "lookup_order", "arguments": {"order_id": "4471"}},
            {"name": "cancel_order", "arguments": {"order_id": "4417"}},
        ],  # bare calls
    ],
    ids=["message", "json text", "completion", "calls"],
)
def test_the_example_file_scores_the_calls_in_every_shape(output):
    grading = _example_get_assert()(output, _context())
    assert grading["pass"] is False and grading["score"] == 0.5
    assert "cancel_order.order_id expected '4471', got '4417'" in grading["reason"]


def test_right_calls_pass_and_plain_text_called_nothing():
    right = [
        {"name": "lookup_order", "arguments": {"order_id": "4471"}},
        {"name": "cancel_order", "arguments": {"order_id": "4471"}},
    ]
    assert get_assert(right, _context()) == {
        "pass": True,
        "score": 1.0,
        "reason": get_assert(right, _context())["reason"],
    }
    text = get_assert("I cannot do that.", _context())
    assert text["pass"] is False and text["score"] == 0.0


def test_no_reference_fails_with_the_reason_and_no_score():
    grading = get_assert(CALLS, {"config": {}})
    assert grading["pass"] is False and "score" not in grading
    assert "could not score" in grading["reason"]


def test_a_bad_option_is_a_failed_assertion_naming_it():
    grading = get_assert(
        CALLS, {"config": {"expected_tools": ["lookup_order"], "options": {"ordr": "strict"}}}
    )
    assert grading["pass"] is False and "ordr" in grading["reason"]
