"""connector_from_config validation and `tooleval connector test` against the stub."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.agent_stub import AgentStub

from tooleval.cli.main import main
from tooleval.connectors import HttpConnector, connector_from_config, load_connector_file
from tooleval.errors import ConfigError

GOOD = "$.steps[?(@.type=='tool_call')].tool.name"


def plan(tmp_path: Path, stub: AgentStub, tools_called: str, *, whole_plan: bool = True) -> Path:
    connector = (
        f"  url: {stub.url}/agent\n"
        "  headers: {Authorization: 'Bearer ${STUB_TOKEN}'}\n"
        "  body: {input: '{{input}}', session: '{{id}}'}\n"
        "  retry: {retries: 1, backoff: 0.01}\n"
        "  response:\n"
        "    output: $.output\n"
        f'    tools_called: "{tools_called}"\n'
    )
    text = (
        "name: smoke\ndataset: data.csv\nconnector:\n" + connector
        if whole_plan
        else connector.replace("\n  ", "\n")[2:]
    )
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_TOKEN", "tok-secret-9")


def test_ok_verdict(agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent_stub.script("cancel 4471", tools=["lookup_order", "cancel_order"], output="Cancelled.")
    path = plan(tmp_path, agent_stub, GOOD)
    assert main(["connector", "test", str(path), "--input", "cancel 4471"]) == 0
    out = capsys.readouterr().out
    assert "raw response:" in out and '"type": "tool_call"' in out
    assert f"tools_called  {GOOD}" in out
    assert '-> ["lookup_order", "cancel_order"]' in out
    assert "verdict: OK (tools_called resolved to 2 tool names)" in out
    assert "Authorization (values not shown)" in out and "tok-secret-9" not in out
    assert agent_stub.requests[-1].json == {"input": "cancel 4471", "session": "connector-test"}


def test_objects_verdict(
    agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    agent_stub.script("q", tools=["search"])
    path = plan(tmp_path, agent_stub, "$.steps[?(@.type=='tool_call')]")
    assert main(["connector", "test", str(path), "--input", "q"]) == 1
    out = capsys.readouterr().out
    assert "verdict: PROBLEM" in out
    assert "tools_called path resolved to objects with keys ['tool', 'type']" in out
    assert "e.g. $.steps[?(@.type=='tool_call')].tool.name" in out


def test_no_match_verdict_names_last_matching_part(
    agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    agent_stub.script("q", tools=["search"])
    path = plan(tmp_path, agent_stub, "$.steps[*].function.name", whole_plan=False)
    assert main(["connector", "test", str(path), "--input", "q"]) == 1
    out = capsys.readouterr().out
    assert "$['steps'][*] matched 3 values (dict), but ['function'] did not" in out
    assert "those objects have keys ['content', 'tool', 'type']" in out


def test_empty_selection_is_ok_with_warning(
    agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    agent_stub.script("refuse", tools=[], output="I can't do that.")
    path = plan(tmp_path, agent_stub, GOOD)
    assert main(["connector", "test", str(path), "--input", "refuse"]) == 0
    out = capsys.readouterr().out
    assert "selected none of them (read as: no tools called)" in out
    assert "verdict: OK (tools_called resolved to 0 tool names)" in out


def test_http_failure_verdict(
    agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    agent_stub.script("down", fail_times=9, fail_status=500)
    path = plan(tmp_path, agent_stub, GOOD)
    assert main(["connector", "test", str(path), "--input", "down", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "PROBLEM"
    assert "failed after 2 attempts: HTTP 500" in report["problems"][0]


def test_bad_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "connector:\n  url: http://127.0.0.1:1/a\n  response: {tools_called: '$.x[?('}\n"
    )
    assert main(["connector", "test", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"file {bad}, field connector.response.tools_called: invalid JSONPath" in err
    assert main(["connector", "test", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_subprocess(agent_stub: AgentStub, tmp_path: Path) -> None:
    agent_stub.script("hello", tools=["greet"])
    path = plan(tmp_path, agent_stub, GOOD)
    exe = Path(sys.executable).parent / "tooleval"
    done = subprocess.run(
        [str(exe), "connector", "test", str(path), "--input", "hello"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "verdict: OK" in done.stdout


def test_load_connector_file_both_shapes(agent_stub: AgentStub, tmp_path: Path) -> None:
    whole = load_connector_file(plan(tmp_path, agent_stub, GOOD))
    only = load_connector_file(plan(tmp_path, agent_stub, GOOD, whole_plan=False))
    assert isinstance(whole, HttpConnector) and whole.describe() == only.describe()


@pytest.mark.parametrize(
    ("config", "field", "text"),
    [
        ({"type": "grpc"}, "connector.type", "unknown connector type 'grpc'"),
        ({"url": "http://x", "header": {}}, "connector.header", "did you mean 'headers'"),
        ({}, "connector.url", "missing required key 'url'"),
        ({"url": "http://x", "timeout": "soon"}, "connector.timeout", "expected a finite number"),
        ({"url": "http://x", "headers": ["a"]}, "connector.headers", "expected a mapping"),
        ({"url": "http://x", "retry": {"retires": 2}}, "connector.retry.retires", "unknown key"),
        ({"url": "http://x", "retry": {"retries": -1}}, "connector.retry.retries", ">= 0"),
        (
            {"url": "http://x", "response": {"tools_called": "$["}},
            "connector.response.tools_called",
            "invalid JSONPath",
        ),
        ({"url": "http://x", "body": {"q": "{{nope}}"}}, "connector.body", "unknown placeholder"),
        (
            {"type": "openai", "base_url": "http://x", "model": "m", "max_turns": 0},
            "connector.max_turns",
            "integer >= 1",
        ),
    ],
)
def test_config_errors_name_the_field(config: dict, field: str, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        connector_from_config(config)
    assert info.value.field == field, str(info.value)
    assert text in str(info.value)


def test_an_agent_reply_with_terminal_escapes_is_shown_not_applied(
    agent_stub: AgentStub, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    agent_stub.script("q", fail_times=9, fail_status=500, fail_body="\x1b[2J\x1b[31mboom\x07\u202e")
    path = plan(tmp_path, agent_stub, GOOD)
    assert main(["connector", "test", str(path), "--input", "q"]) == 1
    out = capsys.readouterr().out
    assert "boom\\x07<U+202E>" in out and "\x1b" not in out and "\u202e" not in out
