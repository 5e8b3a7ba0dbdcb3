"""`tooleval init`: a scaffold that runs green at once, never over a user's files (subprocess)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tooleval.runs.plan import load_plan

WORKFLOW = ".github/workflows/tooleval.yml"


def tooleval(*args: str, cwd=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tooleval", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        input=stdin,
    )


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scaffold") / "my-agent"
    done = tooleval("init", str(folder), "--no-input")
    assert done.returncode == 0, done.stderr
    return folder


def test_init_writes_the_plan_cases_stub_test_and_workflow(scaffold):
    written = sorted(str(p.relative_to(scaffold)) for p in scaffold.rglob("*") if p.is_file())
    assert written == sorted(
        ["tooleval.yaml", "cases.jsonl", "agent.py", "test_agent.py", WORKFLOW]
    )
    plan = load_plan(scaffold / "tooleval.yaml")
    assert plan.name == "my-agent"
    assert plan.gate.min_pass_rate == 1.0 and plan.gate.max_error_rate == 0
    correctness = plan.metrics[0]
    assert correctness.params["order"] == "strict" and correctness.threshold == 1.0  # release
    cases = [json.loads(line) for line in (scaffold / "cases.jsonl").read_text().splitlines()]
    assert any(case["expected_tools"] == [] for case in cases)  # a restraint row
    assert any(
        isinstance(call, dict) and call.get("args")
        for case in cases
        for call in case["expected_tools"]
    )


def test_the_scaffolded_plan_runs_green_at_once(scaffold, tmp_path):
    store = tmp_path / "runs.db"
    done = tooleval("run", str(scaffold / "tooleval.yaml"), "--store", str(store), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gate passed" in done.stdout
    assert "4 passed" not in done.stderr  # the table counts rows; nothing was unscored
    assert "│ tool_correctness │         1 │      4 │      0 │      0 │        0 │" in done.stdout


def test_the_scaffolded_pytest_file_passes(scaffold):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "test_agent.py",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=scaffold,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout


def test_the_scaffolded_pytest_file_fails_when_the_agent_does_the_wrong_thing(tmp_path):
    folder = tmp_path / "broken"
    assert tooleval("init", str(folder), "--no-input").returncode == 0
    agent = folder / "agent.py"
    # the agent now cancels without looking the order up first
    agent.write_text(
        agent.read_text().replace(
            '{"name": "lookup_order", "args": {"order_id": order[1]}},\n            {"name": "cancel_order"',
            '{"name": "cancel_order"',
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "test_agent.py",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )
    assert done.returncode == 1 and "1 failed, 3 passed" in done.stdout, done.stdout
    run = tooleval("run", "tooleval.yaml", "--store", str(tmp_path / "r.db"), "--quiet", cwd=folder)
    assert run.returncode == 1 and "gate failed" in run.stdout


@pytest.mark.parametrize("agent", ["python", "http", "openai"])
def test_every_scaffolded_workflow_validates_against_githubs_schema(tmp_path, agent):
    checker = shutil.which("check-jsonschema") or str(
        Path(sys.executable).with_name("check-jsonschema")
    )
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed (the dev extra has it)")
    folder = tmp_path / agent
    assert tooleval("init", str(folder), "--agent", agent).returncode == 0
    workflow = folder / WORKFLOW
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    steps = yaml.safe_load(workflow.read_text())["jobs"]["evaluate"]["steps"]
    assert any("tooleval run tooleval.yaml" in str(step.get("run", "")) for step in steps)


def test_the_http_and_openai_scaffolds_name_the_users_endpoint(tmp_path):
    http = tmp_path / "http"
    url = "http://127.0.0.1:8000/agent"
    assert tooleval("init", str(http), "--agent", "http", "--url", url).returncode == 0
    assert load_plan(http / "tooleval.yaml").connector["url"] == url
    assert not (http / "agent.py").exists()
    chat = tmp_path / "chat"
    done = tooleval(
        "init",
        str(chat),
        "--agent",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m1",
    )
    assert done.returncode == 0, done.stderr
    connector = load_plan(chat / "tooleval.yaml").connector
    assert connector["base_url"] == "http://127.0.0.1:9/v1" and connector["model"] == "m1"
    assert connector["tool_executor"] == "agent_tools:run"  # it can see more than one turn
    dry = tooleval("run", str(chat / "tooleval.yaml"), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "no tool_executor" not in dry.stdout


def test_init_never_overwrites_and_writes_nothing_when_one_file_exists(tmp_path):
    (tmp_path / "cases.jsonl").write_text("mine\n")
    done = tooleval("init", str(tmp_path), "--no-input")
    assert done.returncode == 2
    assert "cases.jsonl already exists" in done.stderr and "nothing was written" in done.stderr
    assert (tmp_path / "cases.jsonl").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl"]


def test_init_refuses_a_file_as_its_folder(tmp_path):
    target = tmp_path / "plan.yaml"
    target.write_text("x")
    done = tooleval("init", str(target), "--no-input")
    assert done.returncode == 2 and "expected a folder" in done.stderr


@pytest.mark.parametrize(
    "argv,needs",
    [
        (["--url", "http://127.0.0.1:1/a"], "--url needs --agent http (got no --agent)"),
        (
            ["--agent", "python", "--model", "m"],
            "--model needs --agent openai (got --agent python)",
        ),
        (["--agent", "http", "--base-url", "http://x/v1"], "--base-url needs --agent openai"),
    ],
)
def test_an_option_of_another_agent_kind_says_what_it_needs(tmp_path, argv, needs):
    done = tooleval("init", str(tmp_path / "x"), *argv)
    assert done.returncode == 2
    assert needs in done.stderr
    assert not (tmp_path / "x").exists()


def test_init_asks_on_a_terminal_and_takes_the_answers(tmp_path):
    # the questions are asked when stdin is a terminal: drive them through a pty
    pty = pytest.importorskip("pty")
    import os

    folder = tmp_path / "asked"
    pid, fd = pty.fork()
    if pid == 0:  # the child: tooleval init on the pty
        os.execv(sys.executable, [sys.executable, "-m", "tooleval", "init", str(folder)])
    out = b""
    answers = [b"http\n", b"http://127.0.0.1:7000/agent\n"]
    try:
        while True:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
            if answers and out.rstrip().endswith(b"]:"):
                os.write(fd, answers.pop(0))
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, out.decode(errors="replace")
    assert b"your agent: python/http/openai [python]:" in out
    assert load_plan(folder / "tooleval.yaml").connector["url"] == "http://127.0.0.1:7000/agent"
