"""The inspect_ai scorer on a real (offline) inspect task: mockllm answers with tool calls."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

from tooleval.errors import ConfigError  # noqa: E402
from tooleval.integrations.inspect_ai import tool_calls  # noqa: E402


def _run(samples, outputs, scorer, tmp_path):
    for output in outputs:  # given usage: mockllm would count tokens with a downloaded encoding
        output.usage = ModelUsage(input_tokens=5, output_tokens=5, total_tokens=10)
    model = get_model("mockllm/model", custom_outputs=outputs)
    task = Task(dataset=samples, solver=[generate(tool_calls="none")], scorer=scorer)
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


def test_scores_follow_the_calls_and_unscored_rows_are_skipped_by_the_metrics(tmp_path):
    samples = [
        Sample(input="Cancel order 4471", target="cancel_order", id="right"),
        Sample(
            input="Cancel order 4471",
            metadata={"expected_tools": [{"name": "cancel_order", "args": {"order_id": "4471"}}]},
            id="wrong-arg",
        ),
        Sample(input="Hello", target="", id="no-reference"),
    ]
    outputs = [
        ModelOutput.for_tool_call("mockllm/model", "cancel_order", {"order_id": "4471"}),
        ModelOutput.for_tool_call("mockllm/model", "cancel_order", {"order_id": "4417"}),
        ModelOutput.from_content("mockllm/model", "hi"),
    ]
    log = _run(
        samples, outputs, tool_calls("tool_correctness", argument_keys=["order_id"]), tmp_path
    )
    scores = {s.id: s.scores["tool_calls"] for s in log.samples}
    assert scores["right"].value == 1.0 and scores["right"].metadata["passed"] is True
    assert scores["wrong-arg"].value == 0.0
    assert "cancel_order.order_id expected '4471', got '4417'" in scores["wrong-arg"].explanation
    assert math.isnan(scores["no-reference"].value)  # Score.unscored: left out, never 0
    assert "no expected_tools" in (scores["no-reference"].explanation or "")
    (result,) = log.results.scores
    assert result.metrics["mean"].value == pytest.approx(0.5)  # over the two scored rows


def test_a_bad_option_is_refused_when_the_scorer_is_made():
    with pytest.raises(ConfigError, match="ordr"):
        tool_calls("tool_correctness", ordr="strict")
