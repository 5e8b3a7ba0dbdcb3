"""The OpenAI-compatible judge against a real server on 127.0.0.1 that says the prompt is too long.

Servers word a context overflow differently (vLLM: "This model's maximum context
length is 4096 tokens", llama.cpp: "the request exceeds the available context
size", OpenAI: "context_length_exceeded"); each answers HTTP 400. A row so
answered is never a silent 0: the metric raises a JudgeError that says what to
do, and ``calibrate`` lists the row as not judged, naming it. (Malformed,
truncated, refusing and slow replies: tests/judged/test_calibration.py.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.openai_server import OpenAIServer, completion, prompt_text

from tooleval.errors import JudgeError
from tooleval.judged.task_success import task_success
from tooleval.llm import OpenAIJudge
from tooleval.model import Sample

OVERFLOWS = {
    "vllm": "This model's maximum context length is 4096 tokens. However, you requested 9000",
    "llama.cpp": "the request exceeds the available context size, try increasing it",
    "openai": "context_length_exceeded: Please reduce the length of the messages.",
}
VERDICT = {"evidence": "the tool result", "accomplished": True, "reason": "done"}


class TooLongServer(OpenAIServer):
    """Answers 400 with ``message`` when the prompt holds ``HUGE``, else a verdict."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(self._verdict_or_overflow)

    def _verdict_or_overflow(
        self, body: dict[str, Any], number: int
    ) -> dict[str, Any] | tuple[int, dict[str, Any]]:
        if "HUGE" in prompt_text(body):
            return 400, {"error": {"message": self.message, "code": 400}}
        return completion({"role": "assistant", "content": json.dumps(VERDICT)}, number=number)


@pytest.mark.parametrize("server_kind", sorted(OVERFLOWS))
def test_a_context_overflow_is_a_judge_error_saying_what_to_do(server_kind):
    sample = Sample(input="HUGE " + "word " * 50, output="done")
    with TooLongServer(OVERFLOWS[server_kind]) as server:
        judge = OpenAIJudge("m", base_url=server.base_url, api_key="k", cache=False)
        try:
            with pytest.raises(JudgeError) as info:
                task_success(sample, judge=judge)
            fine = task_success(Sample(input="small", output="done"), judge=judge)
        finally:
            judge.close()
    message = str(info.value)
    assert info.value.context["status"] == 400 and len(server.requests) == 2
    assert "longer than the judge model's context" in message and "max_chars" in message
    assert fine.score == 1.0


def test_calibrate_names_the_row_whose_prompt_was_too_long(tmp_path):
    from tooleval.calibration import calibrate
    from tooleval.store import Label, MetricSpec, RowRecord, open_store

    rows = [("huge-row", "HUGE trajectory"), ("small-row", "a short one")]
    with TooLongServer(OVERFLOWS["vllm"]) as server, open_store(tmp_path / "r.db") as store:
        run_id = store.create_run(
            "overflow", dataset={}, connector={}, metrics=[MetricSpec("task_success")]
        )
        samples = [Sample(id=row_id, input=text, output="ok") for row_id, text in rows]
        store.add_rows(run_id, [RowRecord(run_id, i, s.id, s) for i, s in enumerate(samples)])
        store.labels.set_labels(run_id, [Label(i, "task_success", True) for i in range(2)])
        store.finish_run(run_id)
        judge = OpenAIJudge("m", base_url=server.base_url, api_key="k", cache=False)
        try:
            report = calibrate(store, run_id, "task_success", judge=judge, save=False)
        finally:
            judge.close()
    assert report.confusion.n == 1  # the small row; the huge one is not counted either way
    (missing,) = report.unscored
    assert missing["row_id"] == "huge-row" and "row huge-row" in missing["reason"]
    assert "longer than the judge model's context: make the judge read less" in missing["reason"]
    assert "max_chars" in missing["reason"]
