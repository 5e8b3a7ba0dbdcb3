"""Helpers for run tests: the support-agent cases, datasets and plans in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from tests.agent_stub import AgentStub

# The support-agent cases every run test uses: id, category, input, expected calls.
CASES = [
    ("c1", "cancel", "cancel order 4471", ["lookup_order", "cancel_order"]),
    ("c2", "cancel", "cancel order 5502", ["lookup_order", "cancel_order"]),
    ("r1", "refund", "refund 30 USD on 4471", ["lookup_order", "issue_refund"]),
    ("r2", "refund", "refund 12 USD on 9001", ["lookup_order", "issue_refund"]),
    ("s1", "status", "where is order 7777", ["lookup_order"]),
    ("s2", "status", "where is order 8888", ["lookup_order"]),
]


def script_correct(stub: AgentStub, cases=CASES, **behaviour: Any) -> None:
    """Make the stub call exactly the expected tools for every case."""
    for _, _, text, tools in cases:
        stub.script(text, tools=list(tools), output=f"done: {text}", **behaviour)


def write_dataset(path: Path, cases=CASES, *, column: str = "expected_tools") -> Path:
    with path.open("w") as out:
        for row_id, category, text, tools in cases:
            out.write(
                json.dumps({"id": row_id, "category": category, "input": text, column: tools})
                + "\n"
            )
    return path


def write_plan(
    tmp_path: Path,
    stub: AgentStub,
    *,
    metrics: Any = ("tool_correctness",),
    dataset: Any = "cases.jsonl",
    name: str = "support",
    **extra: Any,
) -> Path:
    plan = {
        "name": name,
        "tags": ["test"],
        "dataset": dataset if isinstance(dataset, dict) else {"path": dataset},
        "connector": {
            "type": "http",
            "url": stub.url + "/agent",
            # generous: at load 8-12 on 2 cores a stub's 1 s row took over 5 s (an error row);
            # tests of the deadline itself set their own
            "timeout": 30,
            "retry": {"retries": 0},
            "response": {
                "output": "$.output",
                "tools_called": "$.steps[?(@.type=='tool_call')].tool.name",
            },
        },
        "metrics": list(metrics),
        "concurrency": 4,
        **extra,
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(plan, sort_keys=False))
    return path
