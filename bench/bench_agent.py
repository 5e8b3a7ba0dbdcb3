"""The local agent the runner benchmarks call, and the plan and dataset they run.

Shared by ``bench/bench_runner.py`` (agent answering after 50 ms) and
``bench/runner_cpu.py`` (answering at once). The agent is a minimal ASGI app
under uvicorn in its own process (as a real agent would be), so the runner
never shares a GIL with its server. It calls ``lookup_order`` then
``cancel_order`` for every input.

>>> agent = start_agent(latency=0.0)  # doctest: +SKIP
>>> agent.url  # doctest: +SKIP
'http://127.0.0.1:41234/agent'
>>> agent.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Agent", "bench_plan", "dataset", "serve", "start_agent"]

_REPLY_STEPS = [
    {"type": "tool_call", "tool": {"name": "lookup_order", "args": {}}},
    {"type": "tool_call", "tool": {"name": "cancel_order", "args": {}}},
    {"type": "message", "content": "done"},
]


def make_app(latency: float):
    """An ASGI agent that waits ``latency`` seconds, then replies with two tool calls."""

    async def agent_app(scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        text = json.loads(body or b"{}").get("input", "")
        if latency:
            await asyncio.sleep(latency)
        data = json.dumps({"input": text, "output": "done", "steps": _REPLY_STEPS}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    return agent_app


def serve(port: int, latency: float) -> None:
    """Serve the agent on 127.0.0.1:``port`` until killed (the child process' body)."""
    import uvicorn

    uvicorn.run(
        make_app(latency),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        backlog=4096,
    )


@dataclass
class Agent:
    """A running agent process and the URL to POST rows to."""

    process: subprocess.Popen
    url: str

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_agent(latency: float) -> Agent:
    """Start the agent in its own process; returns once it accepts connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_agent; "
    code += f"bench_agent.serve({port}, {latency!r})"
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Agent(proc, f"http://127.0.0.1:{port}/agent")
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the bench agent did not start")


def dataset(path: Path, rows: int) -> Path:
    """A JSONL dataset of ``rows`` cancel-order requests that expect both tools."""
    with path.open("w") as out:
        for i in range(rows):
            row = {
                "id": f"r{i}",
                "input": f"cancel order {i}",
                "category": ("cancel", "refund", "status")[i % 3],
                "expected_tools": ["lookup_order", "cancel_order"],
            }
            out.write(json.dumps(row) + "\n")
    return path


def bench_plan(name: str, dataset_path: Path, url: str) -> Any:
    """The plan both benchmarks run: HTTP connector, two JSONPaths, tool_correctness."""
    from tooleval.runs import plan_from_dict

    return plan_from_dict(
        {
            "name": name,
            "dataset": str(dataset_path),
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
