"""deepeval ToolCorrectnessMetric, no LLM (runs in bench/.venvs/deepeval).

python bench/workers/deepeval_worker.py ROWS.jsonl
"""

from __future__ import annotations

import os
import sys

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "1"  # before deepeval is imported
os.environ.setdefault("DEEPEVAL_DISABLE_PROGRESS_BAR", "1")
# deepeval builds a model object in the metric's constructor even when no LLM
# step runs; a placeholder key lets it do so without any network access.
os.environ.setdefault("OPENAI_API_KEY", "sk-bench-placeholder-never-used")

from _timing import emit, fail, rate, read_rows  # noqa: E402


def main(path: str) -> None:
    from importlib.metadata import version

    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    info = {"version": version("deepeval")}
    for calls, rows in sorted(read_rows(path).items()):
        cases = [
            LLMTestCase(
                input=r["input"],
                actual_output="",
                tools_called=[
                    ToolCall(name=c["name"], input_parameters=c["args"]) for c in r["tools_called"]
                ],
                expected_tools=[
                    ToolCall(name=c["name"], input_parameters=c["args"])
                    for c in r["expected_tools"]
                ],
            )
            for r in rows
        ]
        for variant, ordering in (
            ("ToolCorrectness ordered+args", True),
            ("ToolCorrectness unordered+args", False),
        ):
            try:
                metric = ToolCorrectnessMetric(
                    evaluation_params=[ToolCallParams.INPUT_PARAMETERS],
                    should_consider_ordering=ordering,
                    async_mode=False,
                    include_reason=True,
                )
                emit(
                    "deepeval",
                    variant,
                    calls,
                    rate(lambda c, m=metric: m.measure(c, _show_indicator=False), cases),
                    **info,
                )
            except Exception as exc:
                fail("deepeval", variant, exc)


if __name__ == "__main__":
    main(sys.argv[1])
