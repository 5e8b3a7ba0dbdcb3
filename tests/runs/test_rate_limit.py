"""--max-rps against a real HTTP agent: the bucket bounds how many calls start per second."""

from __future__ import annotations

import time

import pytest
from tests.runs.support import write_plan

from tooleval.errors import ConfigError
from tooleval.runs.plan import load_plan
from tooleval.runs.rate_limit import TokenBucket, check_rps
from tooleval.runs.runner import run_plan
from tooleval.store import open_store


def test_calls_start_no_faster_than_max_rps_whatever_the_concurrency(tmp_path, agent_stub):
    import json

    with (tmp_path / "cases.jsonl").open("w") as out:
        for i in range(30):
            out.write(
                json.dumps({"id": f"q{i}", "input": f"q {i}", "expected_tools": ["s"]}) + "\n"
            )
            agent_stub.script(f"q {i}", tools=["s"])
    plan = load_plan(write_plan(tmp_path, agent_stub, concurrency=16))
    with open_store(tmp_path / "runs.db") as store:
        started = time.monotonic()
        outcome = run_plan(plan, store=store, max_rps=20)
        elapsed = time.monotonic() - started
    assert outcome.run.row_count == 30 and outcome.run.error_count == 0
    assert len(agent_stub.requests) == 30
    # a burst of 20, then 10 more at 20/s: a lower bound, never an upper one
    assert elapsed >= 0.45


def test_the_bucket_refills_at_its_rate():
    now = [0.0]
    bucket = TokenBucket(2.0, clock=lambda: now[0])
    assert [bucket.reserve() for _ in range(2)] == [0.0, 0.0]
    assert bucket.reserve() == pytest.approx(0.5)
    now[0] = 2.0
    assert bucket.reserve() == 0.0


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "5"])
def test_bad_rates_are_refused(bad):
    with pytest.raises(ConfigError, match="--max-rps"):
        check_rps(bad)


def test_rate_limit_with_429_and_retry_after_loses_no_row(tmp_path, agent_stub):
    import json

    with (tmp_path / "cases.jsonl").open("w") as out:
        for i in range(12):
            out.write(
                json.dumps({"id": f"q{i}", "input": f"q {i}", "expected_tools": ["s"]}) + "\n"
            )
            faults = (
                {"fail_times": 1, "fail_status": 429, "retry_after": 0.05} if i % 3 == 0 else {}
            )
            agent_stub.script(f"q {i}", tools=["s"], **faults)
    import yaml

    path = write_plan(tmp_path, agent_stub, concurrency=8)
    data = yaml.safe_load(path.read_text())
    data["connector"]["retry"] = {"retries": 2}
    path.write_text(yaml.safe_dump(data))
    plan = load_plan(path)
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, max_rps=30)
        rows = list(store.iter_rows(outcome.run_id))
    assert outcome.run.row_count == 12 and outcome.run.error_count == 0
    assert len(agent_stub.requests) == 16
    assert sum(1 for r in rows if r.sample.metadata.get("connector_retries")) == 4
