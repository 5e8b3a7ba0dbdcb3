"""Regenerate the README screenshots of the viewer in Debian's Chromium.

    .venv/bin/python bench/viewer_screenshots.py

Seeds a throwaway SQLite store with the test suite's support-agent runs,
serves the viewer with uvicorn on a free 127.0.0.1 port and writes
docs/images/run-page.png (failed rows with the "why" column), row-card.png,
transcript.png (a logged conversation's row card), trace-spans.png (a
monitored session's span timeline), compare-row.png (one row of two runs
side by side, expected calls aligned), matrix.png (three runs, rows x runs),
overview.png (a gated run's header and gate verdict), usage.png (tokens and
cost), compare-intervals.png (pass rates and the paired delta with intervals),
cluster-rows.png (one failure cluster's rows, its filter chip), state-diff.png
(a replayed examples/orders_env row) and run-page-phone-dark.png (390 px
wide, dark scheme).
"""

from __future__ import annotations

import socket
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright
    from tests.web.seed import (
        seed_cluster_run,
        seed_monitor_run,
        seed_orders_run,
        seed_support_runs,
        seed_transcript_run,
        seed_usage_run,
    )

    from tooleval.store import open_store
    from tooleval.web import create_app

    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "runs.db")
        a, b = seed_support_runs(store)
        chats = seed_transcript_run(store)
        traces = seed_monitor_run(store, Path(tmp))
        clusters, usage = seed_cluster_run(store), seed_usage_run(store)
        orders = seed_orders_run(store, Path(tmp) / "runs.db")
        gated = store.create_run(
            "support-agent nightly",
            dataset={"path": "examples/support_agent.jsonl"},
            connector={"type": "http", "url": "http://127.0.0.1:8000/agent"},
            metrics=list(store.get_run(b).metrics),
            tags=["nightly"],
            config={"gate": {"min_pass_rate": 0.9}, "prompt": {"version": "v3"}},
        )
        store.add_rows(gated, [replace(r, run_id=gated) for r in store.iter_rows(b)])
        store.finish_run(gated)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/runs/{a}?result=fail#rows")
            page.locator("table.rows").screenshot(path=str(images / "run-page.png"))
            written.append("run-page.png")
            index = next(r.index for r in store.iter_rows(a) if r.row_id == "refund-0")
            page.goto(f"{base}/runs/{a}/rows/{index}?result=fail&pos=3")
            page.locator("article.row-card").screenshot(path=str(images / "row-card.png"))
            written.append("row-card.png")
            page.goto(f"{base}/runs/{chats}/rows/0")
            page.locator("article.row-card").screenshot(path=str(images / "transcript.png"))
            written.append("transcript.png")
            page.goto(f"{base}/runs/{traces}/rows/0")
            page.locator("table.spans").screenshot(path=str(images / "trace-spans.png"))
            written.append("trace-spans.png")
            index = next(r.index for r in store.iter_rows(b) if r.row_id == "cancel-1")
            page.goto(f"{base}/compare/row?a={a}&b={b}&ia={index}&ib={index}&change=fixed&pos=0")
            page.locator("main").screenshot(path=str(images / "compare-row.png"))
            written.append("compare-row.png")
            page.goto(f"{base}/compare?run={a}&run={b}&run={gated}")
            page.locator("main").screenshot(path=str(images / "matrix.png"))
            written.append("matrix.png")
            page.goto(f"{base}/runs/{gated}")
            page.locator("section.run-header").screenshot(path=str(images / "overview.png"))
            written.append("overview.png")
            page.goto(f"{base}/runs/{usage}")
            page.locator("section.usage").screenshot(path=str(images / "usage.png"))
            page.goto(f"{base}/compare?a={a}&b={b}")
            page.locator("table.intervals").screenshot(path=str(images / "compare-intervals.png"))
            page.goto(
                f"{base}/runs/{clusters}?failure_class=wrong_argument&detail=wrong+issue_refund.amount"
            )
            page.locator("ul.filter-chips").scroll_into_view_if_needed()
            page.screenshot(path=str(images / "cluster-rows.png"))
            index = next(
                r.index for r in store.iter_rows(orders) if r.result("state_match").passed is False
            )
            page.goto(f"{base}/runs/{orders}/rows/{index}")
            page.locator("section.state-diff-block").screenshot(path=str(images / "state-diff.png"))
            written += ["usage.png", "compare-intervals.png", "cluster-rows.png", "state-diff.png"]
            phone = browser.new_context(
                viewport={"width": 390, "height": 844}, color_scheme="dark", is_mobile=True
            ).new_page()
            phone.goto(f"{base}/runs/{a}?result=fail")
            phone.screenshot(path=str(images / "run-page-phone-dark.png"))
            written.append("run-page-phone-dark.png")
            browser.close()
        server.should_exit = True
        thread.join(timeout=5)
        store.close()
    print("wrote " + ", ".join(str(images / name) for name in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
