"""The runner's own CPU cost: ``tooleval run`` vs plain HTTP clients against a zero-latency agent.

python bench/runner_cpu.py [--rows 2000] [--concurrency 32] [--passes 2] [--profile]

The agent (bench/bench_agent.py, under uvicorn in its own process) answers at
once, so rows/s measures what the client side costs per row. The same number
of POSTs (JSON body out, JSON reply parsed) through plain clients with the same
concurrency is the ceiling (issue 12: the runner should reach >= 80 % of it):
``httpx.AsyncClient`` shared by all tasks, one per 8 tasks and one per task,
and ``aiohttp.ClientSession`` shared and one per 8 tasks. The runner is
compared with the best of them in the same pass (passes alternate, so load
changes hit all alike), in rows/s and in this process' CPU per row (what
decides rows/s once the client is CPU-bound; on a shared 2-core machine the
agent's own CPU and other load also cap the wall-clock rate).
``--profile`` prints the runner's cProfile top.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agent import bench_plan, dataset, start_agent  # noqa: E402

Worker = Callable[[object, int], Awaitable[None]]


async def _drive(rows: int, concurrency: int, clients: list, post: Worker) -> float:
    pending = iter(range(rows))

    async def worker(client: object) -> None:
        for i in pending:
            await post(client, i)

    started = time.perf_counter()
    await asyncio.gather(*(worker(clients[k % len(clients)]) for k in range(concurrency)))
    return rows / (time.perf_counter() - started)


async def plain_httpx(url: str, rows: int, concurrency: int, clients: int) -> float:
    """POSTs per second from ``concurrency`` tasks sharing ``clients`` httpx clients."""
    import httpx

    per = max(1, concurrency // clients)
    limits = httpx.Limits(max_connections=per, max_keepalive_connections=per)
    pool = [httpx.AsyncClient(limits=limits, timeout=30) for _ in range(clients)]

    async def post(client, i: int) -> None:
        response = await client.post(url, json={"input": f"cancel order {i}"})
        response.json()

    try:
        return await _drive(rows, concurrency, pool, post)
    finally:
        for client in pool:
            await client.aclose()


async def plain_aiohttp(url: str, rows: int, concurrency: int, clients: int) -> float:
    """POSTs per second from ``concurrency`` tasks sharing ``clients`` aiohttp sessions."""
    import aiohttp
    import orjson

    per = max(1, concurrency // clients)
    pool = [
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=per)) for _ in range(clients)
    ]

    async def post(session, i: int) -> None:
        async with session.post(url, json={"input": f"cancel order {i}"}) as response:
            orjson.loads(await response.read())

    try:
        return await _drive(rows, concurrency, pool, post)
    finally:
        for session in pool:
            await session.close()


def run_tooleval(url: str, rows: int, concurrency: int, profile: bool) -> tuple[float, float]:
    """``tooleval run`` rows/s and runner CPU ms/row (a fresh SQLite store)."""
    from tooleval.runs import run_plan
    from tooleval.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        plan = bench_plan("runner-cpu", dataset(Path(tmp) / "d.jsonl", rows), url)
        store = open_store(Path(tmp) / "runs.db")
        try:
            started, cpu = time.perf_counter(), time.process_time()
            if profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                outcome = profiler.runcall(run_plan, plan, store=store, concurrency=concurrency)
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(
                    "tooleval|orjson|sqlite|jsonpath|httpx|aiohttp", 30
                )
            else:
                outcome = run_plan(plan, store=store, concurrency=concurrency)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        finally:
            store.close()
    if outcome.run.row_count != rows or outcome.run.error_count:
        raise RuntimeError(f"bench run incomplete: {outcome.run}")
    return rows / elapsed, cpu / rows * 1000


def _timed(run: Callable[[], float], rows: int) -> tuple[float, float]:
    """(requests/s, this process' CPU ms per request) of one plain-client run."""
    cpu = time.process_time()
    rate = run()
    return rate, (time.process_time() - cpu) / rows * 1000


def one_pass(
    url: str, rows: int, concurrency: int, profile: bool
) -> dict[str, tuple[float, float]]:
    """Every plain client, then the runner: ``{setup: (per second, CPU ms each)}``."""
    eighth = max(1, concurrency // 8)
    setups: dict[str, Callable[[], float]] = {
        "httpx 1": lambda: asyncio.run(plain_httpx(url, rows, concurrency, 1)),
        "httpx c/8": lambda: asyncio.run(plain_httpx(url, rows, concurrency, eighth)),
        "httpx c": lambda: asyncio.run(plain_httpx(url, rows, concurrency, concurrency)),
        "aiohttp 1": lambda: asyncio.run(plain_aiohttp(url, rows, concurrency, 1)),
        "aiohttp c/8": lambda: asyncio.run(plain_aiohttp(url, rows, concurrency, eighth)),
    }
    out = {name: _timed(run, rows) for name, run in setups.items()}
    out["tooleval run"] = run_tooleval(url, rows, concurrency, profile)
    ours, cpu_ms = out["tooleval run"]
    best_httpx = max(v[0] for k, v in out.items() if k.startswith("httpx"))
    best = max(v[0] for k, v in out.items() if k != "tooleval run")
    least_cpu = min(v[1] for k, v in out.items() if k != "tooleval run")
    shown = ", ".join(f"{k} {v[0]:.0f}/s {v[1]:.2f} ms" for k, v in out.items())
    print(
        f"concurrency {concurrency} (load {os.getloadavg()[0]:.1f}): {shown}\n"
        f"  tooleval run = {ours / best_httpx:.0%} of best httpx, {ours / best:.0%} of best plain "
        f"(rows/s); CPU per row {least_cpu / cpu_ms:.0%} of the leanest plain client's",
        flush=True,
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    with start_agent(latency=0.0) as agent:
        print(f"load average: {os.getloadavg()[0]:.1f}")
        for n in range(args.passes):
            one_pass(agent.url, args.rows, args.concurrency, args.profile and n == 0)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
