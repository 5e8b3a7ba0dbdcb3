"""tau-bench tasks run end to end through the tool loop, judged on the end state, against tau-bench.

A scripted OpenAI-compatible agent on 127.0.0.1 (tests/episodes/tau_agents.py)
plays each task's gold actions (the oracle) or a mutant of them through the
``openai`` connector's tool loop; tooleval serves tau-bench's own airline or
retail environment (``tooleval.serving.tau_bench``, the source found the way
replay finds it), executes and records every call, and ``state_match`` judges
the end state in a real run (store, gate). The reference is tau-bench's own
``Env.calculate_reward`` on the same trajectory (the recorded calls, then the
closing reply; the agent ended the episode): the verdicts must agree id for id
(the loop is tests/episodes/tau_conformance.py, shared with the served paths).

tau-bench's reward hashes the whole database twice per trajectory, so the
default suite runs a stratified sample: per domain, the oracle on the first
task every mutant applies to, and each kind of mutant on the shortest task it
applies to (``stratified_episodes``). ``TOOLEVAL_CONFORMANCE=full``
runs the oracle and every mutant of every test-split task
(``bench/bench_episodes.py --tau`` prints the figures).
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


@pytest.mark.timeout(3600 if FULL else 300)
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_oracle_and_mutants_get_tau_benchs_verdict_id_for_id(shared_data, tmp_path, domain):
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source not found at {SOURCE}")
    tasks = tau_tasks(shared_data, domain)
    if tasks is None:
        pytest.skip(f"tau-bench's {domain} tasks not found under {shared_data / 'tau_bench'}")
    if FULL:
        episodes = tau_episodes(domain, tasks, list(range(len(tasks))))
    else:
        episodes = stratified_episodes(domain, tasks)
        assert {tag.rsplit("-", 1)[1] for tag in episodes} == set(KINDS)
    rows = run_episodes(tmp_path, domain, "loop", episodes)
    agreement = compare_with_tau(domain, "loop", episodes, rows)
    print(agreement.line(f"loop {domain}"))
    assert not agreement.problems
    assert not agreement.oracle_failed
    assert not agreement.disagree
