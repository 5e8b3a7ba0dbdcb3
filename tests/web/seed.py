"""Realistic runs for report and viewer tests, written through the store's write API.

Rows are scored by the real metrics (tool_correctness with ordering and
argument keys, tool_call_f1), so diagnoses carry real missing / extra /
order / argument findings; failure classes come from ``classified``
as the runner stores them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tooleval.analysis.clusters import classified
from tooleval.metrics.registry import score_sample
from tooleval.model import ExpectedTools, Result, Sample, ToolCall
from tooleval.store.records import MetricSpec, RowRecord

XSS = "<script>window.__xss=1</script>"
XSS_IMG = '<img src=x onerror="window.__xss=1">'
XSS_URL = "javascript:window.__xss=1"

METRICS = [
    MetricSpec(
        "tool_correctness",
        {
            "check_ordering": True,
            "argument_keys": {"cancel_order": ["order_id"], "issue_refund": ["order_id", "amount"]},
        },
        0.5,
    ),
    MetricSpec("tool_call_f1", {}, 0.8),
]


SUPPORT_AGENT = {"type": "http", "url": "http://127.0.0.1:8000/agent"}


def call(name: str, **args: Any) -> ToolCall:
    return ToolCall(name, args)


def _cases(variant: str) -> list[dict[str, Any]]:
    """(id, category, input, expected, actual, output) for run ``a`` (baseline) or ``b``."""
    cases = []
    for n in range(8):
        order = str(4400 + n)
        expected = [call("lookup_order", order_id=order), call("cancel_order", order_id=order)]
        if n in (1, 2) and variant == "a":
            actual = [call("lookup_order", order_id=order)]  # missing cancel_order
        elif n == 3:
            actual = [call("cancel_order", order_id=order), call("lookup_order", order_id=order)]
        elif n == 4 and variant == "b":
            actual = [call("lookup_order", order_id=order), call("cancel_order", order_id="4417")]
        else:
            actual = list(expected)
        cases.append(
            dict(
                id=f"cancel-{n}",
                category="cancel",
                input=f"Please cancel order {order}, I ordered the wrong size.",
                expected=expected,
                actual=actual,
                output=f"Your order {order} has been cancelled.",
            )
        )
    for n in range(8):
        order = str(5500 + n)
        expected = [
            call("lookup_order", order_id=order),
            call("issue_refund", order_id=order, amount=30),
        ]
        if variant == "a" and n < 5:
            actual = [call("lookup_order", order_id=order), call("search_orders", query=order)]
        elif n == 6:
            actual = [
                call("lookup_order", order_id=order),
                call("issue_refund", order_id=order, amount=300),
            ]
        else:
            actual = list(expected)
        cases.append(
            dict(
                id=f"refund-{n}",
                category="refund",
                input=f"Refund 30 USD on order {order}, the item arrived broken.",
                expected=expected,
                actual=actual,
                output="A refund of 30 USD is on its way.",
            )
        )
    for n in range(6):
        order = str(7700 + n)
        expected = [call("lookup_order", order_id=order)]
        actual = (
            [call("lookup_order", order_id=order)] * 3
            if n in (2, 5)
            else [call("lookup_order", order_id=order)]
        )
        cases.append(
            dict(
                id=f"status-{n}",
                category="status",
                input=f"Where is my order {order}?",
                expected=expected,
                actual=actual,
                output=f"Order {order} ships tomorrow.",
            )
        )
    return cases


def _record(index: int, case: dict[str, Any], *, error: str | None = None) -> RowRecord:
    sample = Sample(
        input=case["input"],
        tools_called=case["actual"],
        expected_tools=ExpectedTools.of(case["expected"]),
        output=case["output"],
        category=case["category"],
        id=case["id"],
    )
    return _scored(index, sample, error=error, latency_ms=120.0 + index * 7)


def _scored(index: int, sample: Sample, *, error: str | None = None, **row: Any) -> RowRecord:
    """The row ``sample`` makes, scored by METRICS (unscored on ``error``) and classified."""
    if error:
        results = tuple(
            Result.unscored(
                m.name, f"connector error: {error}", params=m.params, threshold=m.threshold
            )
            for m in METRICS
        )
    else:
        results = tuple(
            score_sample(m.name, sample, threshold=m.threshold, **m.params) for m in METRICS
        )
    record = RowRecord(
        run_id="",
        index=index,
        row_id=str(sample.id),
        sample=sample,
        results=results,
        error=error,
        **row,
    )
    return classified(record)


def seed_run(
    store: Any,
    rows: Iterable[RowRecord],
    *,
    name: str,
    dataset: dict[str, Any],
    connector: dict[str, Any] | None = None,
    chunk: int = 5000,
    **config: Any,
) -> str:
    """A finished run of ``rows``, written ``chunk`` rows a transaction; its id.

    ``config`` goes to ``create_run`` as it is (``metrics`` METRICS unless given,
    ``tags``, ``config``); ``connector`` is a Python one unless given.
    """
    run_id = store.create_run(
        name,
        dataset=dataset,
        connector=connector or {"type": "python"},
        **{"metrics": METRICS, **config},
    )
    batch: list[RowRecord] = []
    for record in rows:
        batch.append(record)
        if len(batch) >= chunk:
            store.add_rows(run_id, batch)
            batch = []
    if batch:
        store.add_rows(run_id, batch)
    store.finish_run(run_id)
    return str(run_id)


def seed_support_runs(store: Any) -> tuple[str, str]:
    """Two runs of a support agent: baseline A and a new run B (fixed and regressed rows)."""
    ids = []
    for variant, name in (("a", "support-agent baseline"), ("b", "support-agent prompt-fix")):
        records = [_record(i, case) for i, case in enumerate(_cases(variant))]
        if variant == "a":
            broken = _cases(variant)[0] | {"id": "timeout-1", "category": "status"}
            records.append(_record(len(records), broken, error="HTTP 504 from the agent"))
        run_id = seed_run(
            store,
            records,
            name=name,
            dataset={"path": "examples/support_agent.jsonl", "rows": 22},
            connector=SUPPORT_AGENT,
            tags=["nightly", variant == "b" and "prompt-fix" or "baseline"],
            config={"prompt": "v2" if variant == "b" else "v1"},
        )
        ids.append(run_id)
    return ids[0], ids[1]


def seed_xss_run(store: Any) -> str:
    """A run whose every user-controlled text tries to run script."""
    case = {
        "id": f"row{XSS}",
        "category": f'<b class="x">{XSS_IMG}</b>',
        "input": f"{XSS} cancel {XSS_IMG} [click]({XSS_URL})",
        "expected": [call("cancel_order", order_id='"><script>window.__xss=1</script>')],
        "actual": [
            call(f"lookup{XSS_IMG}", url=XSS_URL, html="<iframe src=javascript:alert(1)>"),
            call("cancel_order", order_id=XSS_IMG),
        ],
        "output": f'done {XSS_IMG} <a href="{XSS_URL}">details</a>',
    }
    first = _record(0, case)
    second = _record(1, case | {"id": "plain"}, error=f"agent said {XSS}")
    return seed_run(
        store,
        [first, second],
        name=f"xss {XSS}",
        dataset={"path": XSS_URL, "note": XSS_IMG},
        connector={"url": XSS_URL},
        tags=[XSS_IMG],
    )


def seed_many(store: Any, rows: int, *, name: str = "big run", chunk: int = 5000) -> str:
    """A run of ``rows`` rows (cases repeated, ids made unique), written in bulk."""
    templates = [_record(i, c) for i, c in enumerate(_cases("a"))]

    def records() -> Iterable[RowRecord]:
        for index in range(rows):
            template = templates[index % len(templates)]
            sample = dataclasses.replace(template.sample, id=f"{template.row_id}-{index}")
            yield dataclasses.replace(template, index=index, row_id=sample.id, sample=sample)

    return seed_run(store, records(), name=name, dataset={"path": "big.jsonl"}, chunk=chunk)


LONG_NAME = "refund_" + "x" * 3000
LOOKALIKE = "issue_r\u0435fund"  # Cyrillic е
HIDDEN = "lookup\u200b_order"  # zero width space
BIDI = "refund\u202egnp.exe"  # right-to-left override


def seed_names_run(store: Any) -> str:
    """A run whose tool names try to mislead: very long, look-alike, hidden and bidi characters."""
    cases = [
        {
            "id": "long-name",
            "category": "names",
            "input": "Refund order 1200 " + "please " * 200,
            "expected": [call("issue_refund", order_id="1200")],
            "actual": [call(LONG_NAME, order_id="1200", note="y" * 2000)],
            "output": "done " + "z" * 3000,
        },
        {
            "id": "lookalike",
            "category": "names",
            "input": "Refund order 1201",
            "expected": [call("issue_refund", order_id="1201")],
            "actual": [call(LOOKALIKE, order_id="1201")],
            "output": "done",
        },
        {
            "id": "hidden",
            "category": "names",
            "input": "Look up order 1202",
            "expected": [call("lookup_order", order_id="1202")],
            "actual": [call(HIDDEN, order_id="1202")],
            "output": "done",
        },
        {
            "id": "bidi",
            "category": "names",
            "input": "Open the receipt",
            "expected": [call("open_file", path="receipt.png")],
            "actual": [call(BIDI, path="receipt.png")],
            "output": "opened",
        },
    ]
    cases.append(
        {
            "id": "row-" + "i" * 3000,
            "category": "category-" + "c" * 3000,
            "input": "Refund order 1203",
            "expected": [call("issue_refund", order_id="1203")],
            "actual": [call("issue_refund", order_id="9" * 3000)],
            "output": "done",
        }
    )
    records = [_record(i, c) for i, c in enumerate(cases)]
    return seed_run(store, records, name="names that mislead", dataset={"path": "names.jsonl"})


def _conversation(order: str, *, skip_lookup: bool) -> list[Any]:
    """A logged support conversation: system, user, calls with results (one an error), answer."""
    from tooleval.model import AssistantMessage, SystemMessage, ToolMessage, UserMessage

    messages: list[Any] = [
        SystemMessage("You are a support agent. Always look the order up before refunding."),
        UserMessage(f"Refund order {order}, it arrived broken."),
    ]
    if not skip_lookup:
        messages += [
            AssistantMessage("", (ToolCall("lookup_order", {"order_id": order}, id="c1"),)),
            ToolMessage({"order_id": order, "total": 30}, tool_call_id="c1"),
        ]
    messages += [
        AssistantMessage(
            "Refunding now.",
            (ToolCall("issue_refund", {"order_id": order, "amount": 30}, id="c2"),),
        ),
        ToolMessage("payment service unavailable", tool_call_id="c2", is_error=True),
        AssistantMessage(
            "", (ToolCall("issue_refund", {"order_id": order, "amount": 30}, id="c3"),)
        ),
        ToolMessage({"refund_id": "rf-1"}, tool_call_id="c3"),
        AssistantMessage("Done."),
    ]
    return messages


def seed_transcript_run(store: Any) -> str:
    """A run of logged conversations: one that skipped ``lookup_order``, one that did not."""
    records = []
    for index, (order, skip) in enumerate((("8801", True), ("8802", False))):
        expected = [
            call("lookup_order", order_id=order),
            call("issue_refund", order_id=order, amount=30),
        ]
        sample = Sample(
            messages=_conversation(order, skip_lookup=skip),
            expected_tools=ExpectedTools.of(expected),
            category="refund",
            id=f"chat-{order}",
        )
        reply = {"choices": [{"message": {"content": "Done."}}], "usage": {"total": 91}}
        records.append(_scored(index, sample, latency_ms=800.0, raw_response=reply))
    return seed_run(
        store,
        records,
        name="support-agent transcripts",
        dataset={"path": "conversations.jsonl"},
        connector=SUPPORT_AGENT,
    )


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def traces_file(path: Any) -> Any:
    """An OTLP JSON file of one agent session: an agent span over two model spans (tokens)
    and two tool spans, the second of which failed ("order service 503")."""
    import json

    trace = "ab" * 16
    base = 1_700_000_000_000_000_000
    ms = 1_000_000

    def span(n: int, name: str, start: int, end: int, attrs: list[Any]) -> dict[str, Any]:
        out = {
            "traceId": trace,
            "spanId": f"{n:016x}",
            "name": name,
            "startTimeUnixNano": str(base + start * ms),
            "endTimeUnixNano": str(base + end * ms),
            "attributes": [_attr("gen_ai.conversation.id", "sess-1"), *attrs],
        }
        if n:
            out["parentSpanId"] = f"{0:016x}"
        return out

    chat = [_attr("gen_ai.operation.name", "chat"), _attr("gen_ai.request.model", "gpt-x")]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Refund issued."}]}]
    spans = [
        span(
            0,
            "invoke_agent support-bot",
            0,
            1250,
            [
                _attr("gen_ai.operation.name", "invoke_agent"),
                _attr("gen_ai.output.messages", json.dumps(answer)),
            ],
        ),
        span(
            1,
            "chat gpt-x",
            0,
            400,
            chat
            + [_attr("gen_ai.usage.input_tokens", 120), _attr("gen_ai.usage.output_tokens", 18)],
        ),
        span(
            2,
            "execute_tool lookup_order",
            410,
            460,
            [
                _attr("gen_ai.operation.name", "execute_tool"),
                _attr("gen_ai.tool.name", "lookup_order"),
                _attr("gen_ai.tool.call.arguments", '{"order_id": "8801"}'),
            ],
        ),
        span(
            3,
            "execute_tool issue_refund",
            470,
            900,
            [
                _attr("gen_ai.operation.name", "execute_tool"),
                _attr("gen_ai.tool.name", "issue_refund"),
                _attr("gen_ai.tool.call.arguments", '{"order_id": "8801", "amount": 30}'),
            ],
        )
        | {"status": {"code": 2, "message": "order service 503"}},
        span(
            4,
            "chat gpt-x",
            910,
            1200,
            chat
            + [_attr("gen_ai.usage.input_tokens", 260), _attr("gen_ai.usage.output_tokens", 9)],
        ),
    ]
    document = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    return path


def seed_monitor_run(store: Any, tmp_dir: Any) -> str:
    """A monitor pass over :func:`traces_file`, stored as the monitor stores it."""
    from tooleval.monitor.run import monitor

    report = monitor(traces_file(tmp_dir / "traces.jsonl"), store=store)
    return str(report.run_id)


ORDERS_ENV = Path(__file__).resolve().parents[2] / "examples" / "orders_env"


def seed_orders_run(store: Any, db_path: Any) -> str:
    """A real run of examples/orders_env (its plan, its scripted agent), scored by state_match.

    Made by ``tooleval run plan.yaml`` in its own process, on the same store file.
    """
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "tooleval", "run", "plan.yaml", "--store", str(db_path)],
        cwd=ORDERS_ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return next(r.id for r in store.list_runs() if r.name == "orders-env")


def seed_cluster_run(store: Any) -> str:
    """Wrong-argument clusters on one tool, where a search by class and tool over-matches.

    ``wrong issue_refund.amount`` (3 rows) and ``wrong issue_refund.order_id`` (2 rows)
    share the class and the tool: searching ``issue_refund`` finds 5 rows for either.
    """
    cases = []
    for n in range(8):
        order = str(6600 + n)
        expected = [call("issue_refund", order_id=order, amount=30)]
        if n < 3:
            actual = [call("issue_refund", order_id=order, amount=300 + n)]
        elif n < 5:
            actual = [call("issue_refund", order_id="9999", amount=30)]
        else:
            actual = list(expected)
        cases.append(
            dict(
                id=f"refund-{n}",
                category="refund",
                input=f"Refund 30 USD on order {order}.",
                expected=expected,
                actual=actual,
                output="Refunded.",
            )
        )
    records = [_record(i, c) for i, c in enumerate(cases)]
    return seed_run(store, records, name="refund clusters", dataset={"path": "refunds.jsonl"})


def seed_usage_run(store: Any) -> str:
    """Rows whose raw responses record the agent's tokens, and a judged metric's usage."""
    from tooleval.model import Diagnosis

    records = []
    for index, case in enumerate(_cases("b")[:4]):
        base = _record(index, case)
        judge = {
            "model": "local",
            "calls": 1,
            "cached_calls": index % 2,
            "tokens_in": 200,
            "tokens_out": 20,
            "latency_ms": 5.0,
        }
        judged = Result.scored(
            "helpfulness",
            1.0,
            reason="helpful",
            threshold=0.5,
            diagnosis=Diagnosis(details={"judge": judge}),
        )
        raw = {"usage": {"prompt_tokens": 1000 + index, "completion_tokens": 50}}
        if index == 3:
            raw = {"turns": [{"usage": {"prompt_tokens": 10, "completion_tokens": 1}}] * 3}
        records.append(dataclasses.replace(base, results=(*base.results, judged), raw_response=raw))
    return seed_run(
        store,
        records,
        name="usage run",
        dataset={"path": "usage.jsonl"},
        connector={"type": "openai"},
        metrics=[*METRICS, MetricSpec("helpfulness", {}, 0.5)],
    )
