"""agentevals trajectory match evaluator (runs in bench/.venvs/agentevals).

python bench/workers/agentevals_worker.py ROWS.jsonl
"""

from __future__ import annotations

import json
import os
import sys

os.environ["LANGSMITH_TRACING"] = "false"  # no tracing, no network
os.environ["LANGCHAIN_TRACING_V2"] = "false"

from _timing import emit, fail, rate, read_rows  # noqa: E402


def _messages(row_input: str, calls: list[dict]) -> list[dict]:
    return [
        {"role": "user", "content": row_input},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": c["name"], "arguments": json.dumps(c["args"])}} for c in calls
            ],
        },
    ]


def main(path: str) -> None:
    import warnings
    from importlib.metadata import version

    from agentevals.trajectory.match import create_trajectory_match_evaluator

    warnings.simplefilter("ignore")
    info = {"version": version("agentevals")}
    for calls, rows in sorted(read_rows(path).items()):
        pairs = [
            (_messages(r["input"], r["tools_called"]), _messages(r["input"], r["expected_tools"]))
            for r in rows
        ]
        for mode in ("strict", "unordered"):
            try:
                evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)
                emit(
                    "agentevals",
                    f"trajectory_match {mode}",
                    calls,
                    rate(lambda p, ev=evaluator: ev(outputs=p[0], reference_outputs=p[1]), pairs),
                    **info,
                )
            except Exception as exc:
                fail("agentevals", f"trajectory_match {mode}", exc)


if __name__ == "__main__":
    main(sys.argv[1])
