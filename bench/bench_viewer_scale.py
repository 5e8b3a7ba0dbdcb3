"""Time every viewer page of three million-row runs over HTTP, on SQLite or PostgreSQL.

    .venv/bin/python bench/bench_viewer_scale.py --store /tmp/scale/runs.db [--rows 1000000]
    .venv/bin/python bench/bench_viewer_scale.py --store postgresql://...  [--build-only]

Builds (once: a store that already holds the runs is reused) three runs of
``--rows`` rows (A baseline, B with fixed and regressed rows, C like A): a
seed of ``rows / 32`` rows is written through the store's API, then doubled
five times inside the database (``INSERT ... SELECT``: rows, results and the
search index's triggers), each copy with its own row ids and latencies. Each
run is then finished and aggregated as ``tooleval run`` leaves it.

Then, each page through a real uvicorn server on 127.0.0.1:

- **cold**: the first request to a freshly started viewer (new process state:
  new store, new engine, nothing cached in Python; the database's own page
  cache is whatever the OS holds);
- **warm**: the median of three more requests to the same server;
- **first paint**: Chromium's first contentful paint of the page (Playwright,
  Debian's /usr/bin/chromium), for the main pages;

and ``tooleval report`` of run A (its size and time). Prints a Markdown table
for docs/performance.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import socket
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOUBLINGS = 5
COPY_SLICE = 62_500


def _copy_rows(store, run_id: str, size: int, copy: int) -> None:
    """Rows ``[size, 2 * size)`` of ``run_id`` as copies of rows ``[0, size)``."""
    import sqlalchemy as sa

    from tooleval.store import schema as t

    rows, res = t.rows.c, t.results.c
    suffix = f"~{copy}"
    row_cols = [c.name for c in t.rows.c]
    picked = []
    for column in t.rows.c:
        if column.name == "row_index":
            picked.append((rows.row_index + size).label("row_index"))
        elif column.name == "row_id":
            picked.append((rows.row_id + suffix).label("row_id"))
        elif column.name == "latency_ms":
            picked.append((rows.latency_ms * (1.0 + 0.07 * copy)).label("latency_ms"))
        else:
            picked.append(column)
    result_cols = [c.name for c in t.results.c]
    moved = [
        (res.row_index + size).label("row_index") if c.name == "row_index" else c
        for c in t.results.c
    ]
    # Slices of COPY_SLICE rows per statement: one statement copying 500k rows outlived
    # PostgreSQL's statement timeout (the store's 5 minutes) at load 12.
    with store._write() as conn:
        for low in range(0, size, COPY_SLICE):
            high = min(size, low + COPY_SLICE)
            conn.execute(
                t.rows.insert().from_select(
                    row_cols,
                    sa.select(*picked).where(
                        rows.run_id == run_id, rows.row_index >= low, rows.row_index < high
                    ),
                )
            )
            conn.execute(
                t.results.insert().from_select(
                    result_cols,
                    sa.select(*moved).where(
                        res.run_id == run_id, res.row_index >= low, res.row_index < high
                    ),
                )
            )


def build_run(store, rows: int, variant: str, name: str) -> str:
    """A finished, aggregated run of ``rows`` rows from the seed cases of ``variant``."""
    from tests.web.seed import METRICS, _cases, _record

    from tooleval.analysis.aggregates import store_aggregates
    from tooleval.store.counters import recount

    seed = max(1, rows >> DOUBLINGS)
    templates = [_record(i, c) for i, c in enumerate(_cases(variant))]
    run_id = store.create_run(
        name, dataset={"path": "big.jsonl"}, connector={"type": "python"}, metrics=METRICS
    )
    batch = []
    for index in range(seed):
        template = templates[index % len(templates)]
        row_id = f"{template.row_id}-{index}"
        sample = dataclasses.replace(template.sample, id=row_id)
        latency = (template.latency_ms or 100.0) * (1 + (index * 7919 % 1000) / 500)
        batch.append(
            dataclasses.replace(
                template, index=index, row_id=row_id, sample=sample, latency_ms=latency
            )
        )
        if len(batch) >= 5_000:
            store.add_rows(run_id, batch)
            batch = []
    if batch:
        store.add_rows(run_id, batch)
    size = seed
    for copy in range(1, DOUBLINGS + 1):
        _copy_rows(store, run_id, size, copy)
        size *= 2
        print(f"  {name}: {size:,} rows", flush=True)
    with store._write() as conn:
        # The copies were made in SQL, past the row writer: count the run's counters again.
        recount(conn, run_id)
    store.finish_run(run_id)
    problem = store_aggregates(store, run_id)
    if problem:
        raise SystemExit(f"aggregating {name}: {problem}")
    return run_id


def ensure_runs(url: str, rows: int) -> list[str]:
    """The ids of runs A, B and C of ``rows`` rows in ``url`` (built when absent)."""
    from tooleval.store import open_store

    store = open_store(url)
    have = {r.name: r.id for r in store.list_runs()}
    ids = []
    for variant, letter in (("a", "A"), ("b", "B"), ("a", "C")):
        name = f"scale {letter} {rows}"
        if name not in have:
            started = time.perf_counter()
            have[name] = build_run(store, rows, variant, name)
            print(f"built {name} in {time.perf_counter() - started:,.0f} s", flush=True)
        ids.append(have[name])
    store.close()
    return ids


def store_comparisons(url: str, ids: list[str]) -> list[tuple[str, float]]:
    """Compute and store the comparison of A and B and the matrix of A, B, C (what the
    first view of each does); seconds of each, or about nothing when already stored."""
    from tooleval.report.compare import comparison_page
    from tooleval.report.matrix import matrix_rows
    from tooleval.store import open_store

    store = open_store(url)
    found = []
    started = time.perf_counter()
    comparison_page(store, ids[0], ids[1])
    found.append(
        ("first view of compare A and B (computed, then stored)", time.perf_counter() - started)
    )
    runs = sorted((store.get_run(i) for i in ids), key=lambda r: (r.created_at, r.id))
    started = time.perf_counter()
    matrix_rows(store, runs, offset=0, limit=50)
    found.append(
        (
            "first view of the matrix of A, B, C (computed, then stored)",
            time.perf_counter() - started,
        )
    )
    store.close()
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Viewer:
    """``tooleval view`` on a free port, in a process of its own (started fresh = cold)."""

    def __init__(self, url: str) -> None:
        import os
        import subprocess

        self.port = free_port()
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tooleval", "view", "--store", url, "--port", str(self.port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        import httpx

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the viewer stopped: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                httpx.get(self.base + "/favicon.ico", timeout=5)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise SystemExit("the viewer did not start within 120 s")

    def get(self, path: str) -> tuple[float, int, int]:
        """Seconds to the full response, its status and its size in bytes."""
        import httpx

        started = time.perf_counter()
        response = httpx.get(self.base + path, timeout=600)
        return time.perf_counter() - started, response.status_code, len(response.content)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


# First contentful paint, else (headless may not report paints) DOMContentLoaded.
PAINT = """() => new Promise(resolve => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fallback = setTimeout(() => resolve(['dcl', nav.domContentLoadedEventEnd]), 3000);
  new PerformanceObserver(list => {
    const entry = list.getEntriesByName('first-contentful-paint')[0];
    if (entry) { clearTimeout(fallback); resolve(['fcp', entry.startTime]); }
  }).observe({type: 'paint', buffered: true});
})"""


def pages(ids: list[str], rows: int) -> dict[str, str]:
    a = ids[0]
    last = -(-rows // 50)
    found = {
        "runs list": "/",
        "run overview (first page)": f"/runs/{a}",
        "failed rows": f"/runs/{a}?result=fail",
        "failure class": f"/runs/{a}?failure_class=missing_tool",
        "category + metric failed": f"/runs/{a}?category=refund&metric=tool_call_f1&result=fail",
        f"deep page ({last // 2:,})": f"/runs/{a}?page={last // 2}",
        f"last page ({last:,})": f"/runs/{a}?page={last}",
        "deep page by key (after=)": f"/runs/{a}?after={rows // 2}&page={last // 2}",
        "previous page by key (before=)": f"/runs/{a}?before={rows // 2}&page={last // 2}",
        "last page by key (end=1)": f"/runs/{a}?end=1",
        "failure class by key (after=)": f"/runs/{a}?failure_class=missing_tool&after={rows // 2}",
        "slowest first by key (after=)": f"/runs/{a}?sort=-latency&after={rows // 2}",
        "deep page, failure class": f"/runs/{a}?failure_class=missing_tool&page=2000",
        "slowest first": f"/runs/{a}?sort=-latency",
        "lowest score first": f"/runs/{a}?sort=score&metric=tool_call_f1",
        "search an argument value": f"/runs/{a}?q=5503",
        "search, page 20": f"/runs/{a}?q=5503&page=20",
        "search, nothing matches": f"/runs/{a}?q=no+such+text",
        "row page": f"/runs/{a}/rows/{rows // 2}",
        "row page in a filtered view": f"/runs/{a}/rows/1?result=fail&pos=0",
        "score histogram SVG": f"/runs/{a}/charts/scores.svg?metric=tool_correctness",
    }
    if len(ids) == 3:
        b, c = ids[1:]
        found["compare A and B"] = f"/compare?a={a}&b={b}"
        found["compare, regressed only"] = f"/compare?a={a}&b={b}&change=regressed"
        found["matrix of A, B, C"] = f"/compare?run={a}&run={b}&run={c}"
        found["matrix, page 2000"] = f"/compare?run={a}&run={b}&run={c}&page=2000"
    return found


PAINTED = (
    "run overview (first page)",
    "failed rows",
    "search an argument value",
    "compare A and B",
    "matrix of A, B, C",
)


def paint_times(url: str, wanted: dict[str, str]) -> dict[str, tuple[str, float]]:
    """First contentful paint (ms from navigation start) of each page, on a started viewer."""
    if not Path("/usr/bin/chromium").exists():
        return {}
    from playwright.sync_api import sync_playwright

    viewer = Viewer(url)
    found = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
            )
            page = browser.new_page()
            for label, path in wanted.items():
                page.goto(viewer.base + path, wait_until="load", timeout=600_000)
                kind, ms = page.evaluate(PAINT)
                found[label] = (kind, float(ms))
            browser.close()
    finally:
        viewer.close()
    return found


def cpu_times(url: str, wanted: dict[str, str], only: str | None) -> dict[str, float]:
    """CPU milliseconds of each page in one process (app and client), warm.

    The load of a shared machine stretches wall times; the CPU a page costs
    is what a quiet 2-core machine would spend (plus the database server's
    own time on PostgreSQL, which runs in its own processes).
    """
    from fastapi.testclient import TestClient

    from tooleval.store import open_store
    from tooleval.web import create_app

    store = open_store(url)
    client = TestClient(create_app(store), base_url="http://127.0.0.1")
    found = {}
    for label, path in wanted.items():
        if only and only not in label:
            continue
        client.get(path)
        spent = []
        for _ in range(3):
            started = time.process_time()
            client.get(path)
            spent.append(time.process_time() - started)
        found[label] = statistics.median(spent) * 1000
    store.close()
    return found


def report_time(url: str, run_id: str) -> tuple[float, int, int]:
    """``tooleval report`` of ``run_id``: seconds, bytes, and the row cards it holds."""
    from tooleval.report import build_report
    from tooleval.store import open_store

    store = open_store(url)
    started = time.perf_counter()
    html = build_report(store, run_id)
    took = time.perf_counter() - started
    store.close()
    return took, len(html.encode()), html.count('id="row-')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="SQLite file or postgresql:// URL")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--only", help="time only the pages whose label contains this")
    parser.add_argument(
        "--run",
        help="with --single: time the run of this name (a run left running: the live overview)",
    )
    parser.add_argument(
        "--single",
        action="store_true",
        help="time the pages of run A as it is (no build, no comparison or matrix)",
    )
    args = parser.parse_args()
    if args.single:
        from tooleval.store import open_store

        store = open_store(args.store)
        name = args.run or f"scale A {args.rows}"
        run = next(r for r in store.list_runs() if r.name == name)
        ids, rows = [run.id], store.get_run(run.id).row_count
        store.close()
    else:
        ids, rows = ensure_runs(args.store, args.rows), args.rows
    if args.build_only:
        return 0
    if len(ids) == 3 and not args.only:
        for label, took in store_comparisons(args.store, ids):
            print(f"{label}: {took * 1000:,.0f} ms", flush=True)
    kind = "PostgreSQL" if args.store.startswith("postgresql") else "SQLite"
    print(f"\n{kind}, {len(ids)} run(s) × {rows:,} rows × 2 metrics\n")
    print("| page | cold ms | warm ms (median of 3) | status | KB |")
    print("|---|---:|---:|---:|---:|")
    wanted = pages(ids, rows)
    for label, path in wanted.items():
        if args.only and args.only not in label:
            continue
        viewer = Viewer(args.store)
        try:
            cold, status, size = viewer.get(path)
            warm = statistics.median(viewer.get(path)[0] for _ in range(3))
        finally:
            viewer.close()
        print(
            f"| {label} | {cold * 1000:,.0f} | {warm * 1000:,.0f} | {status} | {size / 1024:,.0f} |",
            flush=True,
        )
    print("\n| page | CPU ms in process, warm (median of 3) |\n|---|---:|")
    for label, ms in cpu_times(args.store, wanted, args.only).items():
        print(f"| {label} | {ms:,.0f} |", flush=True)
    took, size, cards = report_time(args.store, ids[0])
    print(f"| `tooleval report` of A | {took * 1000:,.0f} | | {cards} cards | {size / 1024:,.0f} |")
    for label, (what, ms) in paint_times(
        args.store, {k: v for k, v in wanted.items() if k in PAINTED}
    ).items():
        print(f"| Chromium first paint ({what}): {label} | {ms:,.0f} | | | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
