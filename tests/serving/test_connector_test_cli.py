"""`tooleval connector test` on a plan with an environment: the episode runs as `tooleval run` runs it."""

from __future__ import annotations

import json

import pytest
from tests.openai_server import OpenAIServer
from tests.serving.test_tool_loop import scripted

from tooleval.cli.main import main

ENV = '''
from tooleval.environments import FunctionEnvironment


def put(state, key: str, value: int):
    """Store value under key."""
    state[key] = value
    return {"stored": key}


def make(config):
    return FunctionEnvironment({"put": put}, initial_state={})
'''


def _plan(tmp_path, connector: str) -> str:
    (tmp_path / "envs.py").write_text(ENV)
    path = tmp_path / "plan.yaml"
    path.write_text(
        "dataset: d.jsonl\nmetrics: [state_match]\n"
        'environment: {name: "envs.py:make"}\n'
        f"connector:\n{connector}"
    )
    return str(path)


def test_the_tool_loop_runs_on_the_plans_environment(tmp_path, capsys):
    steps = [[("put", json.dumps({"key": "a", "value": 1}))]]
    with OpenAIServer(scripted(lambda _: steps)) as server:
        path = _plan(tmp_path, f"  type: openai\n  base_url: {server.base_url}\n  model: m\n")
        assert main(["connector", "test", path, "--input", "store a", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "OK"
    assert report["tools_called"] == ["put"]  # executed by tooleval in the environment
    assert report["connector"]["environment"]["name"].endswith("envs.py:make")
    assert server.requests[0]["tools"][0]["function"]["name"] == "put"


def test_a_served_connector_hands_the_agent_its_tools_url(tmp_path, capsys):
    pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")
    (tmp_path / "served_cli_agent.py").write_text(
        "import httpx\n\n"
        "def run(sample):\n"
        "    url = sample.metadata['serving']['tools_url']\n"
        "    answer = httpx.post(url + '/put', json={'key': 'k', 'value': 2}, timeout=60).json()\n"
        "    return {'output': str(answer['result'])}\n"
    )
    path = _plan(
        tmp_path,
        "  type: python\n  target: served_cli_agent:run\n  argument: sample\n  serve: http\n",
    )
    assert main(["connector", "test", path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "OK" and report["tools_called"] == ["put"]
    assert report["output"] == "{'stored': 'k'}"
    assert report["connector"]["serve"]["transport"] == "http"


def test_an_unknown_environment_is_refused_up_front(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(
        "dataset: d.jsonl\nmetrics: [state_match]\nenvironment: nope_env\n"
        "connector: {type: openai, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
    )
    assert main(["connector", "test", str(path)]) == 2
    assert "unknown environment 'nope_env'" in capsys.readouterr().err
