"""The oracle and its mutants through MCP (streamable HTTP and stdio) and HTTP endpoints: tau-bench's verdicts.

The same scripted agents as tests/episodes/test_tau_oracle.py, but the agent
calls the tools itself over what tooleval serves (tests/serving/served_agents.py,
the official ``mcp`` SDK's clients): ``tooleval run`` binds a fresh tau-bench
environment to each row, records every call, and ``state_match`` judges the end
state. The verdict of every episode must equal tau-bench's own
``calculate_reward`` on the trajectory tooleval recorded, id for id (the loop
is tests/episodes/tau_conformance.py).

tau-bench's reward and ``state_match`` each copy and hash the whole database,
so the default suite runs one task's oracle over each path, and every kind of
mutant once, each on the shortest task it applies to, split between MCP
streamable HTTP (retail) and the JSON endpoints (airline); ``TOOLEVAL_CONFORMANCE=full`` runs the
oracle and every mutant of every test-split task over every path and domain,
and ``bench/bench_episodes.py --tau`` prints the figures.
"""

from __future__ import annotations

import pytest
from tests.conformance.conformance_mode import FULL
from tests.conformance.tau_replay_reference import SOURCE
from tests.episodes.tau_conformance import (
    KINDS,
    compare_with_tau,
    run_episodes,
    stratified_episodes,
    tau_episodes,
    tau_tasks,
)

pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")
pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

ORACLES = (
    [(t, d) for t in ("mcp", "stdio", "http") for d in ("airline", "retail")]
    if FULL
    else [("mcp", "retail"), ("stdio", "airline"), ("http", "retail")]
)
# Every kind of mutant once, split between MCP streamable HTTP and the JSON endpoints.
MUTANTS = [
    ("mcp", "retail", ("wrong_argument", "extra_write")),
    ("http", "airline", ("drop_write", "noop_write", "reorder_writes")),
]


def _check(shared_data, tmp_path, transport: str, domain: str, kinds: tuple[str, ...]) -> None:
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source not found at {SOURCE}")
    tasks = tau_tasks(shared_data, domain)
    if tasks is None:
        pytest.skip(f"tau-bench's {domain} tasks not found under {shared_data / 'tau_bench'}")
    if FULL:
        episodes = tau_episodes(domain, tasks, list(range(len(tasks))), kinds)
    else:
        episodes = stratified_episodes(domain, tasks, kinds)
    assert {tag.rsplit("-", 1)[1] for tag in episodes} == set(kinds)
    rows = run_episodes(tmp_path, domain, transport, episodes)
    agreement = compare_with_tau(domain, transport, episodes, rows)
    print(agreement.line(f"{transport} {domain}"))
    assert not agreement.problems
    assert not agreement.oracle_failed
    assert not agreement.disagree


@pytest.mark.timeout(3600 if FULL else 300)
@pytest.mark.parametrize(("transport", "domain"), ORACLES)
def test_served_oracle_gets_tau_benchs_verdict(shared_data, tmp_path, transport, domain):
    _check(shared_data, tmp_path, transport, domain, KINDS if FULL else ("oracle",))


@pytest.mark.timeout(3600 if FULL else 300)
@pytest.mark.parametrize(("transport", "domain", "kinds"), MUTANTS)
def test_served_mutants_get_tau_benchs_verdict(shared_data, tmp_path, transport, domain, kinds):
    _check(shared_data, tmp_path, transport, domain, kinds)
