"""Time the viewer and the report on runs of a million rows (SQLite), with stored aggregates.

    .venv/bin/python bench/viewer_scale.py [--rows 1000000] [--keep DB] [--no-compare]
        [--pages-only]

Builds two runs (A baseline, B with fixed and regressed rows) as
``bench_viewer_scale.py`` builds them (a seed through the store's API, doubled
inside the database), then measures, each in a fresh app and store (cold):

- ``tooleval aggregate`` per run (what a finished run pays once);
- every viewer page through the ASGI app (TestClient; server time to the
  full HTML), and the first contentful paint in Chromium for the main pages
  (a real uvicorn on 127.0.0.1, Debian's chromium through Playwright);
- ``tooleval report`` and ``report --compare`` builds;
- the first comparison of A and B (computed from lean rows, then stored).

Prints a Markdown table; paste it into bench/measurements.md ("Viewer at a
million rows").
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

# One way to build a big run: the seed written through the store's API, doubled in SQL.
from bench_viewer_scale import build_run  # noqa: E402


class Lines(list):
    """The result lines, printed as they come (a slow step shows what came before it)."""

    def append(self, line: str) -> None:
        super().append(line)
        print(line, flush=True)


CPU: list[float] = []


def seconds(fn) -> tuple[float, object]:
    """Wall seconds of ``fn()`` (its CPU seconds are left in ``CPU[-1]``)."""
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    CPU.append(time.process_time() - cpu)
    return time.perf_counter() - start, value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# First contentful paint, else (headless may not report paints) the DOMContentLoaded time.
PAINT = """() => new Promise(resolve => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fallback = setTimeout(() => resolve(['domcontentloaded', nav.domContentLoadedEventEnd]), 3000);
  new PerformanceObserver(list => {
    const entry = list.getEntriesByName('first-contentful-paint')[0];
    if (entry) { clearTimeout(fallback); resolve(['first contentful paint', entry.startTime]); }
  }).observe({type: 'paint', buffered: true});
})"""


def paint_times(db: Path, urls: dict[str, str]) -> dict[str, list]:
    """First contentful paint (ms from navigation start) of each page in Chromium."""
    if not Path("/usr/bin/chromium").exists():
        return {}
    import uvicorn
    from playwright.sync_api import sync_playwright

    from tooleval.store import open_store
    from tooleval.web import create_app

    store = open_store(db)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
        )
        page = browser.new_page()
        for label, url in urls.items():
            page.goto(f"http://127.0.0.1:{port}{url}", wait_until="load")
            found[label] = page.evaluate(PAINT)
        browser.close()
    server.should_exit = True
    thread.join(timeout=5)
    store.close()
    return found


def main() -> int:
    from fastapi.testclient import TestClient

    from tooleval.analysis.aggregates import aggregate_run
    from tooleval.report import build_report
    from tooleval.report.compare import comparison_page
    from tooleval.store import open_store
    from tooleval.web import create_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keep", metavar="DB", help="write the store here and keep it")
    parser.add_argument("--no-compare", action="store_true", help="one run only")
    parser.add_argument(
        "--pages-only",
        action="store_true",
        help="with --keep of an aggregated store: skip `aggregate` and the first comparison",
    )
    args = parser.parse_args()
    out = Lines()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.keep) if args.keep else Path(tmp) / "runs.db"
        store = open_store(db)
        existing = {r.name: r.id for r in store.list_runs()}
        names = (f"scale A {args.rows}", f"scale B {args.rows}")
        build_s = 0.0
        if names[0] in existing:
            a = existing[names[0]]
            b = existing.get(names[1])
        else:
            took, a = seconds(lambda: build_run(store, args.rows, "a", names[0]))
            build_s += took
            b = None
        if b is None and not args.no_compare:
            took, b = seconds(lambda: build_run(store, args.rows, "b", names[1]))
            build_s += took
        size_mb = os.path.getsize(db) / 1e6
        store.close()
        out.append(
            f"{args.rows:,} rows per run × 2 metrics; built in {build_s:.0f} s; "
            f"store file {size_mb:,.0f} MB"
        )
        for run_id in ([a, b] if b else [a]) if not args.pages_only else []:
            store = open_store(db)
            took, _ = seconds(lambda r=run_id, s=store: aggregate_run(s, r))
            out.append(
                f"| `tooleval aggregate` (once per finished run) | {took * 1000:,.0f} "
                f"| cpu {CPU[-1] * 1000:,.0f} |"
            )
            store.close()
        last = -(-args.rows // 50)
        pages = {
            "runs list": "/",
            "run page, first page": f"/runs/{a}",
            "run page, failed rows": f"/runs/{a}?result=fail",
            "run page, category + metric failed": f"/runs/{a}?category=refund&metric=tool_call_f1&result=fail",
            "run page, failure class": f"/runs/{a}?failure_class=missing_tool",
            f"run page, last page ({last:,})": f"/runs/{a}?page={last}",
            "run page, lowest score first": f"/runs/{a}?sort=score",
            "run page, search an argument value": f"/runs/{a}?q=5503",
            "score histogram SVG": f"/runs/{a}/charts/scores.svg?metric=tool_correctness",
            "row page": f"/runs/{a}/rows/{args.rows // 2}",
            "row page in a filtered view (next/prev)": f"/runs/{a}/rows/1?result=fail&pos=0",
        }
        if b:
            pages["compare page (stored comparison)"] = f"/compare?a={a}&b={b}"
            pages["compare, regressed only"] = f"/compare?a={a}&b={b}&change=regressed"
            pages["compare, one row side by side"] = f"/compare/row?a={a}&b={b}&ia=4&ib=4"
        if b and not args.pages_only:
            store = open_store(db)
            took, _ = seconds(lambda: comparison_page(store, a, b, refresh=True))
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            out.append(
                f"| first comparison of A and B (lean rows; then stored) | {took * 1000:,.0f} "
                f"| cpu {CPU[-1] * 1000:,.0f} |"
            )
            store.close()
        for label, url in pages.items():
            store = open_store(db)
            client = TestClient(create_app(store), base_url="http://127.0.0.1")
            took, response = seconds(lambda u=url, c=client: c.get(u))
            assert response.status_code == 200, (url, response.status_code, response.text[:300])
            again, _ = seconds(lambda u=url, c=client: c.get(u))
            out.append(f"| {label} | {took * 1000:,.0f} | {again * 1000:,.0f} |")
            store.close()
        store = open_store(db)
        took, _ = seconds(lambda: build_report(store, a))
        out.append(
            f"| `tooleval report` (200 cards) | {took * 1000:,.0f} | cpu {CPU[-1] * 1000:,.0f} |"
        )
        if b:
            took, _ = seconds(lambda: build_report(store, b, compare_with=a))
            out.append(
                f"| `tooleval report --compare` | {took * 1000:,.0f} | cpu {CPU[-1] * 1000:,.0f} |"
            )
        store.close()
        paints = paint_times(
            db,
            {
                "run page": f"/runs/{a}",
                "run page, failed rows": f"/runs/{a}?result=fail",
                "row page": f"/runs/{a}/rows/{args.rows // 2}",
                **({"compare page": f"/compare?a={a}&b={b}"} if b else {}),
            },
        )
        for label, (kind, ms) in paints.items():
            out.append(f"| Chromium {kind}: {label} | {ms:,.0f} |")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out.append(f"peak memory of the benchmark process: {peak:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
