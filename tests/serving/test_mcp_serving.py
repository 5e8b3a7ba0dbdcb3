"""An environment served over MCP (the official SDK's clients, stdio and streamable HTTP).

Real parts only: the episode server on 127.0.0.1, ``mcp.client.streamable_http``
and ``mcp.client.stdio`` (a ``tooleval serve mcp`` child process). Every call
is executed and recorded by tooleval; the binding of a session to its row is
checked by refusing another row's.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

import httpx  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tooleval.environments import FunctionEnvironment, register_environment  # noqa: E402
from tooleval.errors import ConfigError  # noqa: E402
from tooleval.model import Sample  # noqa: E402
from tooleval.serving import connector_from_config  # noqa: E402
from tooleval.serving.bindings import Episodes  # noqa: E402
from tooleval.serving.http_app import EpisodeServer, urls  # noqa: E402
from tooleval.serving.sessions import EnvironmentTools  # noqa: E402


def _put(state, key: str, value: int):
    """Store value under key."""
    if key == "boom":
        raise ValueError("the tool broke")
    state[key] = value
    return {"stored": key}


def _get(state, key: str):
    """Read a key."""
    return state.get(key)


register_environment(
    "mcp_kv", lambda config: FunctionEnvironment({"put": _put, "get": _get}, initial_state={})
)


@pytest.fixture
def served():
    episodes = Episodes(EnvironmentTools({"name": "mcp_kv", "config": {}}))
    server = EpisodeServer(episodes)
    base = server.start()
    try:
        yield episodes, base
    finally:
        server.stop()


async def _session_calls(url, calls, *, client=None):
    """Open an MCP session at ``url``, make ``calls``; the results (text, is_error)."""
    async with (
        httpx.AsyncClient(timeout=60) as http,
        streamable_http_client(url, http_client=client or http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        assert sorted(t.name for t in listed.tools) == ["get", "put"]
        out = []
        for name, args in calls:
            result = await session.call_tool(name, args)
            out.append((result.content[0].text, result.isError))
        return out


def test_calls_over_mcp_http_are_run_and_recorded_and_errors_are_results(served):
    episodes, base = served
    binding = episodes.bind(Sample(id="row-1#2"))
    url = urls(base, binding.token)["mcp_url"]
    results = asyncio.run(
        _session_calls(
            url,
            [
                ("put", {"key": "a", "value": 1}),
                ("get", {"key": "a"}),
                ("put", {"key": "boom", "value": 1}),  # the tool raises
                ("put", {"key": "a"}),  # a required argument missing
                ("put", {"key": "a", "value": 1, "colour": "red"}),  # an unknown one
                ("rm", {}),  # no such tool
            ],
        )
    )
    assert results[0] == ('{"stored": "a"}', False)
    assert results[1] == ("1", False)
    assert results[2][1] and "ValueError: the tool broke" in results[2][0]
    assert results[3][1] and "missing a required argument: 'value'" in results[3][0]
    assert results[4][1] and "colour" in results[4][0]
    assert results[5][1] and "unknown tool 'rm'" in results[5][0]
    assert binding.row == "row-1" and binding.attempt == 2
    record = episodes.release(binding.token)
    calls = record["calls"]
    assert [c["name"] for c in calls] == ["put", "get", "put", "put", "put", "rm"]
    assert calls[0]["args"] == {"key": "a", "value": 1} and calls[0]["result"] == {"stored": "a"}
    assert [c.get("is_error", False) for c in calls] == [False, False, True, True, True, True]
    assert [c.get("executed", True) for c in calls] == [True, True, True, False, False, False]
    assert all(c["ms"] >= 0 for c in calls)


def test_several_sessions_at_once_each_on_its_own_environment(served):
    episodes, base = served
    bindings = [episodes.bind(Sample(id=f"r{i}")) for i in range(6)]

    async def all_sessions():
        return await asyncio.gather(
            *(
                _session_calls(
                    urls(base, b.token)["mcp_url"],
                    [("put", {"key": f"k{i}", "value": i}), ("get", {"key": f"k{(i + 1) % 6}"})],
                )
                for i, b in enumerate(bindings)
            )
        )

    results = asyncio.run(all_sessions())
    # No episode sees another's write.
    assert [r[1] for r in results] == [("null", False)] * 6
    for i, b in enumerate(bindings):
        assert b.session.environment.state() == {f"k{i}": i}
        assert len(episodes.release(b.token)["calls"]) == 2


def test_a_session_of_another_row_and_an_ended_token_are_refused(served):
    episodes, base = served
    first = episodes.bind(Sample(id="A"))
    second = episodes.bind(Sample(id="B"))
    first_url, second_url = urls(base, first.token)["mcp_url"], urls(base, second.token)["mcp_url"]

    async def cross():
        async with (
            httpx.AsyncClient(timeout=60) as http,
            streamable_http_client(first_url, http_client=http) as (read, write, session_id),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("put", {"key": "a", "value": 1})
            # The same MCP session on row B's URL: refused, nothing runs in B.
            headers = {
                "mcp-session-id": session_id(),
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-06-18",
            }
            body = {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "tools/call",
                "params": {"name": "put", "arguments": {"key": "x", "value": 1}},
            }
            return await http.post(second_url, json=body, headers=headers)

    answer = asyncio.run(cross())
    assert answer.status_code == 403
    assert "another episode" in answer.json()["error"] and "'B'" in answer.json()["error"]
    assert second.session.environment.state() == {} and second.session.calls == []
    episodes.release(first.token)
    # Row A's episode has ended: its URL is refused, with the reason.
    gone = httpx.post(first_url, json={}, headers={"accept": "application/json"}, timeout=60)
    assert gone.status_code == 410 and "row 'A'" in gone.json()["error"]
    unknown = httpx.post(f"{base}/episodes/nope/mcp", json={}, timeout=60)
    assert unknown.status_code == 404
    assert episodes.release(second.token)["calls"] == []


def test_a_client_that_disconnects_mid_episode_leaves_the_server_serving(served):
    episodes, base = served
    dropped = episodes.bind(Sample(id="dropped"))
    url = urls(base, dropped.token)["mcp_url"]

    async def disconnect():
        async def session():
            async with (
                httpx.AsyncClient(timeout=60) as http,
                streamable_http_client(url, http_client=http) as (read, write, _),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                await client.call_tool("put", {"key": "a", "value": 1})
                await asyncio.Event().wait()  # never closes on its own

        task = asyncio.create_task(session())
        deadline = asyncio.get_running_loop().time() + 60
        while not dropped.session.calls and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()  # the client goes away mid-episode, without closing its session
        # How the SDK's client tears itself down (cancelled, or a closed stream) is its business.
        (ended,) = await asyncio.gather(task, return_exceptions=True)
        assert isinstance(ended, asyncio.CancelledError | BaseExceptionGroup)

    asyncio.run(disconnect())
    record = episodes.release(dropped.token)
    assert [c["name"] for c in record["calls"]] == ["put"]
    # The server goes on serving other episodes.
    other = episodes.bind(Sample(id="next"))
    results = asyncio.run(
        _session_calls(urls(base, other.token)["mcp_url"], [("get", {"key": "a"})])
    )
    assert results == [("null", False)]


def _stdio(command, env):
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


def test_stdio_server_runs_one_fresh_environment_and_writes_its_record(tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"a": 5}))
    record = tmp_path / "record.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    command = [
        sys.executable,
        "-m",
        "tooleval",
        "serve",
        "mcp",
        "--environment",
        "tests.serving.test_mcp_serving:stdio_kv",
        "--initial-state",
        str(state),
        "--record",
        str(record),
    ]

    async def session():
        async with (
            stdio_client(_stdio(command, env)) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            got = await client.call_tool("get", {"key": "a"})
            bad = await client.call_tool("put", {"key": "b", "value": "x"})
            return got.content[0].text, bad.isError

    assert asyncio.run(session()) == ("5", True)
    done = json.loads(record.read_text())
    assert [(c["name"], c["args"]) for c in done["calls"]] == [
        ("get", {"key": "a"}),
        ("put", {"key": "b", "value": "x"}),
    ]
    assert done["calls"][1]["executed"] is False


def stdio_kv(config):
    """The environment the stdio test's child process serves (a module:attribute factory)."""
    return FunctionEnvironment({"put": _put, "get": _get}, initial_state={})


def test_serve_configuration_mistakes_are_refused_up_front():
    base = {"type": "python", "target": "json:dumps"}
    with pytest.raises(ConfigError, match="connector.serve.transport"):
        connector_from_config({**base, "serve": "carrier-pigeon"}, environment="mcp_kv")
    with pytest.raises(ConfigError, match="connector.serve.colour"):
        connector_from_config({**base, "serve": {"colour": 1}}, environment="mcp_kv")
    with pytest.raises(ConfigError, match="connector.serve.port"):
        connector_from_config({**base, "serve": {"port": 70000}}, environment="mcp_kv")
    with pytest.raises(ConfigError, match="needs an environment"):
        connector_from_config({**base, "serve": "mcp"})
    with pytest.raises(ConfigError, match="give it environment, not serve"):
        connector_from_config(
            {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "serve": "mcp"},
            environment="mcp_kv",
        )
    with pytest.raises(ConfigError, match="unknown environment"):
        connector_from_config({**base, "serve": "mcp"}, environment="mcp_nope")
    served = connector_from_config({**base, "serve": "stdio"}, environment="mcp_kv")
    assert served.describe()["serve"]["transport"] == "stdio"
    assert served.describe()["serve"]["environment"]["name"] == "mcp_kv"


def test_tooleval_serve_http_opens_serves_and_ends_episodes_until_stopped():
    import signal
    import subprocess

    from tests.procs import finish, read_line

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tooleval",
            "serve",
            "http",
            "--environment",
            "tests.serving.test_mcp_serving:stdio_kv",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = read_line(proc, startswith="tooleval: serving on ")
        base = line.split()[3]
        with httpx.Client(timeout=60) as client:
            handed = client.post(f"{base}/episodes", json={"id": "cli"}).json()
            results = asyncio.run(
                _session_calls(handed["mcp_url"], [("put", {"key": "a", "value": 3})])
            )
            assert results == [('{"stored": "a"}', False)]
            record = client.delete(f"{base}/episodes/{handed['token']}").json()
        assert [(c["name"], c["args"]) for c in record["calls"]] == [
            ("put", {"key": "a", "value": 3})
        ]
    finally:
        proc.send_signal(signal.SIGTERM)
        finish(proc)
    assert proc.returncode == 0
