"""Episodes per second over each serving path: the tool loop, MCP (HTTP, stdio) and HTTP endpoints.

Each row is one episode on a fresh instance of the orders environment of
examples/orders_env (one to two tool calls), run by ``run_plan`` into SQLite
with ``state_match`` on the end state, so the figure includes binding,
serving, recording, scoring and storing. The agent differs per path:

- ``loop``: examples/episodes/model_server.py (a scripted OpenAI-compatible
  server in its own process, answering at once), the ``openai`` tool loop;
- ``mcp``: a Python agent playing the row's reference calls with the ``mcp``
  SDK's streamable HTTP client at the URL the row is handed;
- ``stdio``: the same through a stdio MCP server the agent starts per episode
  (the row's ``mcp_command``: one process per episode);
- ``http``: the same over the plain JSON tool endpoints (httpx).

    python bench/bench_episodes.py --rows 400 --concurrency 8 --path all

``--tau`` measures agreement instead: the oracle and every mutant of every
tau-bench test-split task (tests/episodes/tau_agents.py), through each path
with tau-bench's environment served, each ``state_match`` verdict against
tau-bench's own ``calculate_reward`` on the recorded trajectory
(tests/episodes/tau_conformance.py; needs /work/shared/data or
``$TOOLEVAL_SHARED_DATA``)::

    python bench/bench_episodes.py --tau --path mcp,http --domain airline,retail
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "episodes"
ORDERS = REPO / "examples" / "orders_env"
PATHS = ("loop", "mcp", "stdio", "http")


async def _mcp_session(read: Any, write: Any, sample: Any) -> None:
    from mcp import ClientSession

    async with ClientSession(read, write) as session:
        await session.initialize()
        for call in sample.expected_tools:
            await session.call_tool(call.name, dict(call.args or {}))


async def mcp_agent(sample: Any) -> dict[str, Any]:
    """The row's reference calls over MCP streamable HTTP."""
    import httpx
    from mcp.client.streamable_http import streamable_http_client

    url = sample.metadata["serving"]["mcp_url"]
    async with (
        httpx.AsyncClient(timeout=120) as client,
        streamable_http_client(url, http_client=client) as (read, write, _),
    ):
        await _mcp_session(read, write, sample)
    return {"output": "done"}


async def stdio_agent(sample: Any) -> dict[str, Any]:
    """The row's reference calls over a stdio MCP server started for the episode."""
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = sample.metadata["serving"]["mcp_command"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        await _mcp_session(read, write, sample)
    return {"output": "done"}


async def http_agent(sample: Any) -> dict[str, Any]:
    """The row's reference calls over the JSON tool endpoints."""
    import httpx

    tools = sample.metadata["serving"]["tools_url"]
    async with httpx.AsyncClient(timeout=120) as client:
        for call in sample.expected_tools:
            await client.post(f"{tools}/{call.name}", json=dict(call.args or {}))
    return {"output": "done"}


def _connector(path: str, model_port: int | None) -> dict[str, Any]:
    if path == "loop":
        return {
            "type": "openai",
            "base_url": f"http://127.0.0.1:{model_port}/v1",
            "model": "scripted",
        }
    return {
        "type": "python",
        "target": f"bench_episodes:{path}_agent",
        "argument": "sample",
        "serve": "stdio" if path == "stdio" else path,
    }


def run_path(path: str, rows: int, concurrency: int, model_port: int | None) -> float:
    """Episodes per second of one path (the whole run, scoring and storing included)."""
    from tooleval.runs import plan_from_dict, run_plan
    from tooleval.store import open_store

    cases = (ORDERS / "cases.jsonl").read_text().splitlines()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        lines = []
        for i in range(rows):
            row = json.loads(cases[i % len(cases)])
            row["id"] = f"{row['id']}-{i}"
            lines.append(json.dumps(row))
        (base / "rows.jsonl").write_text("\n".join(lines) + "\n")
        plan = plan_from_dict(
            {
                "dataset": "rows.jsonl",
                "connector": _connector(path, model_port),
                "environment": f"{ORDERS / 'orders.py'}:make_environment",
                "metrics": ["state_match"],
            },
            base_dir=base,
        )
        with open_store(base / "runs.db") as store:
            started = time.perf_counter()
            outcome = run_plan(plan, store=store, concurrency=concurrency)
            took = time.perf_counter() - started
            errors = [r.error for r in store.iter_rows(outcome.run_id) if r.error]
    if errors:
        raise SystemExit(f"{path}: {len(errors)} episodes failed, e.g. {errors[0]}")
    return rows / took


def tau_agreement(
    paths: list[str], domains: list[str], concurrency: int, limit: int | None = None
) -> None:
    """Every tau-bench episode's verdict against calculate_reward, per path and domain."""
    sys.path.insert(0, str(REPO))  # the tests' scripted agents and the reference
    from tests.conftest import SHARED_DATA
    from tests.episodes.tau_conformance import (
        compare_with_tau,
        run_episodes,
        tau_episodes,
        tau_tasks,
    )

    for path in paths:
        for domain in domains:
            tasks = tau_tasks(SHARED_DATA, domain)
            if tasks is None:
                raise SystemExit(f"tau-bench's {domain} tasks not found under {SHARED_DATA}")
            count = len(tasks) if limit is None else min(limit, len(tasks))
            episodes = tau_episodes(domain, tasks, list(range(count)))
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                rows = run_episodes(Path(folder), domain, path, episodes, concurrency=concurrency)
                took = time.perf_counter() - started
            agreement = compare_with_tau(domain, path, episodes, rows)
            kinds = sorted({tag.rsplit("-", 1)[1] for tag in episodes})
            oracles = sum(tag.endswith("-oracle") for tag in episodes)
            print(
                f"{agreement.line(f'{path} {domain}')} ({', '.join(kinds)}); "
                f"oracle passes {oracles - len(agreement.oracle_failed)}/{oracles}; "
                f"{len(agreement.problems)} problems; run {took:.0f} s",
                flush=True,
            )
            for item in [*agreement.disagree, *agreement.problems]:
                print(f"  {item}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--path", default="all", help=f"all, or some of {', '.join(PATHS)}")
    parser.add_argument("--tau", action="store_true", help="tau-bench agreement, not speed")
    parser.add_argument("--domain", default="airline,retail", help="with --tau")
    parser.add_argument("--tasks", type=int, help="with --tau: the first N tasks of each domain")
    args = parser.parse_args(argv)
    paths = list(PATHS) if args.path == "all" else args.path.split(",")
    unknown = sorted(set(paths) - set(PATHS))
    if unknown:
        parser.error(f"--path: unknown {unknown[0]!r}; expected all or some of {PATHS}")
    if args.tau:
        odd = sorted(set(args.domain.split(",")) - {"airline", "retail"})
        if odd:
            parser.error(f"--domain: unknown {odd[0]!r}; expected airline, retail or both")
        tau_agreement(paths, args.domain.split(","), args.concurrency, args.tasks)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # the agents above, by module name
    server = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "model_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[-1])
        for path in paths:
            # stdio starts one process per episode: fewer rows keep the run short.
            rows = max(1, args.rows // 10) if path == "stdio" else args.rows
            rate = run_path(path, rows, args.concurrency, port)
            print(
                f"{path:>5}: {rows} episodes, {rate:.1f} episodes/s "
                f"(concurrency {args.concurrency})",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main(sys.argv[1:])
