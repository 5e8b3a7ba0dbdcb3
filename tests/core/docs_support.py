"""What the docs' hidden setup blocks build: files and stored runs their examples read.

Used by ``<!-- docs-test: setup -->`` blocks (see tests/core/test_docs_examples.py); each
function writes into the current folder, which the docs test makes a temporary one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tooleval.model import Sample, ToolCall

# id, category, input, the calls the support agent should make
CASES = [
    ("c1", "cancel", "cancel order 4471", ["lookup_order", "cancel_order"]),
    ("r1", "refund", "refund 30 USD on 4471", ["lookup_order", "issue_refund"]),
    ("s1", "status", "where is order 7777", ["lookup_order"]),
]


def write_cases(path: str = "cases.jsonl") -> Path:
    """The support cases as a canonical JSONL dataset."""
    target = Path(path)
    with target.open("w", encoding="utf-8") as out:
        for row_id, category, text, tools in CASES:
            row = {"id": row_id, "category": category, "input": text, "expected_tools": tools}
            out.write(json.dumps(row) + "\n")
    return target


def serve_agent() -> Any:
    """A real HTTP agent on 127.0.0.1 that calls the expected tools (stopped at exit)."""
    import atexit

    from tests.agent_stub import AgentStub

    stub = AgentStub().start()
    atexit.register(stub.stop)
    for _, _, text, tools in CASES:
        stub.script(text, tools=list(tools), output=f"done: {text}")
    return stub


def write_plan(path: str = "plan.yaml") -> Path:
    """A plan over ``cases.jsonl`` calling a real HTTP agent stub on 127.0.0.1."""
    write_cases()
    stub = serve_agent()
    plan = {
        "name": "support",
        "dataset": "cases.jsonl",
        "connector": {
            "type": "http",
            "url": stub.url + "/agent",
            "timeout": 5,
            "retry": {"retries": 0},
            "response": {
                "output": "$.output",
                "tools_called": "$.steps[?(@.type=='tool_call')].tool.name",
            },
        },
        "metrics": ["tool_correctness", "tool_call_f1"],
        "gate": {"min_pass_rate": 0.5},
    }
    Path(path).write_text(yaml.safe_dump(plan), encoding="utf-8")
    return Path(path)


def agent(*, broken: str | None = None) -> Any:
    """An in-process agent that calls the expected tools (all but the last on ``broken``)."""
    expected = {text: tools for _, _, text, tools in CASES}

    async def answer(text: str) -> dict[str, Any]:
        tools = expected[text][:-1] if text == broken else expected[text]
        return {"output": "done", "tools_called": tools}

    return answer


def stored_runs(store: Any) -> tuple[Any, str, str]:
    """The plan and two stored runs of it: A all right, B with one row regressed."""
    from tooleval.connectors import CallableConnector
    from tooleval.runs import load_plan, run_plan

    plan = load_plan(write_plan())
    a = run_plan(plan, store=store, connector=CallableConnector(agent()))
    b = run_plan(plan, store=store, connector=CallableConnector(agent(broken=CASES[0][2])))
    return plan, a.run_id, b.run_id


def weather_sample() -> Sample:
    """One row: the agent asked for the weather in Paris, as it should have."""
    return Sample(
        input="Weather in Paris?",
        tools_called=[ToolCall("get_weather", {"city": "Paris"})],
        expected_tools=[ToolCall("get_weather", {"city": "Paris"})],
    )
