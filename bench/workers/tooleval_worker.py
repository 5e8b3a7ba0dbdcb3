"""tooleval's own metrics and its ragas drop-in (runs in the main .venv).

python bench/workers/tooleval_worker.py ROWS.jsonl
"""

from __future__ import annotations

import sys
import warnings

from _timing import emit, fail, rate, read_rows


def _metric(name: str, module: str):
    # The public home is tooleval.metrics; the submodule keeps this worker
    # usable while the package's re-exports are still being assembled.
    import importlib

    try:
        return getattr(importlib.import_module("tooleval.metrics"), name)
    except (ImportError, AttributeError):
        return getattr(importlib.import_module(f"tooleval.metrics.{module}"), name)


def main(path: str) -> None:
    from importlib.metadata import version

    from tooleval.compat import ragas as compat
    from tooleval.model import ToolCall

    warnings.simplefilter("ignore")  # the ragas drop-in warns like ragas does
    info = {"version": version("tooleval")}
    for calls, rows in sorted(read_rows(path).items()):
        pairs = [
            (
                [ToolCall(c["name"], c["args"]) for c in r["expected_tools"]],
                [ToolCall(c["name"], c["args"]) for c in r["tools_called"]],
            )
            for r in rows
        ]
        samples = [
            compat.MultiTurnSample(
                user_input=[
                    compat.HumanMessage(content=r["input"]),
                    compat.AIMessage(content="", tool_calls=r["tools_called"]),
                ],
                reference_tool_calls=r["expected_tools"],
            )
            for r in rows
        ]
        variants = [
            ("tool_call_accuracy strict", "tool_call_accuracy", "accuracy", {"order": "strict"}),
            (
                "tool_call_accuracy flexible",
                "tool_call_accuracy",
                "accuracy",
                {"order": "flexible"},
            ),
            ("trajectory_match strict", "trajectory_match", "trajectory", {"order": "strict"}),
            ("trajectory_match unordered", "trajectory_match", "trajectory", {"order": "flexible"}),
            (
                "tool_correctness ordered",
                "tool_correctness",
                "correctness",
                {"order": "strict"},
            ),
            ("tool_correctness", "tool_correctness", "correctness", {}),
        ]
        for variant, name, module, options in variants:
            try:
                fn = _metric(name, module)
                emit(
                    "tooleval",
                    variant,
                    calls,
                    rate(lambda p, fn=fn, options=options: fn(p[0], p[1], **options), pairs),
                    **info,
                )
            except Exception as exc:
                fail("tooleval", variant, exc)
        legacy = compat.ToolCallAccuracy()
        emit(
            "tooleval",
            "compat.ragas ToolCallAccuracy",
            calls,
            rate(legacy.multi_turn_score, samples),
            **info,
        )
        kw = [
            {"user_input": s.user_input, "reference_tool_calls": s.reference_tool_calls}
            for s in samples
        ]
        emit(
            "tooleval",
            "compat.ragas ToolCallAccuracy score()",
            calls,
            rate(lambda k, m=legacy: m.score(**k), kw),
            **info,
        )


if __name__ == "__main__":
    main(sys.argv[1])
