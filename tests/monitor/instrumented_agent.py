"""Run scripted agents through real GenAI instrumentation and write OTLP JSON files.

Usage: ``python instrumented_agent.py FLAVOUR OUT_DIR [--no-tool-spans] [--otlp URL]`` with
FLAVOUR ``openai-v2`` (opentelemetry-instrumentation-openai-v2),
``openinference`` (openinference-instrumentation-openai) or ``langgraph``
(openinference-instrumentation-langchain on a LangGraph ``create_react_agent``).
The real ``openai`` SDK talks to ``tests/openai_server.py``'s :class:`ScriptedAgent`
on 127.0.0.1. Content capture and semconv settings come from the environment, as in
production.

``python instrumented_agent.py --batch RUNS.json`` runs many agents, each in a process
of its own: ``RUNS.json`` is a list of ``{"argv": [FLAVOUR, OUT_DIR, ...], "env": {...}}``.
The batch imports ``openai`` and the OpenTelemetry SDK once, then forks one child per
run, which takes that run's environment before it imports and installs the
instrumentation (each child patches ``openai`` for itself, as a process of its own
would); each child's output goes to ``OUT_DIR/output.txt``. It prints the exit code of
each run, in order, as a JSON list.

Writes ``traces.jsonl`` (one ExportTraceServiceRequest per trace, hex ids,
the Collector file exporter's layout), ``traces.pb`` (the Collector's
``format: proto``: length-prefixed messages) and, when any were emitted,
``logs.jsonl`` (ExportLogsServiceRequest).

Sessions (one trace each, conversation id on the root span):

* ``weather``: get_weather(city=Paris) succeeds, answer "It is 20 degrees in Paris.";
* ``refund``: issue_refund(order_id=A1) fails, answer "No problem! Your refund is on its way.";
* ``chat``: no tool call, answer "Hello!";
* ``loop``: search_orders(query=late) fails three times, then an apology.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*

from google.protobuf.json_format import MessageToDict  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import Status, StatusCode  # noqa: E402
from tests.openai_server import ScriptedAgent  # noqa: E402

SESSIONS = {
    "weather": (
        "What is the weather in Paris?",
        [("get_weather", {"city": "Paris"}, {"temp": 20}, None)],
        "It is 20 degrees in Paris.",
    ),
    "refund": (
        "Please refund order A1.",
        [("issue_refund", {"order_id": "A1"}, {"error": "card network declined"}, "declined")],
        "No problem! Your refund is on its way.",
    ),
    "chat": ("Hi there", [], "Hello!"),
    "loop": (
        "Find my late orders",
        [("search_orders", {"query": "late"}, {"error": "index offline"}, "unavailable")] * 3,
        "Sorry, the order search is unavailable right now.",
    ),
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": "string"}},
                "required": [key],
            },
        },
    }
    for name, key in (
        ("get_weather", "city"),
        ("issue_refund", "order_id"),
        ("search_orders", "query"),
    )
]


def _hex(node):
    if isinstance(node, dict):
        return {
            k: base64.b64decode(v).hex()
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str) and v
            else _hex(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_hex(v) for v in node]
    return node


def _openai_agent(client, tracer, name, flavour, tool_spans):
    user, steps, answer = SESSIONS[name]
    root_attrs = (
        {"openinference.span.kind": "AGENT", "session.id": name, "input.value": user}
        if flavour == "openinference"
        else {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": name}
    )
    with tracer.start_as_current_span(f"agent {name}", attributes=root_attrs) as root:
        messages = [{"role": "user", "content": user}]
        for tool, args, result, error in steps:
            reply = client.chat.completions.create(
                model="fake-model", messages=messages, tools=TOOLS
            )
            call = reply.choices[0].message.tool_calls[0]
            messages.append(reply.choices[0].message.model_dump(exclude_none=True))
            if tool_spans:
                _tool_span(tracer, flavour, tool, call.id, args, result, error)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )
        reply = client.chat.completions.create(model="fake-model", messages=messages, tools=TOOLS)
        if flavour == "openinference":
            root.set_attribute("output.value", reply.choices[0].message.content)


def _tool_span(tracer, flavour, tool, call_id, args, result, error):
    if flavour == "openinference":
        attributes = {
            "openinference.span.kind": "TOOL",
            "tool.name": tool,
            "input.value": json.dumps(args),
            "output.value": json.dumps(result),
        }
    else:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps(args),
        }
        if not error:
            attributes["gen_ai.tool.call.result"] = json.dumps(result)
    with tracer.start_as_current_span(f"execute_tool {tool}", attributes=attributes) as span:
        if error:
            span.set_status(Status(StatusCode.ERROR, result["error"]))
            span.set_attribute("error.type", error)


def _script(server):
    for _, steps, answer in SESSIONS.values():
        for tool, args, _, _ in steps:
            server.push(("tool", [(tool, args)]))
        server.push(("text", answer))


def run_openai(flavour, tool_spans, provider, logger_provider):
    import openai

    if flavour == "openai-v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider, logger_provider=logger_provider)
    else:
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("agent")
    with ScriptedAgent() as server:
        _script(server)
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)
        for name in SESSIONS:
            _openai_agent(client, tracer, name, flavour, tool_spans)


def run_langgraph(provider):
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import ToolNode, create_react_agent
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=provider)
    failures = {"issue_refund": "card network declined", "search_orders": "index offline"}

    @tool
    def get_weather(city: str) -> str:
        """The weather of a city."""
        return json.dumps({"temp": 20})

    @tool
    def issue_refund(order_id: str) -> str:
        """Refund an order."""
        raise RuntimeError(failures["issue_refund"])

    @tool
    def search_orders(query: str) -> str:
        """Search orders."""
        raise RuntimeError(failures["search_orders"])

    with ScriptedAgent() as server:
        _script(server)
        llm = ChatOpenAI(
            base_url=server.base_url, api_key="test-key", model="fake-model", max_retries=0
        )
        node = ToolNode([get_weather, issue_refund, search_orders], handle_tool_errors=True)
        agent = create_react_agent(llm, node)
        for name, (user, _, _) in SESSIONS.items():
            with using_session(name):
                agent.invoke({"messages": [("user", user)]})


def _add_otlp(url, provider, logger_provider):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces")))
    if logger_provider is not None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logger_provider.add_log_record_processor(
            BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{url}/v1/logs"))
        )


def run(argv: list[str]) -> None:
    flavour, out = argv[0], Path(argv[1])
    tool_spans = "--no-tool-spans" not in argv
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    logger_provider = log_exporter = None
    if flavour == "openai-v2":
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import (
            InMemoryLogRecordExporter,
            SimpleLogRecordProcessor,
        )

        log_exporter = InMemoryLogRecordExporter()
        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    if "--otlp" in argv:  # also send everything to an OTLP/HTTP endpoint, as in production
        _add_otlp(argv[argv.index("--otlp") + 1], provider, logger_provider)
    if flavour == "langgraph":
        run_langgraph(provider)
    else:
        run_openai(flavour, tool_spans, provider, logger_provider)
    provider.shutdown()  # flushes the OTLP exporters
    if logger_provider is not None:
        logger_provider.shutdown()
    _write(out, list(exporter.get_finished_spans()), log_exporter)


def _write(out, spans, log_exporter):
    by_trace = defaultdict(list)
    for span in spans:
        by_trace[span.context.trace_id].append(span)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "traces.jsonl", "w") as handle:
        for group in by_trace.values():
            handle.write(json.dumps(_hex(MessageToDict(encode_spans(group)))) + "\n")
    with open(out / "traces.pb", "wb") as handle:
        for group in by_trace.values():
            payload = encode_spans(group).SerializeToString()
            handle.write(len(payload).to_bytes(4, "big") + payload)
    if log_exporter is not None:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        logs = list(log_exporter.get_finished_logs())
        if logs:
            (out / "logs.jsonl").write_text(
                json.dumps(_hex(MessageToDict(encode_logs(logs)))) + "\n"
            )
    print(json.dumps({"spans": len(spans), "traces": len(by_trace)}))


def _forked(argv: list[str], env: dict[str, str]) -> int:
    """Run one agent in a child process with ``env`` as its whole environment; its exit code."""
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: its own environment, output file and instrumentation
        code = 1
        try:
            os.environ.clear()
            os.environ.update(env)
            with open(out / "output.txt", "w") as log:
                os.dup2(log.fileno(), 1)
                os.dup2(log.fileno(), 2)
            run(argv)
            code = 0
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def main() -> None:
    if sys.argv[1] == "--batch":
        import openai  # noqa: F401 - imported once here, shared by every forked run

        runs = json.loads(Path(sys.argv[2]).read_text())
        print(json.dumps([_forked(r["argv"], r["env"]) for r in runs]))
    else:
        run(sys.argv[1:])


if __name__ == "__main__":
    main()
