"""Time the viewer's run page on a 100k-row SQLite run; append "## Viewer" to bench/measurements.md.

    .venv/bin/python bench/bench_viewer.py [--rows 100000] [--keep DB]

Builds the run through the store's bulk write API (``add_rows``), then times
first-page renders through FastAPI's TestClient (the same ASGI app uvicorn
serves): the plain first page, filtered pages, a deep page, a row page, and
the store queries the run page makes, so a slow page can be traced to a query.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """(first, median of the rest) in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times[0], statistics.median(times[1:] or times)


def main() -> int:
    from fastapi.testclient import TestClient
    from tests.web.seed import seed_many

    from tooleval.store import open_store
    from tooleval.web import create_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DB", help="write the store here and keep it")
    parser.add_argument("--no-docs", action="store_true", help="print only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.keep) if args.keep else Path(tmp) / "runs.db"
        store = open_store(db)
        start = time.perf_counter()
        run = seed_many(store, args.rows, name=f"bench {args.rows} rows")
        build_s = time.perf_counter() - start
        client = TestClient(create_app(store))
        last_page = -(-args.rows // 50)
        pages = {
            "run page, first page (50 rows)": f"/runs/{run}",
            "run page, failed rows only": f"/runs/{run}?result=fail",
            "run page, category + metric failed": f"/runs/{run}?category=refund&metric=tool_call_f1&result=fail",
            "run page, failure class": f"/runs/{run}?failure_class=missing_tool",
            f"run page, last page ({last_page})": f"/runs/{run}?page={last_page}",
            "run page, sorted by score": f"/runs/{run}?metric=tool_correctness&sort=score",
            "run page, text search": f"/runs/{run}?q=5503",
            "row page": f"/runs/{run}/rows/{args.rows // 2}",
            "runs list": "/",
        }
        results = []
        for label, url in pages.items():
            start = time.perf_counter()
            response = client.get(url)
            cold = (time.perf_counter() - start) * 1000
            assert response.status_code == 200, (url, response.status_code)
            _, median = timed(lambda u=url: client.get(u))
            results.append((label, cold, median))
        chart_first, chart_again = timed(
            lambda: client.get(f"/runs/{run}/charts/scores.svg?metric=tool_correctness"), 2
        )
        info = store.get_run(run)
        queries = {
            "get_run (per-metric summaries)": lambda: store.get_run(run),
            "categories": lambda: store.categories(run),
            "count_rows(run)": lambda: store.count_rows(run),
            "count_rows(passed=False)": lambda: store.count_rows(run, passed=False),
            "count_rows(category, metric, passed)": lambda: store.count_rows(
                run, category="refund", metric="tool_call_f1", passed=True
            ),
            "count_rows(failure_class)": lambda: store.count_rows(run, failure_class="extra_tool"),
            "iter_rows(limit=50)": lambda: list(store.iter_rows(run, limit=50)),
            "iter_rows(offset=last, limit=50)": lambda: list(
                store.iter_rows(run, offset=args.rows - 50, limit=50)
            ),
        }
        query_times = [(label, *timed(fn)) for label, fn in queries.items()]
        store.close()
    lines = [
        "",
        "## Viewer",
        "",
        f"`bench/bench_viewer.py` on {datetime.now(UTC):%Y-%m-%d}: one SQLite run of "
        f"{args.rows:,} rows × {len(info.metrics)} metrics, written with `add_rows` in "
        f"{build_s:.1f} s; pages rendered by the viewer app through TestClient (2 shared cores).",
        "",
        "| page | first (cold) render ms | median ms of 2 more after a warm-up (overview cached) |",
        "|---|---:|---:|",
        *(f"| {label} | {first:.0f} | {median:.0f} |" for label, first, median in results),
        f"| score histogram SVG (streams every row; cached for finished runs) | {chart_first:.0f} "
        f"| {chart_again:.0f} |",
        "",
        "Store queries behind the run page:",
        "",
        "| query | first ms | median ms |",
        "|---|---:|---:|",
        *(f"| {label} | {first:.0f} | {median:.0f} |" for label, first, median in query_times),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_docs:
        docs = ROOT / "bench" / "measurements.md"
        existing = docs.read_text() if docs.exists() else "# Performance\n"
        docs.write_text(existing.rstrip("\n") + "\n" + text)
        print(f"appended to {docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
