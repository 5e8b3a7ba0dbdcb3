"""Ingestion and detectors on spans written by the real GenAI instrumentation libraries.

Each agent runs in a process of its own (instrumentation patches ``openai``
globally and reads its settings from the environment): one ``instrumented_agent.py
--batch`` subprocess per module imports ``openai`` and the SDK once and forks a
child per agent, each driving the real ``openai`` SDK against a scripted server on
127.0.0.1. Expected, for every flavour that records content: sessions weather
(1 call), refund (1 failed call, answer claims the refund), chat (no call), loop
(3 identical failed calls).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]

EXPECTED_CALLS = {
    "weather": [("get_weather", {"city": "Paris"})],
    "refund": [("issue_refund", {"order_id": "A1"})],
    "chat": [],
    "loop": [("search_orders", {"query": "late"})] * 3,
}

OPENAI_V2 = ("opentelemetry.instrumentation.openai_v2", "openai")
OPENINFERENCE = ("openinference.instrumentation.openai", "openai")
LANGGRAPH = ("openinference.instrumentation.langchain", "langgraph.prebuilt", "langchain_openai")
OTLP_HTTP = ("opentelemetry.exporter.otlp.proto.http",)
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
LATEST = {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}
# Every agent the tests read: (modules it needs, flavour and options, its environment).
RUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]] = {
    "v2_span_content": (OPENAI_V2, ("openai-v2",), {**LATEST, CAPTURE: "SPAN_ONLY"}),
    "v2_content_off": (OPENAI_V2, ("openai-v2", "--no-tool-spans"), {}),
    "v2_events": (OPENAI_V2, ("openai-v2", "--no-tool-spans"), {CAPTURE: "true"}),
    "v2_truncated": (
        OPENAI_V2,
        ("openai-v2", "--no-tool-spans"),
        {"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "200", **LATEST, CAPTURE: "SPAN_ONLY"},
    ),
    "openinference": (OPENINFERENCE, ("openinference",), {}),
    "langgraph": (LANGGRAPH, ("langgraph",), {}),
    "openinference_hidden": (
        OPENINFERENCE,
        ("openinference", "--no-tool-spans"),
        {"OPENINFERENCE_HIDE_INPUTS": "true", "OPENINFERENCE_HIDE_OUTPUTS": "true"},
    ),
    # openai-v2 spans and content log events sent live to `monitor serve` by the OTLP exporters
    "otlp": (OPENAI_V2 + OTLP_HTTP, ("openai-v2", "--no-tool-spans", "--otlp"), {CAPTURE: "true"}),
}


def _missing(modules: tuple[str, ...]) -> str | None:
    for module in modules:
        try:
            found = importlib.util.find_spec(module)
        except ImportError:
            found = None
        if found is None:
            return module
    return None


class Agents:
    """Every agent of RUNS, run once for the module by one batch process (forked per agent)."""

    def __init__(self, folder: Path, receiver_url: str) -> None:
        self.skipped: dict[str, str] = {}
        self.outs: dict[str, Path] = {}
        batch = []
        for name, (modules, argv, env) in RUNS.items():
            missing = _missing(modules)
            if missing is not None:
                self.skipped[name] = f"needs {missing}"
                continue
            self.outs[name] = folder / name
            extra = [receiver_url] if "--otlp" in argv else []
            batch.append({"argv": [argv[0], str(folder / name), *argv[1:], *extra], "env": env})
        clean = {
            k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OPENINFERENCE_"))
        }
        for run in batch:
            run["env"] = {**clean, **run["env"]}
        spec = folder / "runs.json"
        spec.write_text(json.dumps(batch))
        self.codes: dict[str, int] = {}
        if batch:
            result = subprocess.run(
                [sys.executable, str(HERE / "instrumented_agent.py"), "--batch", str(spec)],
                env=clean,
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert result.returncode == 0, result.stderr[-3000:]
            codes = json.loads(result.stdout.strip().splitlines()[-1])
            self.codes = dict(zip(self.outs, codes, strict=True))

    def out(self, name: str) -> Path:
        if name in self.skipped:
            pytest.skip(self.skipped[name])
        out = self.outs[name]
        assert self.codes[name] == 0, (out / "output.txt").read_text()[-3000:]
        return out


@pytest.fixture(scope="module")
def agents(tmp_path_factory) -> Iterator[tuple[Agents, Any]]:
    """The agents' output folders, and the receiver the ``otlp`` agent sent to (stopped)."""
    from tooleval.monitor.live import LiveMonitor
    from tooleval.monitor.serve import OtlpReceiver

    # the exporters flush when the agent process ends; stop() then monitors every session
    receiver = OtlpReceiver(LiveMonitor(), port=0, idle_timeout=60).start()
    try:
        ran = Agents(tmp_path_factory.mktemp("agents"), receiver.url)
    finally:
        receiver.stop()
    yield ran, receiver


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
    return subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def _sessions(path: Path | str):
    from tooleval.monitor.ingest import read_sessions

    with read_sessions(path) as sessions:
        return {s.id: s for s in sessions}, sessions.report


def _check_exact(sessions) -> None:
    assert set(sessions) == set(EXPECTED_CALLS)
    for name, expected in EXPECTED_CALLS.items():
        assert [(c.name, c.call.args) for c in sessions[name].calls] == expected, name
    assert [c.is_error for c in sessions["loop"].calls] == [True, True, True]
    assert sessions["refund"].calls[0].is_error
    assert not sessions["weather"].calls[0].is_error


def _findings(path: Path | str):
    from tooleval.monitor.run import monitor

    report = monitor(path)
    return report, report.counts()


# ---------------------------------------------------------------- openai-v2


@pytest.fixture(scope="module")
def v2_span_content(agents):
    return agents[0].out("v2_span_content")


def test_openai_v2_spans_exact_calls_findings_and_usage(v2_span_content):
    sessions, report = _sessions(v2_span_content / "traces.jsonl")
    _check_exact(sessions)
    assert report.problems == []
    # failed execute_tool spans keep their error text (status.message)
    assert sessions["refund"].calls[0].call.result == {"error": "card network declined"}
    monitored, counts = _findings(v2_span_content / "traces.jsonl")
    assert counts == {"redundancy": 0, "retry_loop": 1, "error_ignored": 1, "excessive_calls": 0}
    (ignored,) = [f for f in monitored.findings if f.detector == "error_ignored"]
    assert ignored.session_id == "refund" and ignored.evidence["shape"] == "claimed_effect"
    # the session without tool calls counts; tokens come from gen_ai.usage.*
    assert monitored.sessions == 4
    chat = next(s for s in monitored.session_stats if s["session_id"] == "chat")
    assert chat["llm_calls"] == 1 and chat["input_tokens"] > 0 and chat["output_tokens"] == 7
    assert chat["llm_spans"][0]["latency_ms"] > 0


def test_binary_protobuf_gzip_and_stdin_read_the_same(v2_span_content, tmp_path):
    expected = {
        k: [(c.name, c.call.args) for c in s.calls]
        for k, s in _sessions(v2_span_content / "traces.jsonl")[0].items()
    }
    # the Collector file exporter's format: proto (length-prefixed messages)
    protobuf, _ = _sessions(v2_span_content / "traces.pb")
    assert {k: [(c.name, c.call.args) for c in s.calls] for k, s in protobuf.items()} == expected
    raw = (v2_span_content / "traces.jsonl").read_bytes()
    zipped = tmp_path / "traces.otlp"  # gzip told by content, not by name
    zipped.write_bytes(gzip.compress(raw))
    assert set(_sessions(zipped)[0]) == set(expected)
    piped = _cli("monitor", "-", "--no-store", "--json", str(tmp_path / "f.json"), stdin=raw)
    assert piped.returncode == 0, piped.stderr
    assert json.loads((tmp_path / "f.json").read_text())["counts"]["error_ignored"] == 1
    piped_gz = _cli("trace", "sessions", "-", stdin=(v2_span_content / "traces.pb").read_bytes())
    assert piped_gz.returncode == 0 and piped_gz.stdout.decode().count("\n") == 4


def test_cost_from_a_price_table(v2_span_content, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": {"input": 2.0, "output": 10.0}}))
    out = _cli("trace", "sessions", str(v2_span_content / "traces.jsonl"), "--prices", str(prices))
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.decode().splitlines() if x.startswith("chat\t"))
    assert "1 llm calls" in line and "cost 0.000" in line and "USD" in line
    report = _cli(
        "monitor",
        str(v2_span_content / "traces.jsonl"),
        "--no-store",
        "--prices",
        str(prices),
        "--json",
        str(tmp_path / "m.json"),
    )
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["usage"]["cost"] > 0 and report.returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"fake-model": "cheap"}))
    refused = _cli(
        "monitor", str(v2_span_content / "traces.jsonl"), "--no-store", "--prices", str(bad)
    )
    assert refused.returncode == 2 and b"fake-model" in refused.stderr


@pytest.fixture(scope="module")
def v2_content_off(agents):
    return agents[0].out("v2_content_off")


def test_content_capture_off_is_not_a_silent_pass(v2_content_off):
    traces = str(v2_content_off / "traces.jsonl")
    sessions, _ = _sessions(traces)
    assert len(sessions) == 4  # counted, though nothing about tools can be read
    assert any(
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in r
        for s in sessions.values()
        for r in s.unreadable
    )
    gated = _cli("monitor", traces, "--no-store", "--fail-on", "error_ignored")
    assert gated.returncode == 2
    err = gated.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in err[0]
    # the events (logs) name the calls but not their arguments: still not a pass
    both = (v2_content_off / "traces.jsonl").read_bytes() + (
        v2_content_off / "logs.jsonl"
    ).read_bytes()
    gated = _cli("monitor", "-", "--no-store", "--fail-on", "redundancy", stdin=both)
    assert gated.returncode == 2 and b"without their arguments" in gated.stderr
    # no gate: a warning, exit 0
    assert _cli("monitor", traces, "--no-store").returncode == 0


@pytest.fixture(scope="module")
def v2_events(agents):
    return agents[0].out("v2_events")


def test_content_in_log_events_is_read(v2_events, tmp_path):
    mixed = tmp_path / "mixed.jsonl.gz"
    mixed.write_bytes(
        gzip.compress(
            (v2_events / "traces.jsonl").read_bytes() + (v2_events / "logs.jsonl").read_bytes()
        )
    )
    sessions, report = _sessions(mixed)
    assert report.log_records > 0
    _check_exact(sessions)
    assert sessions["chat"].output == "Hello!"
    assert sessions["refund"].input == "Please refund order A1."
    _, counts = _findings(mixed)
    assert counts["error_ignored"] == 1 and counts["retry_loop"] == 1 and counts["redundancy"] == 0


@pytest.fixture(scope="module")
def v2_truncated(agents):
    return agents[0].out("v2_truncated")


def test_truncated_messages_are_problems_and_keep_what_is_readable(v2_truncated):
    sessions, report = _sessions(v2_truncated / "traces.jsonl")
    cut = [p for p in report.problems if "not valid JSON" in p.message]
    assert cut and all(p.span_id and p.trace_id for p in cut)
    assert all("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT" in p.message for p in cut)
    assert sum(len(s.calls) for s in sessions.values()) == 5  # no call vanished
    _, counts = _findings(v2_truncated / "traces.jsonl")
    # results cut from the history are unknown outcomes, not successes: no false redundancy
    assert counts["redundancy"] == 0 and counts["retry_loop"] == 1


# ---------------------------------------------------------------- OpenInference


@pytest.fixture(scope="module")
def openinference(agents):
    return agents[0].out("openinference")


def test_openinference_openai_exact(openinference):
    sessions, report = _sessions(openinference / "traces.jsonl")
    _check_exact(sessions)
    assert sessions["weather"].output == "It is 20 degrees in Paris."
    assert sessions["loop"].usage["llm_calls"] == 4
    _, counts = _findings(openinference / "traces.jsonl")
    assert counts == {"redundancy": 0, "retry_loop": 1, "error_ignored": 1, "excessive_calls": 0}


@pytest.fixture(scope="module")
def langgraph(agents):
    return agents[0].out("langgraph")


def test_langgraph_calls_join_once_with_unwrapped_results(langgraph):
    sessions, _ = _sessions(langgraph / "traces.jsonl")
    # a one-argument tool's TOOL span (input.value "Paris") joins the model's request: counted once
    _check_exact(sessions)
    weather = sessions["weather"].calls[0]
    assert weather.call.result == {"temp": 20}  # not the ToolMessage envelope
    assert weather.call.id and weather.call.id == weather.call.id.strip()
    refund = sessions["refund"].calls[0]
    assert "card network declined" in json.dumps(refund.call.result)
    # input and answer from the messages, not the graph-state JSON
    assert sessions["refund"].input == "Please refund order A1."
    assert sessions["refund"].output == "No problem! Your refund is on its way."
    _, counts = _findings(langgraph / "traces.jsonl")
    assert counts["error_ignored"] == 1 and counts["retry_loop"] == 1 and counts["redundancy"] == 0


@pytest.fixture(scope="module")
def openinference_hidden(agents):
    return agents[0].out("openinference_hidden")


def test_openinference_hidden_messages_are_not_a_silent_pass(openinference_hidden):
    traces = str(openinference_hidden / "traces.jsonl")
    sessions, _ = _sessions(traces)
    assert len(sessions) == 4 and all(not s.calls for s in sessions.values())
    gated = _cli("monitor", traces, "--no-store", "--fail-on", "retry_loop")
    assert gated.returncode == 2 and b"OPENINFERENCE_HIDE_OUTPUTS" in gated.stderr


def test_real_instrumentation_through_otlp_exporters_into_monitor_serve(agents):
    """openai-v2 spans and content log events, sent by the SDK's OTLP/HTTP exporters, live."""
    ran, receiver = agents
    ran.out("otlp")
    summary = receiver.monitor.summary()
    assert receiver.problems.log_records > 0 and receiver.rejected == 0
    assert summary["sessions"] == 4 and summary["tool_calls"] == 5
    assert summary["counts"]["error_ignored"] == 1 and summary["counts"]["retry_loop"] == 1
    assert summary["unreadable_tool_use"] == {}
