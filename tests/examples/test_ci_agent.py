"""The worked CI example, end to end: model server + agent on 127.0.0.1, the workflow's command.

examples/ci_agent holds a scripted OpenAI-compatible model server, a real
tool-loop agent served over HTTP, a dataset, a plan and a GitHub Actions
workflow. This test starts both servers the way the workflow does and runs
the workflow's evaluation command as written: the gate passes for the good
model and fails (exit 1, with the failure cluster in the summary) when the
model regresses.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from tests.procs import finish, read_line

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ci_agent"
TOOLEVAL = Path(sys.executable).with_name("tooleval")


def _workflow() -> dict:
    return yaml.safe_load((EXAMPLE / "github-workflow.yml").read_text())


def _step(name: str) -> dict:
    steps = _workflow()["jobs"]["evaluate"]["steps"]
    return next(s for s in steps if s.get("name") == name)


@contextmanager
def _server(*argv: str) -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, *argv, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = read_line(proc, startswith="listening on ")
        yield int(line.split()[-1])
    finally:
        proc.terminate()
        finish(proc, timeout=10)


@contextmanager
def _agent(bug: str | None = None) -> Iterator[str]:
    model_args = [str(EXAMPLE / "model_server.py"), *(["--bug", bug] if bug else [])]
    with _server(*model_args) as model_port:
        model_url = f"http://127.0.0.1:{model_port}/v1"
        with _server(str(EXAMPLE / "agent.py"), "--model-url", model_url) as agent_port:
            yield f"http://127.0.0.1:{agent_port}"


def _evaluate(tmp_path: Path, agent_url: str) -> subprocess.CompletedProcess:
    command = shlex.split(_step("Evaluate the agent")["run"])
    assert command[0] == "tooleval"
    (tmp_path / "examples").mkdir(exist_ok=True)
    link = tmp_path / "examples" / "ci_agent"
    if not link.exists():
        link.symlink_to(EXAMPLE)
    env = {
        **os.environ,
        **_workflow()["jobs"]["evaluate"]["env"],
        "AGENT_URL": agent_url,
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
    }
    return subprocess.run(
        [str(TOOLEVAL), *command[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_workflow_starts_the_examples_servers_and_keeps_the_reports():
    start = _step("Start the model server and the agent")["run"]
    assert "examples/ci_agent/model_server.py" in start and "examples/ci_agent/agent.py" in start
    evaluate = _step("Evaluate the agent")["run"]
    assert "examples/ci_agent/plan.yaml" in evaluate and "--summary-md" in evaluate
    assert _step("Keep the reports")["if"] == "always()"


def test_the_gate_passes_for_the_good_agent(tmp_path):
    with _agent() as url:
        done = _evaluate(tmp_path, url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pass^2" in done.stdout and "gate passed" in done.stdout
    assert "at 95%" in done.stdout  # the noise-aware gate: each floor checked on its interval
    summary = (tmp_path / "reports" / "summary.md").read_text()
    assert "✅ gate passed" in summary and "Repeats: 2 attempts per row" in summary
    assert (tmp_path / "step_summary.md").read_text() == summary
    assert (tmp_path / "reports" / "junit.xml").stat().st_size > 0
    assert (tmp_path / ".tooleval" / "runs.db").exists()


def test_the_gate_fails_when_the_model_regresses(tmp_path):
    with _agent(bug="skip-lookup") as url:
        done = _evaluate(tmp_path, url)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = (tmp_path / "reports" / "summary.md").read_text()
    assert "❌ gate failed" in summary
    assert "missing" in summary and "lookup\\_order" in summary
    assert "| r1 |" in summary or "| r2 |" in summary  # an example row of the cluster


def test_an_agent_that_is_down_fails_with_errors_not_zeros(tmp_path):
    with _server(str(EXAMPLE / "agent.py"), "--model-url", "http://127.0.0.1:9/v1") as port:
        done = _evaluate(tmp_path, f"http://127.0.0.1:{port}")
    assert done.returncode == 1
    assert "errors: 14/14 attempts" in done.stdout  # --repeat 2: 7 rows, 14 attempts


def test_a_busy_port_is_one_line_naming_it_and_the_remedy():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for script in ("model_server.py", "agent.py"):
            done = subprocess.run(
                [sys.executable, str(EXAMPLE / script), "--port", str(port)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 2
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "--port 0" in lines[0]
