"""The runner's own CPU cost: ``tooleval run`` vs plain httpx against a zero-latency agent.

python bench/runner_cpu.py [--rows 1500] [--concurrency 32] [--profile]

The agent (bench/bench_runner.py's ASGI app without its 50 ms sleep, under
uvicorn in its own process) answers at once, so rows/s measures what the
client side costs per row. The same number of POSTs through plain
``httpx.AsyncClient`` s with the same concurrency (one client, and 8 clients
as the runner shards its connectors) is the ceiling (issue 12:
the runner should reach >= 80 % of it). ``--profile`` prints the runner's
cProfile top (cumulative) to show where its time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


async def agent_app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    text = json.loads(body or b"{}").get("input", "")
    reply = {
        "input": text,
        "output": "done",
        "steps": [
            {"type": "tool_call", "tool": {"name": "lookup_order", "args": {}}},
            {"type": "tool_call", "tool": {"name": "cancel_order", "args": {}}},
            {"type": "message", "content": "done"},
        ],
    }
    data = json.dumps(reply).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _serve(port: int) -> None:
    import uvicorn

    uvicorn.run(
        agent_app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", backlog=4096
    )


def _start_agent() -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}/agent"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the bench agent did not start")


async def _plain_httpx(url: str, rows: int, concurrency: int, clients: int) -> float:
    """POSTs per second from ``concurrency`` tasks sharing ``clients`` httpx clients."""
    import httpx

    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(rows):
        queue.put_nowait(i)
    per = max(1, concurrency // clients)
    limits = httpx.Limits(max_connections=per, max_keepalive_connections=per)
    pool = [httpx.AsyncClient(limits=limits, timeout=30) for _ in range(clients)]

    async def worker(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            i = queue.get_nowait()
            response = await client.post(url, json={"input": f"cancel order {i}"})
            response.json()

    try:
        started = time.perf_counter()
        await asyncio.gather(*(worker(pool[k % clients]) for k in range(concurrency)))
        return rows / (time.perf_counter() - started)
    finally:
        for client in pool:
            await client.aclose()


def _run(url: str, rows: int, concurrency: int, tmp: Path, profile: bool) -> tuple[float, float]:
    from bench_runner import _dataset

    from tooleval.runs import plan_from_dict, run_plan
    from tooleval.store import open_store

    dataset = _dataset(tmp / "d.jsonl", rows)
    plan = plan_from_dict(
        {
            "name": "runner-cpu",
            "dataset": str(dataset),
            "connector": {
                "url": url,
                "timeout": 30,
                "response": {
                    "output": "$.output",
                    "tools_called": "$.steps[?(@.type=='tool_call')].tool.name",
                },
            },
            "metrics": ["tool_correctness"],
        }
    )
    store = open_store(tmp / "runs.db")
    try:
        started, cpu = time.perf_counter(), time.process_time()
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            outcome = profiler.runcall(run_plan, plan, store=store, concurrency=concurrency)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(
                "tooleval|orjson|sqlite|jsonpath", 30
            )
        else:
            outcome = run_plan(plan, store=store, concurrency=concurrency)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        store.close()
    if outcome.run.row_count != rows or outcome.run.error_count:
        raise RuntimeError(f"bench run incomplete: {outcome.run}")
    return rows / elapsed, cpu / rows * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1500)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.serve)
        return 0
    agent, url = _start_agent()
    try:
        print(f"load average: {os.getloadavg()[0]:.1f}")
        for _ in range(2):  # alternate, so load changes hit both alike
            one = asyncio.run(_plain_httpx(url, args.rows, args.concurrency, 1))
            sharded = asyncio.run(_plain_httpx(url, args.rows, args.concurrency, 8))
            with tempfile.TemporaryDirectory() as tmp:
                ours, cpu_ms = _run(url, args.rows, args.concurrency, Path(tmp), args.profile)
            print(
                f"concurrency {args.concurrency}: plain httpx {one:6.1f} req/s (1 client), "
                f"{sharded:6.1f} (8 clients); tooleval run {ours:6.1f} rows/s "
                f"({ours / sharded:.0%} of 8 clients), runner CPU {cpu_ms:.2f} ms/row"
            )
            args.profile = False
    finally:
        agent.terminate()
        agent.wait(timeout=10)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
