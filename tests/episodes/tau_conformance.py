"""Run tau-bench tasks' scripted agents through one serving path, and compare with tau-bench.

The one run-and-compare loop of tests/episodes/test_tau_oracle.py (the tool
loop), tests/episodes/test_tau_served.py (MCP over HTTP and stdio, the JSON
endpoints) and ``bench/bench_episodes.py --tau``: the episodes (the oracle and
mutants of tests/episodes/tau_agents.py) go through ``tooleval run`` with
tau-bench's environment served, ``state_match`` judges each end state, and
tau-bench's own ``calculate_reward`` on the trajectory tooleval recorded is the
reference, id for id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conformance.tau_replay_reference import SOURCE, reference_reward, tau_bench_imported
from tests.episodes.tau_agents import MUTATIONS, closing_reply, is_write, scripted_reply, variants
from tests.openai_server import OpenAIServer

from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

SPLITS = {"airline": "airline_test", "retail": "retail_test"}
TRANSPORTS = ("loop", "mcp", "stdio", "http")
KINDS = ("oracle", *MUTATIONS)

#: episode tag -> (task, actions played, closing reply)
Episodes = dict[str, tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], str]]


def tau_tasks(shared_data: Path, domain: str) -> list[dict[str, Any]] | None:
    """The domain's test-split tasks, or None when the shared data is absent."""
    path = shared_data / "tau_bench" / "tasks" / f"{SPLITS[domain]}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def rich_task(tasks: list[dict[str, Any]]) -> int:
    """The first task every mutant applies to (two writes or more), with outputs if any has."""

    def writes(task: dict[str, Any]) -> int:
        return sum(is_write(a["name"]) for a in task["actions"])

    both = [i for i, t in enumerate(tasks) if writes(t) >= 2 and t["outputs"]]
    return both[0] if both else next(i for i, t in enumerate(tasks) if writes(t) >= 2)


def stratified_episodes(
    domain: str, tasks: list[dict[str, Any]], kinds: tuple[str, ...] = KINDS
) -> Episodes:
    """One episode per kind: the oracle on :func:`rich_task`, each mutant on the shortest task it applies to.

    tau-bench's reward copies and hashes the whole database for each
    trajectory, and ``state_match`` replays it, so a mutant on the shortest
    task (fewest gold actions, the first of equals) costs least.
    """
    episodes: Episodes = {}
    order = sorted(range(len(tasks)), key=lambda i: (len(tasks[i]["actions"]), i))
    for kind in kinds:
        indexes = [rich_task(tasks)] if kind == "oracle" else order
        for index in indexes:
            found = tau_episodes(domain, tasks, [index], (kind,))
            if found:
                episodes.update(found)
                break
    return episodes


def tau_episodes(
    domain: str, tasks: list[dict[str, Any]], indexes: list[int], kinds: tuple[str, ...] = KINDS
) -> Episodes:
    """The episodes of ``kinds`` (oracle, mutants) for the tasks at ``indexes``."""
    episodes: Episodes = {}
    for index in indexes:
        task = tasks[index]
        gold = [(a["name"], a["kwargs"]) for a in task["actions"]]
        for variant, actions in variants(domain, gold).items():
            if variant in kinds:
                episodes[f"{domain}-{index}-{variant}"] = (
                    task,
                    actions,
                    closing_reply(task["outputs"]),
                )
    return episodes


def _connector(transport: str, base_url: str | None) -> dict[str, Any]:
    if transport == "loop":
        return {"type": "openai", "base_url": base_url, "model": "oracle", "max_turns": 40}
    from tests.serving import served_agents  # needs the mcp extra

    return {
        "type": "python",
        "target": f"tests.serving.served_agents:{served_agents.AGENTS[transport]}",
        "argument": "sample",
        "serve": transport,
    }


def run_episodes(
    folder: Path, domain: str, transport: str, episodes: Episodes, *, concurrency: int = 4
) -> dict[str, Any]:
    """Every episode through ``transport`` in one ``tooleval run``; the stored rows by id."""
    rows = [
        {
            # The tool loop's scripted model tells its rows by the tag opening the message.
            "id": tag,
            "input": f"[{tag}] {task['instruction']}",
            "expected_tools": [{"name": a["name"], "args": a["kwargs"]} for a in task["actions"]],
            "category": tag.rsplit("-", 1)[1],
        }
        for tag, (task, _, _) in episodes.items()
    ]
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    scripts = {tag: (actions, closing) for tag, (_, actions, closing) in episodes.items()}

    def run(base_url: str | None) -> dict[str, Any]:
        plan = plan_from_dict(
            {
                "dataset": "tasks.jsonl",
                "connector": _connector(transport, base_url),
                "environment": {
                    "name": f"tooleval.serving.tau_bench:{domain}",
                    "config": {"source": str(SOURCE)},
                },
                "metrics": ["state_match"],
            },
            base_dir=folder,
        )
        with open_store(folder / "runs.db") as store:
            outcome = run_plan(plan, store=store, concurrency=concurrency)
            return {row.row_id: row for row in store.iter_rows(outcome.run_id)}

    if transport == "loop":
        with OpenAIServer(scripted_reply(scripts)) as server:
            return run(server.base_url)
    from tests.serving import served_agents

    served_agents.SCRIPTS.update(scripts)
    return run(None)


@dataclass
class Agreement:
    """Each episode's verdict against tau-bench's ``calculate_reward`` on its recording."""

    episodes: int = 0
    disagree: list[tuple[str, bool, bool, str]] = field(default_factory=list)
    oracle_failed: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # errors, calls not as scripted

    def line(self, label: str) -> str:
        agreed = self.episodes - len(self.disagree)
        return f"{label}: {agreed}/{self.episodes} agree with calculate_reward"


def compare_with_tau(
    domain: str,
    transport: str,
    episodes: Episodes,
    rows: dict[str, Any],
    references: dict[str, bool] | None = None,
) -> Agreement:
    """Every stored row's ``state_match`` verdict against tau-bench's reward, id for id.

    ``references`` keeps tau-bench's verdict of each trajectory (keyed by the
    domain and the trajectory's JSON) across calls, so a sweep over several
    paths computes each reference once.
    """
    agreement = Agreement(episodes=len(episodes))
    if sorted(rows) != sorted(episodes):
        agreement.problems.append(f"stored rows {sorted(rows)} != episodes {sorted(episodes)}")
        return agreement
    with tau_bench_imported() as tau:
        for tag, (task, actions, _) in episodes.items():
            row = rows[tag]
            if row.error is not None:
                agreement.problems.append(f"{tag}: {row.error}")
                continue
            episode = row.sample.metadata["episode"]
            if transport != "loop" and episode.get("transport") != transport:
                agreement.problems.append(f"{tag}: served over {episode.get('transport')}")
            # tooleval recorded exactly what the agent asked for, executed by the environment.
            played = [(c["name"], c["args"]) for c in episode["calls"]]
            if played != [(n, k) for n, k in actions]:
                agreement.problems.append(f"{tag}: recorded {played}, scripted {actions}")
            ours = bool(row.results[0].passed)
            trajectory = [*played, ("respond", {"content": row.sample.output})]
            key = json.dumps([domain, task, trajectory], sort_keys=True)
            theirs = None if references is None else references.get(key)
            if theirs is None:
                reward, _ = reference_reward(tau, tau.envs[domain], task, trajectory, done=True)
                theirs = reward == 1.0
                if references is not None:
                    references[key] = theirs
            if ours != theirs:
                agreement.disagree.append((tag, theirs, ours, row.results[0].reason))
            if tag.endswith("-oracle") and not ours:
                agreement.oracle_failed.append((tag, row.results[0].reason))
    return agreement
