"""Every call into an environment has a deadline: a row past it is unscored naming the deadline,
and the process always ends (real subprocesses; the deadline is set small by its variable)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tooleval
from tooleval.errors import ConfigError
from tooleval.user_deadline import DEADLINE_ENV, DeadlinePassed, bounded

EXE = str(Path(sys.executable).with_name("tooleval"))
ENVIRONMENTS = '''
import threading
import time

from tooleval.environments.python import FunctionEnvironment


class Hanging:
    """An environment that never returns from one of its methods."""

    def __init__(self, where):
        self.where = where
        self.inner = FunctionEnvironment(
            {"put": lambda state, key, value: state.update({key: value})}, initial_state={}
        )

    def _hang(self, method):
        if self.where == method:
            time.sleep(10**6)
        if self.where == method + "_lock":
            threading.Event().wait()
        if self.where == method + "_loop":
            while True:
                pass

    def reset(self, initial_state=None):
        self._hang("reset")
        self.inner.reset(initial_state)

    def call(self, name, arguments):
        self._hang("call")
        return self.inner.call(name, arguments)

    def state(self):
        self._hang("state")
        return self.inner.state()


def make(config):
    if config.get("where") == "factory":
        time.sleep(10**6)
    return Hanging(config.get("where"))
'''
CALL = {"name": "put", "arguments": {"key": "x", "value": 1}}
WHERE = ["reset", "reset_lock", "reset_loop", "call", "state", "state_loop", "factory"]


def _rows(where: str) -> list[dict]:
    environment = {"name": "hang", "config": {"where": where}}
    return [
        {
            "id": f"r{i}",
            "input": "put x",
            "tools_called": [CALL],
            "expected_tools": [CALL],
            "metadata": {"environment": environment},
        }
        for i in range(2)
    ]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "hang_envs.py").write_text(ENVIRONMENTS)
    return tmp_path


def _env(folder: Path, seconds: str = "0.3") -> dict[str, str]:
    env = dict(os.environ)
    env[DEADLINE_ENV] = seconds
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), env.get("PYTHONPATH", "")]))
    return env


def _run(folder: Path, *args: str, seconds: str = "0.3") -> subprocess.CompletedProcess:
    # The subprocess timeout only guards the suite: the process must end on its own.
    return subprocess.run(
        [EXE, *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=folder,
        env=_env(folder, seconds),
    )


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _option_rows(where: str) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "metadata"} for row in _rows(where)]


@pytest.mark.parametrize("where", WHERE)
def test_score_ends_with_every_row_unscored_naming_the_deadline(folder, where):
    data = _write(folder / "d.jsonl", _option_rows(where))
    done = _run(
        folder,
        "score",
        str(data),
        "--metric",
        "state_match",
        "--option",
        f'environment={{"name": "hang_envs:make", "config": {{"where": "{where}"}}}}',
    )
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == 2
    method = "factory" if where == "factory" else where.split("_")[0]
    for result in results:
        assert result["score"] is None
        assert "deadline of 0.3 s" in result["reason"] and DEADLINE_ENV in result["reason"]
        assert method in result["reason"]


def test_a_bad_deadline_is_refused_before_any_row(folder):
    data = _write(folder / "d.jsonl", _option_rows("none"))
    for bad in ("abc", "0", "-1", "nan", "inf"):
        done = _run(
            folder,
            "score",
            str(data),
            "--metric",
            "state_match",
            "--option",
            "environment=hang_envs:make",
            seconds=bad,
        )
        assert done.returncode == 2 and done.stdout == "", (bad, done.stderr)
        assert DEADLINE_ENV in done.stderr


def test_an_environment_that_returns_still_scores(folder):
    data = _write(folder / "d.jsonl", _option_rows("none"))
    done = _run(
        folder,
        "score",
        str(data),
        "--metric",
        "state_match",
        "--option",
        "environment=hang_envs:make",
        seconds="30",
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["score"] for line in done.stdout.splitlines()] == [1.0, 1.0]


def _plan(folder: Path, where: str) -> Path:
    _write(folder / "d.jsonl", _option_rows(where))
    (folder / "hang_agent.py").write_text(
        f"def run(text):\n    return {{'tools_called': [{CALL!r}]}}\n"
    )
    plan = folder / "plan.yaml"
    plan.write_text(
        "name: hang\n"
        "dataset: {path: d.jsonl}\n"
        "connector: {type: python, target: 'hang_agent:run'}\n"
        "metrics: [state_match]\n"
        f"environment: {{name: 'hang_envs.py:make', config: {{where: {where}}}}}\n"
    )
    return plan


@pytest.mark.parametrize("where", ["reset", "state"])
def test_a_run_and_its_rescore_end_with_rows_naming_the_deadline(folder, where):
    from tooleval.store import open_store

    db = folder / "runs.db"
    done = _run(folder, "run", str(_plan(folder, where)), "--store", str(db), "--quiet")
    assert done.returncode in (0, 1), done.stderr
    with open_store(db) as store:
        (run,) = store.list_runs()
        rows = [store.get_row(run.id, i) for i in range(2)]
    for row in rows:
        result = row.result("state_match")
        assert result.score is None and "deadline of 0.3 s" in result.reason
    done = _run(
        folder,
        "rescore",
        run.id,
        "--metric",
        "state_match",
        "--store",
        str(db),
        "--option",
        f'environment={{"name": "hang_envs:make", "config": {{"where": "{where}_loop"}}}}',
    )
    assert done.returncode == 0, done.stderr
    with open_store(db) as store:
        new = next(r for r in store.list_runs() if r.id != run.id)
        for i in range(2):
            result = store.get_row(new.id, i).result("state_match")
            assert result.score is None and f"{where}()" in result.reason


def test_evaluate_gives_unscored_rows_naming_the_deadline(folder, monkeypatch):
    monkeypatch.setenv(DEADLINE_ENV, "0.2")
    monkeypatch.syspath_prepend(str(folder))
    for where in ("reset", "call", "factory"):
        rows = _option_rows(where)
        option = {"name": "hang_envs:make", "config": {"where": where}}
        result = tooleval.evaluate(rows, [("state_match", {"environment": option})])
        assert [r.result.score for r in result.rows] == [None, None]
        assert all("deadline of 0.2 s" in r.result.reason for r in result.rows)
    monkeypatch.setenv(DEADLINE_ENV, "soon")
    with pytest.raises(ConfigError, match=DEADLINE_ENV):
        tooleval.evaluate(
            _option_rows("none"), [("state_match", {"environment": "hang_envs:make"})]
        )


def test_bounded_returns_raises_and_stops_waiting():
    assert bounded(lambda: 7, 5.0, what="f()") == 7
    assert bounded(lambda: 7, None, what="f()") == 7
    with pytest.raises(ZeroDivisionError):
        bounded(lambda: 1 / 0, 5.0, what="f()")
    with pytest.raises(DeadlinePassed, match=r"sleepy\(\) did not return within its deadline"):
        bounded(lambda: time.sleep(10**6), 0.05, what="sleepy()")


MATCHERS = """
import time

from tooleval.matching import register_matcher


def sleepy(expected, actual):
    time.sleep(10**6)


def spinning(expected, actual):
    while True:
        pass


register_matcher("sleepy", sleepy)
register_matcher("spinning", spinning)
"""


def test_a_callable_matcher_past_its_deadline_is_the_rows_reason(monkeypatch):
    from tooleval.matching.values import CallableMatcher

    monkeypatch.setenv(DEADLINE_ENV, "0.2")
    calls = [{"name": "f", "arguments": {"x": 1}}]
    rows = [{"id": f"r{i}", "tools_called": calls, "expected_tools": calls} for i in range(2)]
    for function in (lambda e, a: time.sleep(10**6), lambda e, a: [0 for _ in iter(int, 1)]):
        matcher = CallableMatcher(function, name="stuck")
        result = tooleval.evaluate(rows, [("tool_call_f1", {"args": matcher})])
        for row in result.rows:
            assert row.result.score is None
            assert "argument matcher 'stuck' did not return within its deadline of 0.2 s" in (
                row.result.reason
            )
    quick = CallableMatcher(lambda e, a: e == a, name="quick")
    assert tooleval.evaluate(rows, [("tool_call_f1", {"args": quick})]).rows[0].result.score == 1
    monkeypatch.setenv(DEADLINE_ENV, "never")
    with pytest.raises(ConfigError, match=DEADLINE_ENV):
        CallableMatcher(lambda e, a: True)


def test_score_with_a_stuck_matcher_ends_with_rows_naming_the_deadline(folder):
    """A real process: a registered matcher that never returns, scored by `tooleval score`."""
    data = _write(folder / "d.jsonl", _option_rows("none"))
    script = folder / "score_stuck.py"
    script.write_text(
        MATCHERS
        + "\nimport sys\nfrom tooleval.cli.main import main\n"
        + "sys.exit(main(sys.argv[1:]))\n"
    )
    for name in ("sleepy", "spinning"):
        done = subprocess.run(
            [
                sys.executable,
                str(script),
                "score",
                str(data),
                "--metric",
                "tool_call_f1",
                "--option",
                f"args={name}",
            ],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=folder,
            env=_env(folder),
        )
        assert done.returncode == 0, done.stderr
        results = [json.loads(line) for line in done.stdout.splitlines()]
        assert [r["score"] for r in results] == [None, None]
        for result in results:
            assert (
                f"argument matcher '{name}' did not return within its deadline of 0.3 s"
                in (result["reason"])
            )
