"""Connection errors name the URL that was tried (``${VAR}`` filled in), never a secret in it.

Real servers on 127.0.0.1 (a refused port, a 500, an empty and a non-JSON
body), both connectors (HTTP and OpenAI-compatible), sync and async, and the
whole command line (``tooleval run`` and ``connector test``, ``runs show``).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from tooleval.cli.main import main
from tooleval.connectors import HttpConnector, OpenAIChatConnector
from tooleval.connectors.retry import RetryPolicy
from tooleval.errors import ConnectorError, ToolEvalError
from tooleval.urlsafe import mask_url, shown_url

SECRETS = ("hunter2", "sekrit-key-1", "tok-abc-999")


def _refused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Replies(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        kind = self.path.split("?")[0].rsplit("/", 1)[-1]
        status, body = {"fail": (500, b"boom"), "empty": (200, b""), "text": (200, b"hi")}[kind]
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Replies)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text
    assert "${AGENT_URL}" not in text


@pytest.fixture
def secret_env(monkeypatch):
    monkeypatch.setenv("KEY", "sekrit-key-1")
    monkeypatch.setenv("TOKEN", "tok-abc-999")


def _http(path: str, **options) -> HttpConnector:
    options.setdefault("retry", RetryPolicy(retries=0))
    return HttpConnector(path, **options)


async def _acall_and_close(connector: HttpConnector) -> None:
    try:
        await connector.acall("hi")
    finally:
        await connector.aclose()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_refused_port_names_the_resolved_url_with_secrets_masked(monkeypatch, secret_env, mode):
    port = _refused_port()
    monkeypatch.setenv("AGENT_URL", f"http://bob:hunter2@127.0.0.1:{port}")
    connector = _http("${AGENT_URL}/agent?api_key=${KEY}&lang=en")
    with pytest.raises(ConnectorError) as caught:
        if mode == "sync":
            connector.call("hi")
        else:
            asyncio.run(_acall_and_close(connector))
    message = str(caught.value)
    assert f"POST http://bob:***@127.0.0.1:{port}/agent?api_key=***&lang=en failed" in message
    _no_secret(message)


def test_headers_from_variables_never_reach_a_message(monkeypatch, secret_env):
    port = _refused_port()
    monkeypatch.setenv("AGENT_URL", f"http://127.0.0.1:{port}")
    connector = _http("${AGENT_URL}/agent", headers={"Authorization": "Bearer ${TOKEN}"})
    with pytest.raises(ConnectorError) as caught:
        connector.call("hi")
    assert f"http://127.0.0.1:{port}/agent" in str(caught.value)
    _no_secret(str(caught.value))
    _no_secret(json.dumps(connector.describe()).replace("${AGENT_URL}", ""))


@pytest.mark.parametrize(
    "kind,expected", [("fail", "HTTP 500"), ("empty", "empty body"), ("text", "not JSON")]
)
def test_a_live_server_failure_names_the_resolved_url(
    monkeypatch, secret_env, server_url, kind, expected
):
    monkeypatch.setenv("AGENT_URL", server_url)
    connector = _http(
        f"${{AGENT_URL}}/{kind}?token=${{TOKEN}}&v=1", response={"output": "$.output"}
    )
    with pytest.raises(ToolEvalError) as caught:
        connector.call("hi")
    message = str(caught.value)
    assert f"{server_url}/{kind}?token=***&v=1" in message and expected in message
    _no_secret(message)


def test_the_openai_connector_names_the_resolved_url(monkeypatch, secret_env, server_url):
    port = _refused_port()
    monkeypatch.setenv("AGENT_URL", f"http://127.0.0.1:{port}")
    connector = OpenAIChatConnector(
        base_url="${AGENT_URL}/v1", model="m", retry=RetryPolicy(retries=0)
    )
    with pytest.raises(ConnectorError) as caught:
        connector.call("hi")
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in str(caught.value)
    _no_secret(str(caught.value))
    monkeypatch.setenv("AGENT_URL", server_url + "/empty#")  # .../empty#/v1/chat/completions
    with pytest.raises(ToolEvalError) as caught:
        OpenAIChatConnector(base_url="${AGENT_URL}", model="m", retry=RetryPolicy(retries=0)).call(
            "hi"
        )
    assert server_url in str(caught.value)


def test_the_command_line_shows_the_resolved_url(tmp_path, monkeypatch, secret_env, capsys):
    port = _refused_port()
    monkeypatch.setenv("AGENT_URL", f"http://127.0.0.1:{port}")
    (tmp_path / "d.jsonl").write_text('{"id": "a", "input": "hi", "expected_tools": ["x"]}\n')
    plan = {
        "name": "t",
        "dataset": {"path": "d.jsonl"},
        "connector": {
            "type": "http",
            "url": "${AGENT_URL}/agent?api_key=${KEY}",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
            "retry": {"retries": 0},
            "response": {"output": "$.output", "tools_called": "$.tools"},
        },
        "metrics": ["tool_correctness"],
    }
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    shown = f"http://127.0.0.1:{port}/agent?api_key=***"
    assert main(["connector", "test", str(tmp_path / "plan.yaml")]) != 0
    out = capsys.readouterr()
    assert f"-> {shown}" in out.out and f"POST {shown} failed" in out.out + out.err
    _no_secret((out.out + out.err).replace("${AGENT_URL}", ""))
    db = str(tmp_path / "runs.db")
    assert main(["run", str(tmp_path / "plan.yaml"), "--store", db, "--quiet"]) == 1
    capsys.readouterr()
    assert main(["runs", "show", "latest", "--store", db]) in (0, 1)
    shown_rows = capsys.readouterr().out
    assert f"POST {shown}" in " ".join(shown_rows.split())
    for secret in SECRETS:
        assert secret not in shown_rows


@pytest.mark.parametrize(
    "url,template,expected",
    [
        ("https://x.test/a?page=2&sig=abc", None, "https://x.test/a?page=2&sig=***"),
        ("https://x.test/a?Access_Token=z&q=1", None, "https://x.test/a?Access_Token=***&q=1"),
        ("https://x.test/a?id=Ab3dEf6hIj9kLm2nOp5qRs8t", None, "https://x.test/a?id=***"),
        ("https://x.test/a?q=hello", "${U}", "https://x.test/a?q=***"),  # all from a variable
        ("https://x.test/a?q=hello", "https://x.test/a?q=hello", "https://x.test/a?q=hello"),
        ("https://x.test/a?q=1&u=7", "https://x.test/a?q=1&u=${U}", "https://x.test/a?q=1&u=***"),
        ("http://u:p@[::1]:8080/a", None, "http://u:***@[::1]:8080/a"),
        ("http://u:p@host:notaport/a?k=1", None, "http://host:notaport/a?***"),
        ("http://host/a?flag", None, "http://host/a?flag"),
        ("http://host/a?token=${TOKEN}", None, "http://host/a?token=${TOKEN}"),  # a name, unset
    ],
)
def test_mask_url(url, template, expected):
    assert mask_url(url, template=template) == expected


def test_shown_url_leaves_unset_variables_named():
    assert shown_url("${NOPE}/agent", environ={}) == "${NOPE}/agent"
    assert shown_url("${U}/a", environ={"U": "http://h:1"}) == "http://h:1/a"
