"""Runner throughput and run-store read latency (prints numbers, never asserts).

1. ``tooleval run`` machinery end to end (dataset → HTTP connector → JSONPath
   extraction → tool_correctness → store, each row committed as it finishes,
   grouped with the others that finished while a commit ran) against the
   local agent of bench/bench_agent.py answering after 50 ms, at concurrency
   1, 8 and 64: rows per second. The agent runs under uvicorn in its own
   process (as a real agent would), so the runner shares no GIL with it.
2. The run store on a 100,000-row run: bulk insert, then what the web viewer
   and ``runs show`` ask for first (first page, filtered page, counts, header).

    python bench/bench_runner.py [--store URL] [--rows-1 N] [--store-rows N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agent import bench_plan, dataset, start_agent  # noqa: E402

from tooleval.model import Diagnosis, ExpectedTools, Result, Sample, ToolCall  # noqa: E402
from tooleval.runs import run_plan  # noqa: E402
from tooleval.store import MetricSpec, RowRecord, open_store  # noqa: E402

LATENCY_S = 0.05


# ---------------------------------------------------------------- runner


def bench_runner(store_url: str | None, rows_by_concurrency: dict[int, int]) -> list[dict]:
    results = []
    with start_agent(LATENCY_S) as agent, tempfile.TemporaryDirectory() as tmp:
        store = open_store(store_url or Path(tmp) / "runs.db")
        try:
            for concurrency, rows in rows_by_concurrency.items():
                results.append(_one_run(store, agent.url, Path(tmp), concurrency, rows))
        finally:
            store.close()
    return results


def _one_run(store, url: str, tmp: Path, concurrency: int, rows: int) -> dict:
    plan = bench_plan(f"bench-c{concurrency}", dataset(tmp / f"d{concurrency}.jsonl", rows), url)
    started = time.perf_counter()
    cpu = time.process_time()
    outcome = run_plan(plan, store=store, concurrency=concurrency)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    if outcome.run.row_count != rows or outcome.run.error_count:
        raise RuntimeError(f"bench run incomplete: {outcome.run}")
    ideal = concurrency / LATENCY_S
    print(
        f"concurrency {concurrency:>3}: {rows:>5} rows in {elapsed:6.2f} s = "
        f"{rows / elapsed:7.1f} rows/s (ideal {ideal:.0f}); runner CPU {cpu / rows * 1000:.2f} ms/row"
    )
    return {
        "concurrency": concurrency,
        "rows": rows,
        "seconds": round(elapsed, 2),
        "rows_per_s": round(rows / elapsed, 1),
        "ideal_rows_per_s": round(ideal, 1),
        "runner_cpu_ms_per_row": round(cpu / rows * 1000, 2),
    }


# ---------------------------------------------------------------- store


def _record(run_id: str, index: int) -> RowRecord:
    failed = index % 5 == 0
    diagnosis = Diagnosis(
        missing=[{"name": "cancel_order", "args": None, "index": 1}] if failed else []
    )
    sample = Sample(
        input=f"cancel order {index}",
        tools_called=[ToolCall("lookup_order", {"order_id": str(index)})],
        expected_tools=ExpectedTools.of(["lookup_order", "cancel_order"]),
        category=("cancel", "refund", "status")[index % 3],
        id=f"r{index}",
    )
    result = Result.scored(
        "tool_correctness", 0.5 if failed else 1.0, reason="r", threshold=0.75, diagnosis=diagnosis
    )
    return RowRecord(
        run_id,
        index,
        f"r{index}",
        sample,
        (result,),
        latency_ms=50.0,
        raw_response={"output": "done", "steps": [{"type": "tool_call"}]},
        failure_class="missing_tool" if failed else None,
    )


def _timed(label: str, fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    print(f"  {label:<48} {best * 1000:8.1f} ms")
    return round(best * 1000, 1)


def bench_store(store_url: str | None, rows: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(store_url or Path(tmp) / "runs.db")
        try:
            run_id = store.create_run(
                "bench-store", dataset={}, connector={}, metrics=[MetricSpec("tool_correctness")]
            )
            started = time.perf_counter()
            batch = 5000
            for start in range(0, rows, batch):
                store.add_rows(
                    run_id, [_record(run_id, i) for i in range(start, min(rows, start + batch))]
                )
            insert_s = time.perf_counter() - started
            print(
                f"store: {rows} rows bulk-inserted in {insert_s:.1f} s ({rows / insert_s:.0f} rows/s)"
            )
            out = {"rows": rows, "bulk_insert_rows_per_s": round(rows / insert_s)}
            out["first_page_ms"] = _timed(
                "first page (50 rows, index order)", lambda: list(store.iter_rows(run_id, limit=50))
            )
            out["failed_page_ms"] = _timed(
                "first page of failed rows",
                lambda: list(store.iter_rows(run_id, passed=False, limit=50)),
            )
            out["metric_failed_page_ms"] = _timed(
                "first page, metric=tool_correctness passed=False",
                lambda: list(
                    store.iter_rows(run_id, metric="tool_correctness", passed=False, limit=50)
                ),
            )
            out["category_deep_page_ms"] = _timed(
                "category=refund, page at offset 20000",
                lambda: list(store.iter_rows(run_id, category="refund", offset=20000, limit=50)),
            )
            out["search_page_ms"] = _timed(
                "search 'order 9999' (scans the run)",
                lambda: list(store.iter_rows(run_id, search="order 9999", limit=50)),
            )
            out["count_failed_ms"] = _timed(
                "count_rows(passed=False)", lambda: store.count_rows(run_id, passed=False)
            )
            out["get_run_ms"] = _timed(
                "get_run (per-metric summary)", lambda: store.get_run(run_id)
            )
            return out
        finally:
            store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="store URL (default: a temporary SQLite file)")
    parser.add_argument("--rows-1", type=int, default=100, help="rows at concurrency 1")
    parser.add_argument("--rows-8", type=int, default=400, help="rows at concurrency 8")
    parser.add_argument("--rows-64", type=int, default=2000, help="rows at concurrency 64")
    parser.add_argument("--store-rows", type=int, default=100_000, help="rows for the store bench")
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args(argv)
    runner = bench_runner(args.store, {1: args.rows_1, 8: args.rows_8, 64: args.rows_64})
    store = bench_store(args.store, args.store_rows)
    if args.json:
        Path(args.json).write_text(json.dumps({"runner": runner, "store": store}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
