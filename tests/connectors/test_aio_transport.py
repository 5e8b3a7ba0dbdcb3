"""The HTTP connector's async transport (aiohttp) behaves as its httpx client did.

Real servers on 127.0.0.1 only: the agent stub, and a raw asyncio socket
server for replies an HTTP framework will not send (a redirect, a dropped
connection).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
from tests.agent_stub import AgentStub

from tooleval.connectors import HttpConnector, RetryPolicy
from tooleval.connectors.aio import AioClient, encode_json
from tooleval.errors import ConnectorError
from tooleval.model import Sample

NAMES = "$.steps[?(@.type=='tool_call')].tool.name"
FAST = RetryPolicy(retries=3, backoff=0.01, max_delay=0.05, jitter=0.0)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _acall(connector: HttpConnector, sample: Sample | str):
    try:
        return await connector.acall(sample)
    finally:
        await connector.aclose()


@pytest.mark.parametrize(
    "value",
    [
        {"input": "café ☕ \u2028", "n": 1.5, "big": 10**30, "neg": -0.0, "e": 1e-300},
        {"nested": [{"a": None, "b": True}, [], {}], "s": '"quoted" \\ \n'},
        ["x", 1, 2.5e20],
    ],
)
def test_body_bytes_equal_httpx_json_encoding(value) -> None:
    assert encode_json(value) == httpx.Request("POST", "http://x/", json=value).content


def test_async_request_equals_sync_httpx_request(agent_stub: AgentStub) -> None:
    agent_stub.script("naïve ☕", tools=["search"])
    c = HttpConnector(
        agent_stub.url + "/agent?fixed=1",
        headers={"X-Team": "evals"},
        body={"input": "{{input}}", "k": 2.5, "flags": [True, None]},
        params={"q": "{{input}}", "on": True, "n": 3, "obj": {"a": [1]}},
        response={"output": "$.output", "tools_called": NAMES},
        retry=FAST,
    )
    sample = Sample(input="naïve ☕", id="r1")
    with c:
        sync = c.call(sample)
    aio = asyncio.run(_acall(c, sample))
    assert [t.name for t in aio.tools_called] == [t.name for t in sync.tools_called] == ["search"]
    assert aio.output == sync.output and aio.status == sync.status == 200
    assert aio.raw["metadata"] == {"attempt": 2}  # the stub counts both requests as one input
    first, second = agent_stub.requests
    assert (second.method, second.path, second.body) == (first.method, first.path, first.body)
    assert "on=true" in first.path  # httpx's params= replace the URL's own query (fixed=1)
    for name in ("content-type", "x-team", "content-length"):
        assert second.headers[name] == first.headers[name]


def test_a_content_type_header_of_the_caller_wins_as_in_httpx(agent_stub: AgentStub) -> None:
    c = HttpConnector(
        agent_stub.url + "/agent",
        headers={"content-type": "application/json; charset=utf-8"},
        retry=FAST,
    )
    with c:
        c.call("typed")
    asyncio.run(_acall(c, "typed"))
    first, second = agent_stub.requests
    assert second.headers["content-type"] == first.headers["content-type"]
    assert first.headers["content-type"] == "application/json; charset=utf-8"


def test_async_connect_error_keeps_httpx_kind() -> None:
    c = HttpConnector(f"http://127.0.0.1:{_closed_port()}/agent", retry=FAST)
    with pytest.raises(ConnectorError, match="failed after 4 attempts: ConnectError"):
        asyncio.run(_acall(c, "x"))


def test_async_read_timeout_keeps_httpx_kind(agent_stub: AgentStub) -> None:
    agent_stub.script("slow", delay=0.5)
    c = HttpConnector(
        agent_stub.url + "/agent",
        timeout=0.1,
        retry=RetryPolicy(retries=1, backoff=0.01, jitter=0),
    )
    with pytest.raises(ConnectorError, match="failed after 2 attempts: ReadTimeout"):
        asyncio.run(_acall(c, "slow"))


def test_async_retries_5xx_and_honours_retry_after(agent_stub: AgentStub) -> None:
    agent_stub.script("flaky", tools=["search"], fail_times=2, fail_status=503, retry_after=0)
    c = HttpConnector(
        agent_stub.url + "/agent",
        response={"tools_called": NAMES},
        retry=FAST,
    )
    r = asyncio.run(_acall(c, "flaky"))
    assert r.attempts == 3 and r.retries == {"http": 2}
    assert [t.name for t in r.tools_called] == ["search"]


@pytest.fixture
def raw_server() -> Iterator[tuple[str, list[bytes], dict[str, bytes]]]:
    """A socket server answering each request with ``reply["bytes"]`` (b"" = hang up)."""
    seen: list[bytes] = []
    reply = {"bytes": b""}
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, object] = {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = [
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if b"content-length" in line.lower()
        ]
        if length:
            await reader.readexactly(length[0])
        seen.append(head.split(b"\r\n")[0])
        if reply["bytes"]:
            writer.write(reply["bytes"])
            await writer.drain()
        writer.close()

    async def start() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        holder["server"] = server
        holder["port"] = server.sockets[0].getsockname()[1]
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()))
    thread.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{holder['port']}", seen, reply
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_async_does_not_follow_redirects(raw_server) -> None:
    url, seen, reply = raw_server
    reply["bytes"] = b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"
    r = asyncio.run(_acall(HttpConnector(url + "/agent", retry=FAST), "x"))
    assert r.status == 302
    assert seen == [b"POST /agent HTTP/1.1"]


def test_async_dropped_connection_is_remote_protocol_error(raw_server) -> None:
    url, seen, reply = raw_server
    reply["bytes"] = b""
    c = HttpConnector(url + "/agent", retry=RetryPolicy(retries=1, backoff=0.01, jitter=0))
    with pytest.raises(ConnectorError, match="failed after 2 attempts: RemoteProtocolError"):
        asyncio.run(_acall(c, "x"))
    assert len(seen) == 2


def test_env_proxy_keeps_httpx_for_async(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(key, raising=False)
    assert isinstance(HttpConnector("http://127.0.0.1:9/a")._async_transport(), AioClient)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert isinstance(HttpConnector("http://127.0.0.1:9/a")._async_transport(), httpx.AsyncClient)


def test_a_passed_async_client_is_used(agent_stub: AgentStub) -> None:
    client = httpx.AsyncClient()
    c = HttpConnector(agent_stub.url + "/agent", async_client=client)
    assert c._async_transport() is client
    asyncio.run(client.aclose())


def test_one_connector_across_event_loops(agent_stub: AgentStub) -> None:
    agent_stub.script("again", tools=["search"])
    c = HttpConnector(agent_stub.url + "/agent", response={"tools_called": NAMES}, retry=FAST)
    first = asyncio.run(c.acall("again"))
    second = asyncio.run(_acall(c, "again"))
    assert first.tools_called == second.tools_called and agent_stub.attempts("again") == 2


@pytest.fixture
def tls_agent(tmp_path) -> Iterator[tuple[str, str]]:
    """An HTTPS agent on 127.0.0.1 with a self-signed certificate: (url, cert file)."""
    import http.server
    import json
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"output": "secure", "steps": []}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/agent", str(cert)
    finally:
        server.shutdown()
        server.server_close()


def test_tls_verifies_like_httpx(tls_agent, monkeypatch: pytest.MonkeyPatch) -> None:
    url, cert = tls_agent
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    once = RetryPolicy(retries=0)
    with pytest.raises(ConnectorError, match="ConnectError: .*(certificate|CERTIFICATE)"):
        asyncio.run(_acall(HttpConnector(url, retry=once), "x"))
    with pytest.raises(ConnectorError, match="ConnectError"), HttpConnector(url, retry=once) as c:
        c.call("x")  # httpx refuses the unknown issuer too
    monkeypatch.setenv("SSL_CERT_FILE", cert)  # trusted from the environment, as httpx does
    r = asyncio.run(_acall(HttpConnector(url, response={"output": "$.output"}, retry=once), "x"))
    assert r.output == "secure"
