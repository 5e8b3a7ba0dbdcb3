"""The files ``tooleval init`` writes: a plan, cases, an agent stub or connector, a test, CI.

Each template is text with ``{name}``-style fields filled by :func:`scaffold_files`; the
plan, the cases and the test are the same for every agent kind but for the connector.
"""

from __future__ import annotations

import json

__all__ = ["AGENT_KINDS", "PLAN_FILE", "scaffold_files"]

AGENT_KINDS = ("python", "http", "openai")
PLAN_FILE = "tooleval.yaml"
WORKFLOW_FILE = ".github/workflows/tooleval.yml"

# Four cases of a support agent: two jobs with their arguments, and two restraint rows
# where the right behaviour is to call nothing (a question, not a request).
CASES = [
    {
        "id": "cancel-4471",
        "category": "cancel",
        "input": "Please cancel my order 4471.",
        "expected_tools": [
            {"name": "lookup_order", "args": {"order_id": "4471"}},
            {"name": "cancel_order", "args": {"order_id": "4471"}},
        ],
    },
    {
        "id": "status-5502",
        "category": "status",
        "input": "Where is my order 5502?",
        "expected_tools": [{"name": "lookup_order", "args": {"order_id": "5502"}}],
    },
    {
        "id": "restraint-hours",
        "category": "restraint",
        "input": "What are your opening hours?",
        "expected_tools": [],
    },
    {
        "id": "restraint-policy",
        "category": "restraint",
        "input": "Could I cancel an order later if I change my mind?",
        "expected_tools": [],
    },
]

_PLAN = """\
# The evaluation plan `tooleval init` wrote. Run it: tooleval run {plan}
# (docs/runs.md has every key). Add rows to cases.jsonl as your agent grows.
name: {name}
dataset: cases.jsonl
connector:
{connector}
metrics:
  - tool_correctness
  - tool_call_f1
# the release preset: the calls in the expected order, every call right, arguments
# compared on the keys the reference gives (docs/metrics.md)
preset: release
gate:
  min_pass_rate: 1.0     # a release gate: every row passes
  max_error_rate: 0      # and every row runs (an agent that is down fails the gate)
"""

_CONNECTORS = {
    "python": """\
  type: python
  target: agent:run      # agent.py's run(text); replace its body with a call to your agent""",
    "http": """\
  type: http
  url: {url}
  body: {{input: "{{{{input}}}}"}}
  timeout: 30
  response:              # JSONPath into your agent's JSON reply
    output: $.output
    tools_called: $.tool_calls""",
    "openai": """\
  type: openai
  base_url: {base_url}
  model: {model}
  # api_key_env: OPENAI_API_KEY   # the variable's name, for a server that needs a key
  tools: tools.json
  system: "You are a support agent. Look an order up before you change it."
  tool_executor: agent_tools:run  # runs the model's calls, so it sees more than one turn
  max_turns: 8""",
}

_AGENT = '''\
"""A stand-in for your agent, so the plan runs green at once: replace run()'s body with
a call to yours. It returns what the agent said and the tools it called, in order."""

from __future__ import annotations

import re


def run(text: str) -> dict:
    order = re.search(r"\\b(\\d{4})\\b", text)
    asks = text.lower()
    calls = []
    if order and "cancel" in asks:
        calls = [
            {"name": "lookup_order", "args": {"order_id": order[1]}},
            {"name": "cancel_order", "args": {"order_id": order[1]}},
        ]
    elif order and ("where" in asks or "status" in asks):
        calls = [{"name": "lookup_order", "args": {"order_id": order[1]}}]
    output = "Done." if calls else "We are open 9-17; you can cancel until an order ships."
    return {"output": output, "tools_called": calls}
'''

_TOOL_EXECUTOR = '''\
"""Runs the model's tool calls with made-up orders, so the openai connector can loop."""

from __future__ import annotations


def run(call) -> dict:
    order_id = str(call.args.get("order_id", ""))
    if call.name == "lookup_order":
        return {"order_id": order_id, "status": "processing"}
    if call.name == "cancel_order":
        return {"order_id": order_id, "status": "cancelled"}
    return {"error": f"unknown tool {call.name}"}
'''

_TOOLS = [
    {
        "name": "lookup_order",
        "description": "Look an order up by its id.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
    {
        "name": "cancel_order",
        "description": "Cancel an order (look it up first).",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
]

_TEST = '''\
"""One pytest test per row of cases.jsonl: the agent's calls against the expected ones,
judged by tooleval's release preset (the calls in order, every call right)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooleval.connectors import load_connector_file
from tooleval.pytest_plugin import tooleval_cases
from tooleval.testing import assert_tool_calls

AGENT = load_connector_file(Path(__file__).with_name("{plan}"))


@pytest.mark.parametrize("case", tooleval_cases("cases.jsonl"))
def test_the_agent_calls_the_expected_tools(case):
    response = AGENT.call(case)
    assert_tool_calls(case.expected_tools, response.tools_called, preset="release")
'''

_WORKFLOW = """\
# tooleval init wrote this: it gates every pull request on the agent's tool calls.
# `tooleval run` exits 1 when the plan's gate fails; the summary lands on the run's page.
name: tooleval
on:
  pull_request:
  push:
    branches: [main]

jobs:
  evaluate:
    runs-on: ubuntu-latest
    env:
      TOOLEVAL_STORE: .tooleval/runs.db
{env}    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install tooleval
        run: |
          python -m pip install pytest
          {install}
{start}      - name: Evaluate the agent
        run: tooleval run {plan} --junit reports/junit.xml --summary-md reports/summary.md
      - name: Test the agent with pytest
        run: python -m pytest -q test_agent.py
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: tooleval
          path: reports/
"""

_START_AGENT = """\
      - name: Start your agent
        run: |
          echo "start your agent here, in the background, listening on $AGENT_URL"
"""


def scaffold_files(
    *,
    name: str,
    agent: str,
    url: str,
    base_url: str,
    model: str,
    install: str,
) -> dict[str, str]:
    """Every file of the scaffold, path (relative to the folder) -> text."""
    connector = _CONNECTORS[agent].format(url=url, base_url=base_url, model=model)
    files = {
        PLAN_FILE: _PLAN.format(plan=PLAN_FILE, name=json.dumps(name), connector=connector),
        "cases.jsonl": "".join(json.dumps(case) + "\n" for case in CASES),
        "test_agent.py": _TEST.format(plan=PLAN_FILE),
    }
    if agent == "python":
        files["agent.py"] = _AGENT
    if agent == "openai":
        files["tools.json"] = json.dumps(_TOOLS, indent=2) + "\n"
        files["agent_tools.py"] = _TOOL_EXECUTOR
    env = ""
    if agent == "http" and "${AGENT_URL}" in url:
        env = "      AGENT_URL: http://127.0.0.1:8000/agent   # where your agent listens in CI\n"
    start = _START_AGENT if agent == "http" else ""
    files[WORKFLOW_FILE] = _WORKFLOW.format(env=env, install=install, start=start, plan=PLAN_FILE)
    return files
