"""The runner scores rows off its event loop: a slow metric never stalls an agent served by the run.

An in-process agent (a ``python`` connector with ``serve: mcp``) runs its MCP
client on the run's event loop. One row's metric blocks until the *other* row's
agent has had an MCP call answered; the agent makes that call only once the
metric has started. Were scoring on the loop, the agent could not run while the
metric blocks, and the metric would give up at its deadline and fail the row.
The ordering is forced by events, never by timing.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

import httpx  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tooleval.environments import FunctionEnvironment, register_environment  # noqa: E402
from tooleval.metrics import registry  # noqa: E402
from tooleval.model import MetricInfo, Result, Sample  # noqa: E402
from tooleval.runs import plan_from_dict, run_plan  # noqa: E402
from tooleval.store import open_store  # noqa: E402

METRIC = "test_episodes_blocking_scorer"
DEADLINE = 120.0  # seconds any wait here gives up after (a deadline, never a measure)
scoring_started = threading.Event()
call_answered = threading.Event()


def _put(state: dict[str, Any], key: str, value: int) -> dict[str, str]:
    """Store value under key."""
    state[key] = value
    return {"stored": key}


register_environment(
    "offloop_kv", lambda config: FunctionEnvironment({"put": _put}, initial_state={})
)


def _blocking_scorer(sample: Sample) -> Result:
    """Row ``slow``: blocks until the other row's MCP call is answered (or the deadline)."""
    if sample.id != "slow":
        return Result.scored(METRIC, 1.0, reason="not the blocking row")
    scoring_started.set()
    answered = call_answered.wait(DEADLINE)
    return Result.scored(
        METRIC,
        1.0 if answered else 0.0,
        reason="the other row's MCP call was answered while this row scored"
        if answered
        else "no MCP call was answered while this row scored: scoring stalls the event loop",
    )


async def agent(sample: Sample) -> dict[str, Any]:
    """Row ``slow`` answers at once; row ``caller`` calls a tool once ``slow`` is scoring."""
    if sample.id == "slow":
        return {"output": "done"}
    started = await asyncio.to_thread(scoring_started.wait, DEADLINE)
    assert started, "the slow row never began scoring"
    async with (
        httpx.AsyncClient(timeout=DEADLINE) as client,
        streamable_http_client(sample.metadata["serving"]["mcp_url"], http_client=client) as (
            read,
            write,
            _,
        ),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("put", {"key": "k", "value": 1})
    assert not result.isError, result
    call_answered.set()
    return {"output": "stored"}


@pytest.fixture
def blocking_metric():
    registry.register_metric(
        MetricInfo(
            name=METRIC,
            description="test metric that blocks until another row's MCP call is answered",
            params={},
            requires=(),
            needs_judge=False,
            score_sample=_blocking_scorer,
        ),
        replace_existing=True,
    )
    scoring_started.clear()
    call_answered.clear()
    yield
    # No public unregister: other suites iterate over every registered metric.
    registry._metrics.pop(METRIC, None)


def test_a_blocking_metric_leaves_the_served_agents_loop_free(tmp_path, blocking_metric):
    rows = [{"id": "slow", "input": "nothing to do"}, {"id": "caller", "input": "store k"}]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan = plan_from_dict(
        {
            "dataset": "rows.jsonl",
            "connector": {
                "type": "python",
                "target": f"{__name__}:agent",
                "argument": "sample",
                "serve": "mcp",
            },
            "environment": {"name": "offloop_kv"},
            "metrics": [METRIC],
        },
        base_dir=tmp_path,
    )
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, concurrency=2)
        stored = {row.row_id: row for row in store.iter_rows(outcome.run_id)}
    assert stored["caller"].error is None, stored["caller"].error
    assert [c["name"] for c in stored["caller"].sample.metadata["episode"]["calls"]] == ["put"]
    slow = stored["slow"].results[0]
    assert slow.passed, slow.reason
