"""tau-bench's reward by replay against its own ``calculate_reward``: the even-numbered runs.

The odd-numbered runs and every other replay check are in test_tau_bench_replay.py. The
reference hashes the whole database twice per run (about 1.5 CPU-s a run), so the 200 runs
are split over two files, which the suite's workers take in parallel.
"""

from __future__ import annotations

import json

import pytest
from tests.conformance.tau_replay_reference import SOURCE, TRAJECTORIES, agreement_with_reference

from tooleval.benchmarks.tau_bench.replay_source import load_domain

pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")


@pytest.mark.slow
def test_agrees_with_calculate_reward_on_every_even_run(shared_data):
    airline = load_domain("airline", SOURCE)
    runs = json.loads((TRAJECTORIES / "gpt-4o-airline.json").read_text())
    assert len(runs) == 200
    assert agreement_with_reference(airline, runs[0::2]) == []
