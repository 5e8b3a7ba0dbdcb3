"""``tooleval score --format tau-bench``: replay when tau-bench's source is found, calls when not.

End to end through the CLI on ../shared/data/tau_bench/trajectories/gpt-4o-airline.json
and on retail runs built from tau-bench's retail test tasks (no retail trajectories are
in ../shared/data), checked against the stored rewards and tau-bench's own
``calculate_reward``. By default: replay on every 25th airline run, calls on all 200,
retail on 2 tasks (4 edits each); ``TOOLEVAL_CONFORMANCE=full`` adds replay on all 200
airline runs and retail on 20 tasks.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from tests.conformance.conformance_mode import full_only
from tests.conformance.tau_replay_reference import (
    SOURCE,
    TRAJECTORIES,
    reference_reward,
    tau_bench_imported,
)

from tooleval.benchmarks.tau_bench.reader import load_tau_bench
from tooleval.benchmarks.tau_bench.replay import actions_from_messages, actions_from_sample
from tooleval.benchmarks.tau_bench.replay_source import ENV_VARIABLE, domain_versions
from tooleval.cli.main import main

AIRLINE = TRAJECTORIES / "gpt-4o-airline.json"


@pytest.fixture(autouse=True)
def _no_source_from_the_environment(monkeypatch):
    monkeypatch.delenv(ENV_VARIABLE, raising=False)


@pytest.fixture(scope="module")
def runs(shared_data):
    return json.loads(AIRLINE.read_text())


def _score(tmp_path: Path, dataset: Path, *extra: str) -> list[dict]:
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(dataset), "--format", "tau-bench", *extra, "-o", str(out)]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def _subset(tmp_path: Path, runs: list, step: int) -> Path:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs[::step]))
    return path


def _stored(runs: list) -> dict[str, float]:
    return {f"{r['task_id']}-{r['trial']}": r["reward"] for r in runs}


def test_actions_from_the_sample_are_the_ones_tau_bench_executed(runs):
    samples = load_tau_bench(AIRLINE)
    for run, sample in zip(runs, samples, strict=True):
        assert actions_from_sample(sample) == actions_from_messages(run["traj"]), sample.id


def test_replays_with_data_and_names_the_environment_version(tmp_path, runs, capsys):
    rows = _score(tmp_path, _subset(tmp_path, runs, 25), "--data", str(SOURCE))
    notice = capsys.readouterr().err
    version = domain_versions(SOURCE)["airline"]
    assert "reward by replay" in notice and f"airline {version}" in notice
    assert len(rows) == 8
    assert {r["metric"] for r in rows} == {"tau_bench_reward"}
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"replay"}
    assert {r["params"]["environment_version"] for r in rows} == {version}
    stored = _stored(runs)
    assert [r["id"] for r in rows if r["score"] != stored[r["id"]]] == []


def test_the_environment_variable_finds_the_source(tmp_path, runs, monkeypatch, capsys):
    monkeypatch.setenv(ENV_VARIABLE, str(SOURCE))
    rows = _score(tmp_path, _subset(tmp_path, runs, 50))
    assert "reward by replay" in capsys.readouterr().err
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"replay"}


def test_without_the_source_it_grades_by_calls_and_says_so(tmp_path, runs, capsys):
    if importlib.util.find_spec("tau_bench") is not None:
        pytest.skip("a tau_bench package is installed here: the source is always found")
    rows = _score(tmp_path, _subset(tmp_path, runs, 10))
    notice = capsys.readouterr().err.strip().splitlines()
    assert len(notice) == 1, notice
    assert "graded by call matching (tau_bench_actions), not replay" in notice[0]
    assert "--data DIR" in notice[0] and ENV_VARIABLE in notice[0]
    assert {r["metric"] for r in rows} == {"tau_bench_actions"}
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"calls"}


def test_a_wrong_variable_is_named_in_the_notice(tmp_path, runs, monkeypatch, capsys):
    monkeypatch.setenv(ENV_VARIABLE, str(tmp_path))
    rows = _score(tmp_path, _subset(tmp_path, runs, 50))
    notice = capsys.readouterr().err
    assert f"not available at {tmp_path}" in notice and "call matching" in notice
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"calls"}


def test_data_that_holds_no_tau_bench_is_refused(tmp_path, runs, capsys):
    path = _subset(tmp_path, runs, 50)
    assert main(["score", str(path), "--format", "tau-bench", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--data" in err and "tau_bench/envs" in err


def test_an_explicit_metric_is_kept(tmp_path, runs, capsys):
    rows = _score(
        tmp_path,
        _subset(tmp_path, runs, 50),
        "--data",
        str(SOURCE),
        "--metric",
        "tau_bench_actions",
    )
    assert "replay" not in capsys.readouterr().err
    assert {r["metric"] for r in rows} == {"tau_bench_actions"}


def test_the_replay_metric_named_takes_its_source_from_data(tmp_path, runs, capsys):
    path = _subset(tmp_path, runs, 50)
    rows = _score(tmp_path, path, "--data", str(SOURCE), "--metric", "tau_bench_reward")
    assert "reward by replay" in capsys.readouterr().err
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"replay"}
    assert {r["params"]["source"] for r in rows} == {str(SOURCE)}


def _call(name: str, arguments: object) -> dict:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"function": {"name": name, "arguments": text}}],
    }


def _run(task_id: int, traj: list, *, env: str = "airline", actions: list | None = None) -> dict:
    stop = [{"role": "assistant", "content": "done"}, {"role": "user", "content": "###STOP###"}]
    task = {"user_id": "u", "actions": actions or [], "outputs": []}
    return {
        "task_id": task_id,
        "trial": 0,
        "reward": 0.0,
        "traj": traj + stop,
        "info": {"env": env, "task": task},
    }


def test_hostile_calls_are_observations_or_unscored_rows(tmp_path, capsys):
    deep: object = 1
    for _ in range(200):
        deep = [deep]
    runs = [
        _run(0, [_call("__import__", {"name": "os"})]),
        _run(1, [_call("__class__", {}), _call("get_user_details.__globals__", {})]),
        _run(2, [_call("get_user_details", {"user_id": 7})]),  # wrong type: the tool raises
        _run(3, [_call("get_user_details", {"user_id": "__import__('os').system('x')"})]),
        _run(4, [_call("book_reservation", {"data": {}, "user_id": "x"})]),  # 'data' twice
        _run(5, [_call("update_reservation_flights", "{not json")]),
        _run(6, [_call("get_user_details", {"user_id": "x" * 2_000_000})]),
        _run(7, [_call("get_user_details", {"user_id": deep})]),
        _run(8, [], actions=[{"name": "__import__", "kwargs": {"name": "os"}}]),
    ]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(runs))
    rows = {r["id"]: r for r in _score(tmp_path, path, "--data", str(SOURCE))}
    capsys.readouterr()
    assert len(rows) == 9
    for ident in ("0-0", "1-0", "2-0", "3-0", "4-0", "5-0", "6-0", "7-0"):
        assert rows[ident]["score"] == 1.0, rows[ident]  # nothing the agent sent changed the data
    observations = rows["0-0"]["diagnosis"]["details"]["observations"]
    assert observations[0] == "Unknown action __import__"
    assert rows["1-0"]["diagnosis"]["details"]["observations"][:2] == [
        "Unknown action __class__",
        "Unknown action get_user_details.__globals__",
    ]
    assert rows["2-0"]["diagnosis"]["details"]["observations"][0].startswith("Error")
    assert rows["4-0"]["diagnosis"]["details"]["observations"][0].startswith("Error")
    assert rows["5-0"]["diagnosis"]["details"]["observations"][0].startswith("Error")
    assert rows["8-0"]["score"] is None and "not tau-bench airline tools" in rows["8-0"]["reason"]


def _retail_runs(step: int) -> list[dict]:
    """Retail runs made from tau-bench's retail test tasks: gold as the agent's, and edited."""
    tasks = json.loads((SOURCE.parent / "tasks" / "retail_test.json").read_text())
    runs = []
    for index, task in enumerate(tasks[:40:step]):
        calls = [_call(a["name"], a["kwargs"]) for a in task["actions"]]
        variants = (calls, calls[:-1], calls + calls[-1:], calls[::-1])
        for trial, traj in enumerate(variants):
            run = _run(index, traj, env="retail", actions=task["actions"])
            run["info"]["task"]["outputs"] = task.get("outputs", [])
            run["trial"] = trial
            runs.append(run)
    return runs


@pytest.mark.parametrize(
    "step", [pytest.param(20, id="2-tasks"), pytest.param(2, id="20-tasks", marks=full_only)]
)
def test_retail_by_replay_agrees_with_calculate_reward(tmp_path, shared_data, capsys, step):
    pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")
    runs = _retail_runs(step)
    path = tmp_path / "retail.json"
    path.write_text(json.dumps(runs))
    rows = _score(tmp_path, path, "--data", str(SOURCE))
    assert f"retail {domain_versions(SOURCE)['retail']}" in capsys.readouterr().err
    assert {r["diagnosis"]["details"]["grader"] for r in rows} == {"replay"}
    with tau_bench_imported() as tau:
        for run, row in zip(runs, rows, strict=True):
            actions, done = actions_from_messages(run["traj"])
            theirs, _ = reference_reward(
                tau,
                tau.envs["retail"],
                run["info"]["task"],
                [(a.name, dict(a.kwargs)) for a in actions],
                done,
            )
            assert row["score"] == theirs, row["id"]
    assert {r["score"] for r in rows} == {0.0, 1.0}


def test_every_airline_run_by_calls(tmp_path, runs, capsys):
    if importlib.util.find_spec("tau_bench") is not None:
        pytest.skip("a tau_bench package is installed here: the source is always found")
    stored = _stored(runs)
    by_calls = _score(tmp_path, AIRLINE)
    assert "call matching" in capsys.readouterr().err
    assert {r["diagnosis"]["details"]["grader"] for r in by_calls} == {"calls"}
    assert len(by_calls) == 200
    # by calls the reward's r_outputs part is not seen: 196 of 200 (docs/conformance.md)
    assert sorted(r["id"] for r in by_calls if r["score"] != stored[r["id"]]) == [
        "2-1", "44-1", "44-3", "46-3",
    ]  # fmt: skip


@full_only
def test_every_airline_run_by_replay(tmp_path, runs, capsys):
    stored = _stored(runs)
    replayed = _score(tmp_path, AIRLINE, "--data", str(SOURCE))
    assert {r["diagnosis"]["details"]["grader"] for r in replayed} == {"replay"}
    assert sum(r["score"] == stored[r["id"]] for r in replayed) == 200
