"""CI features on a 600-row run against the agent stub (prints numbers, never asserts).

Faults at ~3% (a 503 then success, retried), then: the run with ``--repeat
2``; the same run again from the response cache (calls, seconds); a rescore
of the stored answers with another metric; the Markdown summary; and how
close ``--max-rps`` holds its rate.

    python bench/bench_ci_runs.py [--rows N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.agent_stub import AgentStub  # noqa: E402

from tooleval.analysis.summary_md import run_summary_markdown  # noqa: E402
from tooleval.runs import plan_from_dict, run_plan  # noqa: E402
from tooleval.runs.rescore import parse_metric_specs, rescore_run  # noqa: E402
from tooleval.runs.response_cache import ResponseCache  # noqa: E402
from tooleval.store import open_store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=600)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, AgentStub() as stub:
        folder = Path(tmp)
        with (folder / "cases.jsonl").open("w") as out:
            for i in range(args.rows):
                text = f"question {i}"
                faulty = i % 33 == 0
                stub.script(text, tools=["search", "answer"], fail_times=1 if faulty else 0,
                            fail_status=503)  # fmt: skip
                out.write(json.dumps({"id": f"q{i}", "input": text,
                                      "expected_tools": ["search", "answer"]}) + "\n")  # fmt: skip
        plan = plan_from_dict(
            {
                "dataset": "cases.jsonl",
                "connector": {
                    "url": stub.url + "/agent",
                    "retry": {"retries": 2, "backoff": 0.01},
                    "response": {"tools_called": "$.steps[?(@.type=='tool_call')].tool.name"},
                },
                "metrics": ["tool_correctness"],
                "concurrency": 16,
            },
            base_dir=folder,
        )
        with open_store(folder / "runs.db") as store:
            cache = ResponseCache(folder / "responses.db")
            started = time.perf_counter()
            first = run_plan(plan, store=store, repeat=2, cache=cache)
            took = time.perf_counter() - started
            calls = len(stub.requests)
            print(f"run --repeat 2 --cache: {first.run.row_count} rows in {took:.2f} s "
                  f"({first.run.row_count / took:.0f} rows/s), {calls} HTTP requests, "
                  f"{first.run.error_count} errors")  # fmt: skip
            started = time.perf_counter()
            again = run_plan(plan, store=store, repeat=2, cache=cache)
            took = time.perf_counter() - started
            print(f"same run from the cache: {again.run.row_count} rows in {took:.2f} s, "
                  f"{len(stub.requests) - calls} HTTP requests, {cache.hits} hits")  # fmt: skip
            started = time.perf_counter()
            specs = parse_metric_specs(["tool_call_f1"], ["args=ignore"])
            new = rescore_run(store, first.run_id, specs)
            took = time.perf_counter() - started
            print(f"rescore {store.get_run(new).row_count} rows: {took:.2f} s, 0 requests")
            started = time.perf_counter()
            text = run_summary_markdown(store, first.run_id, baseline=again.run_id)
            print(f"summary-md: {len(text)} chars in {time.perf_counter() - started:.2f} s")
            before = len(stub.requests)
            started = time.perf_counter()
            run_plan(plan, store=store, max_rps=50.0, concurrency=16)
            took = time.perf_counter() - started
            sent = len(stub.requests) - before
            print(f"--max-rps 50: {sent} requests in {took:.2f} s = {sent / took:.1f} req/s "
                  "(burst 50 first)")  # fmt: skip


if __name__ == "__main__":
    main()
