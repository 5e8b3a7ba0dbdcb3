"""tau2-bench airline tasks run end to end: the oracle gets tau2's reward, its mutants do not.

tau2's own environment source (its tools and ``db.json``) is not in the shared
data, so the tools are served by tau-bench's airline environment, of which
tau2's airline domain is a port: every gold action of the 50 tau2 airline
tasks runs on it without an error. Each task becomes a row
(``tooleval.benchmarks.tau2.tasks``); a scripted model on 127.0.0.1 plays the
gold actions through the ``openai`` tool loop, or through MCP streamable HTTP,
then a closing reply; tau2's airline reward (``reward_basis`` DB and
COMMUNICATE for every task) is ``state_match`` on the end state times
``tau2_communicate`` on the replies. The oracle gets 1 on every task; a
dropped write fails the DB check and a reply that leaves out the facts fails
the COMMUNICATE check.

The default suite runs a stratified sample (every task with facts to
communicate, the first with two writes, the first with none);
``TOOLEVAL_CONFORMANCE=full`` runs every task over both paths.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.conformance.conformance_mode import FULL
from tests.conformance.tau_replay_reference import SOURCE
from tests.episodes.tau_agents import is_write, scripted_reply
from tests.openai_server import OpenAIServer

from tooleval.benchmarks.tau2.tasks import load_tau2_tasks
from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

from tests.serving import served_agents  # noqa: E402  (needs mcp)

METRICS = ["state_match", "tau2_communicate"]


@pytest.fixture
def tau2_rows(shared_data) -> list[dict[str, Any]]:
    path = shared_data / "tau2_bench" / "tasks" / "airline_tasks.json"
    if not path.is_file():
        pytest.skip(f"tau2's airline tasks not found at {path}")
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source (the airline environment) not found at {SOURCE}")
    rows = load_tau2_tasks(path, domain="airline")
    assert len(rows) == 50
    return rows


def _writes(row: dict[str, Any]) -> int:
    return sum(is_write(a["name"]) for a in row["expected_tools"])


def _sample(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if FULL:
        return rows
    told = [r for r in rows if r["metadata"]["tau2"]["communicate_info"]]
    two = next(r for r in rows if _writes(r) >= 2)
    none = next(r for r in rows if not r["expected_tools"])
    return list({r["id"]: r for r in [*told, two, none]}.values())


def _closing(row: dict[str, Any]) -> str:
    return "Done." + "".join(f" {fact}" for fact in row["metadata"]["tau2"]["communicate_info"])


def _run(tmp_path, rows, connector: dict[str, Any]) -> dict[str, Any]:
    lines = [{**row, "input": f"[{row['id']}] {row['input']}"} for row in rows]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    plan = plan_from_dict(
        {
            "dataset": "tasks.jsonl",
            "connector": connector,
            "environment": {
                "name": "tooleval.serving.tau_bench:airline",
                "config": {"source": str(SOURCE)},
            },
            "metrics": METRICS,
        },
        base_dir=tmp_path,
    )
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, concurrency=4)
        return {row.row_id: row for row in store.iter_rows(outcome.run_id)}


def _scripts(rows: list[dict[str, Any]]) -> dict[str, tuple[list[Any], str]]:
    return {
        r["id"]: ([(a["name"], a["args"]) for a in r["expected_tools"]], _closing(r)) for r in rows
    }


def _verdicts(stored: dict[str, Any]) -> dict[str, tuple[bool, ...]]:
    out = {}
    for tag, row in stored.items():
        assert row.error is None, (tag, row.error)
        out[tag] = tuple(bool(r.passed) for r in row.results)
    return out


@pytest.mark.timeout(3600 if FULL else 300)
def test_tau2_oracle_over_the_tool_loop_gets_reward_1_on_every_task(tau2_rows, tmp_path):
    rows = _sample(tau2_rows)
    with OpenAIServer(scripted_reply(_scripts(rows))) as server:
        connector = {
            "type": "openai",
            "base_url": server.base_url,
            "model": "oracle",
            "max_turns": 40,
        }
        stored = _run(tmp_path, rows, connector)
    verdicts = _verdicts(stored)
    assert sorted(verdicts) == sorted(r["id"] for r in rows)
    failed = {tag: v for tag, v in verdicts.items() if v != (True, True)}
    assert not failed, {t: [r.reason for r in stored[t].results] for t in failed}
    for row in rows:  # tooleval recorded the gold actions, executed
        calls = stored[row["id"]].sample.metadata["episode"]["calls"]
        assert [(c["name"], c["args"]) for c in calls] == _scripts([row])[row["id"]][0]


@pytest.mark.timeout(3600 if FULL else 300)
def test_tau2_oracle_over_mcp_and_its_mutants_get_tau2s_verdict(tau2_rows, tmp_path):
    # a task with facts to communicate, the one with two writes and the one with none
    rows = _sample(tau2_rows) if FULL else _sample(tau2_rows)[-3:]
    scripts = _scripts(rows)
    told = next(r for r in rows if r["metadata"]["tau2"]["communicate_info"])
    # the shortest task with a write: the cheapest failed episode to explain
    writer = min((r for r in tau2_rows if _writes(r)), key=lambda r: len(r["expected_tools"]))
    gold = [(a["name"], a["args"]) for a in writer["expected_tools"]]
    first_write = next(i for i, (name, _) in enumerate(gold) if is_write(name))
    mutants = {
        # the facts left out of every reply: COMMUNICATE fails, the DB check passes
        f"{told['id']}-silent": (told, (scripts[told["id"]][0], "Done."), (True, False)),
        # a write dropped: the DB check fails
        f"{writer['id']}-drop_write": (
            writer,
            ([a for i, a in enumerate(gold) if i != first_write], _closing(writer)),
            (False, True),
        ),
    }
    episodes = [*rows, *({**row, "id": tag} for tag, (row, _, _) in mutants.items())]
    served_agents.SCRIPTS.update(scripts)
    served_agents.SCRIPTS.update({tag: script for tag, (_, script, _) in mutants.items()})
    connector = {
        "type": "python",
        "target": "tests.serving.served_agents:mcp_agent",
        "argument": "sample",
        "serve": "mcp",
    }
    verdicts = _verdicts(_run(tmp_path, episodes, connector))
    expected = {r["id"]: (True, True) for r in rows}
    expected.update({tag: want for tag, (_, _, want) in mutants.items()})
    assert verdicts == expected
